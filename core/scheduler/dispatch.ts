/**
 * The scheduler (docs/scheduler.md): a tick once a minute only dispatches — one `run` message
 * per due resource — and a runner does one chunk of a run at a time under the resource's lock.
 *
 * The lock is one object per resource (`locks/<kind>/<name>`). It holds the lease and the run's
 * state (the run it belongs to, its cursor, the last slot that finished), so committing state IS
 * writing the lock with `ifGenerationMatch=<the generation this runner wrote>`: a runner whose
 * lease was taken over can no longer commit anything (fencing). Between chunks the lease is let
 * go and a continuation is published; a crashed chunk is taken back once its lease ran out, by
 * the next tick. Pure: the decisions here, the object reads and writes in adapters/locks.ts.
 */
import { dueSlot, runId, type ScheduleSpec } from './cadence.ts';

/** The lock object's content. */
export interface LockState {
  /** The run that owns the resource until it finishes, or null when none is under way. */
  readonly run: string | null;
  readonly slot: string | null;
  readonly trigger: RunTrigger | null;
  /** Where the run stands (the job's own shape), committed after each chunk. */
  readonly cursor: unknown;
  readonly chunk: number;
  /** Epoch ms until which a runner holds the lease; 0 between chunks. */
  readonly lease_until: number;
  /** The last scheduled slot that finished (manual runs do not move it). */
  readonly last_slot: string | null;
  readonly last_run: string | null;
  readonly last_finished_at: string | null;
  /** Failed chunks of the current run in a row. */
  readonly failures: number;
  /** Why the last run was given up, if it was. */
  readonly last_error: string | null;
  /**
   * What the last finished run said of itself in one line, for whoever started it (`eventbus
   * reconcile` prints why a count was not read); null when its job says nothing.
   */
  readonly last_outcome: string | null;
}

export const FREE_LOCK: LockState = Object.freeze({
  run: null,
  slot: null,
  trigger: null,
  cursor: null,
  chunk: 0,
  lease_until: 0,
  last_slot: null,
  last_run: null,
  last_finished_at: null,
  failures: 0,
  last_error: null,
  last_outcome: null,
});

/** The longest outcome a lock keeps: a line, not a report. */
export const MAX_OUTCOME_CHARS = 500;

/** A run whose chunk failed this many times in a row is given up; the next slot starts afresh. */
export const MAX_CHUNK_FAILURES = 5;

export type RunTrigger = 'schedule' | 'manual';

/** The body of a `run` message. The cursor is never in it: the lock holds it. */
export interface RunMessage {
  readonly kind: string;
  readonly name: string;
  readonly slot: string;
  readonly trigger: RunTrigger;
}

export const runKey = (m: Pick<RunMessage, 'kind' | 'name' | 'slot'>): string =>
  runId(m.kind, m.name, m.slot);

/** A resource or built-in job with a schedule. */
export interface Scheduled {
  readonly kind: string;
  readonly name: string;
  readonly schedule: ScheduleSpec;
}

/**
 * What the tick sends for one resource: the unfinished run again when its lease ran out (a
 * crashed chunk), the due slot when nothing is under way, or nothing.
 */
export function tickMessage(s: Scheduled, lock: LockState, now: Date): RunMessage | undefined {
  if (lock.run !== null && lock.slot !== null) {
    if (lock.lease_until > now.getTime()) return undefined;
    return { kind: s.kind, name: s.name, slot: lock.slot, trigger: lock.trigger ?? 'schedule' };
  }
  const slot = dueSlot(s.schedule, lock.last_slot ?? undefined, now);
  return slot ? { kind: s.kind, name: s.name, slot, trigger: 'schedule' } : undefined;
}

/** What a runner does with a run message, given the lock as it read it. */
export type RunDecision =
  /** Take the lease and run a chunk of this run (new, continued or taken over). */
  | { readonly action: 'run'; readonly run: RunMessage; readonly cursor: unknown; readonly chunk: number }
  /** Nothing to do now; `busy`: another run holds the lease (a manual message must come back). */
  | { readonly action: 'skip'; readonly reason: string; readonly busy?: true };

export function decideRun(message: RunMessage, lock: LockState, now: Date): RunDecision {
  const leased = lock.lease_until > now.getTime();
  if (lock.run !== null && lock.slot !== null) {
    if (leased) return { action: 'skip', reason: `${lock.run} holds the lease`, busy: true };
    // The lock's own unfinished run goes first, whichever message woke the runner.
    return {
      action: 'run',
      run: {
        kind: message.kind,
        name: message.name,
        slot: lock.slot,
        trigger: lock.trigger ?? 'schedule',
      },
      cursor: lock.cursor,
      chunk: lock.chunk,
    };
  }
  if (
    message.trigger === 'schedule' &&
    lock.last_slot !== null &&
    Date.parse(lock.last_slot) >= Date.parse(message.slot)
  )
    return { action: 'skip', reason: `slot ${message.slot} already ran` };
  if (message.trigger === 'manual' && lock.last_run === runKey(message))
    return { action: 'skip', reason: `${runKey(message)} already ran` };
  return { action: 'run', run: message, cursor: null, chunk: 0 };
}

/** The lock while a chunk runs. */
export function leased(
  lock: LockState,
  d: Extract<RunDecision, { action: 'run' }>,
  until: number,
): LockState {
  return {
    ...lock,
    run: runKey(d.run),
    slot: d.run.slot,
    trigger: d.run.trigger,
    cursor: d.cursor,
    chunk: d.chunk,
    lease_until: until,
  };
}

/** The lock after a chunk: the next chunk's cursor with the lease let go, or the run finished. */
export function afterChunk(
  lock: LockState,
  run: RunMessage,
  result: { readonly done: boolean; readonly cursor?: unknown; readonly outcome?: string },
  now: Date,
): LockState {
  if (!result.done)
    return { ...lock, cursor: result.cursor ?? null, chunk: lock.chunk + 1, lease_until: 0, failures: 0 };
  return {
    ...FREE_LOCK,
    last_slot: run.trigger === 'schedule' ? run.slot : lock.last_slot,
    last_run: runKey(run),
    last_finished_at: now.toISOString(),
    last_outcome: result.outcome === undefined ? null : result.outcome.slice(0, MAX_OUTCOME_CHARS),
  };
}

/**
 * The lock when a chunk failed: the lease is let go and the cursor stays where it was, for the
 * next tick to try again; after MAX_CHUNK_FAILURES in a row the run is given up (its slot counts
 * as run, so a broken run does not hold back every later slot).
 */
export function afterFailure(lock: LockState, run: RunMessage, error: string, now: Date): LockState {
  const failures = lock.failures + 1;
  if (failures < MAX_CHUNK_FAILURES) return { ...lock, lease_until: 0, failures };
  return {
    ...afterChunk(lock, run, { done: true }, now),
    last_error: `given up after ${failures} failed chunks: ${error}`,
  };
}

/** Reads a lock object's JSON; anything unreadable is a free lock (the generation still fences). */
export function parseLock(text: string): LockState {
  try {
    const v = JSON.parse(text) as Partial<LockState>;
    return { ...FREE_LOCK, ...v };
  } catch {
    return FREE_LOCK;
  }
}

export const lockPath = (kind: string, name: string): string => `locks/${kind}/${name}.json`;
