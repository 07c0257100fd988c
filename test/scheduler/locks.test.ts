/**
 * The scheduler's runner (functions/schedule/runner.ts) with its locks in the Cloud Storage
 * emulator, through Google's client: a run goes chunk by chunk with its cursor committed in the
 * lock; two runners woken for the same run do it once; a runner whose lease was taken over cannot
 * commit (fencing); a crashed chunk is resumed by the next tick from the committed cursor.
 */
import assert from 'node:assert/strict';
import type { Bucket } from '@google-cloud/storage';
import { LockLost, LockStore } from '../../adapters/locks.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import {
  type ChunkContext,
  type Job,
  type RunnerDeps,
  runChunk,
  tick,
} from '../../functions/schedule/runner.ts';

/** A job that counts to `pages` one chunk at a time, recording every chunk it was given. */
function countingJob(pages: number, hold?: Promise<void>) {
  const seen: { chunk: number; cursor: unknown; run: string }[] = [];
  const job: Job = {
    kind: 'Sync',
    scheduled: async () => [{ kind: 'Sync', name: 'ltv', schedule: { every: '1h' } }],
    async chunk(ctx: ChunkContext) {
      seen.push({ chunk: ctx.chunk, cursor: ctx.cursor, run: ctx.runId });
      if (hold) await hold;
      const page = ((ctx.cursor as { page?: number } | null)?.page ?? 0) + 1;
      return page >= pages ? { done: true } : { done: false, cursor: { page } };
    },
  };
  return { job, seen };
}

function depsFor(bucket: Bucket, job: Job, now: () => Date, leaseMs = 60_000) {
  const published: RunMessage[] = [];
  const deps: RunnerDeps = {
    jobs: [job],
    locks: new LockStore(bucket),
    publish: async (runs) => {
      published.push(...runs);
    },
    now,
    leaseMs,
  };
  return { deps, published };
}

