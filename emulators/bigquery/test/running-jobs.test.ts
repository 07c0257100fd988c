/**
 * Query jobs that are still running, through Google's BigQuery client: jobs.insert answers a query
 * job RUNNING at once, as BigQuery does, and the job runs on (its run-time failure is the job's,
 * its bad SQL still the answer's); with `jobLatencyMs` every query job lasts at least that long (as
 * BigQuery's take seconds where DuckDB takes milliseconds), so jobs.get follows the job, and
 * `timeoutMs` on jobs.query and getQueryResults answers `jobComplete: false` until the job is
 * done, then its rows; jobs.cancel ends a running job at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery, type Job } from '@google-cloud/bigquery';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';
import { type Harness, P, startHarness } from './support/helpers.ts';

/** A SELECT job's rows once it is done, checking that jobs.get then shows it DONE. */
async function doneSelect(job: Job): Promise<unknown[]> {
  const [rows] = await job.getQueryResults();
  const [md] = await job.getMetadata();
  assert.equal(md.status.state, 'DONE');
  assert.equal(md.statistics.query.statementType, 'SELECT');
  return rows;
}

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
    assert.deepStrictEqual(await doneSelect(job), [{ answer: 42 }]);
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

  it('ends a running job on jobs.cancel: DONE with the stopped error, its late result dropped', async () => {
    const [job] = await bq.createQueryJob({ query: 'SELECT 3 AS three' });
    const [answer] = await job.cancel();
    assert.equal(answer.job?.status?.state, 'DONE');
    assert.equal(answer.job?.status?.errorResult?.reason, 'stopped');
    await assert.rejects(job.getQueryResults(), /cancelled/);
    const [md] = await job.getMetadata();
    assert.equal(md.status.errorResult.reason, 'stopped');
    const health = (await (await fetch(`${emulator.url}/health`)).json()) as { cancelledJobs: number };
    assert.ok(health.cancelledJobs >= 1);
    // A job already done is answered as it is.
    const [again] = await job.cancel();
    assert.equal(again.job?.status?.errorResult?.reason, 'stopped');
  });

  it('lists a running job as RUNNING', async () => {
    const [job] = await bq.createQueryJob({ query: 'SELECT 2 AS two' });
    const [jobs] = await bq.getJobs();
    const listed = jobs.find((j) => j.id === job.id);
    assert.equal((listed?.metadata as { state?: string } | undefined)?.state, 'RUNNING');
    await job.getQueryResults();
  });
});

describe('BigQuery emulator: jobs.insert answers at once (no jobLatencyMs)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(P);
  });
  after(() => h.stop());

  it('answers a query job RUNNING, and jobs.get then shows it DONE with its statistics', async () => {
    const [job, inserted] = await h.bq.createQueryJob({ query: 'SELECT 5 AS five' });
    assert.equal(inserted.status?.state, 'RUNNING');
    assert.deepStrictEqual(await doneSelect(job), [{ five: 5 }]);
  });

  it('fails the job, not the answer, when the query fails as it runs; bad SQL and missing tables are the answer', async () => {
    const [job, inserted] = await h.bq.createQueryJob({ query: "SELECT CAST('x' AS INT64) AS n" });
    assert.equal(inserted.status?.state, 'RUNNING');
    await assert.rejects(job.promise(), /Bad int64 value: x/);
    const [md] = await job.getMetadata();
    assert.equal(md.status.state, 'DONE');
    assert.equal(md.status.errorResult?.reason, 'invalidQuery');
    await assert.rejects(h.bq.createQueryJob({ query: 'SELECT 1 +' }), { code: 400 });
    await assert.rejects(
      h.bq.createQueryJob({ query: 'SELECT * FROM nowhere.t' }),
      (err: { errors?: { reason?: string }[] }) => {
        assert.equal(err.errors?.[0]?.reason, 'notFound');
        return true;
      },
    );
  });
});
