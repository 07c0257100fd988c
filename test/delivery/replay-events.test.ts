/**
 * `replay --events-dead-letters` on the delivery stack: an event dead-lettered while the
 * warehouse was down is stored by the replay AND fanned out as the store function would have
 * (delivered once to the webhook, a skipped row for a destination whose consent is denied).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCliOn, type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

describe('delivery: replay --events-dead-letters fans out', function () {
  this.timeout(90_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack({
      ...testSettings([
        {
          id: 'meta',
          type: 'meta_capi',
          config: { pixel_id: '123' },
          secrets: { access_token: 'META_TOKEN' },
        },
      ]),
      // Few, fast store attempts: the event reaches the dead-letter topic within a second.
      retry: { minimum_backoff: '0.1s', maximum_backoff: '0.1s', max_attempts: 5 },
    });
  });
  after(() => stack?.close());

  it('stores a dead-lettered event and delivers it once: one delivered row, one skipped row', async () => {
    const id = `dlq-${Date.now().toString(36)}`;
    const backlog = `http://${stack.pubsubHost}/v1/projects/${stack.settings.project}/subscriptions/events-store-dead-letter-backlog`;
    const post = async (verb: string, body: unknown) =>
      (await fetch(`${backlog}:${verb}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }).then((r) => r.json())) as { receivedMessages?: { ackId: string }[] };
    await stack.stopWarehouse();
    try {
      await stack.publishEvents([
        {
          event_name: 'view_content',
          event_id: id,
          content_name: 'Shoe',
          content_type: 'product',
          consent: { analytics: 'granted', ads: 'denied', ad_user_data: 'granted' },
        },
      ]);
      // Peek at the backlog (pull, then give back at once) until the event is there.
      await waitFor(
        'the event in the dead-letter backlog',
        async () => {
          const ackIds = ((await post('pull', { maxMessages: 10 })).receivedMessages ?? []).map(
            (m) => m.ackId,
          );
          if (ackIds.length > 0) await post('modifyAckDeadline', { ackIds, ackDeadlineSeconds: 0 });
          return ackIds.length > 0 ? true : undefined;
        },
        30_000,
      );
    } finally {
      await stack.startWarehouse();
    }
    assert.equal(stack.receiver.received('hook').filter((r) => r.eventId === id).length, 0);

    const settingsFile = join(stack.dataDir, 'settings.yaml');
    writeFileSync(settingsFile, JSON.stringify(stack.settings));
    const { code, out, err } = await runCliOn(stack, [
      'replay',
      '--env',
      settingsFile,
      '--events-dead-letters',
      '--format',
      'json',
    ]);
    assert.equal(code, 0, err);
    assert.deepEqual(
      (JSON.parse(out) as { stored: number; failed: number }[]).map((r) => [r.stored, r.failed]),
      [[1, 0]],
    );
    assert.equal(await stack.storedCount(id), 1);
    await waitFor('the replayed delivery', async () =>
      (await stack.ledger(id)).some((r) => r.status === 'delivered') ? true : undefined,
    );
    await sleep(800); // room for a wrong second delivery to show up
    const rows = await stack.ledger(id);
    assert.deepEqual(rows.map((r) => [r.destination, r.status, r.reason]).sort(), [
      ['hook', 'delivered', null],
      ['meta', 'skipped', 'consent ads denied'],
    ]);
    const received = stack.receiver.received('hook').filter((r) => r.eventId === id);
    assert.equal(received.length, 1);
    assert.equal(received[0]?.verified, true);
    // Everything replayed was acknowledged: the backlog is empty.
    assert.deepEqual((await post('pull', { maxMessages: 10 })).receivedMessages ?? [], []);
  });
});
