/**
 * An event whose storage outlasted store's retries (a warehouse outage longer than the retry
 * budget) is dead-lettered by Pub/Sub; the dead-letter topic's ledger subscription pushes it back
 * to store, which stores it once the warehouse is back — and forwards it — with Pub/Sub's
 * dead-letter attributes kept on the row and a warning in the log. Nothing acknowledged is lost.
 */
import assert from 'node:assert/strict';
import { type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

describe('delivery: an event dead-lettered by storage is stored once the warehouse is back', function () {
  this.timeout(90_000);
  let stack: Stack;
  before(async () => {
    // Storage gives up quickly here (5 attempts, 0.1–0.2 s apart): the outage below outlasts it.
    stack = await startStack({
      ...testSettings(),
      retry: { minimum_backoff: '0.1s', maximum_backoff: '0.2s', max_attempts: 5 },
    });
  });
  after(() => stack?.close());

  it('stores and forwards the dead letter, keeping the attempts Pub/Sub counted', async () => {
    const id = `dl-${Date.now().toString(36)}`;
    await stack.stopWarehouse();
    await stack.publishEvents([
      {
        event_name: 'view_content',
        event_id: id,
        content_name: 'Shoe',
        content_type: 'product',
        consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
      },
    ]);
    // Five failed pushes at most ~1 s apart, then Pub/Sub dead-letters the message.
    await new Promise((r) => setTimeout(r, 4000));
    await stack.startWarehouse();
    await waitFor(
      'the dead letter stored',
      async () => ((await stack.storedCount(id)) === 1 ? true : undefined),
      60_000,
    );
    const [rows] = await stack.bigquery.query({
      query: `SELECT JSON_VALUE(attributes, '$.CloudPubSubDeadLetterSourceSubscription') AS source,
                     CAST(JSON_VALUE(attributes, '$.CloudPubSubDeadLetterSourceDeliveryCount') AS INT64) AS attempts
              FROM events.events WHERE event_id = @id`,
      params: { id },
    });
    assert.deepEqual(
      (rows as { source: string; attempts: number }[]).map((r) => [
        r.source.split('/').pop(),
        Number(r.attempts),
      ]),
      [['events-store', 5]],
    );
    await waitFor('its delivery', async () =>
      (await stack.ledger(id)).some((r) => r.status === 'delivered') ? true : undefined,
    );
  });
});
