/**
 * The packed package runs without TypeScript: its prepack bundle, started by Node with type
 * stripping off, creates a table, writes a row and reads it back through Google's client.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withBundledEmulator } from '@eventbus/emulator-common/test-support/bundle.ts';
import { clientOf, endpointOf, tempDir } from './support/harness.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('bigtable emulator: the packed bundle', function () {
  this.timeout(60_000);
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is built by the prepack command, runs with no TypeScript, and serves rows', async () => {
    const args = ['--port', '0', '--data-dir', dataDir, '--fsync', 'none'];
    const code = await withBundledEmulator(PACKAGE_DIR, 'bigtable emulator', args, async (url) => {
      const bt = clientOf(endpointOf(url));
      try {
        const [table] = await bt.instance('i').createTable('bundled', { families: ['cf'] });
        await table.row('r').save({ cf: { q: 'bundled' } });
        const [row] = await table.row('r').get();
        const cells = (row.data as Record<string, Record<string, { value: string }[]>>)['cf']?.['q'];
        assert.equal(cells?.[0]?.value, 'bundled');
      } finally {
        await bt.close();
      }
    });
    assert.equal(code, 0);
  });
});
