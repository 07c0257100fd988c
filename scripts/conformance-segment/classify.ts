/**
 * The conformance run's accounting (scripts/conformance-segment.ts): each of Segment's test cases,
 * run once as Segment runs it and once through our runtime (worker.ts), is `pass`, `fail` or not
 * runnable, each of the last two with its reason; then the figures per action and destination.
 * Pure.
 */
import type { CaseRecord } from './jest.ts';

/** One worker line: a test's record (jest.ts), or a file that could not be loaded (`load` says why). */
export type WorkerLine = { readonly file: string; readonly load?: string } & Partial<Readonly<CaseRecord>>;

export interface CaseResult {
  readonly file: string;
  readonly name: string;
  /** The case's name in the committed results (caseId). */
  readonly id: string;
  readonly result: 'pass' | 'fail' | 'not runnable';
  readonly reason?: string;
  readonly actions: readonly string[];
  /** The first part of the failure's message (ours), for a failing case. */
  readonly message?: string;
  /** Run with stand-ins for required settings the test leaves out. */
  readonly standIns?: true;
  /** For a runnable case: whether Segment's assertions held, run through ours. */
  readonly assertions?: boolean;
  /** For a runnable case: whether every request ours sent is the one Segment's own code sends. */
  readonly wire?: boolean;
  /** A batch case: it runs testBatchAction or executeBatch (through forward-catalog's batch path). */
  readonly batch?: true;
}

/**
 * The test integration's calls the run runs through our runtime: testAction one event at a time,
 * testBatchAction and the test integration's executeBatch (its multi-status answer, which our
 * runtime takes each event's outcome from) through forward-catalog's batch path (batch.ts).
 */
const OURS = new Set(['testAction', 'testBatchAction', 'executeBatch']);
const BATCH = new Set(['testBatchAction', 'executeBatch']);

/** Why a test that calls something else than those is not a run of our runtime. */
const OTHER_CALLS: Readonly<Record<string, string>> = {
  onBatch: "calls actions-core's Destination directly, not through the test integration",
  testAuthentication: "connection test (testAuthentication): Segment's app, not a delivery",
  testDynamicField: "dynamic field lookup (Segment's mapping UI)",
  executeDynamicField: "dynamic field lookup (Segment's mapping UI)",
  refreshAccessToken: 'OAuth token refresh (another task: OAuth connections)',
  testRefreshToken: 'OAuth token refresh (another task: OAuth connections)',
  onDelete: 'deletion requests (onDelete)',
  createAudience: 'Engage audience management (createAudience / getAudience)',
  getAudience: 'Engage audience management (createAudience / getAudience)',
  onEvent: "calls actions-core's Destination directly, not through the test integration",
  executeAction: "calls actions-core's Destination directly, not through the test integration",
};

/** Recorded (worker.ts) when a test runs an action its destination does not have. */
export const NO_SUCH_ACTION = 'no such action';

export const NO_SUCH_ACTION_REASON =
  "runs an action the destination does not have (a typo in Segment's test): actions-core's test integration runs nothing and the test checks nothing";

/**
 * Recorded (worker.ts) when Segment's own settings check (actions-core's `validateSettings`, run by
 * the harness on the test's settings, never by our runtime) refuses what the test gives.
 */
export const SETTINGS_INVALID = 'settings refused by actions-core';

export const STAND_IN_COMPARED =
  'the test leaves out a required setting or OAuth token and fails when ours runs with a stand-in for it (it compares the value as absent: `api_key: undefined`, `Bearer undefined`)';

export const SETTINGS_REFUSED =
  "the test gives settings values the destination's schema refuses (actions-core's own settings check refuses them): our runtime refuses them before any action runs, as Segment's app does";

/** A case whose assertions pass but whose requests are not the ones Segment's own code sends. */
export const WIRE_DIFFERS = "the request on the wire differs from the one Segment's own code sends";

