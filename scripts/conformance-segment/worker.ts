/**
 * One destination's Segment tests, in one of two modes (scripts/conformance-segment.ts runs both):
 * `segment` runs them as Segment does (actions-core's own test integration), `ours` with
 * `createTestIntegration` replaced by one whose `testAction` runs our runtime
 * (adapters/segment-actions/run.ts `runSegmentEvent`): the test's event, its settings as the
 * destination's `config` (its OAuth token as the `access_token` secret), and its action named with a
 * `when` taking the event's call type and its mapping (without `useDefaultMappings`, each defaulted
 * field the test leaves out is mapped to null: cleared, as the test gives no default). The requests
 * our fetch sent become the responses the test reads. Its `testBatchAction` and `executeBatch`
 * run the test's events through our runtime's batch path (batch.ts: forward-catalog's, the batch
 * sent by the action's `performBatch`). Every other method (testAuthentication…) is actions-core's
 * own in both modes, and recorded, so the run can say why such a test is not a run of ours.
 *
 * `node scripts/conformance-segment/worker.ts <mode> <slug> <out.jsonl> <test files…>`: one JSON
 * line per test (jest.ts CaseRecord, with its file), or per file that could not load.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { type EgressSender, egressFetch } from '../../adapters/egress.ts';
import type { RunResult } from '../../adapters/segment-actions/run.ts';
import type { Destination } from '../../schemas/settings.ts';
import { type BatchRun, batchFailure, runBatch } from './batch.ts';
import { NO_SUCH_ACTION, SETTINGS_INVALID } from './classify.ts';
import {
  type CaseRecord,
  currentCase,
  hasModuleMocks,
  hoistMocks,
  installGlobals,
  runFile,
  startModuleMocks,
} from './jest.ts';
import { actual, bare, builtOf, distRequire, mocks, mocksRefused, setSourceRoot } from './module-mocks.ts';
import { pinned } from './pinned.ts';
import { isMutation, mutatedFetch, type Wire, wireDiff } from './wire.ts';

const [mode, slug, outArg, ...files] = process.argv.slice(2);
if ((mode !== 'segment' && mode !== 'ours') || !slug || !outArg) {
  console.error('usage: worker.ts <segment|ours> <slug> <out.jsonl> <test files…>');
  process.exit(2);
}
const out: string = outArg;
/**
 * Our runtime broken on purpose (wire.ts MUTATIONS), for the runner's own tests: the run must fail.
 * Only in `ours` mode; never set by the run itself.
 */
const mutationArg = process.env['CONFORMANCE_MUTATION'];
if (mutationArg !== undefined && !isMutation(mutationArg)) {
  console.error(`CONFORMANCE_MUTATION: no mutation ${mutationArg}`);
  process.exit(2);
}
const mutation = mode === 'ours' && isMutation(mutationArg) ? mutationArg : undefined;
/** Each testAction of ours, with what Segment's own code sent for it: the CI tier's data (replay.ts). */
const replayOut = `${out}.replay`;

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(
  HERE,
  '..',
  '..',
  'node_modules',
  '.cache',
  'segment-conformance',
  `${mode}-${process.pid}`,
  slug,
);
const require = createRequire(join(HERE, '..', '..', 'package.json'));
const TEST_TIMEOUT_MS = 30_000;
/** actions-core's CommonJS build, the instance our runtime loads. */
const CORE_BUILD = dirname(require.resolve('@segment/actions-core'));

type Any = Record<string, unknown> & ((...a: unknown[]) => unknown);
const core = require('@segment/actions-core') as Record<string, Any>;
const fetchModule = require(join(dirname(require.resolve('@segment/actions-core')), 'fetch.js')) as {
  default: (url: string, init: Record<string, unknown>) => Promise<Response>;
  Headers: new (init?: Record<string, string>) => unknown;
  Request: new (url: string, init: Record<string, unknown>) => unknown;
  Response: new (body: string | null, init: Record<string, unknown>) => Record<string, unknown>;
};
// The original (node-fetch, which nock intercepts), taken before run.ts puts its dispatcher in place.
const nodeFetch = fetchModule.default;
const nock = require('nock') as Any & {
  cleanAll(): void;
  disableNetConnect(): void;
  enableNetConnect(h: string): void;
};

installGlobals();
nock.disableNetConnect();
nock.enableNetConnect('127.0.0.1');

