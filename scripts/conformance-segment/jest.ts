/**
 * The part of Jest that Segment's destination tests use, for the conformance run
 * (scripts/conformance-segment.ts): `describe`/`it`/`test` with hooks, `.each` over a list, `.skip`,
 * `.todo`, `expect` (Jest's own `expect` package), mock functions (`jest-mock`), and snapshots
 * compared with what the tests' files hold, as Jest 27 (Segment's) prints them. Nothing is written:
 * a missing snapshot fails, as Jest does in CI. Module mocks (`jest.mock`) are kept here by key, each
 * made on its first require (worker.ts hoists the calls and routes the requires); fake timers are
 * not here: a test that calls them fails, and the run reports it as not runnable.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect } from 'expect';
import { ModuleMocker } from 'jest-mock';
import { format, plugins } from 'pretty-format';

/** What one test did, for the run's accounting. */
export interface CaseRecord {
  readonly name: string;
  status: 'pass' | 'fail' | 'skip';
  message?: string;
  /** The test-integration methods it called (testAction, testBatchAction, testAuthentication…). */
  readonly calls: string[];
  /** Inputs of testAction our runtime has no counterpart for (features, stateContext…). */
  readonly unsupported: string[];
  /** The actions it ran with testAction. */
  readonly actions: string[];
  /** Required settings the test left out, given stand-ins in our run (worker.ts). */
  readonly standIns: string[];
  /** How many of its testAction calls had their requests compared with Segment's own (worker.ts). */
  wireCompared: number;
  /** How the requests differed, one line per differing call. */
  readonly wireDiffs: string[];
}

type Fn = (...args: unknown[]) => unknown;
interface Test {
  readonly kind: 'test';
  readonly name: string;
  readonly fn: Fn | undefined;
  readonly skip: boolean;
}
interface Block {
  readonly kind: 'block';
  readonly name: string;
  readonly skip: boolean;
  readonly children: (Block | Test)[];
  readonly beforeAll: Fn[];
  readonly afterAll: Fn[];
  readonly beforeEach: Fn[];
  readonly afterEach: Fn[];
}

const newBlock = (name: string, skip: boolean): Block => ({
  kind: 'block',
  name,
  skip,
  children: [],
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
});

let root = newBlock('', false);
let open: Block = root;
let current: CaseRecord | undefined;
/** The snapshots of the file being run and how many times each test name has been matched. */
let snapshots: Record<string, string> | undefined;
let snapshotCounts = new Map<string, number>();
let currentName = '';

/** The test being run (the test integration records into it). */
export function currentCase(): CaseRecord | undefined {
  return current;
}

const unsupported = (what: string) => () => {
  throw new Error(`${what} is not supported by the conformance harness`);
};

function describeFn(skip: boolean) {
  return (name: unknown, body: Fn) => {
    const block = newBlock(String(name), skip || open.skip);
    open.children.push(block);
    const outer = open;
    open = block;
    try {
      body();
    } finally {
      open = outer;
    }
  };
}

function itFn(skip: boolean) {
  return (name: unknown, fn?: Fn) => {
    open.children.push({ kind: 'test', name: String(name), fn, skip: skip || open.skip || fn === undefined });
  };
}

/** Jest's `%s`/`%d`/`%p`… and `$key` in an `.each` title. */
function eachTitle(title: string, row: unknown, index: number): string {
  const args = Array.isArray(row) ? row : [row];
  let i = 0;
  let out = title.replace(/%([sdifjop#%])/g, (_m, c: string) => {
    if (c === '%') return '%';
    if (c === '#') return String(index);
    const v = args[i++];
    return c === 'p' || c === 'j' || c === 'o' ? format(v, { min: true }) : String(v);
  });
  if (!Array.isArray(row) && row !== null && typeof row === 'object')
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (m, key: string) =>
      key in row ? format((row as Record<string, unknown>)[key], { min: true }).replace(/^"|"$/g, '') : m,
    );
  return out;
}

function eachOf(make: (name: unknown, fn: Fn) => void) {
  return (table: unknown) => {
    if (!Array.isArray(table) || Object.hasOwn(table, 'raw'))
      return () => {
        throw new Error('a tagged-template .each table is not supported by the conformance harness');
      };
    return (title: string, fn: Fn) => {
      table.forEach((row, index) => {
        const args = Array.isArray(row) ? row : [row];
        make(eachTitle(title, row, index), (...rest: unknown[]) => fn(...args, ...rest));
      });
    };
  };
}

