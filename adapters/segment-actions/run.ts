/**
 * The `segment_action` runtime (issue #65; docs/catalog-destinations.md): one stored event through
 * the actions of one Segment Action Destination. The destination's module is deep-imported from
 * @segment/action-destinations by its folder (never the package index, which loads all 177) and
 * run by actions-core's own `Destination` class: each action's subscription is matched, its
 * mapping (presets under the settings' mapping) resolved by mapping-kit, its payload validated and
 * its `perform` called with the settings (config and secrets) and a request client.
 *
 * actions-core sends through cross-fetch, a module-level function with no injection point; this
 * file replaces that one export once (`fetch.js`'s `default`, read at each call) by a dispatcher
 * that sends through the fetch of the run in progress (AsyncLocalStorage), with every URL moved
 * under the destination's `base_url` when it has one. Outside a run the original is used. Only
 * `forward-catalog` (and tests) load this file: ~90 MB of dependencies stay out of `forward`.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EGRESS_REFUSED, EGRESS_REFUSED_CODE, hostAllowed } from '../../core/egress/policy.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Outcome } from '../../core/platforms/driver.ts';
import { type PlatformAnswer, scrubText } from '../../core/platforms/platform-answer.ts';
import { catalogAnswer } from '../../core/platforms/segment-action/answer.ts';
import {
  audienceOf,
  type Batching,
  batchingOf,
  errorOfNode,
  type MultiStatusNode,
} from '../../core/platforms/segment-action/batching.ts';
import { type CatalogAction, catalogEntry } from '../../core/platforms/segment-action/catalog.ts';
import { ownTransportProblem, runnablePresets } from '../../core/platforms/segment-action/check.ts';
import { environmentOf } from '../../core/platforms/segment-action/environment.ts';
import { compileFql } from '../../core/platforms/segment-action/fql.ts';
import { NETWORK_ERROR_CODE, outcomeOfError } from '../../core/platforms/segment-action/outcome.ts';
import {
  type ActionPreset,
  actionSteps,
  effectiveMapping,
  presetOf,
} from '../../core/platforms/segment-action/presets.ts';
import { NO_IP, segmentEventOf } from '../../core/platforms/segment-action/segment-event.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { EgressInit } from '../egress.ts';
import type { Batches } from './batches.ts';
import type { CoreDestination, LoadedDefinition, RefreshTokenStore } from './core-api.ts';
import { type ActionRequest, current, type RunContext, type TokenAnswer } from './run-context.ts';
import { authOf, type OAuthSession, oauthSession } from './run-oauth.ts';

export type { CoreDestination, LoadedDefinition, RefreshTokenStore } from './core-api.ts';

import { performAnswered, trackRequestClients, wasLeftInFlight } from './started.ts';

/** What the runtime is given besides the event and the destination: the network and the clock. */
export interface RunIo {
  readonly fetch: typeof fetch;
  readonly now: Date;
  /**
   * The refresh-token secret's versions by secret name, where the secrets are Secret Manager's: a
   * refresh is then made under the claim of refresh-rotation.ts and a rotated token written back
   * as a new version. Without it (tests, the conformance run) a rotated token lives in memory.
   */
  readonly refreshTokens?: RefreshTokenStore;
  /**
   * The instance's open batches (batches.ts): a run that Segment batches (batching.ts) joins one
   * and is sent by the action's `performBatch`. Absent (the conformance run, previews): each
   * event is performed alone.
   */
  readonly batches?: Batches;
  /**
   * The delivery's time limit (`timeout_ms`): how long the run waits, once an action has finished,
   * for the requests it started and did not wait for (started.ts). 10 s unless given.
   */
  readonly timeoutMs?: number;
}

/** How long the requests an action left in flight are waited for unless the run says (as the driver's default). */
const DEFAULT_BOUND_MS = 10_000;

export interface RunResult {
  /** One per action that took the event (actions whose subscription does not match are left out). */
  readonly outcomes: readonly { readonly action: string; readonly outcome: Outcome }[];
  readonly requests: readonly ActionRequest[];
  /** Request bodies as sent, for the identifier kinds of the ledger row (never stored). */
  readonly bodies: readonly string[];
  /**
   * What the platform answered the last request (the one that decided: an action throws on the
   * answer it cannot take), for the ledger's platform columns (answer.ts); absent when none was answered.
   */
  readonly answer?: PlatformAnswer;
  /**
   * What the actions threw, as thrown, in order (the outcomes carry their messages): the
   * conformance run (scripts/conformance-segment.ts) compares them with Segment's tests. Never stored.
   */
  readonly thrown: readonly unknown[];
  /** Access tokens this run obtained by a refresh: values to scrub from what is recorded, as the secrets'. */
  readonly tokens?: readonly string[];
}