/** The test-integration methods a test may call, recorded as it calls them. */
const RECORDED = [
  'testAction',
  'testBatchAction',
  'testAuthentication',
  'testDynamicField',
  'testRefreshToken',
  'refreshAccessToken',
  'onDelete',
  'onEvent',
  'onBatch',
  'executeAction',
  'executeBatch',
  'executeDynamicField',
  'createAudience',
  'getAudience',
];
/** testAction inputs of Segment's own services, which our runtime has no counterpart for. */
const INTERNAL_INPUTS = [
  'features',
  'statsContext',
  'logger',
  'engageDestinationCache',
  'transactionContext',
  'stateContext',
  'subscriptionMetadata',
];

interface TestInput {
  event?: Record<string, unknown>;
  mapping?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  useDefaultMappings?: boolean;
  auth?: { accessToken?: string };
  [k: string]: unknown;
}
/**
 * A batch case's mapping: the test's, with `enable_batching: true`, as every batch Segment's app
 * sends carries it (actions-core's testBatchAction calls `performBatch` whatever the mapping says;
 * our runtime batches only under it: core/platforms/segment-action/batching.ts). Segment's own
 * code gets the same mapping for the wire comparison.
 */
const batchMapping = (mapping: Record<string, unknown> | undefined) => ({
  ...(mapping ?? {}),
  enable_batching: true,
});

/** The access token an OAuth destination's test runs with when it gives none. */
const STAND_IN_TOKEN = 'conformance-access-token';

/** A destination setting as a definition declares it (actions-core's GlobalSetting). */
interface SettingField {
  type?: string;
  required?: boolean;
  default?: unknown;
  choices?: readonly (string | { value: unknown })[];
}

interface Definition {
  authentication?: { scheme?: string; fields?: Record<string, SettingField> };
  actions: Record<string, { fields: Record<string, { default?: unknown }> }>;
}

type Runtime = typeof import('../../adapters/segment-actions/run.ts');
let runtime: Runtime | undefined;
/** The installed destinations' build, whose modules keep state (Friendbuy's token cache…). */
const DESTINATIONS_BUILD = dirname(require.resolve('@segment/action-destinations/package.json'));

/**
 * Jest gives each test file a registry of modules of its own: a module's state (a token cached by
 * the first test, an ID counter) never carries from one file to the next. Segment's way gets that
 * from each file's bundle; ours the same way: before each file, our runtime (run.ts, its loaded
 * destinations and token cache) and the destinations' build are loaded afresh.
 */
function freshModules(file: number): void {
  runtime = undefined;
  runtimeUrl = `../../adapters/segment-actions/run.ts?file=${file}`;
  for (const key of Object.keys(require.cache))
    if (key.startsWith(`${DESTINATIONS_BUILD}/`)) delete require.cache[key];
}
let runtimeUrl = '../../adapters/segment-actions/run.ts';

/** One request our runtime's fetch sent, and what came back. */
interface Exchange {
  url: string;
  init: Record<string, unknown>;
  status: number;
  statusText: string;
  headers: [string, string][];
  text: string;
}

const oauthOf = (definition: Definition) =>
  definition.authentication?.scheme === 'oauth2' || definition.authentication?.scheme === 'oauth-managed';

/** actions-core's own settings check, one Destination per definition (Segment's code, not ours). */
const checkers = new WeakMap<Definition, { validateSettings(s: Record<string, unknown>): void }>();
function segmentRefusesSettings(definition: Definition, settings: Record<string, unknown>): boolean {
  let checker = checkers.get(definition);
  if (!checker) {
    const Core = core['Destination'] as unknown as new (
      d: unknown,
    ) => { validateSettings(s: Record<string, unknown>): void };
    checker = new Core({ ...definition, name: `segment-${slug}` });
    checkers.set(definition, checker);
  }
  try {
    checker.validateSettings(settings);
    return false;
  } catch {
    return true;
  }
}

const NATIVE_RANDOM = Math.random;
const NATIVE_NOW = Date.now;

/** The test file being run (its cases' lines name it). */
let currentFile = '';

