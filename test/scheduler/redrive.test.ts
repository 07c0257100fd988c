/**
 * Automatic re-drive on the emulators: a webhook that was down dead-letters its deliveries; while
 * it still fails, the scheduler's Redrive job re-drives nothing; once 20 deliveries in a row
 * succeed, the next minute's run re-publishes the backlog with replay=true and every dead letter
 * is delivered, with the same code as `eventbus replay --destination … --dead-letters`.
 */
import assert from 'node:assert/strict';
import { pubSubPullSource } from '../../adapters/backlog.ts';
import { createDeliveriesPublisher, deliveriesRoute } from '../../adapters/deliveries-publisher.ts';
import { LEDGER_TABLE } from '../../adapters/ledger-writer.ts';
import { LockStore } from '../../adapters/locks.ts';
import type { LedgerRow } from '../../core/delivery/ledger.ts';
import { deliveriesTopology } from '../../core/plan.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { type Running, start as startStorage } from '../../emulators/storage/test/support/harness.ts';
import { REDRIVE_KIND, redriveJob } from '../../functions/schedule/redrive.ts';
import { type RunnerDeps, runChunk, tick } from '../../functions/schedule/runner.ts';
import { type Stack, startStack, testSettings, waitFor } from '../delivery/support/stack.ts';
import { outage, viewContent } from './support.ts';

const { state, respond } = outage();
const event = viewContent;
const statuses = (rows: readonly LedgerRow[]) =>
  rows.filter((r) => r.destination === 'hook').map((r) => r.status);

describe('scheduler: automatic re-drive of dead letters once a destination is healthy', function () {
  this.timeout(90_000);
  let stack: Stack;
  let storage: Running;
  let deps: RunnerDeps;
  const published: RunMessage[] = [];
  let now = new Date();
  let queries = 0;

  before(async () => {
    stack = await startStack(testSettings(), respond);
    storage = await startStorage();
    const [bucket] = await storage.storage.createBucket('redrive-locks');
    const source = await pubSubPullSource(stack.pubsub, stack.settings.project);
    const deliveries = createDeliveriesPublisher(
      stack.pubsub,
      deliveriesRoute(deliveriesTopology(stack.settings)),
    );
    deps = {
      locks: new LockStore(bucket),
      leaseMs: 60_000,
      now: () => now,
      publish: async (runs) => {
        published.push(...runs);
      },
      jobs: [
        redriveJob({
          settings: stack.settings,
          project: stack.settings.project,
          dataset: stack.plan.dataset,
          ledgerTable: LEDGER_TABLE,
          query: async (sql, params) => {
            queries++;
            return (await stack.bigquery.query({ query: sql, params }))[0];
          },
          source: async () => source,
          publish: (m) => deliveries.publish(m),
        }),
      ],
    };
  });
  after(async () => {
    await stack?.close();
    await storage?.stop();
  });

  const runMinute = async () => {
    const report = await tick(deps);
    assert.deepEqual(
      report.dispatched.map((r) => r.split('@')[0]),
      [`${REDRIVE_KIND}/hook`],
    );
    const outcome = await runChunk(deps, published.shift() as RunMessage);
    assert.equal(outcome.outcome, 'finished');
  };

  it('asks the ledger nothing while the dead-letter backlog is empty (Pub/Sub first), and answers at once', async () => {
    // The emulator holds an empty pull up to its deadline as Pub/Sub may: the backlog check asks
    // with returnImmediately, so an empty backlog costs no wait (adapters/backlog.ts).
    const started = Date.now();
    await runMinute();
    assert.ok(Date.now() - started < 8_000, `the empty-backlog run took ${Date.now() - started} ms`);
    assert.equal(queries, 0, 'no BigQuery query for an empty backlog');
    now = new Date(now.getTime() + 61_000);
  });

  it('re-drives nothing while the destination fails, everything after 20 deliveries in a row', async () => {
    const ids = ['down-1', 'down-2', 'down-3'].map((i) => `${i}-${Date.now().toString(36)}`);
    await stack.publishEvents(ids.map(event));
    for (const id of ids)
      await waitFor(`dead letter of ${id}`, async () =>
        statuses(await stack.ledger(id)).includes('dead_lettered') ? true : undefined,
      );

    // Still failing: the minute's run looks at the ledger and leaves the backlog alone.
    await runMinute();
    assert.ok(queries > 0, 'dead letters wait: the ledger is asked');
    for (const id of ids) assert.ok(!statuses(await stack.ledger(id)).includes('delivered'), id);

    state.down = false;
    const fresh = Array.from({ length: 20 }, (_, i) => `ok-${i}-${Date.now().toString(36)}`);
    await stack.publishEvents(fresh.map(event));
    for (const id of fresh)
      await waitFor(`delivery of ${id}`, async () =>
        statuses(await stack.ledger(id)).includes('delivered') ? true : undefined,
      );

    // By now a re-drive in the failing minute would have left replay rows (attempts, dead letters).
    for (const id of ids)
      assert.deepEqual(
        (await stack.ledger(id)).filter((r) => r.replay).map((r) => r.status),
        [],
        `${id} was not re-driven into the outage`,
      );

    // The next minute: healthy, so the backlog is re-driven.
    now = new Date(now.getTime() + 61_000);
    await runMinute();
    for (const id of ids) {
      const rows = await waitFor(`re-driven delivery of ${id}`, async () => {
        const r = await stack.ledger(id);
        return statuses(r).includes('delivered') ? r : undefined;
      });
      const delivered = rows.filter((r) => r.status === 'delivered');
      assert.deepEqual(
        delivered.map((r) => r.replay),
        [true],
        `${id}: one delivery, marked replay`,
      );
    }
  });
});
