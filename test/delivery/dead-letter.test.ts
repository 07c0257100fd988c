/** core/delivery/dead-letter.ts: one `dead_lettered` ledger row per dead letter, from what Pub/Sub adds. */
import assert from 'node:assert/strict';
import { isDeadLetter, recordDeadLetter } from '../../core/delivery/dead-letter.ts';
import type { PushedMessage } from '../../core/delivery/message.ts';

const push = (attributes: Record<string, string>, data = '{}'): PushedMessage => ({
  messageId: '77',
  attributes,
  data,
  subscription: 'projects/p/subscriptions/deliveries-hook-dead-letter-ledger',
  deliveryAttempt: 0,
});
const NOW = new Date('2026-11-22T10:00:00Z');

describe('dead letters in the ledger', () => {
  it('records one dead_lettered row with the attempts Pub/Sub counted, acknowledged', () => {
    const p = push({
      destination: 'hook',
      event_id: 'e1',
      event_name: 'purchase',
      CloudPubSubDeadLetterSourceDeliveryCount: '16',
      CloudPubSubDeadLetterSourceSubscription: 'deliveries-hook',
    });
    assert.equal(isDeadLetter(p), true);
    const result = recordDeadLetter(p, NOW);
    assert.equal(result.ack, true);
    assert.equal(result.entries.length, 1);
    const { insertId, row } = result.entries[0] as (typeof result.entries)[number];
    assert.deepEqual(
      [row.event_id, row.event_name, row.destination, row.status, row.attempt, row.replay, row.recorded_at],
      ['e1', 'purchase', 'hook', 'dead_lettered', 16, false, '2026-11-22T10:00:00.000Z'],
    );
    assert.match(String(row.reason), /after 16 delivery attempts on deliveries-hook/);
    // A redelivered push of the same dead letter writes the same row.
    assert.equal(recordDeadLetter(p, NOW).entries[0]?.insertId, insertId);
  });

  it('finds the event in the data when attributes are missing, and keeps the replay flag', () => {
    const p = push(
      { destination: 'hook', replay: 'true', CloudPubSubDeadLetterSourceSubscription: 'deliveries-hook' },
      JSON.stringify({ event_id: 'e2', event_name: 'lead' }),
    );
    const row = recordDeadLetter(p, NOW).entries[0]?.row;
    assert.deepEqual([row?.event_id, row?.event_name, row?.replay, row?.attempt], ['e2', 'lead', true, 0]);
    const garbled = recordDeadLetter(push({ CloudPubSubDeadLetterSourceSubscription: 's' }, 'not json'), NOW);
    assert.equal(garbled.entries[0]?.row.event_id, 'message:77');
  });

  it('tells deliveries from dead letters', () => {
    assert.equal(isDeadLetter(push({ destination: 'hook', event_id: 'e' })), false);
  });
});
