/**
 * The state's log across reopenings: a snapshot keeps every cell of a row even when the row is
 * too large for one record and its cells are split across several.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readLog } from '@eventbus/emulator-common/append-log.ts';
import { BigtableState } from '../state.ts';
import { tempDir } from './support/harness.ts';

const TABLE = 'projects/p/instances/i/tables/t';

describe('bigtable emulator: the state log', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("splits a large row's cells across snapshot records, and a reopening finds them all", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const big = (fill: number) => Buffer.alloc(20 * 1024 * 1024, fill).toString('base64');
    let state = await BigtableState.open(dir, 'none');
    await state.createTable(TABLE, { cf: null });
    const versions = [1000, 2000, 3000].map((ts, i) => ({
      s: ['cf', 'cQ==', String(ts), big(i + 1)] as const,
    }));
    await state.mutate(TABLE, [
      [Buffer.from('big'), versions],
      [Buffer.from('small'), [{ s: ['cf', 'cQ==', '1000', 'eA=='] }]],
    ]);
    await state.close();
    // The second opening replays the change records, then writes its snapshot; the third reads that.
    state = await BigtableState.open(dir, 'none');
    await state.close();
    const records = readLog(join(dir, 'bigtable.log')).records.map(
      (r) => JSON.parse(r.toString('utf8')) as { t: string },
    );
    assert.ok(records.filter((r) => r.t === 'rows').length >= 2, `${records.length} records`);
    state = await BigtableState.open(dir, 'none');
    try {
      const cells = state.table(TABLE).rows.get('big')?.get('cf')?.get('q') ?? [];
      assert.deepEqual(
        cells.map((c) => [c.ts, c.value.length, c.value[0]]),
        [
          [3000n, 20 * 1024 * 1024, 3],
          [2000n, 20 * 1024 * 1024, 2],
          [1000n, 20 * 1024 * 1024, 1],
        ],
      );
      assert.equal(state.table(TABLE).rows.get('small')?.get('cf')?.get('q')?.[0]?.value.toString(), 'x');
    } finally {
      await state.close();
    }
  });
});