const require = createRequire(import.meta.url);

/** Folder names only: a slug never walks out of the destinations folder. */
const SLUG = /^[a-z0-9][a-z0-9-]{0,127}$/;

/** actions-core's CommonJS build, the one the destinations require (not its ESM build: another instance). */
export interface CoreModule {
  readonly Destination: new (definition: LoadedDefinition) => CoreDestination;
  /** mapping-kit's resolution of a mapping against an event (a batch's keys). */
  readonly transform: (
    mapping: Record<string, unknown>,
    data: Record<string, unknown>,
  ) => Record<string, unknown>;
}
interface FetchModule {
  default: (request: NodeFetchRequest) => Promise<unknown>;
  readonly Response: new (body: string | null, init: Record<string, unknown>) => unknown;
}
/** The parts of node-fetch's Request (cross-fetch's) the dispatcher reads. */
interface NodeFetchRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: {
    forEach(fn: (value: string, key: string) => void): void;
    /** node-fetch's names as the action wrote them (`forEach` lower-cases them). */
    raw?(): Record<string, string[]>;
  };
  text(): Promise<string>;
}

let core: CoreModule | undefined;
/** A loaded destination: its definition, actions-core's instance, and its presets as presets.ts keeps them. */
interface Loaded {
  readonly definition: LoadedDefinition;
  readonly destination: CoreDestination;
  readonly presets: readonly ActionPreset[];
}
const loaded = new Map<string, Loaded>();

/**
 * actions-core as the runtime runs it, loaded once: the dispatcher in place of its fetch, and its
 * actions' request clients tracked (started.ts). Exported for tests that run a definition of their own.
 */
export function loadActionsCore(): CoreModule {
  if (core) return core;
  const index = require.resolve('@segment/actions-core');
  const fetchModule = require(join(dirname(index), 'fetch.js')) as FetchModule;
  trackRequestClients(
    (
      require(join(dirname(index), 'destination-kit', 'action.js')) as {
        Action: Parameters<typeof trackRequestClients>[0];
      }
    ).Action,
  );
  const original = fetchModule.default;
  fetchModule.default = (request) => {
    const run = current.getStore();
    return run ? dispatch(run, request, fetchModule.Response) : original(request);
  };
  core = require(index) as CoreModule;
  return core;
}

/** A destination by its folder, loaded once per instance; undefined when there is none. */
function destinationOf(slug: string): Loaded | undefined {
  const hit = loaded.get(slug);
  if (hit) return hit;
  if (!SLUG.test(slug)) return undefined;
  const { Destination: CoreDestinationClass } = loadActionsCore();
  let definition: LoadedDefinition;
  try {
    const mod = require(`@segment/action-destinations/dist/destinations/${slug}`) as {
      default?: LoadedDefinition;
    };
    if (!mod.default?.actions) return undefined;
    definition = mod.default;
  } catch (err) {
    if ((err as { code?: string }).code === 'MODULE_NOT_FOUND') return undefined;
    throw err;
  }
  // Named by its folder: actions-core keys its compiled schemas `<name>:<title>`, which ajv reads
  // as a URI, and fast-uri 3.1 refuses a scheme like `Klaviyo (Actions)`.
  const entry: Loaded = {
    definition,
    destination: new CoreDestinationClass({ ...definition, name: `segment-${slug}` }),
    presets: (definition.presets ?? []).flatMap((p) => presetOf(p, definition.actions) ?? []),
  };
  loaded.set(slug, entry);
  return entry;
}

