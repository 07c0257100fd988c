/**
 * The packed package runs without TypeScript: its prepack bundle, started by Node with type
 * stripping off, keeps a secret's version and answers `latest:access`.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withBundledEmulator } from '@eventbus/emulator-common/test-support/bundle.ts';
import { PROJECT, rest, seed, tempDir } from './support/harness.ts';

describe('secret manager emulator: the packed bundle', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is built by the prepack command and serves secrets with no TypeScript', async () => {
    const packageDir = fileURLToPath(new URL('..', import.meta.url));
    const args = ['--port', '0', '--data-dir', dataDir, '--fsync', 'none'];
    const code = await withBundledEmulator(packageDir, 'secret manager emulator', args, async (url) => {
      await seed(url, 'bundled', 'value');
      const read = await rest(url, 'GET', `projects/${PROJECT}/secrets/bundled/versions/latest:access`);
      assert.equal(Buffer.from(read.json.payload.data, 'base64').toString(), 'value');
    });
    assert.equal(code, 0);
  });
});
