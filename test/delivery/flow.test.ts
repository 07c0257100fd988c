/**
 * The delivery path end to end on real pieces: Pub/Sub and BigQuery emulators, the store
 * and forward functions under the functions-framework CLI, the local receiver as webhook.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeliveriesPublisher, deliveriesRoute } from '../../adapters/deliveries-publisher.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { replayDestinationSlice } from '../../cli/commands/replay-destination.ts';
import type { LedgerRow } from '../../core/delivery/ledger.ts';
import { deadLetterTopicName, deliveriesTopology, forwardSubscriptionName } from '../../core/plan.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { runCliOn, type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

const attemptsSeen = new Map<string, number>();
/** Flipped by the dead-letter test before it replays. */
const healed = { deadLetters: false };

/** The receiver's script, by event id prefix. */
function respond(r: { eventId?: string }): number {
  const id = r.eventId ?? '';
  const n = (attemptsSeen.get(id) ?? 0) + 1;
  attemptsSeen.set(id, n);
  if (id.startsWith('flaky-')) return n <= 2 ? 503 : 200;
  if (id.startsWith('bad-')) return 400;
  if (id.startsWith('dead-')) return healed.deadLetters ? 200 : 503;
  return 200;
}

const event = (id: string, extra: Record<string, unknown> = {}) => ({
  event_name: 'view_content',
  event_id: id,
  content_name: 'Shoe',
  content_type: 'product',
  consent: { analytics: 'granted', ads: 'denied', ad_user_data: 'granted' },
  ...extra,
});

const statuses = (rows: readonly LedgerRow[], destination = 'hook') =>
  rows.filter((r) => r.destination === destination).map((r) => r.status);

