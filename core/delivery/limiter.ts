/**
 * Adaptive concurrency per destination (docs/delivery.md, "A destination that stops answering"):
 * how many calls to one destination this instance may have in flight at once. A destination that
 * freezes receives every call sent into it and answers them late, after each has timed out here
 * and been retried: every call in flight when it stops answering is a duplicate later. The
 * breaker (breaker.ts) only learns of it when the first calls time out; this bounds what is out
 * by then, and tells the breaker sooner.
 *
 * - A destination this instance has not heard from yet (a cold start, or after it stopped
 *   answering) gets one call at a time: a probe.
 * - Its first answer sets the limit to START_LIMIT. Each answer that came back quickly adds one
 *   while the oldest call waiting for a slot has waited the growth wait (GROW_WAIT_FACTOR round
 *   trips, at least GROW_WAIT_MIN_MS: the queue is that many limits deep, so demand outruns the
 *   limit), up to MAX_LIMIT; so a limit that holds calls back doubles per round trip once they
 *   queue. A burst the limit drains within the growth wait raises nothing: it waits a few round
 *   trips instead, and the calls in flight stay few (each one, should the destination freeze, is a
 *   copy it receives twice). A quick answer with no call waiting takes 1/DECAY_ANSWERS of what the
 *   limit has above START_LIMIT, so what a burst raised does not stay behind it.
 * - A slow answer (over SLOW_FACTOR times the smoothed latency, and over SLOW_MIN_MS) halves
 *   it, at most once per smoothed round trip; so does a call without an answer (timeout,
 *   refused connection) while others are answered. Answers to calls sent before a cut neither
 *   grow nor shrink it again.
 * - A destination that answered before and then gives no answer at all for the stall time
 *   (STALL_FACTOR times the smoothed latency, at least STALL_MIN_MS) while calls are in flight,
 *   or a call without an answer after such a silence or before any answer: back to one call at a
 *   time, and the calls waiting and the next ones are told `stalled` (`release` says so too), so
 *   the caller opens the breaker. Before its first answer there is no silence to measure: its one
 *   call may spend its time before any request leaves (an action that loads, batches, or refuses
 *   the event without a request), so only that call's own end says it is not answering.
 *
 * A call over the limit waits for a slot (first come, first served) rather than being refused at
 * once: a burst is sent as answers come back, not redelivered by Pub/Sub seconds later. It is
 * refused (`full`) when MAX_WAITING already wait or once it has waited the wait time (MAX_WAIT_MS,
 * or the stall time when that is longer); a refused call is answered "retry" like one the
 * breaker holds back. Waiting calls are never sent into a destination that stopped answering.
 *
 * Per function instance, in memory. Pure: the clock is passed in, and nothing here starts a
 * timer (a waiting call is settled by the next answer, timeout or call, and every call in flight
 * ends by its timeout). The common path — a slot is free — is a map lookup and a few counters:
 * no promise; a promise is made only for a call that waits.
 */
import type { MaybePromise } from '../maybe-async.ts';

/** Calls in flight once a destination has answered (a cold instance starts with one). */
export const START_LIMIT = 4;
/** The most calls in flight to one destination from one instance. */
export const MAX_LIMIT = 500;
/** No answer for this long (at least) while calls are in flight: the destination stopped answering. */
export const STALL_MIN_MS = 250;
/** …or for this many times the smoothed latency, when that is longer. */
export const STALL_FACTOR = 8;
/** An answer slower than this many times the smoothed latency (and than SLOW_MIN_MS) is slow. */
export const SLOW_FACTOR = 4;
export const SLOW_MIN_MS = 500;
/** Calls waiting this many smoothed round trips (the queue that many limits deep) make the limit grow… */
export const GROW_WAIT_FACTOR = 4;
/** …and at least this long: a burst drained sooner is no demand the limit must follow. */
export const GROW_WAIT_MIN_MS = 20;
/** Each quick answer with no call waiting takes 1/DECAY_ANSWERS of what it has above START_LIMIT. */
export const DECAY_ANSWERS = 32;
/** The most calls waiting for a slot, per destination; more are refused at once. */
export const MAX_WAITING = 1000;
/** The longest a call waits for a slot (or the stall time, when that is longer); then it is refused. */
export const MAX_WAIT_MS = 2000;

