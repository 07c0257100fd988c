/**
 * Publishes fan-out messages, each on its destination's deliveries topic (core/plan.ts,
 * deliveriesTopicName: `deliveries-<id>`, or the shared `deliveries` in the shared topology).
 * The store function awaits every publish before it acknowledges its push: a failed publish
 * answers non-2xx, the event is redelivered, stored again idempotently (insertId = event_id) and
 * fanned out again.
 */
import type { PubSub, Topic } from '@google-cloud/pubsub';
import { DELIVERY_ATTRIBUTES, type DeliveryMessage } from '../core/delivery/message.ts';
import {
  type DeliveriesTopology,
  deliveriesTopicName,
  deliveriesTopology,
  SHARED_DELIVERIES_TOPIC,
} from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import type { EventPublisher } from './publisher.ts';

export interface DeliveriesPublisher {
  /** Resolves with the message ids, in order, once every message is published; rejects if any failed. */
  publish(messages: readonly DeliveryMessage[]): Promise<string[]>;
  close(): Promise<void>;
}

/** Which topic a message goes to. */
export type TopicOf = (message: DeliveryMessage) => string;

/**
 * The route of delivery messages in a topology: each to the topic of its `destination`
 * attribute. A message without one is a bug of its maker, refused before anything is published.
 */
export function deliveriesRoute(topology: DeliveriesTopology): TopicOf {
  return (m) => {
    const destination = m.attributes[DELIVERY_ATTRIBUTES.destination];
    if (!destination) throw new Error('a delivery message has no destination attribute');
    return deliveriesTopicName(destination, topology);
  };
}

/**
 * The topology an environment runs, for a caller that has only its settings file (the CLI): the
 * settings' when they state one; unset, a topic per destination unless the environment has the
 * shared `deliveries` topic and not the first destination's own, as a stack deployed before keeps
 * it (core/deploy/topology-kept.ts reads the same from the stack's state). The deployed functions
 * never ask: `pulumi up` states the kept topology in the settings they read.
 */
export async function runningTopology(
  pubsub: PubSub,
  settings: Readonly<Settings>,
): Promise<DeliveriesTopology> {
  if (settings.deliveries_topology) return settings.deliveries_topology;
  const first = (settings.destinations ?? []).find((d) => d.enabled !== false);
  if (!first) return 'per_destination';
  const exists = (name: string) =>
    pubsub
      .topic(name)
      .exists()
      .then(([yes]) => yes);
  if (await exists(deliveriesTopicName(first.id, 'per_destination'))) return 'per_destination';
  return (await exists(SHARED_DELIVERIES_TOPIC)) ? 'shared' : 'per_destination';
}

/** The route of the topology the settings state (unset, a topic per destination). */
export const settingsRoute = (settings: Readonly<Settings>): TopicOf =>
  deliveriesRoute(deliveriesTopology(settings));

/** Every message to one topic (the scheduler's run messages). */
export const toTopic =
  (topic: string): TopicOf =>
  () =>
    topic;

/** The messages of each topic, with their places in the caller's list. */
function byTopic(messages: readonly DeliveryMessage[], topicOf: TopicOf) {
  const groups = new Map<string, { at: number[]; messages: DeliveryMessage[] }>();
  messages.forEach((m, i) => {
    const topic = topicOf(m);
    let group = groups.get(topic);
    if (!group) {
      group = { at: [], messages: [] };
      groups.set(topic, group);
    }
    group.at.push(i);
    group.messages.push(m);
  });
  return groups;
}

/**
 * Publishes each topic's messages with `send` (all of them at once) and answers the ids in the
 * caller's order. One topic, the usual fan-out of one destination, takes no Promise.all (promises
 * cost CPU in the functions framework's per-request domain).
 */
function publishGrouped(
  messages: readonly DeliveryMessage[],
  topicOf: TopicOf,
  send: (topic: string, messages: readonly DeliveryMessage[]) => Promise<string[]>,
): Promise<string[]> {
  if (messages.length === 0) return Promise.resolve([]);
  let groups: ReturnType<typeof byTopic>;
  try {
    groups = byTopic(messages, topicOf);
  } catch (err) {
    return Promise.reject(err);
  }
  if (groups.size === 1) {
    const [topic] = groups.keys();
    return send(topic as string, messages);
  }
  const ids: string[] = new Array(messages.length);
  return Promise.all(
    [...groups].map(([topic, group]) =>
      send(topic, group.messages).then((got) => {
        group.at.forEach((place, i) => {
          ids[place] = got[i] as string;
        });
      }),
    ),
  ).then(() => ids);
}

/**
 * A publisher that batches across concurrent callers for a few milliseconds, per topic (each
 * message independent, so the client's batching cannot half-publish an event's meaning: a
 * failed message fails its caller, who is redelivered).
 */
export function createDeliveriesPublisher(pubsub: PubSub, topicOf: TopicOf): DeliveriesPublisher {
  const topics = new Map<string, Topic>();
  const get = (name: string) => {
    let topic = topics.get(name);
    if (!topic) {
      topic = pubsub.topic(name, {
        batching: { maxMessages: 1000, maxMilliseconds: 5 },
        // Redelivery of the store push is our retry; do not wait minutes inside the client.
        gaxOpts: { timeout: 10_000 },
      });
      topics.set(name, topic);
    }
    return topic;
  };
  return {
    publish: (messages) =>
      publishGrouped(messages, topicOf, (name, group) => {
        const topic = get(name);
        const one = (m: DeliveryMessage) =>
          topic.publishMessage({ data: Buffer.from(m.data), attributes: { ...m.attributes } });
        if (group.length === 1) return one(group[0] as DeliveryMessage).then((id) => [id]);
        return Promise.all(group.map(one));
      }),
    async close() {
      await Promise.all([...topics.values()].map((t) => t.flush().catch(() => {})));
    },
  };
}

/**
 * The same contract over the gateway's publisher (adapters/publisher.ts): the messages of one
 * caller for one topic go out together in one Publish call, encoded by hand (a caller's messages
 * for several destinations: one call per destination's topic, all at once), and callers that
 * arrive while calls are in flight share the next one. `store` fans out through this: the client
 * library's batching publisher walked every request for project-id tokens and wrapped each
 * message in promises and objects, about a tenth of store's CPU per event under load.
 */
export function createWireDeliveriesPublisher(
  publisher: EventPublisher,
  topicOf: TopicOf,
): DeliveriesPublisher {
  return {
    publish: (messages) =>
      publishGrouped(messages, topicOf, (topic, group) =>
        publisher.publish(
          topic,
          group.map((m) => ({ data: Buffer.from(m.data), attributes: m.attributes })),
        ),
      ),
    close: () => publisher.close(),
  };
}
