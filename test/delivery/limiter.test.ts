/**
 * The concurrency limit per destination (core/delivery/limiter.ts), through its public methods
 * with a hand-moved clock: one call at a time until a destination answers, growth while answers
 * come back quickly and calls have waited the growth wait, none for a burst drained sooner, decay
 * when nothing waits, halving on a slow answer or
 * a lost call, calls over the limit waiting for a slot (bounded in number and time), and one call
 * at a time again, with the waiting ones refused, once calls in flight go unanswered.
 */
import assert from 'node:assert/strict';
import {
  type Admission,
  ConcurrencyLimiter,
  DECAY_ANSWERS,
  GROW_WAIT_MIN_MS,
  MAX_LIMIT,
  MAX_WAIT_MS,
  MAX_WAITING,
  SLOW_MIN_MS,
  STALL_FACTOR,
  STALL_MIN_MS,
  START_LIMIT,
} from '../../core/delivery/limiter.ts';
import type { MaybePromise } from '../../core/maybe-async.ts';

const T0 = 1_000_000;

/** Takes every free slot (each must be granted at once); how many. */
function takeFree(limiter: ConcurrencyLimiter, destination: string, now: number): number {
  const { limit, inFlight } = limiter.view(destination);
  for (let i = inFlight; i < limit; i++) assert.equal(limiter.acquire(destination, now), 'go');
  return limit - inFlight;
}

/** The decision of a call that had to wait, once it is settled (undefined while it still waits). */
async function settled(admission: MaybePromise<Admission>): Promise<Admission | undefined> {
  assert.ok(admission instanceof Promise, `waits (got ${String(admission)})`);
  return Promise.race([admission, new Promise<undefined>((r) => setImmediate(() => r(undefined)))]);
}

/** A limiter whose destination has answered once: limit START_LIMIT, latency 2 ms. */
function answering(destination = 'hook'): ConcurrencyLimiter {
  const limiter = new ConcurrencyLimiter();
  assert.equal(limiter.acquire(destination, T0), 'go');
  limiter.release(destination, true, T0, T0 + 2);
  return limiter;
}

/**
 * Rounds of demand the limit cannot keep up with: every slot taken, twice as many calls queued
 * behind them since longer than the growth wait, then every call in flight answered `latency` ms
 * later (each answer frees a slot the queue takes at once). What is in flight at the end stays so.
 */
function demandRounds(limiter: ConcurrencyLimiter, n: number, from: number, latency = 2): number {
  let now = from;
  for (let round = 0; round < n; round++) {
    takeFree(limiter, 'hook', now);
    const out = limiter.view('hook').inFlight;
    for (let i = 0; i < 2 * out && limiter.view('hook').waiting < MAX_WAITING; i++)
      void limiter.acquire('hook', now - 5 * GROW_WAIT_MIN_MS);
    for (let i = 0; i < out; i++) limiter.release('hook', true, now, now + latency);
    now += latency + 1;
  }
  return now;
}

/** Answers every call in flight, sent at `sentAt`, at `at`. */
function answerAll(limiter: ConcurrencyLimiter, sentAt: number, at: number): void {
  const out = limiter.view('hook').inFlight;
  for (let i = 0; i < out; i++) limiter.release('hook', true, sentAt, at);
}

