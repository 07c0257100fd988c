/**
 * The deliveries topology across an upgrade (issue #97; docs/deploy.md, "Deliveries topology"):
 * a stack keeps the topology it runs unless its settings say otherwise, and a switch keeps the
 * previous topology's subscriptions, which still hold a backlog, until the settings say they are
 * drained. What the stack runs is read from its own state, as core/deploy/billing-kept.ts reads
 * the billing: every release declared the shared topic under the logical name `<env>-topic-deliveries`,
 * each destination's subscription on it as `<env>-sub-deliveries-<id>`, and declares a
 * destination's own topic as `<env>-topic-deliveries-<id>` with `<env>-sub-deliveries-<id>-push`
 * (infra/messaging.ts). A stack never deployed gets the settings' topology, per destination
 * unless they say shared. Pure: the state comes in as values.
 */
import type { Settings } from '../../schemas/settings.ts';
import type { StateResource } from './billing-kept.ts';
import {
  type DeliveriesTopology,
  deliveriesTopicName,
  destinationSubscriptionName,
  otherTopology,
} from './deliveries-topology.ts';

export const TOPIC_TYPE = 'gcp:pubsub/topic:Topic';
export const SUBSCRIPTION_TYPE = 'gcp:pubsub/subscription:Subscription';

const logicalName = (urn: string): string => urn.slice(urn.lastIndexOf('::') + 2);

/** Whether the state holds a resource of `type` whose logical name ends with `-<kind>-<name>`. */
const holds = (state: readonly StateResource[], type: string, kind: string, name: string) =>
  state.some((r) => r.type === type && logicalName(r.urn).endsWith(`-${kind}-${name}`));

/** The topology a stack's state shows it runs: `shared` when it has the shared topic, else `per_destination`. */
export function deployedTopology(state: readonly StateResource[]): DeliveriesTopology {
  return holds(state, TOPIC_TYPE, 'topic', deliveriesTopicName('', 'shared')) ? 'shared' : 'per_destination';
}

export interface KeptTopology {
  readonly topology: DeliveriesTopology;
  /** Destinations whose subscription of the other topology is kept while it drains. */
  readonly draining: readonly string[];
  /** What decided, in words, for `pulumi up` to say. */
  readonly reason: string;
}

/**
 * The topology a stack declares: the settings', else the one its state shows, else per
 * destination. After a switch, each enabled destination whose previous-topology subscription
 * the state still holds keeps it (it keeps pushing its backlog to the function) until
 * `deliveries_drained: true`.
 */
export function keptTopology(
  settings: Readonly<Settings>,
  state: readonly StateResource[] | undefined,
): KeptTopology {
  const set = settings.deliveries_topology;
  if (!state)
    return {
      topology: set ?? 'per_destination',
      draining: [],
      reason: set
        ? `deliveries_topology: ${set}`
        : 'a new stack: a deliveries topic per destination, the default (deliveries_topology unset)',
    };
  const deployed = deployedTopology(state);
  const topology = set ?? deployed;
  if (topology === deployed && !set)
    return {
      topology,
      draining: [],
      reason:
        deployed === 'shared'
          ? "kept: the stack's state shows the shared deliveries topic, where each message is billed by every destination's subscription; deliveries_topology: per_destination switches (docs/deploy.md#deliveries-topology)"
          : "kept: the stack's state shows a deliveries topic per destination (deliveries_topology unset)",
    };
  const previous = otherTopology(topology);
  const left = (settings.destinations ?? [])
    .filter((d) => d.enabled !== false)
    .map((d) => d.id)
    .filter((id) => holds(state, SUBSCRIPTION_TYPE, 'sub', destinationSubscriptionName(id, previous)));
  if (left.length === 0) return { topology, draining: [], reason: `deliveries_topology: ${topology}` };
  if (settings.deliveries_drained)
    return {
      topology,
      draining: [],
      reason: `deliveries_topology: ${topology}; deliveries_drained: true, so the ${previous} topology's subscriptions (${left.map((id) => destinationSubscriptionName(id, previous)).join(', ')}) are deleted with their backlog`,
    };
  return {
    topology,
    draining: left,
    reason: `deliveries_topology: ${topology}; the ${previous} topology's subscriptions (${left.map((id) => destinationSubscriptionName(id, previous)).join(', ')}) are kept and keep delivering their backlog; once Cloud Monitoring's pubsub.googleapis.com/subscription/num_undelivered_messages is 0 for each (the Pub/Sub console's unacked messages), set deliveries_drained: true`,
  };
}

/** The settings with the kept topology stated, so plan() and every workload use the same one. */
export function withTopology(settings: Readonly<Settings>, topology: DeliveriesTopology): Settings {
  return { ...settings, deliveries_topology: topology };
}
