/**
 * Syncs (`npm run bench syncs`; issue: a 1M-row model to the webhook and to files, rows/s, peak
 * memory bounded because pages are streamed, and the diff run's cost beside the full run's).
 *
 * The BigQuery and Cloud Storage emulators run as their own processes (so the memory figure is
 * the runner's, not DuckDB's); the schedule function's Sync job runs here with Google's clients,
 * chunk after chunk through the scheduler's runner, as the function does per run message. A
 * loopback webhook counts what it is sent.
 * - Full run: 1,000,000 rows, 10,000 per page, to the webhook and to JSONL files; rows/s beside a
 *   same-run baseline, paging the same snapshot out with tabledata.list and nothing else.
 * - Peak RSS of this process during the runs, beside its RSS before them.
 * - Diff run after 1% of the source rows changed: what it sends and its time, beside the full run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { Storage } from '@google-cloud/storage';
import { bigQueryInsertAll } from '../adapters/bigquery-writer.ts';
import { createHttpSender } from '../adapters/http-sender.ts';
import { LockStore } from '../adapters/locks.ts';
import type { Snapshot } from '../adapters/registry.ts';
import { plainValue } from '../adapters/user-sql.ts';
import { plan } from '../core/plan.ts';
import type { RunMessage } from '../core/scheduler/dispatch.ts';
import { OPS_TABLES } from '../core/warehouse/warehouse.ts';
import { type RunnerDeps, runChunk } from '../functions/schedule/runner.ts';
import { SYNC_KIND, syncJob } from '../functions/schedule/syncs.ts';
import { provision } from '../local/provision.ts';
import type { Settings } from '../schemas/settings.ts';
import type { SyncSpec } from '../schemas/sync.ts';
import { launchEmulator } from '../test/support/emulator-process.ts';
import type { BenchFigure, BenchOptions, BenchSuite } from './lib.ts';

const ROWS = 1_000_000;
const PAGE = 10_000;

async function webhookCounter(): Promise<{ url: string; rows: () => number; close(): Promise<void> }> {
  let rows = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => {
      rows += (JSON.parse(text) as { rows: unknown[] }).rows.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/crm`,
    rows: () => rows,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function run({ quick }: BenchOptions): Promise<BenchFigure[]> {
  // Quick mode: a fiftieth of the model, in smaller pages (that the runs work, not their speed).
  const rows = quick ? ROWS / 50 : ROWS;
  const page = quick ? PAGE / 5 : PAGE;
  const dirs = ['bq', 'gcs'].map((k) => mkdtempSync(join(tmpdir(), `bench-syncs-${k}-`)));
  const children: ChildProcess[] = [];
  const hook = await webhookCounter();
  try {
    const [bqEmu, gcsEmu] = await Promise.all([
      launchEmulator('bigquery', dirs[0] as string),
      launchEmulator('storage', dirs[1] as string, ['--fsync', 'none']),
    ]);
    children.push(bqEmu.child, gcsEmu.child);
    const settings: Settings = {
      name: 'bench',
      project: 'bench-project',
      region: 'europe-west1',
      dataset: 'events',
      connections: [
        { id: 'crm', type: 'webhook', url: hook.url },
        { id: 'exports', type: 'storage', bucket: 'bench-exports' },
      ],
    };
    const p = plan(settings);
    await provision(p, { project: settings.project, bigquery: bqEmu.url, functionUrl: () => '' });
    const bigquery = new BigQuery({ projectId: settings.project, apiEndpoint: bqEmu.url });
    const storage = new Storage({ projectId: settings.project, apiEndpoint: gcsEmu.url });
    const [locks] = await storage.createBucket('bench-locks');
    const [exports] = await storage.createBucket('bench-exports');
    await bigquery.query(`CREATE TABLE events.customers AS
SELECT CONCAT('c', CAST(i AS STRING)) AS customer_id, CONCAT('user', CAST(i AS STRING), '@example.com') AS email,
  ROUND(MOD(i * 7919, 100000) / 100, 2) AS ltv, MOD(i, 40) AS orders, TIMESTAMP_SECONDS(1700000000 + i) AS updated_at
FROM UNNEST(GENERATE_ARRAY(1, ${rows})) AS i`);

    const spec = (destination: SyncSpec['destination']): SyncSpec => ({
      model: 'events.customers',
      primary_key: ['customer_id'],
      mode: 'upsert',
      schedule: { manual: true },
      destination,
      batch_size: page,
    });
    const syncs = new Map<string, SyncSpec>([
      ['to-webhook', spec({ webhook: { connection: 'crm' } })],
      ['to-files', spec({ files: { connection: 'exports', format: 'jsonl' } })],
    ]);
    const snapshot: Snapshot = {
      kind: 'Sync',
      generation: 1,
      readAt: Date.now(),
      stale: false,
      resources: new Map(
        [...syncs].map(([name, s]) => [
          name,
          { kind: 'Sync', name, version: '1.0', author: 'bench', created: new Date().toISOString(), spec: s },
        ]),
      ),
    };
    const insert = bigQueryInsertAll(bigquery, p.ops.dataset);
    const sender = createHttpSender();
    const queue: RunMessage[] = [];
    const deps: RunnerDeps = {
      locks: new LockStore(locks),
      leaseMs: 360_000,
      publish: async (m) => {
        queue.push(...m);
      },
      jobs: [
        syncJob({
          settings,
          ops: p.ops.dataset,
          syncs: async () => snapshot,
          secret: async () => undefined,
          send: sender,
          assertSelect: async () => undefined,
          run: async (sql) => {
            const [rows] = await bigquery.query({ query: sql, defaultDataset: { datasetId: p.dataset } });
            return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
          },
          page: async (table, startIndex, maxResults) => {
            const [rows] = await bigquery
              .dataset(p.ops.dataset)
              .table(table)
              .getRows({ startIndex: String(startIndex), maxResults, autoPaginate: false });
            return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
          },
          writeFile: async (bucket, path, body, contentType) => {
            await storage
              .bucket(bucket)
              .file(path)
              .save(body, { resumable: false, contentType, preconditionOpts: { ifGenerationMatch: 0 } });
            return 'created';
          },
          publish: async () => undefined,
          writeRun: async (row, insertId) => {
            await insert(OPS_TABLES.syncRuns, [{ insertId, json: row }]);
          },
          writeFailedRows: async () => undefined,
        }),
      ],
    };

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const before = process.memoryUsage().rss;
    /** One run of a sync, chunk after chunk as the function takes its run messages; ms and rows. */
    let peakEarly = 0;
    const runSync = async (name: string): Promise<{ ms: number; planned: number; sent: number }> => {
      const started = performance.now();
      queue.push({ kind: SYNC_KIND, name, slot: new Date().toISOString(), trigger: 'manual' });
      let chunks = 0;
      while (queue.length > 0) {
        // The peak after the plan and ten pages, to compare with the peak of the whole run.
        if (++chunks === 12 && peakEarly === 0) peakEarly = peak;
        const outcome = await runChunk(deps, queue.shift() as RunMessage);
        if (outcome.outcome === 'failed' || outcome.outcome === 'lost')
          throw new Error(JSON.stringify(outcome));
      }
      const ms = performance.now() - started;
      const [[last]] = await bigquery.query({
        query: `SELECT rows_planned, rows_sent FROM ${p.ops.dataset}.sync_runs WHERE sync = @name ORDER BY finished_at DESC LIMIT 1`,
        params: { name },
      });
      return { ms, planned: Number(last?.rows_planned), sent: Number(last?.rows_sent) };
    };

    const hookFull = await runSync('to-webhook');
    const filesFull = await runSync('to-files');
    clearInterval(sampler);

    // The baseline: the same snapshot paged out with tabledata.list, nothing sent or committed.
    const pagedStarted = performance.now();
    for (let i = 0; i < rows; i += page)
      await bigquery
        .dataset(p.ops.dataset)
        .table('sync_snap__to_files')
        .getRows({ startIndex: String(i), maxResults: page, autoPaginate: false });
    const pagedMs = performance.now() - pagedStarted;

    // 1% of the source rows change; the diff run sends only those.
    await bigquery.query(
      `UPDATE events.customers SET ltv = ltv + 1, updated_at = CURRENT_TIMESTAMP() WHERE MOD(CAST(SUBSTR(customer_id, 2) AS INT64), 100) = 0`,
    );
    const hookBefore = hookFull.sent;
    const hookDiff = await runSync('to-webhook');
    const filesDiff = await runSync('to-files');
    const [parts] = await exports.getFiles({ prefix: 'syncs/to-files/' });
    const rate = (r: { ms: number; sent: number }) => r.sent / (r.ms / 1000);
    const mib = (n: number) => n / 1048576;
    return [
      {
        name: `full run to the webhook, ${rows.toLocaleString('en-US')} rows, ${page.toLocaleString('en-US')} a page`,
        value: rate(hookFull),
        unit: 'rows/s',
        baseline: {
          name: 'paging the snapshot out with tabledata.list alone',
          value: rows / (pagedMs / 1000),
        },
        detail: `${(hookFull.ms / 1000).toFixed(1)} s; the webhook counted ${hookBefore.toLocaleString('en-US')} rows; plan, then ${rows / page} pages each sent and committed with MERGE`,
      },
      {
        name: `full run to JSONL files, ${rows.toLocaleString('en-US')} rows`,
        value: rate(filesFull),
        unit: 'rows/s',
        baseline: {
          name: 'paging the snapshot out with tabledata.list alone',
          value: rows / (pagedMs / 1000),
        },
        detail: `${(filesFull.ms / 1000).toFixed(1)} s; ${parts.length} objects after both runs (parts and manifests)`,
      },
      {
        name: 'peak RSS of the runner during the two full runs',
        value: mib(peak),
        unit: 'MiB',
        baseline: { name: 'RSS before them', value: mib(before) },
        target: { op: '<=', value: 512 },
        detail: `peak after the plan and the first 10 pages (100,000 rows): ${mib(peakEarly).toFixed(0)} MiB; pages of ${page.toLocaleString('en-US')} rows are read, sent and let go one at a time`,
      },
      {
        name: 'diff run to the webhook after 1% of the rows changed',
        value: hookDiff.ms,
        unit: 'ms',
        baseline: { name: 'the full run', value: hookFull.ms },
        detail: `planned ${hookDiff.planned.toLocaleString('en-US')}, sent ${hookDiff.sent.toLocaleString('en-US')} (the webhook counted ${(hook.rows() - hookBefore).toLocaleString('en-US')}); the diff itself is computed in BigQuery`,
      },
      {
        name: 'diff run to files after 1% of the rows changed',
        value: filesDiff.ms,
        unit: 'ms',
        baseline: { name: 'the full run', value: filesFull.ms },
        detail: `planned ${filesDiff.planned.toLocaleString('en-US')}, sent ${filesDiff.sent.toLocaleString('en-US')}`,
      },
    ];
  } finally {
    await hook.close();
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: 'syncs (reverse ETL: a 1M-row model to a webhook and to files)',
  run,
};