describe('concurrency limiter: a destination that answers', () => {
  it('grows by one per quick answer while calls have waited the growth wait (doubling per round trip), up to MAX_LIMIT', () => {
    const limiter = answering();
    let now = T0 + 10;
    const limits: number[] = [];
    for (let i = 0; i < 4; i++) {
      now = demandRounds(limiter, 1, now);
      limits.push(limiter.view('hook').limit);
    }
    assert.deepEqual(limits, [START_LIMIT * 2, START_LIMIT * 4, START_LIMIT * 8, START_LIMIT * 16]);
    demandRounds(limiter, 20, now);
    assert.equal(limiter.view('hook').limit, MAX_LIMIT);
  });

  it('keeps its limit through a burst the limit drains within the growth wait', () => {
    const limiter = answering();
    let now = T0 + 10;
    // Bursts of four times the limit, each answered 2 ms a call: drained in 8 ms, under the wait.
    for (let burst = 0; burst < 10; burst++) {
      const calls = Array.from({ length: START_LIMIT * 4 }, () => limiter.acquire('hook', now));
      assert.equal(calls.filter((c) => c === 'go').length, START_LIMIT);
      while (limiter.view('hook').inFlight > 0) {
        answerAll(limiter, now, now + 2);
        now += 2;
      }
      now += 300;
    }
    assert.equal(limiter.view('hook').limit, START_LIMIT);
  });

  it('takes a raised limit back toward START_LIMIT while quick answers come with nothing waiting', () => {
    const limiter = answering();
    let now = demandRounds(limiter, 4, T0 + 10);
    const raised = limiter.view('hook').limit;
    assert.equal(raised, START_LIMIT * 16);
    // What is still in flight is answered, then one call at a time, answered quickly: each answer
    // takes 1/DECAY_ANSWERS of the excess.
    answerAll(limiter, now, now + 2);
    now += 3;
    for (let i = 0; i < DECAY_ANSWERS * 3; i++) {
      assert.equal(limiter.acquire('hook', now), 'go');
      limiter.release('hook', true, now, now + 2);
      now += 3;
    }
    const after = limiter.view('hook').limit;
    assert.ok(after < START_LIMIT + (raised - START_LIMIT) / 10, `limit ${after} after decay`);
    assert.ok(after >= START_LIMIT);
  });

  it('halves on a slow answer, once for the calls of one round trip, never below one', () => {
    const limiter = answering();
    const now = demandRounds(limiter, 2, T0 + 10);
    assert.equal(limiter.view('hook').limit, START_LIMIT * 4);
    takeFree(limiter, 'hook', now);
    // All of them answered late: one halving for the lot (sent before the cut, they say nothing more).
    const late = now + SLOW_MIN_MS + 1;
    answerAll(limiter, now, late);
    assert.equal(limiter.view('hook').limit, START_LIMIT * 2);
    let at = late + 10_000;
    for (let i = 0; i < 30; i++) {
      assert.equal(limiter.acquire('hook', at), 'go');
      at += 100_000;
      limiter.release('hook', true, at - 100_000, at);
    }
    assert.ok(limiter.view('hook').limit >= 1);
  });

  it('halves when a call gets no answer while others are answered (a lost connection)', () => {
    const limiter = answering();
    const now = T0 + 10;
    assert.equal(takeFree(limiter, 'hook', now), START_LIMIT);
    limiter.release('hook', true, now, now + 2);
    const before = limiter.view('hook').limit;
    limiter.release('hook', false, now, now + 3);
    assert.deepEqual(
      [limiter.view('hook').limit, limiter.view('hook').answering],
      [Math.floor(before / 2), true],
    );
  });
});

describe('concurrency limiter: calls over the limit', () => {
  it('wait for a slot and go as answers come back, oldest first', async () => {
    const limiter = answering();
    const now = T0 + 10;
    takeFree(limiter, 'hook', now);
    const order: string[] = [];
    const wait = (name: string, at: number) =>
      (limiter.acquire('hook', at) as Promise<Admission>).then((x) => order.push(`${name}:${x}`));
    const a = wait('a', now);
    const b = wait('b', now + 1);
    const c = wait('c', now + 2);
    assert.equal(limiter.view('hook').waiting, 3);
    // An answer frees a slot for the oldest; they have waited less than the growth wait, so the
    // limit stays: one goes per answer.
    limiter.release('hook', true, now, now + 3);
    await a;
    assert.deepEqual(order, ['a:go']);
    limiter.release('hook', true, now, now + 4);
    await b;
    assert.deepEqual(order, ['a:go', 'b:go']);
    assert.equal(limiter.view('hook').waiting, 1);
    // Waited the growth wait: the answer raises the limit by one, and c goes with the slot freed.
    limiter.release('hook', true, now, now + 2 + GROW_WAIT_MIN_MS);
    await c;
    assert.deepEqual(order, ['a:go', 'b:go', 'c:go']);
    assert.equal(limiter.view('hook').limit, START_LIMIT + 1);
  });

  it('are refused once MAX_WAITING wait, and once they have waited the wait time', async () => {
    const limiter = answering();
    const now = T0 + 10;
    takeFree(limiter, 'hook', now);
    const waiting = Array.from({ length: MAX_WAITING }, () => limiter.acquire('hook', now));
    assert.equal(limiter.acquire('hook', now), 'full');
    // The destination has become slow (600 ms an answer): the limit is halved rather than grown
    // at first, so most of the calls waiting would wait for minutes; they are refused after the
    // wait time instead, and none is sent later than that.
    let clock = now;
    const decided = waiting.map(async (w) => ({ admission: await w, at: clock }));
    while (limiter.view('hook').waiting > 0) {
      const out = limiter.view('hook').inFlight;
      clock += 600;
      for (let i = 0; i < out; i++) limiter.release('hook', true, clock - 600, clock);
      await new Promise((r) => setImmediate(r));
    }
    const outcomes = await Promise.all(decided);
    const sent = outcomes.filter((o) => o.admission === 'go');
    const refused = outcomes.filter((o) => o.admission === 'full');
    assert.equal(sent.length + refused.length, MAX_WAITING);
    assert.ok(
      sent.length > 0 && refused.length > MAX_WAITING / 2,
      `${sent.length} sent, ${refused.length} refused`,
    );
    for (const o of refused) assert.ok(o.at - now > MAX_WAIT_MS, `refused after waiting ${o.at - now} ms`);
  });
});

