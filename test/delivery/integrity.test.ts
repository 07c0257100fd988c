/**
 * Storage first, by construction (#33), on real pieces: Pub/Sub and BigQuery emulators, the store
 * and forward functions under the functions-framework CLI, the local receiver as the webhook.
 * - Two different events with one event_id (a view_content and, 3 s later, a purchase; or the
 *   same name and time with other content) are two rows, two deliveries, and `event_id_conflicts`
 *   lists the id; every `delivered` ledger row has its `events` row by event_id and digest.
 * - A dead letter that its `-ledger` subscription cannot record ends, after a bounded number of
 *   attempts, in `invalid_events` as `poison`, instead of being pushed for 31 days.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  deadLetterLedgerSubscriptionName,
  deadLetterTopicName,
  storeSubscriptionName,
} from '../../core/plan.ts';
import { deliveredWithoutStoredRowSql } from '../../core/warehouse/warehouse.ts';
import { type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

describe('integrity: nothing delivered that is not stored under its identity', function () {
  this.timeout(90_000);
  let stack: Stack;
  const run = Date.now().toString(36);
  const q = async (sql: string, params: Record<string, unknown> = {}) => {
    const [rows] = await stack.bigquery.query({
      query: sql,
      params,
      defaultDataset: { projectId: stack.plan.project, datasetId: stack.plan.dataset },
    });
    return rows as Record<string, unknown>[];
  };

  /** The webhook's two `delivered` ledger rows of an event id, once both are there. */
  const twoDelivered = (id: string) =>
    waitFor(
      'two delivered rows',
      async () => {
        const rows = (await stack.ledger(id)).filter(
          (r) => r.destination === 'hook' && r.status === 'delivered',
        );
        return rows.length >= 2 ? rows : undefined;
      },
      30_000,
    );

  before(async () => {
    stack = await startStack(testSettings());
  });
  after(() => stack?.close());

  it('stores and delivers a view_content and a purchase that reuse one event_id, each once', async () => {
    const id = `reused-${run}`;
    const t = Date.now() - 60_000;
    const consent = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' };
    await stack.publishEvents([
      {
        event_name: 'view_content',
        event_id: id,
        event_time: new Date(t).toISOString(),
        content_name: 'Shoe',
        content_type: 'product',
        consent,
      },
    ]);
    await new Promise((r) => setTimeout(r, 3000));
    await stack.publishEvents([
      {
        event_name: 'purchase',
        event_id: id,
        event_time: new Date(t + 3000).toISOString(),
        transaction_id: 'T-1',
        value: 15,
        currency: 'EUR',
        consent,
      },
    ]);
    const delivered = await twoDelivered(id);
    assert.deepEqual(delivered.map((r) => r.event_name).sort(), ['purchase', 'view_content']);
    const stored = await q(
      'SELECT event_name, payload_digest FROM events WHERE event_id = @id ORDER BY event_name',
      {
        id,
      },
    );
    assert.deepEqual(
      stored.map((r) => r['event_name']),
      ['purchase', 'view_content'],
    );
    assert.equal(new Set(stored.map((r) => r['payload_digest'])).size, 2);
    assert.equal(await stack.storedCount(id), 2, 'events_dedup keeps both');
    // The receiver got both, once each.
    const received = stack.receiver.received('hook').filter((r) => r.eventId === id);
    assert.equal(received.length, 2);
    const conflicts = await q(
      'SELECT event_id, versions, event_names FROM event_id_conflicts WHERE event_id = @id',
      {
        id,
      },
    );
    assert.deepEqual(conflicts, [{ event_id: id, versions: 2, event_names: conflicts[0]?.['event_names'] }]);
    assert.deepEqual(String(conflicts[0]?.['event_names']).split(',').sort(), ['purchase', 'view_content']);
  });

  it('keeps two contents with the same event_id and event_time apart, and the anti-join stays 0', async () => {
    const id = `same-time-${run}`;
    const at = new Date(Date.now() - 30_000).toISOString();
    const base = { event_name: 'view_content', event_id: id, event_time: at, content_type: 'product' };
    const consent = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' };
    await stack.publishEvents([
      { ...base, content_name: 'Red Shoe', consent },
      { ...base, content_name: 'Blue Shoe', consent },
    ]);
    await twoDelivered(id);
    assert.equal(await stack.storedCount(id), 2);
    const dataset = `\`${stack.plan.project}.${stack.plan.dataset}\``;
    assert.deepEqual(
      await q(deliveredWithoutStoredRowSql(dataset)),
      [],
      'every delivered row has its events row',
    );
  });

  it('ends a dead letter its -ledger subscription cannot record in invalid_events as poison', async () => {
    // The store function stands for one that fails on this dead letter every time: its ledger
    // subscription is pointed at an endpoint answering 500.
    const failing: Server = createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    try {
      const dlTopic = deadLetterTopicName(storeSubscriptionName('events'));
      const ledgerSub = stack.pubsub.subscription(deadLetterLedgerSubscriptionName(dlTopic));
      await ledgerSub.modifyPushConfig({
        pushEndpoint: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/`,
      });
      // Its backoff shortened for the test (10 s to 600 s in the plan): 20 pushes in seconds.
      await ledgerSub.setMetadata({
        retryPolicy: {
          minimumBackoff: { seconds: 0, nanos: 100_000_000 },
          maximumBackoff: { seconds: 0, nanos: 300_000_000 },
        },
      });
      const id = `poison-${run}`;
      await stack.pubsub.topic(dlTopic).publishMessage({
        data: Buffer.from(JSON.stringify({ event_name: 'view_content', event_id: id, content_name: 'Shoe' })),
        attributes: {
          CloudPubSubDeadLetterSourceSubscription: `projects/${stack.plan.project}/subscriptions/events-store`,
        },
      });
      const rows = await waitFor(
        'the poison row',
        async () => {
          const r = await q(
            `SELECT reason, event_id, payload, subscription FROM invalid_events WHERE event_id = @id`,
            {
              id,
            },
          );
          return r.length > 0 ? r : undefined;
        },
        60_000,
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.['reason'], 'poison');
      assert.match(String(rows[0]?.['subscription']), /poison-store$/);
      assert.match(String(rows[0]?.['payload']), new RegExp(id));
      assert.deepEqual(await q('SELECT COUNT(*) AS n FROM events WHERE event_id = @id', { id }), [{ n: 0 }]);
    } finally {
      failing.closeAllConnections();
      await new Promise((r) => failing.close(r));
    }
  });
});