/** A stand-in for each required setting the test leaves out: its default, first choice, or a value of its type. */
function missingRequired(definition: Definition, settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(definition.authentication?.fields ?? {})) {
    if (!field.required || settings[key] !== undefined) continue;
    const choice = field.choices?.[0];
    out[key] =
      field.default ??
      (typeof choice === 'object' && choice !== null ? choice.value : choice) ??
      (field.type === 'number' || field.type === 'integer'
        ? 1
        : field.type === 'boolean'
          ? false
          : `conformance-${key}`);
  }
  return out;
}

/**
 * One run of our runtime: its result (a batch case's: `batch`, batch.ts), what our fetch exchanged,
 * and the responses actions-core decorated. An array of events is a batch case (testBatchAction).
 */
async function runOurs(
  definition: Definition,
  input: Record<string, unknown> | readonly Record<string, unknown>[],
  destination: Destination,
  accessToken: string | undefined,
  at: number,
) {
  runtime ??= (await import(runtimeUrl)) as Runtime;
  // An OAuth destination runs with the test's token, else a stand-in one (ourTestAction): Segment's
  // test integration runs without any, where our runtime (as a configured destination always has one) needs one.
  const secrets: Record<string, string> =
    oauthOf(definition) && accessToken !== undefined ? { access_token: accessToken } : {};
  const exchanges: Exchange[] = [];
  const wire: Wire[] = [];
  const handed: Record<string, unknown>[] = [];
  // The transport after the egress gate's fetch (adapters/egress.ts egressFetch, as forward-catalog
  // gives it): what it is handed is the wire, sent on to nock's interceptors.
  const sender: EgressSender = async (request) => {
    const { method, url, headers, body } = request;
    // Every request the runtime hands the gate's fetch reaches here, in order: its index is the wire's.
    const index = wire.length;
    wire.push({ method, url, headers, body });
    const init = { method, headers, ...(body !== '' ? { body } : {}) };
    const answer = await nodeFetch(url, init);
    const text = await answer.text();
    const answerHeaders: [string, string][] = [];
    answer.headers.forEach((value, key) => {
      answerHeaders.push([key, value]);
    });
    exchanges.push({
      url,
      // The request as the runtime handed it to the gate's fetch (header names as written): what
      // the test reads; the wire above is what the gate made of it.
      init: handed[index] ?? init,
      status: answer.status,
      statusText: answer.statusText,
      headers: answerHeaders,
      text,
    });
    return {
      kind: 'response',
      status: answer.status,
      headers: Object.fromEntries(answerHeaders),
      body: text,
    };
  };
  const gate = egressFetch(sender, TEST_TIMEOUT_MS);
  const recorded = ((url: string, init: Record<string, unknown>) => {
    handed.push({ ...init });
    return gate(url, init);
  }) as typeof fetch;
  const send = mutation ? mutatedFetch(mutation, recorded) : recorded;
  const captured: Record<string, unknown>[] = [];
  capturing = captured;
  const io = { fetch: send, now: new Date(at) };
  const run = (runtime as Runtime).runSegmentEvent;
  const ran: Promise<{ result: RunResult; batch?: BatchRun }> = Array.isArray(input)
    ? (mutation === 'refuse-settings'
        ? Promise.resolve(refusedBatch(input.length, destination))
        : pinned(at, () => runBatch(run, input, destination, secrets, io, mutation === 'send-alone'))
      ).then((batch) => ({ result: batch.results[0] ?? refusedRun(destination), batch }))
    : (mutation === 'refuse-settings'
        ? Promise.resolve(refusedRun(destination))
        : pinned(at, () => run(input as Record<string, unknown>, destination, secrets, io))
      ).then((result) => ({ result }));
  const { result, batch } = await ran.finally(() => {
    capturing = undefined;
  });
  return { result, ...(batch ? { batch } : {}), exchanges, captured, wire };
}

/** The `refuse-settings` mutation of a batch case: each event refused, no batch sent. */
const refusedBatch = (n: number, destination: Destination): BatchRun => ({
  results: Array.from({ length: n }, () => refusedRun(destination)),
  sent: 0,
  multistatus: [],
});

/** The `refuse-settings` mutation: every action refused before any request, as a broken settings check does. */
const refusedRun = (destination: Destination): RunResult => ({
  outcomes: (destination.actions ?? []).map((a) => ({
    action: a.action,
    outcome: { status: 'rejected', reason: `settings refused by ${slug}: (mutation)` },
  })),
  requests: [],
  bodies: [],
  thrown: [],
});

