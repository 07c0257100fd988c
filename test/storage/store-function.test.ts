/**
 * The store function under the real functions framework, pushed by the real Pub/Sub
 * emulator, writing to the real BigQuery emulator; rows read back with the BigQuery client.
 */
import assert from 'node:assert/strict';
import { eventually, type StorageStack, startStorageStack, testSettings } from './support.ts';

const publish = (stack: StorageStack, event: unknown, topic = 'events') =>
  stack.pubsub.topic(topic).publishMessage({ data: Buffer.from(JSON.stringify(event)) });

const viewContent = (extra: Record<string, unknown> = {}) => ({
  event_name: 'view_content',
  content_name: 'Shoe',
  content_type: 'product',
  value: 12.5,
  currency: 'EUR',
  ...extra,
});

describe('storage: the store function against both emulators', function () {
  this.timeout(60_000);
  let stack: StorageStack;

  before(async () => {
    stack = await startStorageStack(testSettings({ topics: ['backend_events'] }));
  });
  after(async () => {
    await stack?.close();
  });

  it('stores a pushed event as a row in events, event_id = messageId when the native publish had none', async () => {
    const messageId = await publish(stack, viewContent({ user_id: 'u-1', anonymous_id: 'a-1' }));
    const rows = await eventually(
      async () => {
        const r = await stack.query(`SELECT * FROM events WHERE message_id = '${messageId}'`);
        return r.length > 0 ? r : undefined;
      },
      15_000,
      'the row in events',
    );
    assert.equal(rows.length, 1);
    const row = rows[0] as Record<string, unknown>;
    assert.equal(row['event_id'], messageId);
    assert.equal(row['event_name'], 'view_content');
    assert.equal(row['topic'], 'events');
    assert.equal(row['user_id'], 'u-1');
    const typed = await stack.query(
      `SELECT content_name, value FROM view_content WHERE event_id = '${messageId}'`,
    );
    assert.deepEqual(typed, [{ content_name: 'Shoe', value: 12.5 }]);
    const identities = await stack.query(
      `SELECT user_id, anonymous_id FROM identities WHERE user_id = 'u-1'`,
    );
    assert.deepEqual(identities, [{ user_id: 'u-1', anonymous_id: 'a-1' }]);
  });

  it('stores events of an extra topic with their topic', async () => {
    const messageId = await publish(stack, viewContent({ event_id: 'backend-1' }), 'backend_events');
    const rows = await eventually(async () => {
      const r = await stack.query(`SELECT topic, message_id FROM events WHERE event_id = 'backend-1'`);
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows, [{ topic: 'backend_events', message_id: messageId }]);
  });

  it('folds the same event_id published twice into one row of events_dedup', async () => {
    const event = viewContent({ event_id: 'dup-1', event_time: '2026-01-02T03:04:05.678Z' });
    await publish(stack, event);
    await publish(stack, event);
    const first = await eventually(async () => {
      const r = await stack.query(`SELECT * FROM events WHERE event_id = 'dup-1'`);
      return r.length >= 1 ? r : undefined;
    });
    // insertId folds copies within about a minute; a copy that comes later (a replay, a
    // redelivery after an outage) is a second row, which only the view folds. Write one.
    const copy: Record<string, unknown> = {
      ...(first[0] as Record<string, unknown>),
      message_id: 'later-copy',
    };
    for (const k of ['event_time', 'received_at', 'stored_at']) copy[k] = String(copy[k]);
    for (const k of ['event_data', 'attributes']) copy[k] = JSON.stringify(copy[k]);
    await stack.bigquery
      .dataset('events')
      .table('events')
      .insert([{ insertId: 'dup-1/later', json: copy }], { raw: true });
    const all = await stack.query(`SELECT COUNT(*) AS n FROM events WHERE event_id = 'dup-1'`);
    assert.equal(Number(all[0]?.['n']), 2);
    const dedup = await stack.query(`SELECT message_id FROM events_dedup WHERE event_id = 'dup-1'`);
    assert.equal(dedup.length, 1);
    assert.notEqual(dedup[0]?.['message_id'], 'later-copy', 'the first stored copy is kept');
  });

  it('stores an invalid event in invalid_events with its errors, and acknowledges it', async () => {
    const messageId = await publish(stack, {
      event_name: 'view_content',
      event_id: 'bad-1',
      content_type: 7,
    });
    const rows = await eventually(async () => {
      const r = await stack.query(
        `SELECT reason, event_id, e.path AS path FROM invalid_events, UNNEST(errors) AS e WHERE message_id = '${messageId}' ORDER BY path`,
      );
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows, [
      { reason: 'invalid_event', event_id: 'bad-1', path: 'content_name' },
      { reason: 'invalid_event', event_id: 'bad-1', path: 'content_type' },
    ]);
    const inEvents = await stack.query(`SELECT COUNT(*) AS n FROM events WHERE event_id = 'bad-1'`);
    assert.equal(Number(inEvents[0]?.['n']), 0);
  });

  it('keeps a body that is not a push in invalid_events and answers 400 with Google’s error envelope', async () => {
    const res = await fetch(stack.storeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'stray' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as {
      error: { status: string; details: { fieldViolations?: unknown[] }[] };
    };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.ok(body.error.details.some((d) => d.fieldViolations));
    const rows = await stack.query(`SELECT payload FROM invalid_events WHERE reason = 'malformed_push'`);
    assert.deepEqual(rows, [{ payload: '{"hello":"stray"}' }]);
  });

  it('answers non-2xx while BigQuery is down; Pub/Sub redelivers and each event is stored once it is back', async () => {
    await stack.stopBigQuery();
    const ids = ['down-1', 'down-2', 'down-3'];
    try {
      for (const id of ids)
        await publish(stack, viewContent({ event_id: id, event_time: '2026-01-03T00:00:00Z' }));
      // A push while the warehouse is down is refused, not acknowledged.
      const res = await fetch(stack.storeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            data: Buffer.from(JSON.stringify(viewContent())).toString('base64'),
            messageId: 'direct-1',
            publishTime: new Date().toISOString(),
          },
          subscription: 'projects/storage-test/subscriptions/events-store',
        }),
      });
      assert.equal(res.status, 503);
      // Let Pub/Sub try (and fail) at least once more before the warehouse comes back.
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      await stack.startBigQuery();
    }
    const rows = await eventually(
      async () => {
        const r = await stack.query(
          `SELECT event_id, COUNT(*) AS n FROM events_dedup WHERE event_id IN ('down-1','down-2','down-3') GROUP BY event_id ORDER BY event_id`,
        );
        return r.length === 3 ? r : undefined;
      },
      20_000,
      'the three events after BigQuery came back',
    );
    assert.deepEqual(
      rows.map((r) => [r['event_id'], Number(r['n'])]),
      ids.map((id) => [id, 1]),
    );
  });
});
