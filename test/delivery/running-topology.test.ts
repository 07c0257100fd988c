/**
 * The CLI's view of an environment's deliveries topology (adapters/deliveries-publisher.ts,
 * runningTopology): the settings decide when they say; unset, a stack that has the shared topic
 * and not the destinations' own (one deployed before, which `pulumi up` keeps) is shared.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PubSub } from '@google-cloud/pubsub';
import { runningTopology } from '../../adapters/deliveries-publisher.ts';
import { type PubSubEmulator, startPubSubEmulator } from '../../emulators/pubsub/server.ts';
import { emulatorPubSub } from '../../local/provision.ts';
import type { Settings } from '../../schemas/settings.ts';

const hook = (id: string) => ({ id, type: 'webhook' as const, base_url: 'https://hook.example' });
const settings: Settings = {
  name: 'shop',
  project: 'topology-project',
  region: 'europe-west1',
  destinations: [hook('crm')],
};

describe('delivery: the topology the CLI publishes to', () => {
  let dir = '';
  let emulator: PubSubEmulator;
  let pubsub: PubSub;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-running-topology-'));
    emulator = await startPubSubEmulator({ port: 0, dataDir: dir, fsync: 'none' });
    pubsub = emulatorPubSub(settings.project, `127.0.0.1:${emulator.port}`);
  });
  after(async () => {
    await pubsub?.close();
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the environment only when the settings do not say', async () => {
    // Nothing created yet: a new environment's default.
    assert.equal(await runningTopology(pubsub, settings), 'per_destination');
    // A stack deployed with the shared topic (kept by pulumi up): the shared topic.
    await pubsub.createTopic('deliveries');
    assert.equal(await runningTopology(pubsub, settings), 'shared');
    // Stated, the settings decide whatever exists.
    assert.equal(
      await runningTopology(pubsub, { ...settings, deliveries_topology: 'per_destination' }),
      'per_destination',
    );
    // Switched: the destination's own topic exists, so that is where deliveries go.
    await pubsub.createTopic('deliveries-crm');
    assert.equal(await runningTopology(pubsub, settings), 'per_destination');
    assert.equal(await runningTopology(pubsub, { ...settings, deliveries_topology: 'shared' }), 'shared');
    // No destination: nothing to route.
    assert.equal(await runningTopology(pubsub, { ...settings, destinations: [] }), 'per_destination');
  });
});