/** A request as actions-core's request client hands it to fetch (node-fetch's Request), as a Wire. */
async function wireOfRequest(request: {
  url: string;
  method: string;
  headers: { raw(): Record<string, string[]> };
  text(): Promise<string>;
}): Promise<Wire> {
  const headers: Record<string, string> = {};
  for (const [key, values] of Object.entries(request.headers.raw()))
    headers[key.toLowerCase()] = values.join(', ');
  const method = request.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? '' : await request.text();
  return { method, url: request.url, headers, body };
}

/**
 * Segment's own code for the same input: actions-core's test integration (a fresh one) runs the
 * action with the event, mapping, settings and token ours ran with, its fetch answered with the
 * answers ours got, in order; what it sends is kept. Whether it throws is not judged here (the
 * test judges ours); only what it sends.
 */
async function segmentWire(
  call: TestCall,
  definition: Definition,
  action: string,
  input: TestInput,
  answers: readonly Exchange[],
  at: number,
): Promise<Wire[]> {
  const td = (core['createTestIntegration'] as Any)({ ...definition, name: `segment-${slug}` }) as Record<
    string,
    Any
  >;
  const sent: Wire[] = [];
  let asked = 0;
  const dispatcher = fetchModule.default;
  fetchModule.default = (async (request: Parameters<typeof wireOfRequest>[0]) => {
    // Its place taken when it is asked: requests sent together (a Promise.all of searches) each
    // get their own answer, in the order they were made.
    const index = asked++;
    const answer = answers[index];
    sent[index] = await wireOfRequest(request);
    if (!answer) throw new Error("Segment's code sends a request ours did not: no answer to give it");
    return new fetchModule.Response(answer.text === '' ? null : answer.text, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
      url: request.url,
    });
  }) as unknown as typeof fetchModule.default;
  try {
    await pinned(at, async () => td[call]?.(action, input));
  } catch {
    // judged by the test, on ours
  } finally {
    fetchModule.default = dispatcher;
  }
  return sent;
}

/** The test integration's calls the run runs through our runtime. */
type TestCall = 'testAction' | 'testBatchAction' | 'executeBatch';

/**
 * testAction (or testBatchAction, or executeBatch) through our runtime; the responses as
 * actions-core's test integration gives them (executeBatch: the batch's multi-status answer). `carried` is the integration's list of responses: as actions-core's, it
 * is emptied only when an action returns, so a test that reads `responses[2]` after a test whose
 * action threw reads the earlier test's responses first (Optimizely's bot-filtering test does).
 * A batch case's events run through forward-catalog's batch path (batch.ts); its multi-status
 * answer is handed to `setResults`, as actions-core's testBatchAction keeps it in `results`.
 */