describe('delivery flow (emulators, functions, receiver)', function () {
  this.timeout(60_000);
  let stack: Stack;
  const run = `${Date.now().toString(36)}`;

  before(async () => {
    stack = await startStack(
      testSettings([
        {
          id: 'meta',
          type: 'meta_capi',
          config: { pixel_id: '123' },
          secrets: { access_token: 'META_TOKEN' },
        },
      ]),
      respond,
    );
  });
  after(() => stack?.close());

  it('delivers a signed webhook and skips a destination whose consent is denied, with the reason', async () => {
    const id = `ok-${run}`;
    await stack.publishEvents([event(id)]);
    const rows = await waitFor('ledger rows', async () => {
      const r = await stack.ledger(id);
      return statuses(r).includes('delivered') && statuses(r, 'meta').length > 0 ? r : undefined;
    });
    assert.deepEqual(statuses(rows), ['delivered']);
    const skip = rows.find((r) => r.destination === 'meta');
    assert.deepEqual(
      [skip?.status, skip?.reason, skip?.attempt, skip?.replay],
      ['skipped', 'consent ads denied', null, false],
    );
    const got = stack.receiver.received('hook').filter((r) => r.eventId === id);
    assert.equal(got.length, 1);
    assert.equal(got[0]?.verified, true, 'the webhook signature verifies');
    assert.equal((got[0]!.body as { content_name?: unknown }).content_name, undefined);
    assert.equal(
      (got[0]!.body as { event_data?: { content_name?: unknown } }).event_data?.content_name,
      'Shoe',
    );
  });

  it('retries a receiver answering 503, then delivers once: one delivered row, a failed row per attempt', async () => {
    const id = `flaky-${run}`;
    await stack.publishEvents([event(id)]);
    const rows = await waitFor('delivered row', async () => {
      const r = await stack.ledger(id);
      return statuses(r).includes('delivered') ? r : undefined;
    });
    await sleep(500); // room for a wrong extra attempt to show up
    const final = await stack.ledger(id);
    assert.deepEqual(statuses(final), ['failed', 'failed', 'delivered']);
    assert.deepEqual(
      final.filter((r) => r.destination === 'hook').map((r) => [r.attempt, r.http_status]),
      [
        [1, 503],
        [2, 503],
        [3, 200],
      ],
    );
    assert.ok(rows.length > 0);
    assert.equal(attemptsSeen.get(id), 3);
  });

  it('records a permanent 400 as rejected and never retries it', async () => {
    const id = `bad-${run}`;
    await stack.publishEvents([event(id)]);
    await waitFor('rejected row', async () => ((await stack.ledger(id)).length > 1 ? true : undefined));
    await sleep(800); // several backoffs: a retry would have happened by now
    const rows = await stack.ledger(id);
    assert.deepEqual(statuses(rows), ['rejected']);
    assert.equal(rows.find((r) => r.destination === 'hook')?.http_status, 400);
    assert.match(rows.find((r) => r.destination === 'hook')?.reason ?? '', /^HTTP 400/);
    assert.equal(attemptsSeen.get(id), 1);
  });

  it('records a dead letter whose pushes never reached forward (a refused connection, a push deadline)', async () => {
    const id = `unseen-${run}`;
    // What Pub/Sub publishes on the dead-letter topic after attempts forward never saw (on meta's
    // topic: the replay test below counts hook's backlog).
    const topic = deadLetterTopicName(forwardSubscriptionName('meta'));
    await stack.pubsub.topic(topic).publishMessage({
      data: Buffer.from(JSON.stringify({ event_id: id, event_name: 'view_content' })),
      attributes: {
        destination: 'meta',
        event_id: id,
        event_name: 'view_content',
        CloudPubSubDeadLetterSourceDeliveryCount: '16',
        CloudPubSubDeadLetterSourceSubscription: forwardSubscriptionName('meta'),
      },
    });
    const rows = await waitFor('dead_lettered row', async () => {
      const r = await stack.ledger(id);
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(statuses(rows, 'meta'), ['dead_lettered']);
    assert.equal(rows[0]?.attempt, 16);
    assert.match(String(rows[0]?.reason), /after 16 delivery attempts on deliveries-meta/);
    assert.equal(
      stack.receiver.received('meta').filter((r) => r.eventId === id).length,
      0,
      'a dead letter is not sent',
    );
  });

  it('dead-letters after max attempts, then replay from the backlog delivers (replay = true)', async () => {
    const id = `dead-${run}`;
    await stack.publishEvents([event(id)]);
    await waitFor('dead_lettered row', async () =>
      statuses(await stack.ledger(id)).includes('dead_lettered') ? true : undefined,
    );
    const rows = await stack.ledger(id);
    // Five attempts forward saw, then the dead letter itself, recorded from the dead-letter topic.
    assert.deepEqual(statuses(rows), ['failed', 'failed', 'failed', 'failed', 'failed', 'dead_lettered']);
    assert.equal(rows.find((r) => r.status === 'dead_lettered')?.attempt, 5);

    healed.deadLetters = true;
    // Through the CLI, as an operator would run it.
    const settingsFile = join(stack.dataDir, 'settings.yaml');
    writeFileSync(settingsFile, JSON.stringify(stack.settings));
    let out = '';
    await waitFor('the dead letter in the backlog', async () => {
      const r = await runCliOn(stack, [
        'replay',
        '--env',
        settingsFile,
        '--destination',
        'hook',
        '--dead-letters',
        '--format',
        'json',
      ]);
      assert.equal(r.code, 0, r.err);
      out = r.out;
      const [report] = JSON.parse(out) as { republished: number; failed: number }[];
      return report && report.republished > 0 ? report : undefined;
    });
    assert.deepEqual(
      (JSON.parse(out) as { republished: number; failed: number }[]).map((r) => [r.republished, r.failed]),
      [[1, 0]],
    );
    const after = await waitFor('replayed delivery', async () => {
      const r = await stack.ledger(id);
      return statuses(r).includes('delivered') ? r : undefined;
    });
    const delivered = after.filter((r) => r.status === 'delivered');
    assert.equal(delivered.length, 1);
    assert.deepEqual([delivered[0]?.replay, delivered[0]?.attempt], [true, 1]);
    const received = stack.receiver.received('hook').filter((r) => r.eventId === id && r.status === 200);
    assert.equal(received.length, 1);
  });

  it('replays a warehouse slice through the decision layer again (replay = true rows)', async () => {
    const from = new Date(Date.now() - 60_000);
    const id = `slice-${run}`;
    await stack.publishEvents([event(id)]);
    await waitFor('first delivery', async () =>
      statuses(await stack.ledger(id)).includes('delivered') ? true : undefined,
    );
    const publisher = createDeliveriesPublisher(
      stack.pubsub,
      deliveriesRoute(deliveriesTopology(stack.settings)),
    );
    const ledger = createLedgerWriter(createLedgerBigQueryWriter(stack.bigquery, stack.plan.dataset));
    try {
      const query = async (sql: string, params: Record<string, unknown>) =>
        (await stack.bigquery.query({ query: sql, params }))[0] as Record<string, unknown>[];
      for (const destination of ['hook', 'meta']) {
        const report = await replayDestinationSlice({
          settings: stack.settings,
          project: stack.settings.project,
          dataset: stack.plan.dataset,
          destination,
          from,
          to: new Date(Date.now() + 60_000),
          where: `event_id = '${id}'`,
          query,
          publish: (m) => publisher.publish(m),
          writeLedger: (e) => ledger.write(e),
        });
        assert.equal(report.read, 1);
        assert.deepEqual([report.republished, report.skipped], destination === 'hook' ? [1, 0] : [0, 1]);
      }
    } finally {
      await publisher.close();
    }
    const rows = await waitFor('replayed rows', async () => {
      const r = await stack.ledger(id);
      return r.filter((x) => x.replay).length >= 2 ? r : undefined;
    });
    const replayed = rows.filter((r) => r.replay).map((r) => [r.destination, r.status]);
    assert.deepEqual(replayed.sort(), [
      ['hook', 'folded'],
      ['meta', 'skipped'],
    ]);
    // Delivered already: the send-once claim folds the replay, and the receiver got it once.
    const ids = stack.receiver.received('hook').filter((r) => r.eventId === id && r.status === 200);
    assert.equal(ids.length, 1);
    // `--force` (a changed mapping) sends it again, and the delivered row says why.
    const publisher2 = createDeliveriesPublisher(
      stack.pubsub,
      deliveriesRoute(deliveriesTopology(stack.settings)),
    );
    try {
      const report = await replayDestinationSlice({
        settings: stack.settings,
        project: stack.settings.project,
        dataset: stack.plan.dataset,
        destination: 'hook',
        from,
        to: new Date(Date.now() + 60_000),
        where: `event_id = '${id}'`,
        query: async (sql, params) => (await stack.bigquery.query({ query: sql, params }))[0],
        publish: (m) => publisher2.publish(m),
        writeLedger: async () => [],
        force: true,
      });
      assert.equal(report.republished, 1);
    } finally {
      await publisher2.close();
    }
    const forced = await waitFor('forced replay', async () => {
      const r = (await stack.ledger(id)).filter((x) => x.replay && x.status === 'delivered');
      return r.length > 0 ? r : undefined;
    });
    assert.match(String(forced[0]?.reason), /replay --force/);
    assert.equal(
      stack.receiver.received('hook').filter((r) => r.eventId === id && r.status === 200).length,
      2,
    );
  });

  it('storage first: with the warehouse down nothing is forwarded; once it is back, stored and delivered once', async () => {
    const id = `wh-${run}`;
    await stack.stopWarehouse();
    try {
      await stack.publishEvents([event(id)]);
      await sleep(1500); // several store attempts fail meanwhile
      assert.equal(stack.receiver.received('hook').filter((r) => r.eventId === id).length, 0);
    } finally {
      await stack.startWarehouse();
    }
    const rows = await waitFor(
      'delivery after the warehouse is back',
      async () => {
        const r = await stack.ledger(id);
        return statuses(r).includes('delivered') ? r : undefined;
      },
      30_000,
    );
    assert.equal(await stack.storedCount(id), 1);
    assert.deepEqual(statuses(rows), ['delivered']);
    assert.equal(stack.receiver.received('hook').filter((r) => r.eventId === id).length, 1);
  });

  it('the ledger queries in docs/delivery.md run on the emulator', async () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'delivery.md'), 'utf8');
    // The ops dataset's query (platform_diagnostics) runs in test/scheduler/platform-diagnostics.test.ts.
    const queries = [...docs.matchAll(/```sql\n([\s\S]*?)```/g)]
      .map((m) => m[1] as string)
      .filter((q) => !q.includes('PROJECT.eventbus_ops.'))
      .map((q) => q.replaceAll('PROJECT.events', `${stack.settings.project}.${stack.plan.dataset}`));
    assert.equal(queries.length, 8);
    const [success] = await stack.bigquery.query(queries[0] as string);
    const hook = (success as Record<string, unknown>[]).find((r) => r['destination'] === 'hook');
    assert.ok(Number(hook?.['delivered']) >= 3, JSON.stringify(hook));
    assert.ok(Number(hook?.['dead_lettered']) >= 1);
    const [reasons] = await stack.bigquery.query(queries[1] as string);
    assert.ok((reasons as Record<string, unknown>[]).some((r) => r['reason'] === 'consent ads denied'));
    // What Google Ads and Meta answered: no such rows in this run, but the queries must run (their
    // answers are checked on seeded rows in test/storage/ledger-platform-columns.test.ts).
    for (const q of queries.slice(2, 4)) assert.ok(Array.isArray((await stack.bigquery.query(q))[0]));
    // Events stored from a dead letter: none in this run, but the query must run.
    const [fromDeadLetters] = await stack.bigquery.query(queries[4] as string);
    assert.ok(Array.isArray(fromDeadLetters));
    // hook_failures, poison rows and backfills: none in this run, but the queries must run.
    for (const q of queries.slice(5)) assert.ok(Array.isArray((await stack.bigquery.query(q))[0]));
  });
});
