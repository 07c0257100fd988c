/**
 * The emulator's count of the data API calls it answered (calls.ts): per table and method, the
 * calls, the rows read and the rows mutated, in `calls.json` in the data directory, kept across a
 * restart; a refused call is not counted.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { readCallCounts } from '../calls.ts';
import { startBigtableEmulator } from '../server.ts';
import { clientOf, rawDataClient, tempDir } from './support/harness.ts';

const TABLE = 'projects/p/instances/i/tables/t';
const set = (q: string, v: string) => ({
  setCell: {
    familyName: 'cf',
    columnQualifier: Buffer.from(q),
    timestampMicros: '-1',
    value: Buffer.from(v),
  },
});
const hasCell = { cellsPerRowLimitFilter: 1 };

describe('bigtable emulator: the count of calls it answered', function () {
  this.timeout(60_000);
  const dir = tempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts each method per table with the rows it read and mutated, across a restart', async () => {
    let emulator = await startBigtableEmulator({ port: 0, dataDir: dir, fsync: 'none', gcIntervalMs: 0 });
    const bt = clientOf(emulator.endpoint);
    let raw = rawDataClient(emulator.endpoint);
    try {
      await bt.instance('i').createTable('t', { families: ['cf'] });
      await raw.call('MutateRow', { tableName: TABLE, rowKey: Buffer.from('a'), mutations: [set('q', '1')] });
      await raw.stream('MutateRows', {
        tableName: TABLE,
        entries: [
          { rowKey: Buffer.from('b'), mutations: [set('q', '2')] },
          { rowKey: Buffer.from('c'), mutations: [set('q', '3')] },
        ],
      });
      // Matched with true mutations: a row read and one mutated.
      const matched = await raw.call('CheckAndMutateRow', {
        tableName: TABLE,
        rowKey: Buffer.from('a'),
        predicateFilter: hasCell,
        trueMutations: [set('q', '4')],
      });
      assert.equal(matched['predicateMatched'], true);
      // Not matched and no false mutations: a row read, none mutated.
      const unmatched = await raw.call('CheckAndMutateRow', {
        tableName: TABLE,
        rowKey: Buffer.from('z'),
        predicateFilter: hasCell,
        trueMutations: [set('q', '5')],
      });
      assert.equal(unmatched['predicateMatched'], false);
      const [rows] = await bt.instance('i').table('t').getRows();
      assert.equal(rows.length, 3);
      // Refused (an unknown family): not counted.
      await assert.rejects(
        raw.call('MutateRow', {
          tableName: TABLE,
          rowKey: Buffer.from('a'),
          mutations: [
            { setCell: { familyName: 'nope', columnQualifier: Buffer.from('q'), value: Buffer.from('x') } },
          ],
        }),
      );
    } finally {
      raw.close();
      await bt.close();
      await emulator.close();
    }
    assert.deepEqual(readCallCounts(dir), {
      [TABLE]: {
        MutateRow: { calls: 1, rowsRead: 0, rowsMutated: 1 },
        MutateRows: { calls: 1, rowsRead: 0, rowsMutated: 2 },
        CheckAndMutateRow: { calls: 2, rowsRead: 2, rowsMutated: 1 },
        ReadRows: { calls: 1, rowsRead: 3, rowsMutated: 0 },
      },
    });

    // A restart goes on from the counts on disk.
    emulator = await startBigtableEmulator({ port: 0, dataDir: dir, fsync: 'none', gcIntervalMs: 0 });
    raw = rawDataClient(emulator.endpoint);
    try {
      await raw.call('MutateRow', { tableName: TABLE, rowKey: Buffer.from('d'), mutations: [set('q', '6')] });
    } finally {
      raw.close();
      await emulator.close();
    }
    assert.deepEqual(readCallCounts(dir)[TABLE]?.['MutateRow'], { calls: 2, rowsRead: 0, rowsMutated: 2 });
  });
});
