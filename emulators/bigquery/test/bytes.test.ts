/**
 * Bytes as BigQuery bills them: a table's numBytes and a dry run's totalBytesProcessed, which the
 * SELECT-only check with a bytes-billed cap reads (an upper bound: every column of every table read).
 */
import assert from 'node:assert/strict';
import { type Harness, startHarness } from './support/helpers.ts';

describe('bigquery emulator: bytes processed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('p');
    await h.bq.createDataset('d');
    await h.bq.query('CREATE TABLE d.t (id INT64, name STRING, ok BOOL)');
    // Per row: 8 (INT64) + 2 + length (STRING) + 1 (BOOL); a NULL counts nothing.
    await h.bq.query(
      "INSERT INTO d.t (id, name, ok) VALUES (1, 'abc', true), (2, NULL, false), (3, 'héllo', NULL)",
    );
  });
  after(() => h.stop());

  const expected = 8 + 5 + 1 + (8 + 1) + (8 + 2 + 6);

  it('reports a table’s logical bytes as numBytes', async () => {
    const [meta] = await h.bq.dataset('d').table('t').getMetadata();
    assert.equal(meta.numBytes, String(expected));
    assert.equal(meta.numRows, '3');
  });

  it('answers a dry run with the bytes of the tables it reads, once each', async () => {
    const [job] = await h.bq.createQueryJob({
      query: 'SELECT a.id FROM d.t a JOIN d.t b USING (id)',
      dryRun: true,
    });
    assert.equal(job.metadata.statistics.totalBytesProcessed, String(expected));
    assert.equal(job.metadata.statistics.query.statementType, 'SELECT');
    const [none] = await h.bq.createQueryJob({ query: 'SELECT 1 AS x', dryRun: true });
    assert.equal(none.metadata.statistics.totalBytesProcessed, '0');
  });
});