describe('scheduler: runs under a lock in Cloud Storage', function () {
  this.timeout(30_000);
  const fx = emulatorWithFreshBuckets('scheduler-locks');
  const clock = () => new Date('2026-11-22T10:05:00Z');

  it('dispatches the due slot, runs it chunk by chunk with continuations, then never again for that slot', async () => {
    const { job, seen } = countingJob(3);
    const { deps, published } = depsFor(fx.bucket, job, clock);
    const report = await tick(deps);
    assert.deepEqual(report.dispatched, ['Sync/ltv@2026-11-22T10:00:00.000Z']);
    // The runner publishes a continuation after each unfinished chunk; feed them back.
    while (published.length > 0) await runChunk(deps, published.shift() as RunMessage);
    assert.deepEqual(
      seen.map((s) => [s.chunk, s.cursor]),
      [
        [0, null],
        [1, { page: 1 }],
        [2, { page: 2 }],
      ],
    );
    const { state } = await new LockStore(fx.bucket).read('Sync', 'ltv');
    assert.equal(state.last_slot, '2026-11-22T10:00:00.000Z');
    assert.equal(state.run, null);
    assert.deepEqual((await tick(deps)).dispatched, []);
    const again = await runChunk(deps, {
      kind: 'Sync',
      name: 'ltv',
      slot: '2026-11-22T10:00:00.000Z',
      trigger: 'schedule',
    });
    assert.equal(again.outcome, 'skipped');
  });

  it('runs a chunk once when two runners are woken for the same run at the same time', async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const { job, seen } = countingJob(1, hold);
    const a = depsFor(fx.bucket, job, clock);
    const b = depsFor(fx.bucket, job, clock);
    const msg: RunMessage = {
      kind: 'Sync',
      name: 'ltv',
      slot: '2026-11-22T10:00:00.000Z',
      trigger: 'schedule',
    };
    const both = Promise.all([runChunk(a.deps, msg), runChunk(b.deps, msg)]);
    await new Promise((r) => setTimeout(r, 300));
    release();
    const outcomes = (await both).map((o) => o.outcome).sort();
    assert.equal(seen.length, 1, 'one chunk ran');
    assert.deepEqual(outcomes, ['finished', outcomes[1] === 'lost' ? 'lost' : 'skipped'].sort());
  });

  it('fences a runner whose lease was taken over: its commit fails and the new holder’s stands', async () => {
    let now = new Date('2026-11-22T10:05:00Z');
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const slow = countingJob(2, hold);
    const quick = countingJob(2);
    const a = depsFor(fx.bucket, slow.job, () => now, 1000);
    const b = depsFor(fx.bucket, quick.job, () => now, 60_000);
    const msg: RunMessage = {
      kind: 'Sync',
      name: 'ltv',
      slot: '2026-11-22T10:00:00.000Z',
      trigger: 'schedule',
    };
    const first = runChunk(a.deps, msg);
    await new Promise((r) => setTimeout(r, 300));
    // A's lease (1 s) runs out while its chunk hangs; B takes the run over from the same cursor.
    now = new Date(now.getTime() + 5000);
    assert.equal((await runChunk(b.deps, msg)).outcome, 'continued');
    release();
    assert.equal((await first).outcome, 'lost');
    const { state, generation } = await new LockStore(fx.bucket).read('Sync', 'ltv');
    assert.deepEqual([state.chunk, state.cursor], [1, { page: 1 }]);
    await assert.rejects(new LockStore(fx.bucket).fence('Sync', 'ltv', generation - 1), LockLost);
  });

  it('resumes a crashed chunk from the committed cursor once the lease ran out', async () => {
    let now = new Date('2026-11-22T10:05:00Z');
    const { job, seen } = countingJob(3);
    const { deps, published } = depsFor(fx.bucket, job, () => now, 60_000);
    await tick(deps);
    await runChunk(deps, published.shift() as RunMessage); // chunk 0 done, cursor page 1
    published.length = 0; // the continuation is lost, and then the runner crashes mid-chunk:
    const locks = new LockStore(fx.bucket);
    const read = await locks.read('Sync', 'ltv');
    await locks.write('Sync', 'ltv', { ...read.state, lease_until: now.getTime() + 60_000 }, read.generation);
    assert.deepEqual((await tick(deps)).dispatched, [], 'a leased run is left alone');
    now = new Date(now.getTime() + 61_000);
    const again = await tick(deps);
    assert.deepEqual(again.dispatched, ['Sync/ltv@2026-11-22T10:00:00.000Z']);
    while (published.length > 0) await runChunk(deps, published.shift() as RunMessage);
    assert.deepEqual(
      seen.map((s) => s.chunk),
      [0, 1, 2],
    );
    assert.equal((await locks.read('Sync', 'ltv')).state.last_slot, '2026-11-22T10:00:00.000Z');
  });

  // A test fire (`eventbus alert test`) that met the alert's scheduled evaluation was acknowledged
  // and lost: no tick brings a manual message back. Seen in CI under load.
  it('a manual run that meets another run holding the lock waits for it, and then runs', async () => {
    let release: () => void = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const { job, seen } = countingJob(1, hold);
    const { deps } = depsFor(fx.bucket, job, clock);
    const scheduled: RunMessage = {
      kind: 'Sync',
      name: 'ltv',
      slot: '2026-11-22T10:00:00.000Z',
      trigger: 'schedule',
    };
    const manual: RunMessage = { ...scheduled, slot: '2026-11-22T10:04:00.000Z', trigger: 'manual' };
    const running = runChunk(deps, scheduled);
    await new Promise((r) => setTimeout(r, 300));
    const first = await runChunk(deps, manual);
    assert.equal(first.outcome, 'waiting', JSON.stringify(first));
    release();
    assert.equal((await running).outcome, 'finished');
    // Delivered again (the handler answered 503): now it runs.
    assert.equal((await runChunk(deps, manual)).outcome, 'finished');
    assert.deepEqual(
      seen.map((x) => x.run),
      ['Sync/ltv@2026-11-22T10:00:00.000Z', 'Sync/ltv@2026-11-22T10:04:00.000Z'],
    );
    assert.equal((await runChunk(deps, manual)).outcome, 'skipped', 'once ran, it is not run again');
  });

  it("a manual run that finds the lock's unfinished run lets that go first, and waits", async () => {
    const { job, seen } = countingJob(2);
    const { deps, published } = depsFor(fx.bucket, job, clock);
    await tick(deps);
    await runChunk(deps, published.shift() as RunMessage); // chunk 0 of the scheduled run
    published.length = 0; // its continuation is late; the manual message comes first
    const manual: RunMessage = {
      kind: 'Sync',
      name: 'ltv',
      slot: '2026-11-22T10:04:00.000Z',
      trigger: 'manual',
    };
    assert.equal((await runChunk(deps, manual)).outcome, 'waiting');
    assert.equal((await runChunk(deps, manual)).outcome, 'continued');
    assert.deepEqual(
      seen.map((x) => [x.run, x.chunk]),
      [
        ['Sync/ltv@2026-11-22T10:00:00.000Z', 0],
        ['Sync/ltv@2026-11-22T10:00:00.000Z', 1],
        ['Sync/ltv@2026-11-22T10:04:00.000Z', 0],
      ],
    );
  });
});
