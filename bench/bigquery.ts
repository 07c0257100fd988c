/**
 * BigQuery emulator benchmark:
 * - insertAll rows/s in batches of 500 realistic event rows through the real client,
 *   beside the faster of two raw DuckDB ingestions of the same rows (same batches, one
 *   commit per batch) in the same run: appender data chunks, and one from_json INSERT of
 *   the batch's JSON text (the emulator's own method since round 3);
 * - a dashboard query's latency over 1M rows (generated inside DuckDB with BigQuery SQL),
 *   beside the same translated SQL run on DuckDB directly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DuckDBDataChunk, DuckDBInstance } from '@duckdb/node-api';
import { BigQuery } from '@google-cloud/bigquery';
import { writeApiInsertAll } from '../adapters/bigquery-write-api.ts';
import { convertRow } from '../emulators/bigquery/insert-rows.ts';
import { rangeMacros } from '../emulators/bigquery/range.ts';
import { prepareRowText, rowTextInsertSql } from '../emulators/bigquery/row-text.ts';
import { columnDefinitions, type FieldSchema, normaliseSchema } from '../emulators/bigquery/schema.ts';
import { translate } from '../emulators/bigquery/sql.ts';
import { type BenchFigure, type BenchSuite, percentile } from './lib.ts';
import { processCpuMs } from './proc-cpu.ts';

const PROJECT = 'bench-project';
const MAIN = new URL('../emulators/bigquery/main.ts', import.meta.url).pathname;

async function startChild(
  dataDir: string,
): Promise<{ url: string; pid: number | undefined; close(): Promise<void> }> {
  const proc = spawn(process.execPath, [MAIN, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  const url = line.replace(/^.* on /, '');
  return {
    url,
    pid: proc.pid,
    close: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
const BATCH = 500;
const BATCHES = 60;
const CONCURRENCY = 4;
const DASHBOARD_ROWS = 1_000_000;
const DASHBOARD_RUNS = 5;

const EVENT_FIELDS = [
  { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'event_name', type: 'STRING', mode: 'REQUIRED' },
  { name: 'event_time', type: 'TIMESTAMP', mode: 'REQUIRED' },
  { name: 'received_at', type: 'TIMESTAMP', mode: 'REQUIRED' },
  { name: 'message_id', type: 'STRING' },
  { name: 'topic', type: 'STRING' },
  { name: 'schema_version', type: 'INT64' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'user_id', type: 'STRING' },
      { name: 'anonymous_id', type: 'STRING' },
      { name: 'email_sha256', type: 'STRING' },
    ],
  },
  {
    name: 'page',
    type: 'RECORD',
    fields: [
      { name: 'url', type: 'STRING' },
      { name: 'referrer', type: 'STRING' },
      { name: 'title', type: 'STRING' },
    ],
  },
  {
    name: 'device',
    type: 'RECORD',
    fields: [
      { name: 'user_agent', type: 'STRING' },
      { name: 'ip', type: 'STRING' },
      { name: 'locale', type: 'STRING' },
    ],
  },
  { name: 'event_data', type: 'JSON' },
];

const NAMES = ['page_view', 'view_content', 'add_to_cart', 'purchase'];

function eventRow(i: number): Record<string, unknown> {
  const t = Date.UTC(2024, 0, 1) + i * 1000;
  return {
    event_id: `01J${i.toString(36).padStart(10, '0')}`,
    event_name: NAMES[i % 4],
    event_time: new Date(t).toISOString(),
    received_at: new Date(t + 250).toISOString(),
    message_id: String(9_000_000_000 + i),
    topic: 'projects/bench/topics/events',
    schema_version: 1,
    user: { user_id: `u${i % 5000}`, anonymous_id: `a-${(i * 7919) % 100000}`, email_sha256: 'f'.repeat(64) },
    page: {
      url: `https://shop.example.com/products/${i % 1000}?utm_source=news`,
      referrer: 'https://www.google.com/',
      title: `Product ${i % 1000} – Example Shop`,
    },
    device: {
      user_agent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15',
      ip: '203.0.113.7',
      locale: 'fr-FR',
    },
    event_data: {
      content_name: `Product ${i % 1000}`,
      content_ids: [`sku-${i % 1000}`],
      value: (i % 100) + 0.99,
      currency: 'EUR',
    },
  };
}

/**
 * A path's rows/s with the CPU each side spent on it, in µs per row: the emulator's (its process,
 * all threads, DuckDB's included) and this process's (the client's). Load from other processes
 * slows the rate far more than it changes these.
 */
