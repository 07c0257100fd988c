/**
 * The packed package runs without TypeScript: its prepack bundle, started by Node with type
 * stripping off, answers Google's Cloud Storage client (create a bucket, read it back).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withBundledEmulator } from '@eventbus/emulator-common/test-support/bundle.ts';
import { Storage } from '@google-cloud/storage';
import { tempDir } from './support/harness.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('storage emulator: the packed bundle', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is built by the prepack command, runs with no TypeScript, and serves the Google client', async () => {
    const args = ['--port', '0', '--data-dir', dataDir, '--fsync', 'none'];
    const code = await withBundledEmulator(PACKAGE_DIR, 'storage emulator', args, async (url) => {
      const storage = new Storage({ projectId: 'test-project', apiEndpoint: url });
      await storage.createBucket('bundled');
      const [metadata] = await storage.bucket('bundled').getMetadata();
      assert.equal(metadata.name, 'bundled');
    });
    assert.equal(code, 0);
  });
});
