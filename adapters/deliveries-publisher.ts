/**
 * Publishes fan-out messages on the `deliveries` topic. The store function awaits every
 * publish before it acknowledges its push: a failed publish answers non-2xx, the event is
 * redelivered, stored again idempotently (insertId = event_id) and fanned out again.
 */
import type { PubSub, Topic } from '@google-cloud/pubsub';
import type { DeliveryMessage } from '../core/delivery/message.ts';
import type { EventPublisher } from './publisher.ts';

/** The topic every environment has for fan-out (plan(): kind `deliveries`). */
export const DELIVERIES_TOPIC = 'deliveries';

export interface DeliveriesPublisher {
  /** Resolves with the message ids once every message is published; rejects if any failed. */
  publish(messages: readonly DeliveryMessage[]): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A publisher that batches across concurrent store invocations for a few milliseconds
 * (each message independent, so the client's batching cannot half-publish an event's
 * meaning: a failed message fails its caller, who is redelivered).
 */
export function createDeliveriesPublisher(pubsub: PubSub, topicName = DELIVERIES_TOPIC): DeliveriesPublisher {
  let topic: Topic | undefined;
  const get = () => {
    topic ??= pubsub.topic(topicName, {
      batching: { maxMessages: 1000, maxMilliseconds: 5 },
      // Redelivery of the store push is our retry; do not wait minutes inside the client.
      gaxOpts: { timeout: 10_000 },
    });
    return topic;
  };
  return {
    publish: (messages) => {
      const one = (m: DeliveryMessage) =>
        get().publishMessage({ data: Buffer.from(m.data), attributes: { ...m.attributes } });
      // The usual fan-out is one message: no Promise.all around it (promises cost CPU in the
      // functions framework's per-request domain).
      if (messages.length === 1) return one(messages[0] as DeliveryMessage).then((id) => [id]);
      return Promise.all(messages.map(one));
    },
    async close() {
      await topic?.flush().catch(() => {});
    },
  };
}

/**
 * The same contract over the gateway's publisher (adapters/publisher.ts): the messages of one
 * caller go out together in one Publish call, encoded by hand, and callers that arrive while
 * calls are in flight share the next one. `store` fans out through this: the client library's
 * batching publisher walked every request for project-id tokens and wrapped each message in
 * promises and objects, about a tenth of store's CPU per event under load.
 */
export function createWireDeliveriesPublisher(
  publisher: EventPublisher,
  topicName = DELIVERIES_TOPIC,
): DeliveriesPublisher {
  return {
    publish: (messages) =>
      publisher.publish(
        topicName,
        messages.map((m) => ({ data: Buffer.from(m.data), attributes: m.attributes })),
      ),
    close: () => publisher.close(),
  };
}