interface PathFigure {
  readonly rate: number;
  readonly emulatorUs: number | undefined;
  readonly clientUs: number;
}

async function withCpu(
  pid: number | undefined,
  rows: number,
  run: () => Promise<number>,
): Promise<PathFigure> {
  const emulatorBefore = processCpuMs(pid);
  const clientBefore = process.cpuUsage();
  const rate = await run();
  const client = process.cpuUsage(clientBefore);
  const emulatorAfter = processCpuMs(pid);
  return {
    rate,
    emulatorUs:
      emulatorBefore === undefined || emulatorAfter === undefined
        ? undefined
        : ((emulatorAfter - emulatorBefore) * 1000) / rows,
    clientUs: (client.user + client.system) / rows,
  };
}

const cpuText = (f: PathFigure): string =>
  `CPU per row: emulator ${f.emulatorUs === undefined ? 'n/a' : `${f.emulatorUs.toFixed(1)} us`}, client ${f.clientUs.toFixed(1)} us`;

/**
 * A pause longer than the emulator's idle checkpoint (store.ts, 1 s without inserts): the WAL the
 * earlier paths left is folded before the next path is timed, so no path pays for a checkpoint of
 * another's rows (DuckDB checkpoints inside the commit that takes its WAL past 16 MB).
 */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1_500));

/** Rows per second of sending every batch through `send`, CONCURRENCY at a time. */
async function batchRate(
  rows: Record<string, unknown>[][],
  send: (batch: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < rows.length) await send(rows[next++] as Record<string, unknown>[]);
    }),
  );
  return (BATCH * rows.length) / ((performance.now() - started) / 1000);
}

async function insertAllRate(bq: BigQuery, rows: Record<string, unknown>[][]): Promise<number> {
  const table = bq.dataset('bench').table('events');
  return batchRate(rows, async (batch) => {
    await table.insert(
      batch.map((json) => ({ insertId: json['event_id'] as string, json })),
      { raw: true },
    );
  });
}

/**
 * The same batches through the same client as the store function sends them
 * (adapters/bigquery-writer.ts): the table's authenticated `request` with the rows
 * serialised once, instead of `table.insert`, which deep-copies every row three times.
 */
async function leanClientRate(bq: BigQuery, rows: Record<string, unknown>[][]): Promise<number> {
  const table = bq.dataset('bench').table('events_lean');
  return batchRate(rows, async (batch) => {
    const body = `{"rows":[${batch.map((json) => JSON.stringify({ insertId: json['event_id'], json })).join(',')}]}`;
    const [out] = (await table.request({
      method: 'POST',
      uri: '/insertAll',
      body,
      headers: { 'Content-Type': 'application/json' },
    })) as unknown as [{ insertErrors?: unknown }];
    if (out.insertErrors) throw new Error(`insertAll failed: ${JSON.stringify(out).slice(0, 300)}`);
  });
}

/**
 * The same batches through the store path's own writer on the Storage Write API
 * (adapters/bigquery-write-api.ts: the default stream over gRPC, rows as protocol buffers), the
 * same number in flight, on one connection as one store instance holds it.
 *
 * Timed warm, as the insertAll path it is compared with is: that one runs after `table.insert`
 * sent the same rows through the same emulator handler and the same client request code, so its
 * code is compiled and its heap grown before its timing starts. Here a first pass of the same
 * rows into another table does the same for the Write API's code on both sides; it is measured
 * too, and printed beside the figure (the cold cost, a few µs a row on each side).
 */
