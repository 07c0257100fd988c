/**
 * Dry runs as BigQuery answers them, through Google's client: `statistics.query.referencedTables`
 * (every table the statement names, once), `statementType` and `totalBytesProcessed`.
 */
import assert from 'node:assert/strict';
import { type Harness, startHarness } from './support/helpers.ts';

describe('bigquery emulator: dry runs name the tables a statement references', () => {
  let h: Harness;
  const dry = async (query: string) => {
    const [job] = await h.bq.createQueryJob({ query, dryRun: true });
    return job.metadata.statistics as {
      totalBytesProcessed: string;
      query: { referencedTables: unknown[]; statementType: string; totalBytesProcessed: string };
    };
  };
  before(async () => {
    h = await startHarness();
    await h.bq.createDataset('shop');
    await h.bq.createDataset('other');
    await h.bq.query("CREATE TABLE shop.orders AS SELECT 'o1' AS id, 10 AS amount");
    await h.bq.query("CREATE TABLE other.users AS SELECT 'o1' AS id, 'Ann' AS name");
  });
  after(() => h.stop());

  it('a SELECT over two datasets: both tables, SELECT, the bytes it reads', async () => {
    const s = await dry(
      'SELECT o.id, u.name FROM shop.orders o JOIN other.users u USING (id) JOIN shop.orders x USING (id)',
    );
    assert.deepEqual(s.query.referencedTables, [
      { projectId: 'test-project', datasetId: 'shop', tableId: 'orders' },
      { projectId: 'test-project', datasetId: 'other', tableId: 'users' },
    ]);
    assert.equal(s.query.statementType, 'SELECT');
    assert.ok(Number(s.query.totalBytesProcessed) > 0);
    assert.equal(s.totalBytesProcessed, s.query.totalBytesProcessed);
  });

  it('a DML statement: its target and its sources, and its type', async () => {
    const s = await dry('DELETE FROM shop.orders WHERE id IN (SELECT id FROM other.users)');
    assert.equal(s.query.statementType, 'DELETE');
    assert.deepEqual(
      new Set(s.query.referencedTables.map((t) => (t as { datasetId: string; tableId: string }).tableId)),
      new Set(['orders', 'users']),
    );
  });

  it('a query of no table: none referenced', async () => {
    const s = await dry('SELECT 1 AS one');
    assert.deepEqual(s.query.referencedTables, []);
    assert.equal(s.query.totalBytesProcessed, '0');
  });
});
