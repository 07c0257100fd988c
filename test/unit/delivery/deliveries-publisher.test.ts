/**
 * The deliveries publisher routes each message to its destination's topic (core/plan.ts,
 * deliveriesTopicName) and publishes each topic's share of a caller's messages in one call.
 */
import assert from 'node:assert/strict';
import { createWireDeliveriesPublisher, deliveriesRoute } from '../../../adapters/deliveries-publisher.ts';
import type { EventPublisher, OutgoingMessage } from '../../../adapters/publisher.ts';
import type { DeliveryMessage } from '../../../core/delivery/message.ts';

const message = (destination: string, id: string): DeliveryMessage => ({
  data: JSON.stringify({ event_id: id }),
  attributes: { destination, event_id: id },
});

/** A publisher that records each call and answers `<topic>/<n>` ids, or fails for one topic. */
function recording(failing?: string) {
  const calls: { topic: string; ids: string[] }[] = [];
  const publisher: EventPublisher = {
    publish: async (topic: string, messages: readonly OutgoingMessage[]) => {
      calls.push({ topic, ids: messages.map((m) => m.attributes['event_id'] ?? '') });
      if (topic === failing) throw new Error(`${topic} is down`);
      return messages.map((m) => `${topic}/${m.attributes['event_id']}`);
    },
    close: async () => {},
  };
  return { calls, publisher };
}

describe('deliveries publisher: a topic per destination', () => {
  const fanOut = [message('meta', 'a'), message('ga4', 'a'), message('meta', 'b'), message('hook', 'b')];

  it('publishes each destination’s messages on its own topic, one call per topic, ids in order', async () => {
    const { calls, publisher } = recording();
    const ids = await createWireDeliveriesPublisher(publisher, deliveriesRoute('per_destination')).publish(
      fanOut,
    );
    assert.deepEqual(
      calls.map((c) => [c.topic, c.ids]),
      [
        ['deliveries-meta', ['a', 'b']],
        ['deliveries-ga4', ['a']],
        ['deliveries-hook', ['b']],
      ],
    );
    assert.deepEqual(ids, [
      'deliveries-meta/a',
      'deliveries-ga4/a',
      'deliveries-meta/b',
      'deliveries-hook/b',
    ]);
  });

  it('publishes everything in one call on the shared topic in the shared topology', async () => {
    const { calls, publisher } = recording();
    const ids = await createWireDeliveriesPublisher(publisher, deliveriesRoute('shared')).publish(fanOut);
    assert.deepEqual(
      calls.map((c) => [c.topic, c.ids]),
      [['deliveries', ['a', 'a', 'b', 'b']]],
    );
    assert.equal(ids.length, 4);
  });

  it('fails the caller when one topic’s call fails, so the store push is redelivered', async () => {
    const { publisher } = recording('deliveries-ga4');
    await assert.rejects(
      createWireDeliveriesPublisher(publisher, deliveriesRoute('per_destination')).publish(fanOut),
      /deliveries-ga4 is down/,
    );
  });

  it('refuses a message without a destination before publishing anything', async () => {
    const { calls, publisher } = recording();
    const wire = createWireDeliveriesPublisher(publisher, deliveriesRoute('per_destination'));
    await assert.rejects(
      wire.publish([message('meta', 'a'), { data: '{}', attributes: {} }]),
      /no destination/,
    );
    assert.deepEqual(calls, []);
    assert.deepEqual(await wire.publish([]), []);
  });
});