async function writeApiRate(
  url: string,
  rows: Record<string, unknown>[][],
  pid: number | undefined,
): Promise<{ warm: PathFigure; cold: PathFigure }> {
  const insert = writeApiInsertAll({ project: PROJECT, dataset: 'bench', emulatorHost: url });
  const send = (table: string) => async (batch: Record<string, unknown>[]) => {
    const refused = await insert(
      table,
      batch.map((json) => ({ insertId: json['event_id'] as string, json })),
    );
    if (refused.length > 0) throw new Error(`Write API refused rows: ${JSON.stringify(refused[0])}`);
  };
  try {
    // The first pass is timed too, and printed beside: what a process just started pays.
    await insert('events_write_warm', [{ insertId: 'warm', json: eventRow(2e9) }]);
    const cold = await withCpu(pid, BATCH * rows.length, () => batchRate(rows, send('events_write_warm')));
    // The connection and its descriptor are opened once, outside the timing (as a warm instance's).
    await insert('events_write', [{ insertId: 'warm', json: eventRow(2e9) }]);
    // The first pass's rows are checkpointed before the timing, as the other paths' are.
    await settle();
    const warm = await withCpu(pid, BATCH * rows.length, () => batchRate(rows, send('events_write')));
    return { warm, cold };
  } finally {
    insert.close();
  }
}

/** The same batches as plain HTTP insertAll requests: the emulator's own throughput without the client's overhead. */
async function httpInsertRate(url: string, rows: Record<string, unknown>[][]): Promise<number> {
  return batchRate(rows, async (batch) => {
    const body = JSON.stringify({
      rows: batch.map((json) => ({ insertId: `http-${json['event_id']}`, json })),
    });
    const res = await fetch(
      `${url}/bigquery/v2/projects/${PROJECT}/datasets/bench/tables/events_http/insertAll`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      },
    );
    const out = (await res.json()) as { insertErrors?: unknown };
    if (res.status !== 200 || out.insertErrors)
      throw new Error(`insertAll failed: ${JSON.stringify(out).slice(0, 300)}`);
  });
}

