/**
 * The names of the deliveries topology (docs/delivery.md, "One topic per destination"): which
 * topic carries a destination's delivery messages and which subscription pushes them. plan()
 * (core/plan.ts, which re-exports them), every publisher (adapters/deliveries-publisher.ts) and
 * the kept topology (topology-kept.ts) read them here. Pure.
 */
import type { Settings } from '../../schemas/settings.ts';

/**
 * Name of the subscription that pushes one destination's deliveries to `forward` in the shared
 * topology, and the stem of the destination's dead-letter topic in either topology.
 */
export const forwardSubscriptionName = (destination: string) => `deliveries-${destination}`;
/** The one topic every destination's filtered subscription reads in the shared topology. */
export const SHARED_DELIVERIES_TOPIC = 'deliveries';
/** What a per-destination topic's name starts with (`deliveries-<destination id>`). */
export const DELIVERIES_TOPIC_PREFIX = `${SHARED_DELIVERIES_TOPIC}-`;
/**
 * How delivery messages reach the destinations (docs/delivery.md, "One topic per destination"):
 * `per_destination`, a topic per destination with one push subscription each, so each message
 * is billed by one subscription; `shared`, the one `deliveries` topic with a filtered
 * subscription per destination, where Pub/Sub bills every message on every subscription.
 */
export type DeliveriesTopology = 'shared' | 'per_destination';
/** The settings' topology; unset, a topic per destination (a deployed stack's is kept: core/deploy/topology-kept.ts). */
export const deliveriesTopology = (settings: Readonly<Settings>): DeliveriesTopology =>
  settings.deliveries_topology ?? 'per_destination';
/** The topic that carries a destination's delivery messages: every publisher asks here. */
export const deliveriesTopicName = (destination: string, topology: DeliveriesTopology): string =>
  topology === 'shared' ? SHARED_DELIVERIES_TOPIC : `${DELIVERIES_TOPIC_PREFIX}${destination}`;
/**
 * The subscription that pushes a destination's deliveries to its function: in the shared
 * topology the filtered `deliveries-<id>` on `deliveries`, otherwise `deliveries-<id>-push` on
 * the destination's own topic (another name, so both exist while a switch drains the first).
 */
export const destinationSubscriptionName = (destination: string, topology: DeliveriesTopology): string =>
  topology === 'shared'
    ? forwardSubscriptionName(destination)
    : `${forwardSubscriptionName(destination)}-push`;
/** The topology a stack switches away from. */
export const otherTopology = (topology: DeliveriesTopology): DeliveriesTopology =>
  topology === 'shared' ? 'per_destination' : 'shared';

/**
 * The deliveries topics publishers use (store's fan-out, the scheduler's re-drives and replays):
 * each destination's, or the shared one; never a topic kept only while it drains.
 */
export function publishedDeliveriesTopics(p: {
  readonly topics: readonly { readonly name: string; readonly kind: string; readonly draining?: true }[];
}): string[] {
  return p.topics.filter((t) => t.kind === 'deliveries' && !t.draining).map((t) => t.name);
}
