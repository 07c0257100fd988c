/**
 * The CI tier of the conformance run: the data scripts/conformance-segment.ts writes from a run
 * against the pinned checkout (test/fixtures/segment-conformance/replay.jsonl: each passing case's
 * inputs, the answers the test's mocks gave, and the requests Segment's own code sent), replayed
 * through our runtime without the network or the checkout
 * (test/delivery/conformance/conformance-replay.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type EgressSender, egressFetch } from '../../adapters/egress.ts';
import type { runSegmentEvent } from '../../adapters/segment-actions/run.ts';
import type { Destination } from '../../schemas/settings.ts';
import { runBatch } from './batch.ts';
import { type CaseResult, caseId } from './classify.ts';
import { pinned } from './pinned.ts';
import type { ConformanceReport } from './table.ts';
import { type Wire, wireDiff } from './wire.ts';

/** One testAction (or testBatchAction) of a passing case. */
export type ReplayCase = ReplayInput &
  (
    | {
        /** The event as Segment's test integration made it. */
        readonly event: Record<string, unknown>;
      }
    | {
        /** A batch case's events as Segment's test integration made them, sent in one batch (batch.ts). */
        readonly events: readonly Record<string, unknown>[];
      }
  );

interface ReplayInput {
  /** The case (classify.ts caseId). */
  readonly name: string;
  /** The destination as ours ran it: the test's settings (and stand-ins) as config, its action and mapping. */
  readonly destination: Destination;
  readonly secrets: Readonly<Record<string, string>>;
  /** The instant the clock was held at (pinned.ts), as in the run. */
  readonly at: number;
  /** What the test's mocks answered, in order. */
  readonly answers: readonly {
    readonly status: number;
    readonly statusText: string;
    readonly headers: readonly [string, string][];
    readonly text: string;
  }[];
  /** What Segment's own code sent for the same input. */
  readonly segment: readonly Wire[];
}

/** A passing case the data cannot replay: its test mocks something of its own (why). */
export interface NotReplayed {
  readonly name: string;
  readonly notReplayed: string;
}

export interface ReplayData {
  readonly package: string;
  readonly version: string;
  /** The commit of the checkout whose tests gave the data. */
  readonly commit: string;
  readonly destinations: Readonly<Record<string, readonly (ReplayCase | NotReplayed)[]>>;
}

const require = createRequire(import.meta.url);
const DESTINATIONS_BUILD = dirname(require.resolve('@segment/action-destinations/package.json'));

/**
 * Our runtime loaded afresh, with the installed destinations: as in the run (worker.ts), where each
 * test file starts with modules of its own, a module's state (Friendbuy's cached token) never
 * carries from one file's cases to the next. `n` names the load.
 */
export async function freshRuntime(n: number): Promise<typeof runSegmentEvent> {
  for (const key of Object.keys(require.cache))
    if (key.startsWith(`${DESTINATIONS_BUILD}/`)) delete require.cache[key];
  const url = `../../adapters/segment-actions/run.ts?replay=${n}`;
  return ((await import(url)) as { runSegmentEvent: typeof runSegmentEvent }).runSegmentEvent;
}

/**
 * One case through our runtime, its answers given back in order, behind the egress gate's fetch (a
 * batch case's events in one batch, through forward-catalog's batch path): how what it sends
 * differs from Segment's, or undefined when it is the same.
 */
export async function replayCase(c: ReplayCase, run: typeof runSegmentEvent): Promise<string | undefined> {
  const sent: Wire[] = [];
  const send: EgressSender = async (request) => {
    const answer = c.answers[sent.length];
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: request.body });
    if (!answer) return { kind: 'network_error', message: 'no recorded answer' };
    return {
      kind: 'response',
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: answer.text,
    };
  };
  const io = { fetch: egressFetch(send, 30_000), now: new Date(c.at) };
  await pinned<unknown>(c.at, () =>
    'events' in c
      ? runBatch(run, c.events, c.destination, c.secrets, io)
      : run(c.event, c.destination, c.secrets, io),
  );
  return wireDiff(sent, c.segment);
}

/**
 * The CI tier's data (replay.ts): each testAction of a passing case, its input and what Segment's
 * own code sent for it, by destination; no test code. Inputs are the tests' own (made-up values).
 */
export function replayCases(file: string, cases: readonly CaseResult[]): (ReplayCase | NotReplayed)[] {
  const passing = new Set(cases.filter((c) => c.result === 'pass').map((c) => `${c.file}\u0000${c.name}`));
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as (ReplayCase | NotReplayed) & { file: string; same: boolean })
    .filter((r) => r.same && passing.has(`${r.file}\u0000${r.name}`))
    .map(({ file: f, same: _same, ...rest }) => ({ ...rest, name: caseId(f, rest.name, 1) }));
}

/**
 * Writes the CI tier's data into `dir` as `replay.jsonl`, from a run that holds: a first line with
 * the package, its version and the checkout's commit, then one line per testAction (its
 * destination's slug added), so that a change of the data reads case by case.
 */
export function writeReplay(
  dir: string,
  report: Pick<ConformanceReport, 'package' | 'version'>,
  replays: ReadonlyMap<string, readonly (ReplayCase | NotReplayed)[]>,
  commit: string,
): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const lines = [JSON.stringify({ package: report.package, version: report.version, commit })];
  for (const [slug, cases] of [...replays].sort(([a], [b]) => a.localeCompare(b)))
    for (const c of cases) lines.push(JSON.stringify({ slug, ...c }));
  writeFileSync(join(dir, REPLAY_FILE), `${lines.join('\n')}\n`);
}

export const REPLAY_FILE = 'replay.jsonl';

/** The CI tier's data as writeReplay wrote it. */
export function readReplay(file: string): ReplayData {
  const [head, ...rest] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const destinations: Record<string, (ReplayCase | NotReplayed)[]> = {};
  for (const line of rest) {
    const { slug, ...c } = JSON.parse(line) as (ReplayCase | NotReplayed) & { slug: string };
    const list = destinations[slug] ?? [];
    list.push(c);
    destinations[slug] = list;
  }
  return { ...(JSON.parse(head ?? '{}') as Omit<ReplayData, 'destinations'>), destinations };
}