/** A failure under Segment's own test integration: a limit of the harness, by kind. */
function harnessReason(message: string): string {
  if (message.startsWith('no stored snapshot'))
    return 'harness: no snapshot stored for it (Jest in CI fails too)';
  if (message.includes('not supported by the conformance harness'))
    return 'harness: needs Jest features not provided (fake timers, module mocks, tagged .each)';
  if (message.startsWith('snapshot differs'))
    return "harness: Segment's own run differs from its stored snapshot (installed dependency versions)";
  if (message.includes('timed out')) return 'harness: timed out';
  if (message.includes('Nock:')) return "harness: Segment's own run makes a request its test does not mock";
  return "harness: fails with Segment's own test integration here";
}

/** Why one of ours fails, by kind. */
export function failureReason(message: string): string {
  if (message.startsWith('snapshot differs')) return "request differs from Segment's snapshot";
  if (message.startsWith('no stored snapshot')) return 'no snapshot stored for it';
  if (message.includes('Nock:') || message.startsWith('no answer from'))
    return 'a request the test does not expect (URL or body)';
  if (message.startsWith('expect(')) return "differs from the test's expectation";
  return 'the run threw where the test expects none, or another error';
}

/** Load failures of a file: each of its tests (counted in its text) takes the reason. */
function loadReason(load: string): string {
  if (load.startsWith('module mocks of actions-core'))
    return 'module mocks of actions-core itself: the runtime under test replaced by mocks';
  if (load.startsWith('module mocks'))
    return "harness: module mocks in a form not supported (jest.doMock, a call inside a block, a factory reading the file's variables)";
  if (load.startsWith('does not build')) return 'harness: the test file does not build here';
  return 'harness: the test file does not load here (a package not installed)';
}

/** How many tests a file's text declares (for a file that could not be loaded). */
export function declaredTests(text: string): number {
  return (text.match(/\b(?:it|test)(?:\.only)?(?:\.each\([^)]*\))?\s*\(/g) ?? []).length;
}

/**
 * The cases of one destination from both modes' lines, paired by file, name and occurrence.
 * `declared` counts a file's tests when it could not be loaded.
 */
export function classify(
  segment: readonly WorkerLine[],
  ours: readonly WorkerLine[],
  declared: (file: string) => number,
): CaseResult[] {
  const occurrence = (l: WorkerLine, seen: Map<string, number>) => {
    const k = `${l.file}\u0000${l.name ?? ''}`;
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n;
  };
  const key = (l: WorkerLine, seen: Map<string, number>) =>
    `${l.file}\u0000${l.name ?? ''}\u0000${occurrence(l, seen)}`;
  const oursSeen = new Map<string, number>();
  const byKey = new Map(ours.filter((l) => !l.load).map((l) => [key(l, oursSeen), l]));
  const seen = new Map<string, number>();
  const out: CaseResult[] = [];
  for (const line of segment) {
    if (line.load) {
      const reason = loadReason(line.load);
      for (let i = 0; i < declared(line.file); i++) {
        const name = `(test ${i + 1})`;
        const id = caseId(line.file, name, 1);
        out.push({ file: line.file, name, id, result: 'not runnable', reason, actions: [] });
      }
      continue;
    }
    const n = occurrence(line, seen);
    const own = byKey.get(`${line.file}\u0000${line.name ?? ''}\u0000${n}`);
    const base = {
      file: line.file,
      name: line.name ?? '',
      id: caseId(line.file, line.name ?? '', n),
      actions: [...new Set(line.actions ?? [])],
      ...((line.calls ?? []).some((c) => BATCH.has(c)) ? { batch: true as const } : {}),
    };
    const other = (line.calls ?? []).find((c) => !OURS.has(c));
    const notRunnable = (reason: string) => out.push({ ...base, result: 'not runnable', reason });
    if (line.status === 'skip') notRunnable("skipped in Segment's file (it.skip, it.todo)");
    else if (other) notRunnable(OTHER_CALLS[other] ?? `calls ${other}`);
    else if ((line.calls ?? []).length === 0) notRunnable('no action run (a unit test of a helper)');
    else if ((line.unsupported ?? []).includes(NO_SUCH_ACTION)) notRunnable(NO_SUCH_ACTION_REASON);
    else if ((line.unsupported ?? []).includes(SETTINGS_INVALID)) notRunnable(SETTINGS_REFUSED);
    else if ((line.unsupported ?? []).includes('results'))
      notRunnable("reads the action's return value (results): our runtime keeps outcomes, not return values");
    else if ((line.unsupported ?? []).length > 0)
      notRunnable("Segment-internal inputs (features, stateContext, statsContext…): Segment's own services");
    else if (line.status === 'fail') notRunnable(harnessReason(line.message ?? ''));
    else if (!own) out.push({ ...base, result: 'fail', reason: 'no result from our run (the worker ended)' });
    else if (own.status !== 'pass' && (own.standIns ?? []).length > 0) notRunnable(STAND_IN_COMPARED);
    else {
      const wire = wireOf(own);
      const assertions = own.status === 'pass';
      const verdict = { ...base, ...withStandIns(own), assertions, wire: wire.same };
      if (assertions && wire.same) out.push({ ...verdict, result: 'pass' });
      else
        out.push({
          ...verdict,
          result: 'fail',
          reason: assertions ? WIRE_DIFFERS : failureReason(own.message ?? ''),
          message: (assertions ? (wire.diff ?? '') : (own.message ?? '')).slice(0, 300),
        });
    }
  }
  return out;
}

