/**
 * What the `schedule` function does with a tick and with a run message (docs/scheduler.md),
 * apart from HTTP so tests and the entry point share it. Jobs (syncs, scheduled rules, the
 * dead-letter re-drive) say what of theirs is scheduled and run one chunk at a time; this module
 * owns the lock, the lease, the continuation and the fencing.
 */
import {
  afterChunk,
  afterFailure,
  decideRun,
  type LockState,
  leased,
  type RunMessage,
  runKey,
  type Scheduled,
  tickMessage,
} from '../../core/scheduler/dispatch.ts';

/** One chunk's context: the run, where it stands, and the fence to check before committing. */
export interface ChunkContext {
  readonly run: RunMessage;
  readonly runId: string;
  readonly cursor: unknown;
  readonly chunk: number;
  readonly now: Date;
  /** Throws unless this runner still holds the lock: call it before committing state elsewhere. */
  readonly fence: () => Promise<void>;
}

export interface ChunkResult {
  readonly done: boolean;
  /** The next chunk's starting point (JSON), when not done. */
  readonly cursor?: unknown;
  /** Figures for the log line of the chunk. */
  readonly summary?: Readonly<Record<string, unknown>>;
  /** When done: the run's result in one line, kept in the lock as `last_outcome` for its caller. */
  readonly outcome?: string;
}

export interface Job {
  readonly kind: string;
  /** The instances of this job that have a schedule now. */
  scheduled(now: Date): Promise<readonly Scheduled[]>;
  /** One chunk, well inside the function's timeout. */
  chunk(ctx: ChunkContext): Promise<ChunkResult>;
  /**
   * The run was given up (MAX_CHUNK_FAILURES failed chunks in a row): record it where its users
   * look (a failed row in the job's run table). Best effort: the lock already says it.
   */
  gaveUp?(ctx: Omit<ChunkContext, 'fence'>, error: string): Promise<void>;
}

export interface Locks {
  read(kind: string, name: string): Promise<{ readonly state: LockState; readonly generation: number }>;
  write(kind: string, name: string, state: LockState, generation: number): Promise<number>;
  fence(kind: string, name: string, generation: number): Promise<void>;
}

export interface RunnerDeps {
  readonly jobs: readonly Job[];
  readonly locks: Locks;
  readonly publish: (runs: readonly RunMessage[]) => Promise<void>;
  readonly now?: () => Date;
  /** How long a chunk may hold the lease (more than the function's timeout). */
  readonly leaseMs: number;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
}

export interface TickReport {
  readonly scheduled: number;
  readonly dispatched: readonly string[];
  readonly errors: readonly string[];
}

/** The tick: one run message per due resource (or per unfinished run whose lease ran out). */
export async function tick(deps: RunnerDeps): Promise<TickReport> {
  const now = (deps.now ?? (() => new Date()))();
  const errors: string[] = [];
  const all: Scheduled[] = [];
  for (const job of deps.jobs) {
    try {
      all.push(...(await job.scheduled(now)));
    } catch (err) {
      errors.push(`${job.kind}: ${(err as Error).message}`);
    }
  }
  const runs: RunMessage[] = [];
  // Lock reads in small parallel groups: a tick reads one object per scheduled resource.
  for (let i = 0; i < all.length; i += 16) {
    const group = all.slice(i, i + 16);
    const reads = await Promise.allSettled(group.map((s) => deps.locks.read(s.kind, s.name)));
    reads.forEach((r, j) => {
      const s = group[j] as Scheduled;
      if (r.status === 'rejected') errors.push(`${s.kind}/${s.name}: ${(r.reason as Error).message}`);
      else {
        const m = tickMessage(s, r.value.state, now);
        if (m) runs.push(m);
      }
    });
  }
  if (runs.length > 0) await deps.publish(runs);
  const report = { scheduled: all.length, dispatched: runs.map(runKey), errors };
  deps.log?.({ severity: errors.length > 0 ? 'WARNING' : 'INFO', message: 'tick', ...report });
  return report;
}

