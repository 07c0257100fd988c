/**
 * Store path, end to end on loopback: events published at a fixed offered rate reach the
 * Pub/Sub emulator, are pushed to the store function (real functions framework) and written
 * to the BigQuery emulator; a poller measures when each becomes queryable.
 *
 * Publishing goes through the Pub/Sub client, not the gateway (the gateway's own suite
 * measures POST → publish); the output says so. Baseline: raw DuckDB appends of the same
 * rows in this process (the floor any store path over DuckDB pays).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { type StorageStack, startStorageStack, testSettings } from '../test/storage/support.ts';
import { type BenchFigure, type BenchSuite, percentile } from './lib.ts';

const env = process.env;
const LATENCY_RATE = Number(env['BENCH_STORE_RATE'] ?? 1000);
const LATENCY_SECONDS = Number(env['BENCH_STORE_SECONDS'] ?? 30);
const STEP_SECONDS = Number(env['BENCH_STORE_STEP_SECONDS'] ?? 6);
const STEP_RATES = (env['BENCH_STORE_STEPS'] ?? '1500,2000,3000').split(',').map(Number);

interface Run {
  readonly sent: Map<string, number>;
  readonly seen: Map<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Publishes `rate` events/s for `seconds`, in 10 ms ticks, recording each send time. */
async function offer(
  stack: StorageStack,
  prefix: string,
  rate: number,
  seconds: number,
  run: Run,
): Promise<void> {
  const topic = stack.pubsub.topic('events', { batching: { maxMessages: 1000, maxMilliseconds: 5 } });
  const start = performance.now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  const pending: Promise<unknown>[] = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const id = `${prefix}-${sent}`;
      run.sent.set(id, performance.now());
      const event = {
        event_name: 'view_content',
        event_id: id,
        content_name: 'Shoe',
        content_type: 'product',
      };
      pending.push(topic.publishMessage({ data: Buffer.from(JSON.stringify(event)) }));
    }
    await sleep(10);
  }
  await Promise.all(pending);
}

/** Polls the warehouse for new ids of a prefix and records when each first became visible. */
function poll(stack: StorageStack, prefix: string, run: Run): { stop: () => Promise<void> } {
  let stopped = false;
  let since = new Date(Date.now() - 5_000).toISOString();
  const loop = (async () => {
    while (!stopped) {
      const rows = await stack.query(
        `SELECT event_id, stored_at FROM events WHERE stored_at >= TIMESTAMP '${since}' AND STARTS_WITH(event_id, '${prefix}-')`,
      );
      const now = performance.now();
      let latest = since;
      for (const r of rows) {
        const id = String(r['event_id']);
        if (!run.seen.has(id)) run.seen.set(id, now);
        const at = new Date(String(r['stored_at'])).toISOString();
        if (at > latest) latest = at;
      }
      // Re-read the last second: rows of one timestamp may land across two polls.
      since = new Date(Date.parse(latest) - 1000).toISOString();
      await sleep(25);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

async function waitDrained(run: Run, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.seen.size >= run.sent.size) return true;
    await sleep(100);
  }
  return run.seen.size >= run.sent.size;
}

/** Baseline: appending the same rows straight into a DuckDB table, rows per second. */
async function duckdbAppendRate(rows: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-duckdb-'));
  try {
    const instance = await DuckDBInstance.create(join(dir, 'base.duckdb'));
    const conn = await instance.connect();
    await conn.run(
      'CREATE TABLE events (event_id VARCHAR, event_name VARCHAR, event_time TIMESTAMP, topic VARCHAR, event_data JSON)',
    );
    const started = performance.now();
    const appender = await conn.createAppender('events');
    for (let i = 0; i < rows; i++) {
      appender.appendVarchar(`base-${i}`);
      appender.appendVarchar('view_content');
      appender.appendVarchar(new Date().toISOString());
      appender.appendVarchar('events');
      appender.appendVarchar('{"content_name":"Shoe","content_type":"product"}');
      appender.endRow();
      // Flush in the store path's batch sizes so both pay per-batch costs.
      if (i % 100 === 99) appender.flushSync();
    }
    appender.closeSync();
    const rate = rows / ((performance.now() - started) / 1000);
    conn.closeSync();
    instance.closeSync();
    return rate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: 'store: publish → store function → queryable in the warehouse (published with the Pub/Sub client, not through the gateway)',
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    const baseline = await duckdbAppendRate(50_000);
    const stack = await startStorageStack(
      testSettings({ retry: { minimum_backoff: '1s', maximum_backoff: '10s', max_attempts: 5 } }),
    );
    try {
      // Fixed offered rate: queryable latency.
      const run: Run = { sent: new Map(), seen: new Map() };
      const poller = poll(stack, 'lat', run);
      await offer(stack, 'lat', LATENCY_RATE, LATENCY_SECONDS, run);
      const drained = await waitDrained(run, 15_000);
      await poller.stop();
      const latencies = [...run.seen].map(([id, at]) => at - (run.sent.get(id) ?? at));
      figures.push({
        name: `publish → queryable p99 at ${LATENCY_RATE} events/s for ${LATENCY_SECONDS} s`,
        value: percentile(latencies, 99),
        unit: 'ms',
        target: { op: '<=', value: 250 },
        detail: `p50 ${percentile(latencies, 50).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; ${run.seen.size}/${run.sent.size} queryable${drained ? '' : ' (NOT all drained within 15 s)'}; poll interval 25 ms adds up to that much`,
      });

      // Stepped rates: the highest whose backlog does not grow (all stored within 2 s of the last send).
      let sustained = 0;
      const steps: string[] = [];
      for (const rate of STEP_RATES) {
        const step: Run = { sent: new Map(), seen: new Map() };
        const p = poll(stack, `r${rate}`, step);
        const started = performance.now();
        await offer(stack, `r${rate}`, rate, STEP_SECONDS, step);
        const kept = await waitDrained(step, 2_000);
        await p.stop();
        const achieved = step.seen.size / ((performance.now() - started) / 1000);
        steps.push(`${rate}/s → ${achieved.toFixed(0)}/s stored${kept ? '' : ' (backlog grew)'}`);
        if (!kept) {
          await waitDrained(step, 20_000);
          break;
        }
        sustained = rate;
      }
      figures.push({
        name: 'highest offered rate sustained without backlog growth',
        value: sustained,
        unit: 'events/s',
        target: { op: '>=', value: 2000 },
        baseline: { name: 'raw DuckDB appends (same rows, batches of 100)', value: baseline },
        detail: steps.join('; '),
      });
    } finally {
      await stack.close();
    }
    return figures;
  },
};

if (import.meta.main) {
  for (const f of await suite.run()) console.log(f);
}