/** What the limiter decided: send; refused (the limit is taken and the wait is over or full); refused, it stopped answering. */
export type Admission = 'go' | 'full' | 'stalled';

interface Waiter {
  readonly since: number;
  readonly admit: (admission: Admission) => void;
}

interface Lane {
  /** Calls allowed in flight (a float: it grows and decays by fractions; `floor` is what counts). */
  limit: number;
  inFlight: number;
  /** false while it has not answered (a cold start) or after it stopped answering: one call at a time. */
  answering: boolean;
  /** Smoothed latency of answered calls (ms); 0 before the first. */
  latency: number;
  /** The last answer, or when a call went out with none in flight before it. */
  progressAt: number;
  /** The last halving (at most one per smoothed round trip). */
  decreasedAt: number;
  /** Calls waiting for a slot, oldest first, from `head`. */
  waiting: Waiter[];
  head: number;
}

/** The limiter's view of one destination, for the reason of a held-back call and for tests. */
export interface LaneView {
  readonly limit: number;
  readonly inFlight: number;
  readonly waiting: number;
  readonly answering: boolean;
  readonly latencyMs: number;
}

export class ConcurrencyLimiter {
  readonly #lanes = new Map<string, Lane>();

  /**
   * Takes a slot for a call to `destination` now: `go` (send it, then `release` the slot once),
   * or, when every slot is taken, a promise of the decision once one frees up or the wait is over
   * (`go`, `full`, `stalled`), or `full` / `stalled` at once (too many waiting; the calls in
   * flight have gone unanswered for the stall time).
   */
  acquire(destination: string, now: number): MaybePromise<Admission> {
    let found = this.#lanes.get(destination);
    if (found === undefined) {
      found = {
        limit: 1,
        inFlight: 0,
        answering: false,
        latency: 0,
        progressAt: now,
        decreasedAt: 0,
        waiting: [],
        head: 0,
      };
      this.#lanes.set(destination, found);
    }
    const lane = found;
    if (lane.latency > 0 && lane.inFlight > 0 && now - lane.progressAt > stallMs(lane)) {
      stop(lane);
      return 'stalled';
    }
    if (lane.inFlight + 1 > lane.limit) {
      expire(lane, now);
      if (lane.waiting.length - lane.head >= MAX_WAITING) return 'full';
      return new Promise((admit) => lane.waiting.push({ since: now, admit }));
    }
    if (lane.inFlight === 0) lane.progressAt = now;
    lane.inFlight++;
    return 'go';
  }

  /** Gives back a slot taken for a call that was not sent after all (nothing learnt); a waiting call may take it. */
  abandon(destination: string, now: number): void {
    const lane = this.#lanes.get(destination);
    if (lane === undefined) return;
    if (lane.inFlight > 0) lane.inFlight--;
    dispatch(lane, now);
  }

  /**
   * The end of a call `acquire` let go at `sentAt`: `answered` is any HTTP answer, even an error
   * status; a timeout or a connection error is not one. True when it tells that the destination
   * is not answering (nothing answered for the stall time, or before it ever did): open the breaker.
   */
  release(destination: string, answered: boolean, sentAt: number, now: number): boolean {
    const lane = this.#lanes.get(destination);
    if (lane === undefined) return false;
    if (lane.inFlight > 0) lane.inFlight--;
    let stopped = false;
    if (!answered) {
      // Nothing answered for longer than a stall: one call at a time until something is.
      if (!lane.answering || now - lane.progressAt > stallMs(lane)) {
        stop(lane);
        stopped = true;
      } else halve(lane, now);
    } else {
      const took = now - sentAt;
      lane.progressAt = now;
      if (!lane.answering) {
        lane.answering = true;
        lane.limit = START_LIMIT;
        if (lane.latency === 0) lane.latency = Math.max(took, 1);
      } else {
        const slow = took > SLOW_MIN_MS && took > SLOW_FACTOR * lane.latency;
        lane.latency += (took - lane.latency) / 8;
        if (slow) halve(lane, now);
        else if (sentAt <= lane.decreasedAt) {
          // Sent before the last cut: it says nothing about the limit since.
        } else if (lane.head < lane.waiting.length) {
          // Calls wait: the limit grows only once they have waited the growth wait.
          const oldest = lane.waiting[lane.head] as Waiter;
          if (now - oldest.since >= growWaitMs(lane) && lane.limit < MAX_LIMIT) lane.limit++;
        } else if (lane.limit > START_LIMIT) lane.limit -= (lane.limit - START_LIMIT) / DECAY_ANSWERS;
      }
    }
    dispatch(lane, now);
    return stopped;
  }