/** `https://a.klaviyo.com/api/events/?x=1` under `http://127.0.0.1:8099/cap` → `http://127.0.0.1:8099/cap/a.klaviyo.com/api/events/?x=1`. */
export function underBaseUrl(url: string, baseUrl: string | undefined): string {
  if (baseUrl === undefined) return url;
  const u = new URL(url);
  return `${baseUrl.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

/**
 * The hosts each hop of a request may go to (the gate checks every redirect against them): the
 * destination's `allowed_hosts`, and its `base_url`'s host, where the operator moved every request.
 */
function hopHosts(allowed: readonly string[], baseUrl: string | undefined): readonly string[] {
  return baseUrl === undefined ? allowed : [...allowed, new URL(baseUrl).host];
}

/** Sends one of an action's requests through the run's fetch; the answer as actions-core's Response. */
async function dispatch(
  run: RunContext,
  request: NodeFetchRequest,
  Response: FetchModule['Response'],
): Promise<unknown> {
  const headers: Record<string, string> = {};
  const raw = request.headers.raw?.();
  if (raw) for (const [key, values] of Object.entries(raw)) headers[key] = values.join(', ');
  else
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
  const method = request.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? undefined : await request.text();
  const original = new URL(request.url);
  // Moved under base_url, a Host naming the vendor would misdirect the request: the path keeps it.
  if (run.baseUrl !== undefined)
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'host') delete headers[key];
  if (run.allowedHosts && !hostAllowed(request.url, run.allowedHosts))
    throw Object.assign(
      new Error(`${EGRESS_REFUSED}: ${original.host} is not one of the destination's allowed_hosts`),
      { code: EGRESS_REFUSED_CODE },
    );
  const record: { method: string; url: string; status?: number; retryAfter?: string } = {
    method,
    url: `${original.origin}${original.pathname}`,
  };
  run.requests.push(record);
  if (body && !run.refreshing) run.bodies.push(body);
  let answer: Response;
  try {
    const init: EgressInit = {
      method,
      headers,
      ...(body ? { body } : {}),
      egress: {
        ...(run.allowedHosts ? { allowedHosts: hopHosts(run.allowedHosts, run.baseUrl) } : {}),
        // No base_url: locally the gate's capturing stand-in receives it, once judged (egress.ts).
        ...(run.baseUrl === undefined ? { capture: true } : {}),
      },
    };
    answer = await run.fetch(underBaseUrl(request.url, run.baseUrl), init);
  } catch (err) {
    // The egress gate's refusal (adapters/egress.ts) goes on as it is: permanent, not a network
    // failure; and not a request made, so the breaker and the limiter learn nothing from it (#75).
    if ((err as { code?: unknown }).code === EGRESS_REFUSED_CODE) {
      run.requests.splice(run.requests.indexOf(record), 1);
      throw err;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw Object.assign(
      new Error(`no answer from ${original.host}: ${(err as Error).message}${cause ? ` (${cause})` : ''}`),
      { code: NETWORK_ERROR_CODE },
    );
  }
  record.status = answer.status;
  const retryAfter = answer.headers.get('retry-after');
  if (retryAfter !== null) record.retryAfter = retryAfter;
  const text = await answer.text();
  const answerHeaders: [string, string][] = [];
  answer.headers.forEach((value, key) => {
    answerHeaders.push([key, value]);
  });
  if (run.refreshing) Object.assign(run.refreshing, tokenAnswerOf(answer.status, text));
  else run.answer = catalogAnswer(record, answer.status, Object.fromEntries(answerHeaders), text);
  return new Response(text === '' ? null : text, {
    status: answer.status,
    statusText: answer.statusText,
    headers: answerHeaders,
    url: request.url,
  });
}

/**
 * Runs the event through each configured action of the destination: every action whose
 * subscription takes the event is performed, and its outcome classified (outcome.ts). Never
 * rejects for what the settings, the event or the platform did: those are outcomes.
 */
export function runSegmentAction(
  event: StoredEvent,
  destination: Readonly<Destination>,
  secrets: Readonly<Record<string, string>>,
  io: RunIo,
): Promise<RunResult> {
  // An action with a client of its own would connect around the egress gate: never run, whatever
  // the settings say (the settings check refuses it too; check.ts ownTransportProblem).
  const refused = ownTransportActions(destination);
  if (refused.length > 0)
    return Promise.resolve({
      outcomes: refused.map((a) => ({
        action: a.key,
        outcome: {
          status: 'rejected',
          reason: `${EGRESS_REFUSED}: ${ownTransportProblem(destination.destination ?? '', a)}`,
        },
      })),
      requests: [],
      bodies: [],
      thrown: [],
    });
  return runSegmentEvent(
    segmentEventOf(event, NO_IP[destination.destination ?? '']),
    destination,
    secrets,
    io,
  );
}