async function ourTestAction(
  call: TestCall,
  definition: Definition,
  action: string,
  input: TestInput,
  carried: unknown[],
  setResults: (results: unknown) => void,
): Promise<unknown> {
  const makeEvent = (e: unknown) => core['createTestEvent']?.(e ?? {}) as Record<string, unknown>;
  const batched = call !== 'testAction';
  const given = batched ? batchMapping(input.mapping) : (input.mapping ?? {});
  const listed = Array.isArray(input['events']) ? (input['events'] as Record<string, unknown>[]) : [];
  // actions-core's testBatchAction makes test events of the test's (one track event when it gives
  // none); its executeBatch takes the events as they are.
  const events =
    call === 'testAction'
      ? [makeEvent(input.event)]
      : call === 'testBatchAction'
        ? (listed.length > 0 ? listed : [{ type: 'track' }]).map(makeEvent)
        : listed;
  const cleared = input.useDefaultMappings
    ? {}
    : Object.fromEntries(
        Object.entries(definition.actions[action]?.fields ?? {})
          .filter(([key, field]) => field.default !== undefined && !Object.hasOwn(given, key))
          .map(([key]) => [key, null]),
      );
  const settings = input.settings ?? {};
  // Settings without a required field are refused before any request (as Segment's app refuses
  // them); Segment's tests often leave credentials out. Ours runs with a stand-in for each one
  // missing (and for the OAuth token), recorded on the case, and the test judges what is sent.
  const standIns = missingRequired(definition, settings);
  const config = { ...settings, ...standIns };
  const token = oauthOf(definition) ? (input.auth?.accessToken ?? STAND_IN_TOKEN) : input.auth?.accessToken;
  const recorded = [...Object.keys(standIns), ...(token === STAND_IN_TOKEN ? ['access_token'] : [])];
  if (recorded.length > 0) currentCase()?.standIns.push(...recorded);
  // A batch's events may be of several types: the subscription takes each of them, as
  // testBatchAction (which checks no subscription) sends them all.
  const types = [...new Set(events.map((e) => String(e['type'])))];
  const destination = {
    id: 'conformance',
    type: 'segment_action',
    destination: slug,
    config,
    actions: [
      { action, when: types.map((t) => `type = "${t}"`).join(' or '), mapping: { ...cleared, ...given } },
    ],
  } as unknown as Destination;
  // One instant and one seed for both runs (pinned.ts): a timestamp or nonce is then the same.
  const at = Date.now();
  const event = events[0] as Record<string, unknown>;
  const { result, batch, exchanges, captured, wire } = await runOurs(
    definition,
    batched ? events : event,
    destination,
    token,
    at,
  );
  const theirs = await segmentWire(
    call,
    definition,
    action,
    {
      ...input,
      ...(batched ? { events, mapping: given } : { event }),
      settings: config,
      ...(token !== undefined ? { auth: { ...input.auth, accessToken: token } } : {}),
    },
    exchanges,
    at,
  );
  const c = currentCase();
  if (c) {
    c.wireCompared++;
    const diff = wireDiff(wire, theirs);
    if (diff !== undefined) c.wireDiffs.push(diff);
    // What the test's own code mocks (a module, Math.random, the clock) is not in the data: such a
    // case is named in it, without inputs, and the CI tier counts it apart.
    const mocked = hasModuleMocks()
      ? 'module mocks (jest.mock)'
      : Math.random !== NATIVE_RANDOM || Date.now !== NATIVE_NOW
        ? "the test's own mock of Math.random or the clock"
        : undefined;
    if (mocked)
      appendFileSync(
        replayOut,
        `${JSON.stringify({ file: currentFile, name: c.name, same: diff === undefined, notReplayed: mocked })}\n`,
      );
    else
      appendFileSync(
        replayOut,
        `${JSON.stringify({
          file: currentFile,
          name: c.name,
          // A mapping field the test gives as undefined (to leave a default out) is null here: JSON
          // drops undefined, and null is how our mapping clears a field.
          destination: {
            ...destination,
            actions: destination.actions?.map((x) => ({
              ...x,
              mapping: Object.fromEntries(Object.entries(x.mapping ?? {}).map(([k, v]) => [k, v ?? null])),
            })),
          },
          ...(batched ? { events } : { event }),
          secrets: token !== undefined ? { access_token: token } : {},
          at,
          answers: exchanges.map(({ status, statusText, headers, text }) => ({
            status,
            statusText,
            headers,
            text,
          })),
          segment: theirs,
          same: diff === undefined,
        })}\n`,
      );
  }
  carried.push(...exchanges.map((x, i) => decorated(x, captured[i])));
  if (batch) {
    const failure = batchFailure(batch);
    if (call === 'executeBatch') {
      if (failure !== undefined) throw failure;
      return batch.multistatus;
    }
    setResults(failure === undefined ? [{ multistatus: batch.multistatus }] : []);
    if (failure !== undefined) throw failure;
    return carried.splice(0);
  }
  if (result.thrown.length > 0) throw result.thrown[0];
  const refused = result.outcomes.find((o) => o.outcome.status !== 'delivered');
  if (refused && refused.outcome.status !== 'delivered') throw new Error(refused.outcome.reason);
  if (result.outcomes.length === 0) throw new Error(`our runtime ran no action for ${action}`);
  return carried.splice(0);
}

/**
 * The responses the test reads: each as actions-core's request client decorated it while our
 * runtime ran the action (its `options`, `data`, `content`: captured below), with `request` rebuilt
 * from what our fetch actually sent, so a test reading the request reads the wire.
 */