export type RunOutcome =
  | { readonly outcome: 'skipped'; readonly reason: string; readonly busy?: true }
  /**
   * A manual run (a test fire, a replay asked for) that could not start now: another run holds
   * the lease, took the lock first, or went first as the lock's unfinished run. No tick brings a
   * manual message back, so it must be delivered again (the handler answers 503).
   */
  | { readonly outcome: 'waiting'; readonly reason: string }
  | { readonly outcome: 'continued' | 'finished'; readonly run: string; readonly chunk: number }
  | { readonly outcome: 'lost'; readonly reason: string }
  | { readonly outcome: 'failed'; readonly run: string; readonly error: string };

/**
 * One run message: take the lease (over the generation read), run a chunk, commit the cursor
 * over the generation written, then publish the continuation. A lost lock commits nothing.
 */
export async function runChunk(deps: RunnerDeps, message: RunMessage): Promise<RunOutcome> {
  const outcome = await runOnce(deps, message);
  if (message.trigger !== 'manual') return outcome;
  const asked = runKey(message);
  if (outcome.outcome === 'lost' || (outcome.outcome === 'skipped' && outcome.busy))
    return { outcome: 'waiting', reason: `${asked} waits: ${outcome.reason}` };
  if (
    (outcome.outcome === 'continued' || outcome.outcome === 'finished' || outcome.outcome === 'failed') &&
    outcome.run !== asked
  )
    return { outcome: 'waiting', reason: `${asked} waits: ${outcome.run} went first` };
  return outcome;
}

async function runOnce(deps: RunnerDeps, message: RunMessage): Promise<RunOutcome> {
  const clock = deps.now ?? (() => new Date());
  const job = deps.jobs.find((j) => j.kind === message.kind);
  if (!job) return { outcome: 'skipped', reason: `no job runs kind ${message.kind}` };
  const { kind, name } = message;
  const read = await deps.locks.read(kind, name);
  const started = clock();
  const decision = decideRun(message, read.state, started);
  if (decision.action === 'skip')
    return { outcome: 'skipped', reason: decision.reason, ...(decision.busy ? { busy: true as const } : {}) };

  const holding = leased(read.state, decision, started.getTime() + deps.leaseMs);
  let generation: number;
  try {
    generation = await deps.locks.write(kind, name, holding, read.generation);
  } catch (err) {
    return { outcome: 'lost', reason: (err as Error).message };
  }
  const id = runKey(decision.run);
  let result: ChunkResult;
  try {
    result = await job.chunk({
      run: decision.run,
      runId: id,
      cursor: decision.cursor,
      chunk: decision.chunk,
      now: started,
      fence: () => deps.locks.fence(kind, name, generation),
    });
  } catch (err) {
    const error = (err as Error).message;
    // The lease is let go at once and the cursor stays put: the next tick retries the chunk.
    const after = afterFailure(holding, decision.run, error, clock());
    const written = await deps.locks.write(kind, name, after, generation).then(
      () => true,
      () => false,
    );
    deps.log?.({ severity: 'ERROR', message: 'run chunk failed', run: id, chunk: decision.chunk, error });
    if (written && after.run === null && job.gaveUp) {
      await job
        .gaveUp(
          { run: decision.run, runId: id, cursor: decision.cursor, chunk: decision.chunk, now: started },
          after.last_error ?? error,
        )
        .catch((err: unknown) =>
          deps.log?.({
            severity: 'ERROR',
            message: 'recording a given-up run failed',
            run: id,
            error: String(err),
          }),
        );
    }
    return { outcome: 'failed', run: id, error };
  }
  try {
    await deps.locks.write(kind, name, afterChunk(holding, decision.run, result, clock()), generation);
  } catch (err) {
    return { outcome: 'lost', reason: (err as Error).message };
  }
  deps.log?.({
    severity: 'INFO',
    message: result.done ? 'run finished' : 'run chunk done',
    run: id,
    chunk: decision.chunk,
    ...(result.summary ?? {}),
  });
  if (result.done) return { outcome: 'finished', run: id, chunk: decision.chunk };
  // Published after the commit: if this fails the answer is an error, the message comes back,
  // and the lock (lease let go) lets the redelivery continue from the committed cursor.
  await deps.publish([decision.run]);
  return { outcome: 'continued', run: id, chunk: decision.chunk };
}
