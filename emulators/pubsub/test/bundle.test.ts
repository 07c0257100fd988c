/**
 * The packed package runs without TypeScript: its prepack bundle, started by Node with type
 * stripping off, answers Google's Pub/Sub client (create a topic, read it back).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withBundledEmulator } from '@eventbus/emulator-common/test-support/bundle.ts';
import { PubSub } from '@google-cloud/pubsub';
import { PROJECT, tempDir } from './support/harness.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('pubsub emulator: the packed bundle', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is built by the prepack command, runs with no TypeScript, and serves the Google client', async () => {
    const args = ['--port', '0', '--data-dir', dataDir, '--fsync', 'none'];
    const code = await withBundledEmulator(PACKAGE_DIR, 'pubsub emulator', args, async (url) => {
      const client = new PubSub({ projectId: PROJECT, apiEndpoint: new URL(url).host });
      try {
        await client.createTopic('bundled');
        const [metadata] = await client.topic('bundled').getMetadata();
        assert.equal(metadata.name, `projects/${PROJECT}/topics/bundled`);
      } finally {
        await client.close();
      }
    });
    assert.equal(code, 0);
  });
});
