/**
 * The packed package runs without TypeScript: its prepack bundle, started by Node with type
 * stripping off, creates a database and a document and refuses a second create.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withBundledEmulator } from '@eventbus/emulator-common/test-support/bundle.ts';
import { call, createDatabase, tempDir } from './support/harness.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('firestore emulator: the packed bundle', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is built by the prepack command, runs with no TypeScript, and serves documents', async () => {
    const args = ['--port', '0', '--data-dir', dataDir, '--fsync', 'none'];
    const code = await withBundledEmulator(PACKAGE_DIR, 'firestore emulator', args, async (url) => {
      assert.equal((await createDatabase(url, 'bundled-db')).status, 200);
      const path = '/v1/projects/p/databases/bundled-db/documents/c?documentId=x';
      assert.equal((await call(url, 'POST', path, { fields: {} })).status, 200);
      assert.equal((await call(url, 'POST', path, { fields: {} })).status, 409);
    });
    assert.equal(code, 0);
  });
});