function withVariants<T extends (skip: boolean) => (name: unknown, fn: Fn) => void>(make: T) {
  const fn = Object.assign(make(false), {
    skip: make(true),
    only: make(false),
    each: eachOf(make(false)),
    todo: (name: unknown) => make(true)(name, undefined as unknown as Fn),
  });
  fn.skip = Object.assign(fn.skip, { each: eachOf(make(true)) });
  fn.only = Object.assign(fn.only, { each: eachOf(make(false)) });
  return fn;
}

const mocker = new ModuleMocker(globalThis);

/** A module mocked with `jest.mock`: its factory (none: Jest's automock of the actual module). */
interface ModuleMock {
  readonly factory: (() => unknown) | undefined;
  made?: { readonly value: unknown };
}
/** The module mocks of the file being run, by key (worker.ts `keyOf`: a package, or a source path). */
const moduleMocks = new Map<string, ModuleMock>();
let keyOf: (spec: string) => string = (spec) => spec;
let requireActual: (spec: string) => unknown = () => {
  throw new Error('jest.requireActual outside a test file is not supported by the conformance harness');
};

/**
 * Starts a test file's module registry, as Jest does for each file: no mock carried from the last.
 * `key` names a module as `jest.mock` names it; `actual` requires it unmocked.
 */
export function startModuleMocks(key: (spec: string) => string, actual: (spec: string) => unknown): void {
  moduleMocks.clear();
  keyOf = key;
  requireActual = actual;
}

export function hasModuleMocks(): boolean {
  return moduleMocks.size > 0;
}

/**
 * The mock a require of `key` gets, made on its first require (its factory, else Jest's automock of
 * what `actual` loads), then the same object each time; undefined when the module is not mocked.
 */
export function mockedModule(key: string, actual: () => unknown): { readonly value: unknown } | undefined {
  const mock = moduleMocks.get(key);
  if (!mock) return undefined;
  if (!mock.made) {
    const value = mock.factory
      ? mock.factory()
      : mocker.generateFromMetadata(
          mocker.getMetadata(actual()) as NonNullable<ReturnType<typeof mocker.getMetadata>>,
        );
    mock.made = { value };
  }
  return mock.made;
}