async function rawAppendRate(
  dir: string,
  fields: FieldSchema[],
  rows: Record<string, unknown>[][],
): Promise<number> {
  const inst = await DuckDBInstance.create(join(dir, 'raw.duckdb'));
  const conn = await inst.connect();
  try {
    await conn.run(`CREATE TABLE events (${columnDefinitions(fields)})`);
    // The baseline appends already-typed values: DuckDB's own cost for the same rows and batches.
    const typed = rows.map((batch) =>
      batch.map((r) => {
        const c = convertRow(fields, r, false);
        if (!('values' in c)) throw new Error('bench row invalid');
        return c.values;
      }),
    );
    const started = performance.now();
    for (const batch of typed) {
      // One data chunk and one flush (commit) per 500-row batch, as a writer acknowledging each batch would.
      const appender = await conn.createAppender('events');
      const types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
      const chunk = DuckDBDataChunk.create(types, batch.length);
      chunk.setRows(batch);
      appender.appendDataChunk(chunk);
      appender.flushSync();
      appender.closeSync();
    }
    return (BATCH * rows.length) / ((performance.now() - started) / 1000);
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/**
 * DuckDB's own JSON reader: each batch as one JSON array of rows whose values are already
 * in their stored form (JSON column as text), one INSERT ... from_json statement per batch.
 */
async function rawFromJsonRate(
  dir: string,
  fields: FieldSchema[],
  rows: Record<string, unknown>[][],
): Promise<number> {
  const inst = await DuckDBInstance.create(join(dir, 'raw-json.duckdb'));
  const conn = await inst.connect();
  try {
    await conn.run(`CREATE TABLE events (${columnDefinitions(fields)})`);
    const texts = rows.map((batch) =>
      JSON.stringify(
        batch.map((r) => {
          const copy = structuredClone(r);
          if (!prepareRowText(fields, copy)) throw new Error('bench row has no text form');
          return copy;
        }),
      ),
    );
    const prepared = await conn.prepare(rowTextInsertSql('events', fields));
    const started = performance.now();
    for (const text of texts) {
      prepared.bindVarchar(1, text);
      await prepared.run();
    }
    return (BATCH * rows.length) / ((performance.now() - started) / 1000);
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

const generate = (
  rows: number,
) => `INSERT INTO \`${PROJECT}.bench.big\` (event_id, event_name, event_time, user, event_data)
SELECT CONCAT('ev-', CAST(i AS STRING)),
  CASE MOD(i, 4) WHEN 0 THEN 'page_view' WHEN 1 THEN 'view_content' WHEN 2 THEN 'add_to_cart' ELSE 'purchase' END,
  TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL MOD(i * 7, 30 * 24 * 3600) SECOND),
  STRUCT(CONCAT('u', CAST(MOD(i, 20000) AS STRING)) AS user_id, CAST(NULL AS STRING) AS anonymous_id, CAST(NULL AS STRING) AS email_sha256),
  TO_JSON(STRUCT(CONCAT('Product ', CAST(MOD(i, 1000) AS STRING)) AS content_name, MOD(i, 100) + 0.99 AS value, IF(MOD(i, 3) = 0, 'USD', 'EUR') AS currency))
FROM UNNEST(GENERATE_ARRAY(1, ${rows})) AS i`;

const DASHBOARD = `SELECT TIMESTAMP_TRUNC(event_time, DAY) AS day, event_name,
  COUNT(*) AS events, COUNT(DISTINCT user.user_id) AS users,
  COUNTIF(JSON_VALUE(event_data, '$.currency') = 'EUR') AS eur_events,
  SUM(SAFE_CAST(JSON_VALUE(event_data, '$.value') AS FLOAT64)) AS revenue
FROM \`${PROJECT}.bench.big\`
WHERE event_time >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY)
GROUP BY day, event_name
ORDER BY day, event_name`;

export const suite: BenchSuite = {
  name: 'bigquery emulator (insertAll, Storage Write API, dashboard query)',
  async run({ quick }): Promise<BenchFigure[]> {
    // Quick mode: a few batches, a small table, two query runs (that it works, not its speed).
    const batches = quick ? 4 : BATCHES;
    const dashboardRows = quick ? 20_000 : DASHBOARD_ROWS;
    const runs = quick ? 2 : DASHBOARD_RUNS;
    const fill = generate(dashboardRows);
    const dir = mkdtempSync(join(tmpdir(), 'bq-bench-'));
    // The emulator runs in its own process, as it does for `npm start`, so the client's
    // serialisation and the server's work do not share one event loop.
    const emulator = await startChild(join(dir, 'emulator'));
    try {
      const fields = normaliseSchema(EVENT_FIELDS);
      if (typeof fields === 'string') throw new Error(fields);
      const bq = new BigQuery({ projectId: PROJECT, apiEndpoint: emulator.url });
      const [ds] = await bq.createDataset('bench');
      await ds.createTable('events', { schema: { fields: EVENT_FIELDS } });
      await ds.createTable('events_http', { schema: { fields: EVENT_FIELDS } });
      await ds.createTable('events_lean', { schema: { fields: EVENT_FIELDS } });
      await ds.createTable('events_write', { schema: { fields: EVENT_FIELDS } });
      await ds.createTable('events_write_warm', { schema: { fields: EVENT_FIELDS } });
      await ds.createTable('big', {
        schema: { fields: EVENT_FIELDS.filter((f) => f.mode !== 'REQUIRED' || f.name !== 'received_at') },
      });
      const rows = Array.from({ length: batches }, (_, b) =>
        Array.from({ length: BATCH }, (_, k) => eventRow(b * BATCH + k)),
      );
      // Warm up both paths once so neither pays first-call costs inside the timing.
      await bq
        .dataset('bench')
        .table('events')
        .insert([{ insertId: 'warm', json: eventRow(1e9) }], { raw: true });
      const viaClient = await insertAllRate(bq, rows);
      const total = BATCH * batches;
      await settle();
      const lean = await withCpu(emulator.pid, total, () => leanClientRate(bq, rows));
      const viaLeanClient = lean.rate;
      const viaHttp = await httpInsertRate(emulator.url, rows);
      await settle();
      const { warm: writeApi, cold: writeApiCold } = await writeApiRate(emulator.url, rows, emulator.pid);
      const viaWriteApi = writeApi.rate;
      const rawAppender = await rawAppendRate(dir, fields, rows);
      const rawFromJson = await rawFromJsonRate(dir, fields, rows);
      // The baseline is the faster raw method of this run; both are printed.
      const raw =
        rawFromJson >= rawAppender
          ? { name: 'raw DuckDB from_json INSERT, same rows and batches', value: rawFromJson }
          : { name: 'raw DuckDB appender, same rows and batches', value: rawAppender };
      const rawDetail = `raw appender ${Math.round(rawAppender)} rows/s, raw from_json INSERT ${Math.round(rawFromJson)} rows/s`;

      await bq.query(fill);
      const latencies: number[] = [];
      for (let k = 0; k < runs; k++) {
        const started = performance.now();
        await bq.query(DASHBOARD);
        latencies.push(performance.now() - started);
      }
      // Baseline: the translated SQL on a DuckDB of the same 1M rows, in process.
      const inst = await DuckDBInstance.create(':memory:');
      const conn = await inst.connect();
      const direct: number[] = [];
      try {
        const schemaFields = normaliseSchema(
          EVENT_FIELDS.filter((f) => f.name !== 'received_at'),
        ) as FieldSchema[];
        // The emulator's SQL helpers (RANGE, CAST to STRING), as it creates them on each connection.
        for (const macro of rangeMacros()) await conn.run(macro);
        await conn.run(`CREATE SCHEMA "${PROJECT}.bench"`);
        await conn.run(
          `CREATE TABLE "${PROJECT}.bench"."big" (${columnDefinitions(schemaFields.map((f) => ({ ...f, mode: f.mode === 'REQUIRED' ? 'NULLABLE' : (f.mode ?? 'NULLABLE') })))})`,
        );
        await conn.run(translate(fill, { projectId: PROJECT }).sql);
        const sql = translate(DASHBOARD, { projectId: PROJECT }).sql;
        for (let k = 0; k < runs; k++) {
          const started = performance.now();
          await conn.runAndReadAll(sql);
          direct.push(performance.now() - started);
        }
      } finally {
        conn.closeSync();
        inst.closeSync();
      }
      return [
        {
          name: `insertAll via @google-cloud/bigquery (batches of ${BATCH} event rows, ${CONCURRENCY} in flight)`,
          value: viaClient,
          unit: 'rows/s',
          baseline: raw,
          target: { op: '>=', value: 0.5, of: 'ratio' },
          detail: `${BATCH * batches} rows with insertIds, nested RECORDs and JSON; ${rawDetail}`,
        },
        {
          name: `insertAll via @google-cloud/bigquery table.request, rows serialised once (as the store function sends them; ${CONCURRENCY} in flight)`,
          value: viaLeanClient,
          unit: 'rows/s',
          baseline: raw,
          target: { op: '>=', value: 0.5, of: 'ratio' },
          detail: `${cpuText(lean)}; table.insert above costs ~70 us of client CPU per row (three deep copies, a {{projectId}} walk)`,
        },
        {
          name: `Storage Write API via the store's writer (default stream, gRPC, protocol buffers; ${CONCURRENCY} in flight)`,
          value: viaWriteApi,
          unit: 'rows/s',
          baseline: {
            name: "today's insertAll path (table.request, rows serialised once)",
            value: viaLeanClient,
          },
          target: { op: '>=', value: 1.5, of: 'ratio' },
          detail: `${cpuText(writeApi)}; against raw DuckDB (${raw.name}): ${(viaWriteApi / raw.value).toFixed(2)}x; its first (cold) pass, not the figure: ${Math.round(writeApiCold.rate)} rows/s, ${cpuText(writeApiCold)}`,
        },
        {
          name: 'insertAll via @google-cloud/bigquery table.request, absolute',
          value: viaLeanClient,
          unit: 'rows/s',
          target: { op: '>=', value: 50_000 },
        },
        {
          name: `insertAll as plain HTTP requests (same batches, ${CONCURRENCY} in flight; no client overhead)`,
          value: viaHttp,
          unit: 'rows/s',
          baseline: raw,
          target: { op: '>=', value: 0.5, of: 'ratio' },
        },
        {
          name: 'insertAll via @google-cloud/bigquery, absolute',
          value: viaClient,
          unit: 'rows/s',
          target: { op: '>=', value: 50_000 },
        },
        {
          name: `dashboard query over ${dashboardRows.toLocaleString('en-US')} rows (p50 of ${runs}, via client)`,
          value: percentile(latencies, 50),
          unit: 'ms',
          baseline: { name: 'translated SQL on DuckDB in process', value: percentile(direct, 50) },
          detail: `p90 ${percentile(latencies, 90).toFixed(1)} ms; direct p90 ${percentile(direct, 90).toFixed(1)} ms`,
        },
      ];
    } finally {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

// `node bench/bigquery.ts` runs this suite alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
