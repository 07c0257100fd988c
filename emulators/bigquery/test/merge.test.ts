/**
 * MERGE, as syncs keep their state tables (docs/registry.md): upsert from a subquery or a table, delete
 * by source, conditions on WHEN clauses, the affected-row count and statement type BigQuery
 * reports; INSERT ROW is refused with a way out.
 */
import assert from 'node:assert/strict';
import { type Harness, plain, startHarness } from './support/helpers.ts';

describe('bigquery emulator: MERGE', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await h.bq.createDataset('ops');
  });
  after(() => h.stop());

  async function rows(sql: string): Promise<unknown> {
    const [r] = await h.bq.query(sql);
    return plain(r);
  }

  it('upserts from a subquery and reports the rows it changed', async () => {
    await h.bq.query('CREATE TABLE ops.state (id INT64, v STRING, seen INT64)');
    await h.bq.query("INSERT INTO ops.state (id, v, seen) VALUES (1, 'a', 1), (2, 'b', 1)");
    const [job] = await h.bq.createQueryJob({
      query: `MERGE ops.state T
USING (SELECT 2 AS id, 'B' AS v UNION ALL SELECT 3, 'c') S
ON T.id = S.id
WHEN MATCHED AND T.v != S.v THEN UPDATE SET v = S.v, seen = T.seen + 1
WHEN NOT MATCHED THEN INSERT (id, v, seen) VALUES (S.id, S.v, 1)`,
    });
    await job.getQueryResults();
    const [meta] = await job.getMetadata();
    assert.equal(meta.statistics.query.statementType, 'MERGE');
    assert.equal(meta.statistics.query.numDmlAffectedRows, '2');
    assert.deepEqual(await rows('SELECT id, v, seen FROM ops.state ORDER BY id'), [
      { id: 1, v: 'a', seen: 1 },
      { id: 2, v: 'B', seen: 2 },
      { id: 3, v: 'c', seen: 1 },
    ]);
  });

  it('merges from a table, deleting what the source no longer has (mirror mode)', async () => {
    await h.bq.query('CREATE TABLE ops.mirror (id INT64, v STRING)');
    await h.bq.query("INSERT INTO ops.mirror (id, v) VALUES (1, 'old'), (9, 'gone')");
    await h.bq.query("CREATE TABLE ops.src AS SELECT 1 AS id, 'new' AS v UNION ALL SELECT 2, 'added'");
    await h.bq.query(`MERGE INTO ops.mirror AS T USING ops.src AS S ON T.id = S.id
WHEN MATCHED THEN UPDATE SET v = S.v
WHEN NOT MATCHED BY TARGET THEN INSERT (id, v) VALUES (S.id, S.v)
WHEN NOT MATCHED BY SOURCE THEN DELETE`);
    assert.deepEqual(await rows('SELECT id, v FROM ops.mirror ORDER BY id'), [
      { id: 1, v: 'new' },
      { id: 2, v: 'added' },
    ]);
  });

  it('refuses INSERT ROW, naming the form that works', async () => {
    await assert.rejects(
      h.bq.query('MERGE ops.mirror T USING ops.src S ON T.id = S.id WHEN NOT MATCHED THEN INSERT ROW'),
      /INSERT ROW \(name the columns/,
    );
  });
});