  /**
   * Whether `destination` has not answered this instance (a cold start, or since it stopped
   * answering): a call to it is sent after an eventless probe (forward.ts), since one sent into a
   * destination that froze before this instance started is a copy it answers late.
   */
  cold(destination: string): boolean {
    return this.#lanes.get(destination)?.answering !== true;
  }

  /** The destination's state now (a cold one: limit 1, nothing in flight, not answering). */
  view(destination: string): LaneView {
    const lane = this.#lanes.get(destination);
    if (lane === undefined) return { limit: 1, inFlight: 0, waiting: 0, answering: false, latencyMs: 0 };
    return {
      limit: Math.floor(lane.limit),
      inFlight: lane.inFlight,
      waiting: lane.waiting.length - lane.head,
      answering: lane.answering,
      latencyMs: lane.latency,
    };
  }
}

/** How long calls in flight may go without any answer before the destination counts as stalled. */
function stallMs(lane: Lane): number {
  const scaled = STALL_FACTOR * lane.latency;
  return scaled > STALL_MIN_MS ? scaled : STALL_MIN_MS;
}

/** How long the oldest waiting call must have waited for an answer to raise the limit. */
function growWaitMs(lane: Lane): number {
  const scaled = GROW_WAIT_FACTOR * lane.latency;
  return scaled > GROW_WAIT_MIN_MS ? scaled : GROW_WAIT_MIN_MS;
}

/** It stopped answering: one call at a time, and no waiting call is sent into it. */
function stop(lane: Lane): void {
  lane.answering = false;
  lane.limit = 1;
  while (lane.head < lane.waiting.length) next(lane).admit('stalled');
}

function halve(lane: Lane, now: number): void {
  if (now - lane.decreasedAt < lane.latency) return;
  lane.decreasedAt = now;
  lane.limit = Math.max(1, lane.limit / 2);
}

/** Free slots go to the calls waiting, oldest first; those that waited too long are refused. */
function dispatch(lane: Lane, now: number): void {
  expire(lane, now);
  while (lane.head < lane.waiting.length && lane.inFlight + 1 <= lane.limit) {
    if (lane.inFlight === 0) lane.progressAt = now;
    lane.inFlight++;
    next(lane).admit('go');
  }
}

/** Refuses the calls that have waited longer than the wait time (the oldest are first). */
function expire(lane: Lane, now: number): void {
  const stall = stallMs(lane);
  const longest = stall > MAX_WAIT_MS ? stall : MAX_WAIT_MS;
  while (lane.head < lane.waiting.length && now - (lane.waiting[lane.head] as Waiter).since > longest)
    next(lane).admit('full');
}

/** Takes the oldest waiting call off the queue (compacting it once it is drained). */
function next(lane: Lane): Waiter {
  const w = lane.waiting[lane.head] as Waiter;
  lane.head++;
  if (lane.head === lane.waiting.length) {
    lane.waiting.length = 0;
    lane.head = 0;
  } else if (lane.head >= 1024 && lane.head * 2 >= lane.waiting.length) {
    lane.waiting.splice(0, lane.head);
    lane.head = 0;
  }
  return w;
}
