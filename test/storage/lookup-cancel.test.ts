/**
 * A lookup that gives up cancels its work (#97; adapters/batched-lookup.ts): `store`'s stored
 * check against the BigQuery emulator whose query jobs last longer than the check's budget
 * (`jobLatencyMs`, as BigQuery's take seconds under load) rejects at its deadline and its job is
 * cancelled (DONE with the `stopped` error in the job list, not left running); and however many
 * batches ask at once, no more queries run than the bound.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { createBatchedLookup } from '../../adapters/batched-lookup.ts';
import { createStoredCheck, eventsStoredQuery } from '../../adapters/stored-check.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { until } from '../support/until.ts';

const PROJECT = 'lookup-project';

describe('storage: a stored check that gives up cancels its query job', () => {
  let emulator: BigQueryEmulator;
  let bq: BigQuery;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'lookup-cancel-'));
    // Every job lasts 3 s; the check's budget is 300 ms.
    emulator = await startBigQueryEmulator({ port: 0, dataDir, jobLatencyMs: 3000 });
    bq = new BigQuery({ projectId: PROJECT, apiEndpoint: emulator.url });
    await bq.createDataset('events');
    await bq.dataset('events').createTable('events', {
      schema: [
        { name: 'event_id', type: 'STRING' },
        { name: 'event_time', type: 'TIMESTAMP' },
        { name: 'payload_digest', type: 'STRING' },
      ],
    });
  });
  after(async () => {
    await emulator.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rejects at its deadline (fail-closed) and leaves no job running', async () => {
    const lines: string[] = [];
    const check = createStoredCheck(eventsStoredQuery(bq, 'events'), {
      timeoutMs: 300,
      log: (m) => lines.push(m),
    });
    await assert.rejects(
      check({ event_id: 'e1', event_time: '2026-11-27T00:00:00Z', payload_digest: 'd'.repeat(64) }),
      /stored check for 1 questions took over 300 ms: trying again later \(fail-closed\)/,
    );
    // Well before the job's own 3 s: cancelled, not finished.
    const jobs = await until(
      'the check’s job cancelled',
      async () => {
        const [list] = await bq.getJobs();
        const mine = list.filter((j) => j.metadata?.configuration?.labels?.eventbus === 'stored-check');
        return mine.length > 0 && mine.every((j) => j.metadata?.status?.state === 'DONE') ? mine : undefined;
      },
      2000,
    );
    for (const j of jobs) assert.equal(j.metadata?.status?.errorResult?.reason, 'stopped');
    const health = (await (await fetch(`${emulator.url}/health`)).json()) as { cancelledJobs: number };
    assert.equal(health.cancelledJobs, jobs.length);
  });
});

describe('storage: a batched lookup bounds its queries in flight', () => {
  it('runs at most maxInFlight queries at once, and every one it gave up on is aborted', async () => {
    let running = 0;
    let most = 0;
    let started = 0;
    let aborted = 0;
    // A query that answers only when aborted (a warehouse that never answers in time).
    const query = (_: readonly string[], signal: AbortSignal): Promise<ReadonlySet<string>> => {
      started++;
      running++;
      most = Math.max(most, running);
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted++;
          running--;
          reject(new Error('cancelled'));
        });
      });
    };
    const lookup = createBatchedLookup(query, (q: string) => q, {
      what: 'check',
      windowMs: 1,
      timeoutMs: 150,
      maxInFlight: 2,
    });
    const answers: Promise<boolean>[] = [];
    for (let i = 0; i < 6; i++) {
      answers.push(lookup(`q${i}`));
      // Each question its own batch.
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(
      await Promise.all(answers),
      [false, false, false, false, false, false],
      'fail-open: "no"',
    );
    assert.ok(most <= 2, `at most 2 queries at once (${most})`);
    assert.ok(started >= 2, `${started} started`);
    assert.equal(aborted, started, 'every started query was aborted when its lookup gave up');
  });
});
