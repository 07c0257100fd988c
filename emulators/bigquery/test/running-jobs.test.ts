/**
 * Query jobs that are still running, through Google's BigQuery client: with `jobLatencyMs` every
 * query job lasts at least that long (as BigQuery's take seconds where DuckDB takes milliseconds),
 * so jobs.insert answers RUNNING, jobs.get follows the job, and `timeoutMs` on jobs.query and
 * getQueryResults answers `jobComplete: false` until the job is done, then its rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';
import { P } from './support/helpers.ts';

// Longer than every timeoutMs below (and the time the work itself takes).
const LATENCY_MS = 2500;

describe('BigQuery emulator: running jobs and timeoutMs (jobLatencyMs)', () => {
  let emulator: BigQueryEmulator;
  let bq: BigQuery;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'bq-running-'));
    emulator = await startBigQueryEmulator({ port: 0, dataDir, jobLatencyMs: LATENCY_MS });
    bq = new BigQuery({ projectId: P, apiEndpoint: emulator.url });
  });
  after(async () => {
    await emulator.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers jobs.insert RUNNING, getQueryResults past its timeoutMs incomplete, then DONE with the rows', async () => {
    const [job, inserted] = await bq.createQueryJob({ query: 'SELECT 42 AS answer' });
    assert.equal(inserted.status?.state, 'RUNNING');
    const [md] = await job.getMetadata();
    assert.equal(md.status.state, 'RUNNING');
    // The client turns jobComplete: false with a timeout it was given into this error.
    await assert.rejects(job.getQueryResults({ timeoutMs: 200 }), {
      message: 'The query did not complete before 200ms',
    });
    const [rows] = await job.getQueryResults();
    assert.deepStrictEqual(rows, [{ answer: 42 }]);
    const [done] = await job.getMetadata();
    assert.equal(done.status.state, 'DONE');
    assert.equal(done.statistics.query.statementType, 'SELECT');
  });

  it('answers jobs.query past its timeoutMs with jobComplete false, and the job completes', async () => {
    await assert.rejects(bq.query('SELECT 1 AS one', { timeoutMs: 300 }), {
      message: 'The query did not complete before 300ms',
    });
    const res = await fetch(`${emulator.url}/projects/${P}/queries`, {
      method: 'POST',
      body: JSON.stringify({ query: 'SELECT 7 AS seven', useLegacySql: false, timeoutMs: 300 }),
    });
    const first = (await res.json()) as { jobComplete: boolean; jobReference: { jobId: string } };
    assert.equal(first.jobComplete, false);
    const job = bq.job(first.jobReference.jobId);
    const [running] = await job.getMetadata();
    assert.equal(running.status.state, 'RUNNING');
    const [rows] = await job.getQueryResults();
    assert.deepStrictEqual(rows, [{ seven: 7 }]);
  });

  it('still refuses bad SQL at jobs.insert, at once', async () => {
    await assert.rejects(bq.createQueryJob({ query: 'SELEC 1' }), { code: 400 });
  });

  it('lists a running job as RUNNING', async () => {
    const [job] = await bq.createQueryJob({ query: 'SELECT 2 AS two' });
    const [jobs] = await bq.getJobs();
    const listed = jobs.find((j) => j.id === job.id);
    assert.equal((listed?.metadata as { state?: string } | undefined)?.state, 'RUNNING');
    await job.getQueryResults();
  });
});