describe('concurrency limiter: a destination that stops answering', () => {
  it('says `stalled` to the waiting and the next calls once its calls in flight go unanswered for STALL_MIN_MS', async () => {
    const limiter = answering();
    const now = T0 + 10;
    assert.equal(takeFree(limiter, 'hook', now), START_LIMIT);
    const waiting = limiter.acquire('hook', now + STALL_MIN_MS);
    assert.equal(await settled(waiting), undefined);
    assert.equal(limiter.acquire('hook', now + STALL_MIN_MS + 1), 'stalled');
    assert.equal(await waiting, 'stalled');
    assert.deepEqual([limiter.view('hook').limit, limiter.view('hook').answering], [1, false]);
    // The calls in flight time out: nothing is sent while any is out, then one probe at a time.
    const timeout = now + 5000;
    for (let i = 0; i < START_LIMIT - 1; i++) limiter.release('hook', false, now, timeout);
    assert.equal(limiter.acquire('hook', timeout), 'stalled');
    limiter.release('hook', false, now, timeout);
    assert.equal(limiter.acquire('hook', timeout + 1), 'go');
    const next = limiter.acquire('hook', timeout + 2);
    // The probe is answered: START_LIMIT again, and the call waiting goes.
    limiter.release('hook', true, timeout + 1, timeout + 30);
    assert.equal(await next, 'go');
    assert.deepEqual([limiter.view('hook').limit, limiter.view('hook').answering], [START_LIMIT, true]);
  });

  it('recovers at once when a call it took for lost is answered after all', () => {
    const limiter = answering();
    const now = T0 + 10;
    assert.equal(takeFree(limiter, 'hook', now), START_LIMIT);
    assert.equal(limiter.acquire('hook', now + STALL_MIN_MS + 1), 'stalled');
    limiter.release('hook', true, now, now + STALL_MIN_MS + 5);
    assert.equal(limiter.view('hook').answering, true);
    assert.equal(limiter.view('hook').limit, START_LIMIT);
  });

  it('waits STALL_FACTOR times its smoothed latency when that is longer than STALL_MIN_MS', () => {
    const limiter = new ConcurrencyLimiter();
    const slow = STALL_MIN_MS; // every answer takes this long: the stall time is STALL_FACTOR × it
    let now = T0;
    for (let i = 0; i < 3; i++) {
      assert.equal(limiter.acquire('ga4', now), 'go');
      limiter.release('ga4', true, now, now + slow);
      now += slow + 1;
    }
    assert.equal(limiter.acquire('ga4', now), 'go');
    assert.equal(limiter.acquire('ga4', now + STALL_MIN_MS * 2), 'go');
    assert.equal(limiter.acquire('ga4', now + slow * STALL_FACTOR - 1), 'go');
    assert.equal(limiter.acquire('ga4', now + slow * STALL_FACTOR + 1), 'stalled');
  });

  it('never says `stalled` before the first answer: the one call may not have sent yet, and its own end decides', async () => {
    // A catalogue action's call can spend seconds before any request leaves (its module loads,
    // its batch waits, or it refuses the event and sends nothing): no silence to measure yet.
    const limiter = new ConcurrencyLimiter();
    assert.equal(limiter.acquire('hook', T0), 'go');
    const first = limiter.acquire('hook', T0 + 1);
    assert.equal(await settled(first), undefined);
    const late = T0 + 10 * MAX_WAIT_MS;
    const second = limiter.acquire('hook', late);
    // The call that waited longer than MAX_WAIT_MS is refused as the limit's, not as a silence.
    assert.equal(await first, 'full');
    assert.equal(await settled(second), undefined);
    assert.equal(limiter.view('hook').limit, 1);
    // The call ends without a request (nothing learnt): the waiting one goes.
    limiter.abandon('hook', late + 1);
    assert.equal(await second, 'go');
    // It ends without an answer: now it is not answering, and the waiting calls are told so.
    const third = limiter.acquire('hook', late + 2);
    assert.equal(limiter.release('hook', false, late + 1, late + 5000), true);
    assert.equal(await third, 'stalled');
  });

  it('says on release when a call shows it is not answering: before it ever did, or after a silence', () => {
    const cold = new ConcurrencyLimiter();
    assert.equal(cold.acquire('hook', T0), 'go');
    assert.equal(cold.release('hook', false, T0, T0 + 5000), true);
    const limiter = answering();
    const now = T0 + 10;
    takeFree(limiter, 'hook', now);
    assert.equal(limiter.release('hook', true, now, now + 2), false);
    assert.equal(limiter.release('hook', false, now, now + 3), false);
    assert.equal(limiter.release('hook', false, now, now + 5000), true);
  });

  it('goes back to one call at a time when a call gets no answer after a silence longer than the stall time', () => {
    const limiter = answering();
    const now = T0 + 10;
    assert.equal(limiter.acquire('hook', now), 'go');
    limiter.release('hook', false, now, now + 5000);
    assert.deepEqual([limiter.view('hook').limit, limiter.view('hook').answering], [1, false]);
  });
});
