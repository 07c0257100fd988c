/**
 * Schedules, the tick's dispatch and the runner's decisions (core/scheduler/cadence.ts,
 * core/scheduler/dispatch.ts, core/delivery/redrive.ts): pure, no I/O.
 */
import assert from 'node:assert/strict';
import { recentAttemptsFromRows, redriveBudget } from '../../../core/delivery/redrive.ts';
import { dueSlot, latestSlot, scheduleProblem } from '../../../core/scheduler/cadence.ts';
import {
  afterChunk,
  afterFailure,
  decideRun,
  FREE_LOCK,
  type LockState,
  leased,
  MAX_CHUNK_FAILURES,
  type RunMessage,
  tickMessage,
} from '../../../core/scheduler/dispatch.ts';

const at = (iso: string) => new Date(iso);

describe('schedules', () => {
  it('aligns interval slots to the epoch, so every instance agrees', () => {
    assert.equal(
      latestSlot({ every: '15m' }, at('2026-11-22T10:44:59Z'))?.toISOString(),
      '2026-11-22T10:30:00.000Z',
    );
    assert.equal(
      latestSlot({ every: '1h' }, at('2026-11-22T10:00:00Z'))?.toISOString(),
      '2026-11-22T10:00:00.000Z',
    );
  });

  it('reads cron in its time zone, a slot exactly at now included', () => {
    // 09:00 in Berlin on a weekday is 08:00 UTC in November (CET).
    const spec = { cron: '0 9 * * 1-5', time_zone: 'Europe/Berlin' };
    assert.equal(latestSlot(spec, at('2026-11-23T08:00:00Z'))?.toISOString(), '2026-11-23T08:00:00.000Z');
    // Sunday: the latest weekday slot was Friday's.
    assert.equal(latestSlot(spec, at('2026-11-22T12:00:00Z'))?.toISOString(), '2026-11-20T08:00:00.000Z');
  });

  it('runs a slot once, and slots missed while nothing ticked once in all (the latest)', () => {
    const spec = { every: '1h' };
    assert.equal(dueSlot(spec, undefined, at('2026-11-22T10:05:00Z')), '2026-11-22T10:00:00.000Z');
    assert.equal(dueSlot(spec, '2026-11-22T10:00:00.000Z', at('2026-11-22T10:59:00Z')), undefined);
    assert.equal(
      dueSlot(spec, '2026-11-22T05:00:00.000Z', at('2026-11-22T10:05:00Z')),
      '2026-11-22T10:00:00.000Z',
    );
    assert.equal(dueSlot({ manual: true }, undefined, at('2026-11-22T10:05:00Z')), undefined);
  });

  it('explains what is wrong with a schedule', () => {
    assert.equal(scheduleProblem({ every: '30m' }), undefined);
    assert.equal(scheduleProblem({ cron: '*/5 * * * *', time_zone: 'America/New_York' }), undefined);
    assert.match(scheduleProblem({ every: '30s' }) ?? '', /at least 1m/);
    assert.match(scheduleProblem({ every: 'soon' }) ?? '', /duration/);
    assert.match(scheduleProblem({ cron: '0 9 * * *', time_zone: 'Mars/Olympus' }) ?? '', /IANA/);
    assert.match(scheduleProblem({ cron: '0 0 9 * * *' }) ?? '', /five fields/);
    assert.match(scheduleProblem({ cron: '99 * * * *' }) ?? '', /not valid/);
    assert.match(scheduleProblem({}) ?? '', /one of every/);
  });
});