/** The actions the destination would run that send over a client of their own (catalog.ts `transport`). */
function ownTransportActions(destination: Readonly<Destination>): CatalogAction[] {
  const entry = catalogEntry(destination.destination ?? '');
  if (!entry) return [];
  const keys = destination.actions?.map((a) => a.action) ?? runnablePresets(entry).map((p) => p.action);
  return entry.actions.filter((a) => a.transport !== undefined && keys.includes(a.key));
}

/**
 * runSegmentAction's work once the event is Segment's: the settings checked, each action run.
 * The conformance run enters here with the events of Segment's own tests.
 */
export async function runSegmentEvent(
  segmentEvent: Record<string, unknown>,
  destination: Readonly<Destination>,
  secrets: Readonly<Record<string, string>>,
  io: RunIo,
): Promise<RunResult> {
  const env = environmentOf(destination.destination ?? '', secrets);
  const run: RunContext = {
    fetch: io.fetch,
    baseUrl: destination.base_url,
    allowedHosts: destination.allowed_hosts,
    requests: [],
    bodies: [],
    started: [],
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
  const boundMs = io.timeoutMs ?? DEFAULT_BOUND_MS;
  const thrown: unknown[] = [];
  const tokens: string[] = [];
  const result = (outcomes: RunResult['outcomes']): RunResult => ({
    outcomes,
    requests: run.requests,
    bodies: run.bodies,
    ...(run.answer ? { answer: run.answer } : {}),
    thrown,
    ...(tokens.length > 0 ? { tokens } : {}),
  });
  const slug = destination.destination ?? '';
  const all = (outcome: Outcome) =>
    result((destination.actions ?? [{ action: 'presets' }]).map((a) => ({ action: a.action, outcome })));
  const found = destinationOf(slug);
  if (!found)
    return all({ status: 'rejected', reason: `no Segment Action Destination "${slug}" is installed` });
  const { definition, destination: core, presets } = found;
  const auth = authOf(definition, slug, destination.config ?? {}, secrets);
  if (!auth.ok) return all({ status: 'rejected', reason: auth.reason });
  try {
    core.validateSettings(auth.settings);
  } catch (err) {
    return all({ status: 'rejected', reason: `settings refused by ${slug}: ${(err as Error).message}` });
  }
  const secretValues = Object.values(secrets);
  // An OAuth connection's token: the cached one, the one configured, else a refresh before the first call.
  const session = auth.oauth
    ? oauthSession(auth.oauth, destination, core, auth.settings, run, tokens, io.refreshTokens)
    : undefined;
  const outcomes: { action: string; outcome: Outcome }[] = [];
  // One action after another: the requests of one event keep their order at the platform.
  const steps = actionSteps(destination.actions, presets, (a) => definition.actions[a]?.defaultSubscription);
  for (const step of steps) {
    const action = definition.actions[step.action];
    if (!action) {
      outcomes.push({
        action: step.action,
        outcome: { status: 'rejected', reason: `${slug} has no action ${step.action}` },
      });
      continue;
    }
    const subscribe = step.subscribe;
    if (subscribe === undefined) continue;
    const mapping = effectiveMapping(action.fields, step.setting?.mapping, step.preset);
    const before = run.requests.length;
    const batching = io.batches ? batchingOf(action, mapping) : undefined;
    const fql = batching ? compileFql(subscribe) : undefined;
    // Not taken by the subscription: as an event alone, nothing to send (an unreadable one runs alone, and says so).
    if (fql && fql.error === undefined && !fql.takes(segmentEvent)) continue;
    const perform = async (token: string | undefined) => {
      const withToken = session && token !== undefined ? session.apply(token) : auth;
      const subscription = { subscribe, partnerAction: step.action, mapping };
      if (io.batches && batching && fql?.error === undefined)
        return inBatch(
          io.batches,
          batching,
          { slug: destination.id, core, subscription, boundMs, ...withToken },
          segmentEvent,
          run,
        );
      // Done when every request the action started is answered, awaited by it or not (started.ts).
      return performAnswered(
        run,
        () => core.onSubscription(subscription, segmentEvent, withToken.settings, withToken.auth),
        boundMs,
      );
    };
    let results: Awaited<ReturnType<typeof perform>>;
    try {
      results = await performOnce(perform, session);
    } catch (err) {
      if (!wasLeftInFlight(err)) thrown.push(err);
      const secretsNow = [...secretValues, ...tokens];
      outcomes.push({
        action: step.action,
        outcome:
          err instanceof RefreshFailure
            ? refreshFailed(step.action, err.cause as Error, destination, secretsNow)
            : outcomeOfError(step.action, err, secretsNow),
      });
      continue;
    }
    if (results.some((r) => r.output === 'not subscribed')) continue;
    const invalid = results.find(
      (r) => typeof r.output === 'string' && r.output.startsWith('Invalid subscription'),
    );
    const status = run.requests.at(-1)?.status;
    outcomes.push({
      action: step.action,
      outcome: invalid
        ? { status: 'rejected', reason: `${step.action}: ${String(invalid.output)}` }
        : {
            status: 'delivered',
            ...(status !== undefined && run.requests.length > before ? { httpStatus: status } : {}),
          },
    });
  }
  return result(outcomes);
}

/** What one batch is sent with: the same for each of its events (its key says so). */
interface BatchCall {
  /** The destination's id: batches never mix destinations. */
  readonly slug: string;
  readonly core: CoreDestination;
  readonly subscription: { subscribe: string; partnerAction: string; mapping: Record<string, unknown> };
  readonly settings: Record<string, unknown>;
  readonly auth: Record<string, unknown>;
  /** How long the batch's requests left in flight are waited for (started.ts). */
  readonly boundMs: number;
}

/** An event in a batch, and the run it belongs to (the batch's requests are its requests too). */
interface BatchItem {
  readonly event: Record<string, unknown>;
  readonly run: RunContext;
}

/**
 * One event's run of a batched action: it joins the open batch of its destination, action,
 * settings and token (and the values of the action's batch keys), and its entry of the batch's
 * multi-status answer is its result; a failed entry is thrown as the action would have thrown
 * it for the event alone, so the outcome (and a refresh after a refused token) is the same.
 */
async function inBatch(
  batches: Batches,
  batching: Batching,
  call: BatchCall,
  event: Record<string, unknown>,
  run: RunContext,
): Promise<readonly { readonly output?: unknown }[]> {
  const mapping = call.subscription.mapping;
  const shared =
    batching.keys.length > 0
      ? loadActionsCore().transform(
          Object.fromEntries(
            batching.keys.filter((k) => Object.hasOwn(mapping, k)).map((k) => [k, mapping[k]]),
          ),
          event,
        )
      : {};
  const parts = [call.slug, call.subscription, call.settings, call.auth, run.env, shared, audienceOf(event)];
  const key = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  const before = run.requests.length;
  const node = await batches.add<BatchItem, MultiStatusNode>(key, { event, run }, batching, (items) =>
    sendBatch(call, items),
  );
  const failed = errorOfNode(node, run.requests.length > before ? run.requests.at(-1)?.status : undefined);
  if (failed) throw failed;
  return [{ output: node }];
}

/** A multi-status answer without an entry for an event: as actions-core answers it, worth another attempt. */
const NO_ENTRY: MultiStatusNode = {
  status: 500,
  errormessage: "the action's multi-status answer has no entry for the event",
};

/** Sends a batch by the action's `performBatch` (actions-core's own batch path): one entry per event. */
async function sendBatch(call: BatchCall, items: readonly BatchItem[]): Promise<readonly MultiStatusNode[]> {
  const first = items[0] as BatchItem;
  const batchRun: RunContext = {
    fetch: first.run.fetch,
    baseUrl: first.run.baseUrl,
    allowedHosts: first.run.allowedHosts,
    requests: [],
    bodies: [],
    started: [],
    ...(first.run.env ? { env: first.run.env } : {}),
  };
  let entries: readonly MultiStatusNode[] = [];
  try {
    const results = await performAnswered(
      batchRun,
      () =>
        call.core.onSubscription(
          call.subscription,
          items.map((i) => i.event),
          call.settings,
          call.auth,
        ),
      call.boundMs,
    );
    entries = results.find((r) => Array.isArray(r.multistatus))?.multistatus ?? [];
    return items.map((_, i) => entries[i] ?? NO_ENTRY);
  } finally {
    // Each event's run made the batch's requests: its row, its breaker and its limiter learn from
    // them. What it carried is its own entry's payload (`sent`) when the answer names it.
    items.forEach(({ run }, i) => {
      run.requests.push(...batchRun.requests);
      const sent = entries[i]?.sent;
      if (sent !== undefined) run.bodies.push(JSON.stringify(sent));
      else run.bodies.push(...batchRun.bodies);
      if (batchRun.answer) run.answer = batchRun.answer;
    });
  }
}

/** A refresh that failed, apart from the action's own failures: its reason names the connection. */
class RefreshFailure extends Error {
  constructor(cause: unknown) {
    super('refresh failed', { cause });
    this.name = 'RefreshFailure';
  }
}

/**
 * One action's call with the session's token; when the platform refuses the token (a 401, or
 * the action's InvalidAuthenticationError) and the definition can refresh it, a new token (one
 * refresh shared with the deliveries in flight) and the call once more. A second refusal is the
 * action's outcome. Without a session (not OAuth), the call alone.
 */
async function performOnce<T>(
  perform: (token: string | undefined) => Promise<T>,
  session: OAuthSession | undefined,
): Promise<T> {
  const refreshed = (p: Promise<string>) =>
    p.catch((err: unknown) => {
      throw new RefreshFailure(err);
    });
  const token = session ? await refreshed(session.token()) : undefined;
  try {
    return await perform(token);
  } catch (err) {
    if (!session?.canRefresh || !isAuthFailure(err)) throw err;
    return perform(await refreshed(session.renew(token)));
  }
}

/** The platform refused the credentials: HTTP 401, or actions-core's InvalidAuthenticationError (not a failed refresh). */
export function isAuthFailure(err: unknown): boolean {
  const e = (err ?? {}) as {
    name?: unknown;
    code?: unknown;
    status?: unknown;
    response?: { status?: unknown };
  };
  if (e.response?.status === 401 || e.status === 401) return true;
  return e.name === 'InvalidAuthenticationError' && e.code !== 'OAUTH_REFRESH_FAILED';
}

/** The outcome of a refresh that failed: the token endpoint's refusal is permanent until the connection is authorised again. */
function refreshFailed(
  action: string,
  err: Error,
  destination: Readonly<Destination>,
  secrets: readonly string[],
): Outcome {
  const e = err as { code?: unknown; response?: unknown };
  // The definition refused to try (its client id or secret, its refresh token missing: LinkedIn's
  // `Missing client ID`, thrown as a 500): nothing was sent, and no retry gives what the settings lack.
  const o: Outcome =
    e.code === 'OAUTH_REFRESH_FAILED' && e.response === undefined
      ? {
          status: 'rejected',
          reason: `${action}: ${scrubText(err.message, secrets)} (the oauth2 connection's client_id, client_secret and refresh_token: eventbus connect)`,
        }
      : outcomeOfError(action, err, secrets);
  if (o.status === 'delivered') return o;
  // The token endpoint refused the credentials (invalid_grant, invalid_client): only a new consent fixes it.
  const refused = o.status === 'rejected' && o.httpStatus !== undefined;
  const fix = refused ? ' (authorise the connection again: eventbus connect)' : '';
  const said = o.reason.startsWith(`${action}: `) ? o.reason.slice(action.length + 2) : o.reason;
  return {
    ...o,
    reason: `${action}: the access token of connection ${destination.connection ?? '(none)'} could not be refreshed${fix}: ${said}`,
  };
}

/**
 * What a token endpoint's JSON answer says besides the access token: its lifetime in seconds
 * (`expires_in`), and a new refresh token when it rotated the one sent (`refresh_token` of a 2xx).
 */
export function tokenAnswerOf(status: number, text: string): TokenAnswer {
  let json: { expires_in?: unknown; refresh_token?: unknown };
  try {
    json = (JSON.parse(text) ?? {}) as typeof json;
  } catch {
    return {};
  }
  const v = json.expires_in;
  const n = typeof v === 'string' ? Number(v) : v;
  const r = json.refresh_token;
  return {
    ...(typeof n === 'number' && Number.isFinite(n) && n >= 0 ? { expiresIn: n } : {}),
    ...(status >= 200 && status < 300 && typeof r === 'string' && r !== '' ? { refreshToken: r } : {}),
  };
}
