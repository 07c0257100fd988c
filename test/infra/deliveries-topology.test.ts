/**
 * The deliveries topology under Pulumi's mocks (issue #97; core/deploy/topology-kept.ts): a new
 * stack gets a topic per destination; a stack whose state is an earlier release's (the shared
 * `deliveries` topic, filtered subscriptions) keeps it and replaces nothing that holds messages;
 * `deliveries_topology: per_destination` on such a stack declares both until
 * `deliveries_drained: true`. The earlier state is the recorded fixture of release v0.2.0
 * (test/fixtures/stack-states/, recorded by scripts/stack-state.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { NAMING_KEYS, type StackResource } from '../../infra/offline.ts';
import { program } from '../../infra/program.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, ofType, type Recorded, SECRET_TYPES } from './support.ts';

const TOPIC = 'gcp:pubsub/topic:Topic';
const SUBSCRIPTION = 'gcp:pubsub/subscription:Subscription';
const TOPIC_MEMBER = 'gcp:pubsub/topicIAMMember:TopicIAMMember';
const STATE = join(import.meta.dirname, '..', 'fixtures', 'stack-states', '9bd8104b.json');

const fixture = JSON.parse(readFileSync(STATE, 'utf8')) as {
  readonly settingsText: string;
  readonly resources: readonly StackResource[];
};
const loaded = parseSettings(fixture.settingsText);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const settings = loaded.settings;
const ids = (settings.destinations ?? []).filter((d) => d.enabled !== false).map((d) => d.id);
/** Every earlier release exported `gatewayUrl`: the program then reads the state. */
const DEPLOYED = { gatewayUrl: 'https://gateway-123456789012.europe-west1.run.app', dataset: 'events' };

async function up(s: Settings, state?: readonly StackResource[]): Promise<Recorded> {
  const config: StackConfig = {
    project: s.project,
    region: s.region,
    settingsFile: 'environments/example.yaml',
    settings: s,
    plan: plan(s),
  };
  return declare(
    async () => {
      await program(config, BUNDLES);
    },
    state ? { stackOutputs: DEPLOYED, stackResources: state } : {},
  );
}

/** Topic name → its subscriptions' names, from what was declared. */
function wiring(recorded: Recorded): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of ofType(recorded, TOPIC)) out.set(t.inputs['name'], []);
  for (const s of ofType(recorded, SUBSCRIPTION)) {
    const topic = String(s.inputs['topic']).replace(/^projects\/[^/]+\/topics\//, '');
    out.get(topic)?.push(s.inputs['name']);
  }
  return out;
}

const deployedSettings = (recorded: Recorded): Settings => {
  const version = ofType(recorded, SECRET_TYPES.version).find((v) => v.name.endsWith('-settings-version'));
  const data = version?.inputs['secretData'];
  return JSON.parse(typeof data === 'string' ? data : data?.value) as Settings;
};

const storePublishes = (recorded: Recorded) =>
  ofType(recorded, TOPIC_MEMBER)
    .filter((m) => String(m.inputs['member']).includes('eventbus-store@'))
    .map((m) => m.inputs['topic'])
    .filter((t) => String(t).startsWith('deliveries'))
    .sort();