describe('the tick and the runner', () => {
  const s = { kind: 'Sync', name: 'ltv', schedule: { every: '1h' } } as const;
  const now = at('2026-11-22T10:05:00Z');
  const msg: RunMessage = {
    kind: 'Sync',
    name: 'ltv',
    slot: '2026-11-22T10:00:00.000Z',
    trigger: 'schedule',
  };

  it('dispatches the due slot when nothing is under way, nothing when it ran', () => {
    assert.deepEqual(tickMessage(s, FREE_LOCK, now), msg);
    assert.equal(tickMessage(s, { ...FREE_LOCK, last_slot: msg.slot }, now), undefined);
  });

  it('leaves a leased run alone and sends an unfinished run again once its lease ran out', () => {
    const running: LockState = {
      ...FREE_LOCK,
      run: 'Sync/ltv@2026-11-22T09:00:00.000Z',
      slot: '2026-11-22T09:00:00.000Z',
      trigger: 'schedule',
      cursor: { page: 3 },
      chunk: 3,
      lease_until: now.getTime() + 60_000,
    };
    assert.equal(tickMessage(s, running, now), undefined);
    // Crashed: the older run is resumed first, not the new slot.
    assert.deepEqual(tickMessage(s, { ...running, lease_until: now.getTime() - 1 }, now), {
      ...msg,
      slot: '2026-11-22T09:00:00.000Z',
    });
    const d = decideRun(msg, { ...running, lease_until: 0 }, now);
    assert.equal(d.action, 'run');
    assert.deepEqual(d.action === 'run' && [d.run.slot, d.cursor, d.chunk], [
      '2026-11-22T09:00:00.000Z',
      { page: 3 },
      3,
    ]);
    assert.equal(decideRun(msg, running, now).action, 'skip');
  });

  it('skips a slot that already ran, and a manual run seen twice', () => {
    assert.equal(decideRun(msg, { ...FREE_LOCK, last_slot: msg.slot }, now).action, 'skip');
    const manual: RunMessage = { ...msg, trigger: 'manual', slot: '2026-11-22T10:03:12.000Z' };
    assert.equal(decideRun(manual, { ...FREE_LOCK, last_slot: msg.slot }, now).action, 'run');
    assert.equal(
      decideRun(manual, { ...FREE_LOCK, last_run: 'Sync/ltv@2026-11-22T10:03:12.000Z' }, now).action,
      'skip',
    );
  });

  it('commits the cursor between chunks with the lease let go; a finished run frees the lock', () => {
    const d = decideRun(msg, FREE_LOCK, now);
    assert.ok(d.action === 'run');
    const held = leased(FREE_LOCK, d, now.getTime() + 360_000);
    const next = afterChunk(held, msg, { done: false, cursor: { page: 1 } }, now);
    assert.deepEqual([next.run, next.cursor, next.chunk, next.lease_until], [held.run, { page: 1 }, 1, 0]);
    const done = afterChunk(next, msg, { done: true }, at('2026-11-22T10:06:00Z'));
    assert.deepEqual(
      [done.run, done.last_slot, done.last_run],
      [null, msg.slot, 'Sync/ltv@2026-11-22T10:00:00.000Z'],
    );
    // A manual run leaves the schedule's slot where it was.
    const m = afterChunk(held, { ...msg, trigger: 'manual' }, { done: true }, now);
    assert.equal(m.last_slot, null);
    assert.equal(m.last_outcome, null);
    // A finished run's one-line outcome stays in the lock for its caller, bounded.
    const said = afterChunk(held, msg, { done: true, outcome: 'not read: no credentials' }, now);
    assert.equal(said.last_outcome, 'not read: no credentials');
    assert.equal(
      afterChunk(held, msg, { done: true, outcome: 'x'.repeat(2000) }, now).last_outcome?.length,
      500,
    );
    // A chunk that continues keeps none.
    assert.equal(afterChunk(held, msg, { done: false, outcome: 'early' }, now).last_outcome, null);
  });

  it('gives a run up after repeated failed chunks, so later slots are not held back', () => {
    let lock = leased(FREE_LOCK, { action: 'run', run: msg, cursor: { page: 2 }, chunk: 2 }, 1);
    for (let i = 1; i < MAX_CHUNK_FAILURES; i++) {
      lock = afterFailure(lock, msg, 'HTTP 500', now);
      assert.deepEqual([lock.run !== null, lock.failures, lock.cursor], [true, i, { page: 2 }]);
    }
    lock = afterFailure(lock, msg, 'HTTP 500', now);
    assert.equal(lock.run, null);
    assert.equal(lock.last_slot, msg.slot);
    assert.match(lock.last_error ?? '', /given up after 5 failed chunks: HTTP 500/);
  });
});

describe('automatic re-drive: when a destination is healthy', () => {
  const d = { id: 'crm', type: 'webhook' } as const;
  const now = at('2026-11-22T10:05:00Z');
  const row = (status: string, secondsAgo: number) => ({
    status,
    recorded_at: { value: new Date(now.getTime() - secondsAgo * 1000).toISOString() },
  });

  it('re-drives the full budget after 20 delivered attempts in a row within 5 minutes', () => {
    const rows = Array.from({ length: 20 }, (_, i) => row('delivered', i * 10));
    const b = redriveBudget(d, recentAttemptsFromRows(rows, now));
    assert.deepEqual([b.health, b.budget], ['healthy', 600]);
    assert.equal(
      redriveBudget({ ...d, redrive: { per_minute: 50 } }, recentAttemptsFromRows(rows, now)).budget,
      50,
    );
  });

  it('sends a canary batch when the destination is quiet, nothing while it still fails', () => {
    assert.deepEqual(
      [
        redriveBudget(d, recentAttemptsFromRows([], now)).health,
        redriveBudget(d, recentAttemptsFromRows([], now)).budget,
      ],
      ['quiet', 10],
    );
    const failing = [
      row('delivered', 5),
      ...Array.from({ length: 19 }, (_, i) => row('delivered', 10 + i)),
      row('failed', 400),
    ];
    // 20 delivered in a row is healthy even with an older failure.
    assert.equal(redriveBudget(d, recentAttemptsFromRows(failing, now)).health, 'healthy');
    // Attempts the send-once claim held (a malformed claim, a claim store away) are ours, not the
    // destination's: they neither make it failing nor stop its re-drive.
    const held = (s: number) => ({
      ...row('failed', s),
      reason: 'held: the send-once claim could not be taken (x)',
    });
    const ours = [...Array.from({ length: 20 }, (_, i) => row('delivered', 10 + i)), held(2), held(40)];
    assert.equal(redriveBudget(d, recentAttemptsFromRows(ours, now)).health, 'healthy');
    assert.equal(redriveBudget(d, recentAttemptsFromRows([held(2), held(3)], now)).health, 'quiet');
    const stillFailing = [row('delivered', 5), row('failed', 30), row('delivered', 60)];
    const b = redriveBudget(d, recentAttemptsFromRows(stillFailing, now));
    assert.deepEqual([b.health, b.budget], ['failing', 0]);
  });

  it('counts only attempts within 5 minutes toward the streak, and honours the opt-out', () => {
    const old = Array.from({ length: 20 }, (_, i) => row('delivered', 301 + i));
    assert.equal(redriveBudget(d, recentAttemptsFromRows(old, now)).health, 'quiet');
    const off = redriveBudget({ ...d, redrive: { enabled: false } }, recentAttemptsFromRows([], now));
    assert.deepEqual([off.health, off.budget], ['off', 0]);
  });
});