/** Puts describe, it, test, the hooks, expect and jest on globalThis. */
export function installGlobals(): void {
  const g = globalThis as Record<string, unknown>;
  g['describe'] = withVariants(describeFn);
  g['it'] = withVariants(itFn);
  g['test'] = g['it'];
  g['xit'] = itFn(true);
  g['xdescribe'] = describeFn(true);
  for (const hook of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach'] as const)
    g[hook] = (fn: Fn) => {
      open[hook].push(fn);
    };
  g['expect'] = expect;
  const jest: Record<string, unknown> = {
    fn: mocker.fn.bind(mocker),
    spyOn: mocker.spyOn.bind(mocker),
    clearAllMocks: () => mocker.clearAllMocks(),
    resetAllMocks: () => mocker.resetAllMocks(),
    restoreAllMocks: () => mocker.restoreAllMocks(),
    setTimeout: () => undefined,
    mock: (spec: string, factory?: () => unknown) => {
      moduleMocks.set(keyOf(spec), { factory });
      return jest;
    },
    doMock: unsupported('jest.doMock'),
    requireActual: (spec: string) => requireActual(spec),
    requireMock: (spec: string) => mockedModule(keyOf(spec), () => requireActual(spec))?.value,
    useFakeTimers: unsupported('jest.useFakeTimers'),
    useRealTimers: () => undefined,
    setSystemTime: unsupported('jest.setSystemTime'),
    advanceTimersByTime: unsupported('jest.advanceTimersByTime'),
    runAllTimers: unsupported('jest.runAllTimers'),
    isolateModules: unsupported('jest.isolateModules'),
  };
  g['jest'] = jest;
  expect.extend({
    toMatchSnapshot(received: unknown, matchers?: unknown, hint?: unknown) {
      if (typeof matchers === 'string' || matchers === undefined) return snapshotResult(received, matchers);
      const value = withMatchers(received, matchers);
      return value.pass ? snapshotResult(value.received, typeof hint === 'string' ? hint : undefined) : value;
    },
    toMatchInlineSnapshot(received: unknown, matchers?: unknown, inline?: unknown) {
      if (typeof matchers === 'string' || matchers === undefined) return inlineResult(received, matchers);
      const value = withMatchers(received, matchers);
      return value.pass ? inlineResult(value.received, inline) : value;
    },
    toThrowErrorMatchingSnapshot(this: { promise?: string }, received: unknown) {
      return snapshotResult(thrownMessage(received, this.promise), undefined);
    },
    toThrowErrorMatchingInlineSnapshot(this: { promise?: string }, received: unknown, inline?: unknown) {
      return inlineResult(thrownMessage(received, this.promise), inline);
    },
  });
}

/** Property matchers (`toMatchSnapshot({ timestamp: expect.any(String) })`): checked, then printed in place. */
function withMatchers(received: unknown, matchers: unknown) {
  try {
    expect(received).toMatchObject(matchers as Record<string, unknown>);
  } catch (err) {
    return { pass: false, received, message: () => firstLine(err) };
  }
  return { pass: true, received: merged(received, matchers), message: () => '' };
}

function merged(target: unknown, matchers: unknown): unknown {
  const asymmetric = (v: unknown) => typeof v === 'object' && v !== null && '$$typeof' in v;
  if (typeof matchers !== 'object' || matchers === null || asymmetric(matchers)) return matchers;
  if (typeof target !== 'object' || target === null) return matchers;
  const out: Record<string, unknown> = Array.isArray(target) ? ([...target] as never) : { ...target };
  for (const [key, value] of Object.entries(matchers)) out[key] = merged(out[key], value);
  return out;
}

function thrownMessage(received: unknown, promise: string | undefined): string {
  if (promise === 'rejects') return String((received as Error)?.message ?? received);
  try {
    (received as Fn)();
  } catch (err) {
    return String((err as Error)?.message ?? err);
  }
  throw new Error('Received function did not throw');
}

/** Jest 27's snapshot text of a value (its default format: `Object {`, escaped strings). */
export function serialize(value: unknown): string {
  const text = format(value, {
    escapeRegex: true,
    escapeString: true,
    indent: 2,
    plugins: [
      plugins.ReactTestComponent,
      plugins.ReactElement,
      plugins.DOMElement,
      plugins.DOMCollection,
      plugins.Immutable,
      plugins.AsymmetricMatcher,
    ],
    printFunctionName: false,
    printBasicPrototype: true,
  }).replace(/\r\n|\r/g, '\n');
  return text.includes('\n') ? `\n${text}\n` : text;
}

/** An inline snapshot as Jest reads it from the source: the indentation it added taken off. */
export function stripIndentation(snapshot: string): string {
  const match = snapshot.match(/^([^\S\n]*)\S/m);
  const indentation = match?.[1];
  if (!indentation) return snapshot;
  const lines = snapshot.split('\n');
  if (lines.length <= 2 || lines[0]?.trim() !== '' || lines.at(-1)?.trim() !== '') return snapshot;
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    if (!line.startsWith(indentation)) return snapshot;
    lines[i] = line.slice(indentation.length);
  }
  lines[lines.length - 1] = '';
  return lines.join('\n');
}

function compared(expected: string | undefined, received: string) {
  if (expected === undefined)
    return { pass: false, message: () => `no stored snapshot (Jest in CI fails the same way)\n${received}` };
  const pass = expected.trim() === received.trim();
  return { pass, message: () => `snapshot differs\n- expected\n${expected}\n+ received\n${received}` };
}

function inlineResult(received: unknown, inline: unknown) {
  return compared(typeof inline === 'string' ? stripIndentation(inline) : undefined, serialize(received));
}

function snapshotResult(received: unknown, hint: string | undefined) {
  const base = hint ? `${currentName}: ${hint}` : currentName;
  const n = (snapshotCounts.get(base) ?? 0) + 1;
  snapshotCounts.set(base, n);
  return compared(snapshots?.[`${base} ${n}`], serialize(received));
}