const naming = (values: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(NAMING_KEYS.flatMap((k) => (typeof values[k] === 'string' ? [[k, values[k]]] : [])));

describe('infra: the deliveries topology, new and kept', function () {
  this.timeout(60_000);

  it('gives a new stack a topic per destination, each with exactly one push subscription', async () => {
    const recorded = await up(settings);
    const topics = wiring(recorded);
    assert.equal(topics.has('deliveries'), false, 'no shared topic');
    for (const id of ids) assert.deepEqual(topics.get(`deliveries-${id}`), [`deliveries-${id}-push`], id);
    assert.deepEqual(storePublishes(recorded), ids.map((id) => `deliveries-${id}`).sort());
    assert.equal(deployedSettings(recorded).deliveries_topology, 'per_destination');
  });

  it('keeps the shared topic of a deployed stack and replaces nothing that holds messages', async () => {
    const recorded = await up(settings, fixture.resources);
    const topics = wiring(recorded);
    assert.deepEqual(
      [...(topics.get('deliveries') ?? [])].sort(),
      ids.map((id) => `deliveries-${id}`).sort(),
    );
    for (const id of ids) assert.equal(topics.has(`deliveries-${id}`), false, id);
    for (const old of fixture.resources.filter((r) => r.type === TOPIC || r.type === SUBSCRIPTION)) {
      const name = old.urn.slice(old.urn.lastIndexOf('::') + 2);
      const now = recorded.resources.find((r) => r.type === old.type && r.name === name);
      assert.ok(now, `${name} is still declared`);
      assert.deepEqual(naming(now.inputs), naming(old.outputs ?? {}), `${name} is not replaced`);
    }
    const meta = ofType(recorded, SUBSCRIPTION).find((s) => s.inputs['name'] === 'deliveries-meta');
    assert.equal(meta?.inputs['filter'], 'attributes.destination = "meta"');
    // What store and the scheduler read: the shared topic, where the subscriptions are.
    assert.equal(deployedSettings(recorded).deliveries_topology, 'shared');
    assert.deepEqual(storePublishes(recorded), ['deliveries']);
  });

  it('on a switch, declares both: the new topics and the old subscriptions until they drain', async () => {
    const switched = { ...settings, deliveries_topology: 'per_destination' as const };
    const recorded = await up(switched, fixture.resources);
    const topics = wiring(recorded);
    // The old subscriptions stay on the shared topic, unchanged, pushing their backlog to forward.
    assert.deepEqual(
      [...(topics.get('deliveries') ?? [])].sort(),
      ids.map((id) => `deliveries-${id}`).sort(),
    );
    for (const id of ids) assert.deepEqual(topics.get(`deliveries-${id}`), [`deliveries-${id}-push`], id);
    for (const old of fixture.resources.filter((r) => r.type === TOPIC || r.type === SUBSCRIPTION)) {
      const name = old.urn.slice(old.urn.lastIndexOf('::') + 2);
      const now = recorded.resources.find((r) => r.type === old.type && r.name === name);
      assert.ok(now, `${name} is still declared`);
      assert.deepEqual(naming(now.inputs), naming(old.outputs ?? {}), `${name} is not replaced`);
    }
    // Old and new subscriptions of a destination dead-letter to the one topic it always had.
    const subs = ofType(recorded, SUBSCRIPTION);
    const deadLetterOf = (name: string) =>
      subs.find((s) => s.inputs['name'] === name)?.inputs['deadLetterPolicy']?.deadLetterTopic;
    for (const id of ids)
      assert.equal(deadLetterOf(`deliveries-${id}`), deadLetterOf(`deliveries-${id}-push`), id);
    // Publishers move to the new topics; nothing publishes on the draining one.
    assert.equal(deployedSettings(recorded).deliveries_topology, 'per_destination');
    assert.deepEqual(storePublishes(recorded), ids.map((id) => `deliveries-${id}`).sort());
  });

  it('deletes the old subscriptions and the shared topic once the settings say they drained', async () => {
    const drained = {
      ...settings,
      deliveries_topology: 'per_destination' as const,
      deliveries_drained: true,
    };
    const recorded = await up(drained, fixture.resources);
    const topics = wiring(recorded);
    assert.equal(topics.has('deliveries'), false);
    for (const id of ids) assert.deepEqual(topics.get(`deliveries-${id}`), [`deliveries-${id}-push`], id);
    // The dead-letter topics and their backlogs, which hold what was dead-lettered, stay.
    for (const id of ids)
      assert.ok(topics.get(`deliveries-${id}-dead-letter`)?.includes(`deliveries-${id}-dead-letter-backlog`));
  });
});