/**
 * Whether every request ours sent is the one Segment's own code sent for the same input (worker.ts
 * compares them); a line without a comparison (no testAction reached the comparison) is not the same.
 */
function wireOf(line: WorkerLine): { same: boolean; diff?: string } {
  const compared = line.wireCompared ?? 0;
  const diff = line.wireDiffs?.[0];
  if (diff !== undefined) return { same: false, diff };
  return compared > 0 ? { same: true } : { same: false, diff: 'no request comparison recorded' };
}

/** A case's name as the committed results keep it: its file under the destination, its name, its occurrence. */
export function caseId(file: string, name: string, occurrence: number): string {
  const under = file.replace(/^.*\/src\/destinations\/[^/]+\//, '');
  return occurrence > 1 ? `${under} › ${name} #${occurrence}` : `${under} › ${name}`;
}

const withStandIns = (line: WorkerLine): { standIns?: true } =>
  (line.standIns ?? []).length > 0 ? { standIns: true } : {};

export interface ActionFigure {
  readonly action: string;
  readonly runnable: number;
  readonly passing: number;
}

/** Runnable cases counted: all of them, those whose assertions and wire both hold, and each apart. */
export interface CaseFigures {
  readonly runnable: number;
  readonly passing: number;
  readonly assertions: number;
  readonly wire: number;
}

function caseFigures(runnable: readonly CaseResult[]): CaseFigures {
  return {
    runnable: runnable.length,
    passing: runnable.filter((c) => c.result === 'pass').length,
    assertions: runnable.filter((c) => c.assertions).length,
    wire: runnable.filter((c) => c.wire).length,
  };
}

export interface DestinationFigure {
  readonly slug: string;
  readonly cases: number;
  readonly runnable: number;
  /** Runnable cases whose Segment assertions and wire comparison both hold. */
  readonly passing: number;
  /** Runnable cases whose Segment assertions hold, run through ours. */
  readonly assertions: number;
  /** Runnable cases whose every request is the one Segment's own code sends. */
  readonly wire: number;
  /** Runnable cases run with stand-ins for required settings the test leaves out. */
  readonly withStandIns: number;
  /** The runnable batch cases (testBatchAction, executeBatch: forward-catalog's batch path), counted apart too. */
  readonly batch: CaseFigures;
  /** The passing cases by name (caseId): a later run in which one of them does not pass fails. */
  readonly passed: readonly string[];
  /** Actions with runnable cases, each verified when all of them pass. */
  readonly actions: readonly ActionFigure[];
  readonly notRunnable: Readonly<Record<string, number>>;
  readonly failing: readonly { readonly name: string; readonly reason: string; readonly message?: string }[];
}

function counted(reasons: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of [...reasons].sort()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

export function destinationFigure(slug: string, cases: readonly CaseResult[]): DestinationFigure {
  const runnable = cases.filter((c) => c.result !== 'not runnable');
  const actions = new Map<string, { runnable: number; passing: number }>();
  for (const c of runnable)
    for (const action of c.actions) {
      const a = actions.get(action) ?? { runnable: 0, passing: 0 };
      a.runnable++;
      if (c.result === 'pass') a.passing++;
      actions.set(action, a);
    }
  return {
    slug,
    cases: cases.length,
    ...caseFigures(runnable),
    withStandIns: runnable.filter((c) => c.standIns).length,
    batch: caseFigures(runnable.filter((c) => c.batch)),
    passed: runnable.filter((c) => c.result === 'pass').map((c) => c.id),
    actions: [...actions].sort(([a], [b]) => a.localeCompare(b)).map(([action, f]) => ({ action, ...f })),
    notRunnable: counted(cases.flatMap((c) => (c.result === 'not runnable' && c.reason ? [c.reason] : []))),
    failing: cases
      .filter((c) => c.result === 'fail')
      .map((c) => ({ name: c.name, reason: c.reason ?? '', ...(c.message ? { message: c.message } : {}) })),
  };
}

/** An action is verified when it has runnable cases and all of them pass. */
export const verifiedActions = (d: DestinationFigure): readonly ActionFigure[] =>
  d.actions.filter((a) => a.runnable > 0 && a.passing === a.runnable);

export interface ConformanceTotals {
  readonly destinationsWithTests: number;
  readonly cases: number;
  readonly runnable: number;
  readonly passing: number;
  readonly assertions: number;
  readonly wire: number;
  readonly withStandIns: number;
  /** The runnable batch cases (testBatchAction, executeBatch). */
  readonly batch: CaseFigures;
  /** Destinations with at least one verified action. */
  readonly destinationsVerified: number;
  readonly actionsVerified: number;
  readonly actionsWithRunnableCases: number;
  readonly notRunnable: Readonly<Record<string, number>>;
  readonly failing: Readonly<Record<string, number>>;
}

export function totalsOf(destinations: readonly DestinationFigure[]): ConformanceTotals {
  const notRunnable: Record<string, number> = {};
  for (const d of destinations)
    for (const [reason, n] of Object.entries(d.notRunnable))
      notRunnable[reason] = (notRunnable[reason] ?? 0) + n;
  const sum = (f: (d: DestinationFigure) => number) => destinations.reduce((n, d) => n + f(d), 0);
  return {
    destinationsWithTests: destinations.length,
    cases: sum((d) => d.cases),
    runnable: sum((d) => d.runnable),
    passing: sum((d) => d.passing),
    assertions: sum((d) => d.assertions),
    wire: sum((d) => d.wire),
    withStandIns: sum((d) => d.withStandIns),
    batch: {
      runnable: sum((d) => d.batch.runnable),
      passing: sum((d) => d.batch.passing),
      assertions: sum((d) => d.batch.assertions),
      wire: sum((d) => d.batch.wire),
    },
    destinationsVerified: destinations.filter((d) => verifiedActions(d).length > 0).length,
    actionsVerified: sum((d) => verifiedActions(d).length),
    actionsWithRunnableCases: sum((d) => d.actions.length),
    notRunnable: Object.fromEntries(Object.entries(notRunnable).sort(([, a], [, b]) => b - a)),
    failing: Object.fromEntries(
      Object.entries(counted(destinations.flatMap((d) => d.failing.map((f) => f.reason)))).sort(
        ([, a], [, b]) => b - a,
      ),
    ),
  };
}
