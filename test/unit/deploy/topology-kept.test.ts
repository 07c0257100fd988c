/**
 * core/deploy/topology-kept.ts: the settings decide; unset, the topology the stack's state shows;
 * a new stack, a topic per destination. A switch keeps the previous topology's subscriptions the
 * state holds until `deliveries_drained`.
 */
import assert from 'node:assert/strict';
import type { StateResource } from '../../../core/deploy/billing-kept.ts';
import {
  deployedTopology,
  keptTopology,
  SUBSCRIPTION_TYPE,
  TOPIC_TYPE,
  withTopology,
} from '../../../core/deploy/topology-kept.ts';
import type { Settings } from '../../../schemas/settings.ts';

const urn = (type: string, name: string): StateResource => ({
  urn: `urn:pulumi:prod::eventbus::${type}::${name}`,
  type,
});
const hook = (id: string) => ({ id, type: 'webhook' as const, base_url: 'https://hook.example' });
const base: Settings = {
  name: 'dev',
  project: 'acme-dev-project',
  region: 'europe-west1',
  destinations: [hook('a'), hook('b'), hook('c')],
};
const shared = [
  urn(TOPIC_TYPE, 'dev-topic-deliveries'),
  urn(TOPIC_TYPE, 'dev-topic-deliveries-a-dead-letter'),
  urn(SUBSCRIPTION_TYPE, 'dev-sub-deliveries-a'),
  urn(SUBSCRIPTION_TYPE, 'dev-sub-deliveries-b'),
];
const perDestination = [
  urn(TOPIC_TYPE, 'dev-topic-deliveries-a'),
  urn(SUBSCRIPTION_TYPE, 'dev-sub-deliveries-a-push'),
  urn(TOPIC_TYPE, 'dev-topic-deliveries-a-dead-letter'),
];

describe('deploy: the deliveries topology kept across an upgrade', () => {
  it('reads the topology from the shared topic in the state, by type and logical name', () => {
    assert.equal(deployedTopology(shared), 'shared');
    assert.equal(deployedTopology(perDestination), 'per_destination');
    // A subscription named like the topic is not the topic.
    assert.equal(deployedTopology([urn(SUBSCRIPTION_TYPE, 'dev-topic-deliveries')]), 'per_destination');
  });

  it('gives a new stack a topic per destination, or what its settings say', () => {
    assert.deepEqual(keptTopology(base, undefined).topology, 'per_destination');
    assert.match(keptTopology(base, undefined).reason, /a new stack/);
    assert.equal(keptTopology({ ...base, deliveries_topology: 'shared' }, undefined).topology, 'shared');
  });

  it('keeps what the state shows when the settings say nothing', () => {
    const kept = keptTopology(base, shared);
    assert.deepEqual([kept.topology, kept.draining], ['shared', []]);
    assert.match(
      kept.reason,
      /kept: .*shared deliveries topic.*deliveries_topology: per_destination switches/,
    );
    assert.deepEqual(keptTopology(base, perDestination).topology, 'per_destination');
  });

  it('on a switch, keeps the old subscriptions the state holds until the settings say drained', () => {
    const switched = { ...base, deliveries_topology: 'per_destination' as const };
    const kept = keptTopology(switched, shared);
    assert.deepEqual([kept.topology, kept.draining], ['per_destination', ['a', 'b']]);
    assert.match(
      kept.reason,
      /deliveries-a, deliveries-b\) are kept.*num_undelivered_messages.*deliveries_drained: true/,
    );
    const drained = keptTopology({ ...switched, deliveries_drained: true }, shared);
    assert.deepEqual(drained.draining, []);
    assert.match(drained.reason, /deleted with their backlog/);
    // Back to shared: the per-destination subscription drains the same way.
    const back = keptTopology({ ...base, deliveries_topology: 'shared' }, perDestination);
    assert.deepEqual([back.topology, back.draining], ['shared', ['a']]);
    // A disabled destination is not declared, so nothing of it is kept.
    const disabled = { ...switched, destinations: [{ ...hook('a'), enabled: false }, hook('b')] };
    assert.deepEqual(keptTopology(disabled, shared).draining, ['b']);
  });

  it('states the kept topology in the settings the workloads read', () => {
    assert.equal(withTopology(base, 'shared').deliveries_topology, 'shared');
    assert.equal(base.deliveries_topology, undefined);
  });
});