function decorated(x: Exchange, captured: Record<string, unknown> | undefined): unknown {
  const headers = (x.init['headers'] ?? {}) as Record<string, string>;
  const method = String(x.init['method'] ?? 'GET');
  const body = x.init['body'] as string | undefined;
  const request = new fetchModule.Request(x.url, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  if (captured) return Object.assign(captured, { request });
  const response = new fetchModule.Response(x.text === '' ? null : x.text, {
    status: x.status,
    statusText: x.statusText,
    headers: x.headers,
    url: x.url,
  });
  return Object.assign(response, {
    request,
    options: { method, headers: new fetchModule.Headers(headers) },
    content: x.text,
  });
}

/**
 * actions-core's Action hands each answered request, decorated, to its destination (`afterResponse`);
 * while one of our runs is in progress, each is also kept here, in order.
 */
let capturing: Record<string, unknown>[] | undefined;
const actionModule = require(
  join(dirname(require.resolve('@segment/actions-core')), 'destination-kit', 'action.js'),
) as {
  Action: { prototype: { afterResponse: (...a: unknown[]) => Record<string, unknown> } };
};
const afterResponse = actionModule.Action.prototype.afterResponse;
actionModule.Action.prototype.afterResponse = function (this: unknown, ...a: unknown[]) {
  const response = afterResponse.apply(this, a);
  capturing?.push(response);
  return response;
};

/** An input the test gives: anything but undefined, null or an empty object. */
function given(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return typeof value !== 'object' || Object.keys(value).length > 0;
}

function createTestIntegration(definition: Definition): unknown {
  // Named by its folder, as run.ts names it: the installed ajv's URI parser (fast-uri 3.1) refuses
  // a destination name like `Kameleoon (Actions)` as the key actions-core compiles its schemas under.
  const td = (core['createTestIntegration'] as Any)({ ...definition, name: `segment-${slug}` }) as Record<
    string,
    Any
  >;
  // What the action returned (`results`): our runtime keeps outcomes, not return values; a test
  // reading it is recorded as such. After testBatchAction it is the batch's multi-status answer,
  // which our runtime reads too (each event's entry is its outcome): ours gives the one it got.
  let results: unknown = td['results'];
  let last: string | undefined;
  Object.defineProperty(td, 'results', {
    get: () => {
      if (last !== 'testBatchAction') currentCase()?.unsupported.push('results');
      return results;
    },
    set: (value: unknown) => {
      results = value;
    },
  });
  const carried: unknown[] = [];
  for (const name of RECORDED) {
    const original = td[name];
    if (typeof original !== 'function') continue;
    td[name] = ((...args: unknown[]) => {
      const c = currentCase();
      if (c) c.calls.push(name);
      last = name;
      if (name !== 'testAction' && name !== 'testBatchAction' && name !== 'executeBatch')
        return original.apply(td, args);
      const [action, input = {}] = args as [string, TestInput | undefined];
      if (c) {
        c.actions.push(action);
        for (const key of INTERNAL_INPUTS) if (given(input[key])) c.unsupported.push(key);
        // actions-core's executeAction runs nothing for an action the destination lacks (a typo in
        // the test): the test then checks nothing, in either mode.
        if (!Object.hasOwn(definition.actions, action)) c.unsupported.push(NO_SUCH_ACTION);
        // Settings actions-core's own check refuses (with the stand-ins ours runs with): Segment's
        // app never runs them; decided by Segment's code on the input, in both modes alike.
        const settings = input.settings ?? {};
        if (segmentRefusesSettings(definition, { ...settings, ...missingRequired(definition, settings) }))
          c.unsupported.push(SETTINGS_INVALID);
      }
      if (mode !== 'ours') return original.apply(td, args);
      return ourTestAction(name, definition, action, input, carried, (r) => {
        results = r;
      });
    }) as Any;
  }
  return td;
}

(globalThis as Record<string, unknown>)['__segmentConformanceCore'] = { ...core, createTestIntegration };

/** `@segment/actions-core` itself is the shim above; every other package is required as installed. */
const shim: Plugin = {
  name: 'actions-core-shim',
  setup(b) {
    b.onResolve({ filter: /^@segment\/actions-core(\/\*)?$/ }, () => ({
      path: 'shim',
      namespace: 'actions-core-shim',
    }));
    // Segment's monorepo maps actions-core to its sources (`core/src/…`): the installed build instead.
    b.onResolve({ filter: /(^@segment\/actions-core\/src\/|\/core\/src\/)/ }, (args) => ({
      path: `${join(CORE_BUILD, args.path.replace(/^.*\/src\//, ''))}.js`,
      external: true,
    }));
    // Its other packages too (the checkout's tsconfig maps them to their sources): the installed
    // ones, the instances actions-core and the destinations' build require, so that a test's
    // `toThrowError(AggregateAjvError)` names the class actions-core throws.
    b.onResolve(
      { filter: /^@segment\/(ajv-human-errors|destination-subscriptions|actions-shared)(\/.*)?$/ },
      (args) => ({
        path: args.path,
        external: true,
      }),
    );
    b.onLoad({ filter: /.*/, namespace: 'actions-core-shim' }, () => ({
      contents: 'module.exports = globalThis.__segmentConformanceCore',
      loader: 'js',
    }));
  },
};

function write(line: Record<string, unknown>): void {
  appendFileSync(out, `${JSON.stringify(line)}\n`);
}

/**
 * Module mocks. Jest's transform hoists a file's `jest.mock` calls above its imports and its module
 * registry hands the mock to every require of that module, the destination's own included. Here the
 * calls are taken out of the file (jest.ts hoistMocks) into a module bundled before it; a mocked
 * package is handed out by Node's loader (below), a mocked source module of the checkout by the
 * bundle (`mocks`) and, to our runtime, which runs the installed build, as the same path in it. A
 * file that mocks actions-core itself, or mocks anything in another way, is not run.
 */
mkdirSync(CACHE, { recursive: true });
for (const [index, file] of files.entries()) {
  const name = relative(join(dirname(file), '..'), file);
  currentFile = file;
  const text = readFileSync(file, 'utf8');
  const hoisted = /\bjest\.mock\(/.test(text) ? hoistMocks(text) : undefined;
  const refused = mocksRefused(text, hoisted);
  if (refused) {
    write({ file, load: refused });
    continue;
  }
  setSourceRoot(file.slice(0, file.indexOf('/src/destinations/') + '/src'.length));
  const keyOf = (spec: string) => (spec.startsWith('.') ? bare(join(dirname(file), spec)) : spec);
  startModuleMocks(keyOf, (spec) =>
    actual(() => (spec.startsWith('.') ? require(builtOf(keyOf(spec))) : distRequire(spec))),
  );
  if (mode === 'ours') freshModules(index);
  // Jest gives each file globals of its own: a clock or generator a file replaced at its top level
  // (Calliper's and Mixpanel's snapshot files set `global.Date.now`) is not the next file's.
  Date.now = NATIVE_NOW;
  Math.random = NATIVE_RANDOM;
  const bundle = join(CACHE, `${index}.cjs`);
  try {
    await build({
      ...(hoisted
        ? {
            stdin: {
              contents: `import 'segment-conformance-hoisted-mocks';\nimport ${JSON.stringify(`./${basename(file)}`)};\n`,
              resolveDir: dirname(file),
              sourcefile: `${basename(file)}.entry.ts`,
              loader: 'ts' as const,
            },
          }
        : { entryPoints: [file] }),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      packages: 'external',
      outfile: bundle,
      logLevel: 'silent',
      plugins: hoisted
        ? [shim, mocks(file, hoisted, new Set(hoisted.specs.filter((x) => x.startsWith('.')).map(keyOf)))]
        : [shim],
    });
  } catch (err) {
    write({ file, load: `does not build: ${(err as Error).message.split('\n')[0] ?? ''}` });
    continue;
  }
  try {
    await runFile(
      file,
      () => {
        // Segment's setup file: each test starts with no interceptor left (its beforeEach, outermost).
        (globalThis as unknown as { beforeEach(fn: () => void): void }).beforeEach(() => nock.cleanAll());
        require(bundle);
      },
      TEST_TIMEOUT_MS,
      (c: CaseRecord) => write({ file, ...c }),
    );
  } catch (err) {
    // A factory that reads the file's own variables (Jest runs it lazily in the file's scope) finds
    // nothing in the module it is hoisted into here.
    const message = (err as Error).message.split('\n')[0] ?? '';
    write({
      file,
      load:
        hoisted && err instanceof ReferenceError
          ? `module mocks (a factory reads the file's own variables: ${message})`
          : `does not load: ${message}`,
    });
  }
  console.error(`${mode} ${slug} ${name}`);
}
// This process's bundles, its folder with them.
rmSync(dirname(CACHE), { recursive: true, force: true });
process.exit(0);