/** The snapshots Jest keeps for a test file (`__snapshots__/<file>.snap`, a CommonJS module). */
function loadSnapshots(testFile: string): Record<string, string> {
  const exports: Record<string, string> = {};
  try {
    const text = readFileSync(join(dirname(testFile), '__snapshots__', `${basename(testFile)}.snap`), 'utf8');
    new Function('exports', text)(exports);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  return exports;
}

function withTimeout(fn: Fn | undefined, ms: number, what: string): Promise<unknown> {
  if (!fn) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const run =
    fn.length > 0
      ? new Promise((resolve, reject) => {
          const done = (err?: unknown) => (err ? reject(err) : resolve(undefined));
          Object.assign(done, { fail: reject });
          fn(done);
        })
      : Promise.resolve().then(() => fn());
  const limit = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([run, limit]).finally(() => clearTimeout(timer));
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return stripVTControlCharacters(message).slice(0, 2000);
}

/**
 * Loads a bundled test file (`load` requires it, filling the tree through the globals) and runs its
 * tests one after another, each under `timeoutMs`; `record` is called once per test.
 */
export async function runFile(
  testFile: string,
  load: () => void,
  timeoutMs: number,
  record: (c: CaseRecord) => void,
): Promise<void> {
  root = newBlock('', false);
  open = root;
  snapshots = loadSnapshots(testFile);
  snapshotCounts = new Map();
  load();
  await runBlock(root, [], [], [], timeoutMs, record);
}

async function runBlock(
  block: Block,
  names: string[],
  beforeEach: Fn[],
  afterEach: Fn[],
  timeoutMs: number,
  record: (c: CaseRecord) => void,
): Promise<void> {
  const path = block.name === '' ? names : [...names, block.name];
  const before = [...beforeEach, ...block.beforeEach];
  const after = [...block.afterEach, ...afterEach];
  let setupError: unknown;
  for (const fn of block.beforeAll)
    await withTimeout(fn, timeoutMs, 'beforeAll').catch((err: unknown) => {
      setupError ??= err;
    });
  for (const child of block.children) {
    if (child.kind === 'block') {
      await runBlock(child, path, before, after, timeoutMs, record);
      continue;
    }
    const c: CaseRecord = {
      name: [...path, child.name].join(' '),
      status: 'pass',
      calls: [],
      unsupported: [],
      actions: [],
      standIns: [],
      wireCompared: 0,
      wireDiffs: [],
    };
    if (child.skip) {
      c.status = 'skip';
      record(c);
      continue;
    }
    current = c;
    currentName = c.name;
    try {
      if (setupError) throw setupError;
      for (const fn of before) await withTimeout(fn, timeoutMs, 'beforeEach');
      await withTimeout(child.fn, timeoutMs, 'test');
      for (const fn of after) await withTimeout(fn, timeoutMs, 'afterEach');
    } catch (err) {
      c.status = 'fail';
      c.message = firstLine(err);
      for (const fn of after) await withTimeout(fn, timeoutMs, 'afterEach').catch(() => undefined);
    }
    current = undefined;
    record(c);
  }
  for (const fn of block.afterAll) await withTimeout(fn, timeoutMs, 'afterAll').catch(() => undefined);
}

/** Where a call that starts at `open` (its `(`) ends: after its `)`, strings and comments skipped. */
function callEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) + 1 || text.length;
    else if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/** A test file's `jest.mock` statements, as Jest's transform hoists them. */
export interface HoistedMocks {
  /** The statements, in their order (to run before the file's imports). */
  readonly hoisted: string;
  /** The file without them. */
  readonly rest: string;
  /** The modules they mock, as written. */
  readonly specs: readonly string[];
}

/**
 * The top-level `jest.mock(…)` statements of a test file (a line starting with `jest.mock(`), taken
 * out so that they can run before its imports, as Jest's transform moves them; undefined when one of
 * them cannot be read (an unbalanced call, a module not named by a string).
 */
export function hoistMocks(text: string): HoistedMocks | undefined {
  const calls: { start: number; end: number; spec: string }[] = [];
  for (const m of text.matchAll(/^jest\.mock\(\s*(['"])([^'"]+)\1/gm)) {
    const start = m.index;
    let end = callEnd(text, start + 'jest.mock'.length);
    if (end < 0) return undefined;
    if (text[end] === ';') end++;
    calls.push({ start, end, spec: m[2] as string });
  }
  let rest = '';
  let at = 0;
  for (const c of calls) {
    rest += text.slice(at, c.start);
    at = c.end;
  }
  rest += text.slice(at);
  return {
    hoisted: calls.map((c) => text.slice(c.start, c.end)).join('\n'),
    rest,
    specs: calls.map((c) => c.spec),
  };
}
