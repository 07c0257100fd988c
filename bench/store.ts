/**
 * Store path, end to end on loopback, laid out as `npm start` runs it: the Pub/Sub and
 * BigQuery emulators, the store function (real functions framework) and the gateway, each
 * its own process. Single-event POSTs to the gateway at a fixed offered rate (token auth,
 * validation, acknowledged publish); a poller measures when each event becomes queryable.
 * Baseline: raw DuckDB appends of the same rows in this process (the floor any store path
 * over DuckDB pays).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { BigQuery } from '@google-cloud/bigquery';
import { createEnricher } from '../core/enrich/index.ts';
import { ensureDevToken, fileTokenStore } from '../gateway/token-store.ts';
import { environmentOf, gateway, storeFunction } from '../local/services.ts';
import { type LocalEnvironment, startEnvironment } from '../local/supervisor.ts';
import type { Settings } from '../schemas/settings.ts';
import { floorText, pushFloor } from './framework-floor.ts';
import { type BenchFigure, type BenchSuite, percentile } from './lib.ts';
import { childCpu } from './proc-cpu.ts';
import { gatewayPoster } from './webhook-stack.ts';

const env = process.env;

/** The run's sizes: from the environment in full, small and fixed in quick mode. */
function sizes(quick: boolean) {
  if (quick) return { rate: 200, seconds: 2, stepSeconds: 3, steps: [200], warmup: 0 };
  return {
    rate: Number(env['BENCH_STORE_RATE'] ?? 1000),
    seconds: Number(env['BENCH_STORE_SECONDS'] ?? 30),
    stepSeconds: Number(env['BENCH_STORE_stepSeconds'] ?? 6),
    steps: (env['BENCH_STORE_STEPS'] ?? '1500,2000,3000').split(',').map(Number),
    /**
     * Seconds at the offered rate before the measured run, drained and not counted: the figure is
     * the steady state at 1k/s, not the first seconds of four freshly started processes (JIT,
     * clients loading, connection pools filling), whose tail is printed beside it. 15 s: measured
     * second by second, the tail stays high for the first 10–13 s at 1k/s (after 3 s of warm-up
     * the first 10 s of the run had p99s of 370–970 ms, the rest 100–200 ms).
     */
    warmup: Number(env['BENCH_STORE_warmupSeconds'] ?? 15),
  };
}

const SETTINGS: Settings = {
  name: 'benchstore',
  project: 'bench-store',
  region: 'europe-west1',
  dataset: 'events',
  location: 'EU',
  retry: { minimum_backoff: '1s', maximum_backoff: '10s', max_attempts: 5 },
  // One producer sends the whole offered rate: its credential's limit must not be what is measured.
  tokens: { rate_limit_per_second: 1_000_000, burst: 1_000_000 },
};

/** Whether the store path enriches (on by default: docs/enrichment.md); its CPU gate is higher. */
const ENRICHED = createEnricher(SETTINGS) !== undefined;

interface Stack {
  /** CPU ms each child and this process have used so far (Linux /proc; this process via cpuUsage). */
  cpu(): Map<string, number>;
  post(body: string): Promise<number>;
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-store-'));
  const local: LocalEnvironment = await startEnvironment({
    settings: SETTINGS,
    dataDir,
    freePorts: true,
    // As `npm start` runs them: the emulators (Cloud Storage holds the registry the gateway reads).
    services: environmentOf([storeFunction, gateway]),
    baseEnv: { ...process.env, METADATA_SERVER_DETECTION: 'none' },
    log: () => {},
  });
  const { token } = await ensureDevToken(dataDir, fileTokenStore(join(dataDir, 'tokens.json')));
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const bigquery = new BigQuery({
    projectId: SETTINGS.project,
    apiEndpoint: `http://127.0.0.1:${local.ports.bigquery}`,
  });
  return {
    cpu: () => {
      const out = childCpu(local.services);
      const own = process.cpuUsage();
      out.set('bench', (own.user + own.system) / 1000);
      return out;
    },
    post: gatewayPoster(local.ports.gateway, token, agent),
    query: async (sql) => {
      const [rows] = await bigquery.query({
        query: sql,
        defaultDataset: { datasetId: 'events', projectId: SETTINGS.project },
      });
      return rows as Record<string, unknown>[];
    },
    close: async () => {
      agent.destroy();
      await local.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Run {
  /** Send time (performance.now()) of each id, in the order sent. */
  readonly sent: Map<string, number>;
  readonly seen: Map<string, number>;
  /** The ids in the order sent, and how many of the first ones are all seen (the poller's cursor). */
  readonly order: string[];
  seenUpTo: number;
}

const newRun = (): Run => ({ sent: new Map(), seen: new Map(), order: [], seenUpTo: 0 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSTs `rate` single events/s to the gateway for `seconds`, in 10 ms ticks, recording each send time. */
async function offer(stack: Stack, prefix: string, rate: number, seconds: number, run: Run): Promise<void> {
  const start = performance.now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  const pending: Promise<number>[] = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const id = `${prefix}-${sent}`;
      run.sent.set(id, performance.now());
      run.order.push(id);
      pending.push(
        stack.post(JSON.stringify({ event_id: id, content_name: 'Shoe', content_type: 'product' })),
      );
    }
    await sleep(10);
  }
  const statuses = await Promise.all(pending);
  const failed = statuses.filter((s) => s !== 200).length;
  if (failed > 0) throw new Error(`${failed} of ${statuses.length} POSTs were not accepted`);
}

/**
 * Polls the warehouse for new ids of a prefix and records when each first became visible.
 * Each poll reads only rows stored since the oldest id not seen yet was sent (less a margin):
 * an event is stored after it was sent, on the same clock. Re-reading a fixed second instead
 * returned ~1000 rows per poll at 1k/s, and the emulator and this process spent on those
 * 40k rows/s the CPU the pipeline under measurement needed.
 */
function poll(stack: Stack, prefix: string, run: Run): { stop: () => Promise<void> } {
  let stopped = false;
  const since = (): string => {
    while (run.seenUpTo < run.order.length && run.seen.has(run.order[run.seenUpTo] as string)) run.seenUpTo++;
    const oldest = run.order[run.seenUpTo];
    // Wall-clock time of that send (or now, when every sent id is seen), with 50 ms to spare.
    const at = oldest === undefined ? Date.now() : performance.timeOrigin + (run.sent.get(oldest) as number);
    return new Date(at - 50).toISOString();
  };
  const loop = (async () => {
    while (!stopped) {
      const rows = await stack.query(
        `SELECT event_id FROM events WHERE stored_at >= TIMESTAMP '${since()}' AND STARTS_WITH(event_id, '${prefix}-')`,
      );
      const now = performance.now();
      for (const r of rows) {
        const id = String(r['event_id']);
        if (!run.seen.has(id)) run.seen.set(id, now);
      }
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

/** The p99 latency of each 5 s of sends, so a start-up tail or a periodic stall shows. */
function windows(run: Run): string {
  const start = Math.min(...run.sent.values());
  const buckets: number[][] = [];
  for (const [id, at] of run.seen) {
    const sent = run.sent.get(id) ?? at;
    const i = Math.floor((sent - start) / 5000);
    const bucket = buckets[i] ?? [];
    bucket.push(at - sent);
    buckets[i] = bucket;
  }
  return Array.from(buckets, (b) => (b ? percentile(b, 99).toFixed(0) : '-')).join('/');
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
  name: 'store: POST to the gateway → Pub/Sub → store function → queryable in the warehouse (npm start layout)',
  async run({ quick }): Promise<BenchFigure[]> {
    const {
      rate: latencyRate,
      seconds: latencySeconds,
      stepSeconds,
      steps: stepRates,
      warmup: warmupSeconds,
    } = sizes(quick);
    const figures: BenchFigure[] = [];
    const baseline = await duckdbAppendRate(quick ? 5_000 : 50_000);
    const floor = await pushFloor(quick ? 0.5 : 3);
    const stack = await startStack();
    try {
      // Warm-up at the same rate, drained; reported, not counted.
      const warm = newRun();
      if (warmupSeconds > 0) {
        const p = poll(stack, 'warm', warm);
        try {
          await offer(stack, 'warm', latencyRate, warmupSeconds, warm);
          await waitDrained(warm, 15_000);
        } finally {
          await p.stop();
        }
        await sleep(500);
      }
      const warmLatencies = [...warm.seen].map(([id, at]) => at - (warm.sent.get(id) ?? at));

      // Fixed offered rate: queryable latency.
      const run = newRun();
      const cpuBefore = stack.cpu();
      const poller = poll(stack, 'lat', run);
      let drained: boolean;
      try {
        await offer(stack, 'lat', latencyRate, latencySeconds, run);
        drained = await waitDrained(run, 15_000);
      } finally {
        await poller.stop();
      }
      const cpuAfter = stack.cpu();
      // CPU per event of each process (the bench's own includes its POSTs and the poller).
      const cpuPerEvent = [...cpuAfter]
        .map(([name, ms]) => `${name} ${((ms - (cpuBefore.get(name) ?? ms)) / run.sent.size).toFixed(2)}`)
        .join(', ');
      const latencies = [...run.seen].map(([id, at]) => at - (run.sent.get(id) ?? at));
      const storeMs =
        ((cpuAfter.get('store') ?? Number.NaN) - (cpuBefore.get('store') ?? Number.NaN)) / run.sent.size;
      figures.push({
        name: `store function CPU per event${ENRICHED ? ' (with enrichment)' : ''}`,
        value: storeMs,
        unit: 'ms',
        // Issue #42: 0.30 ms without enrichment, 0.33 ms with it.
        // The floor is context, not the gate: the gate stays the issue's absolute figure.
        baseline: { name: 'the functions framework alone, per push', value: floor.frameworkMs },
        target: { op: '<=', value: ENRICHED ? 0.33 : 0.3, hard: true },
        hopCpu: { hop: 'store', secondsPerRequest: storeMs / 1000 },
        detail: `the store process alone (/proc) under the real functions framework, over the fixed-rate run; ${floorText(floor)}`,
      });
      figures.push({
        name: `POST → queryable p99 at ${latencyRate} events/s for ${latencySeconds} s`,
        value: percentile(latencies, 99),
        unit: 'ms',
        target: { op: '<=', value: 250 },
        detail: `p50 ${percentile(latencies, 50).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; ${run.seen.size}/${run.sent.size} queryable${drained ? '' : ' (NOT all drained within 15 s)'}; poll interval 25 ms adds up to that much; p99 per 5 s: ${windows(run)}${warmupSeconds > 0 ? `; after a ${warmupSeconds} s warm-up at the same rate (not counted: p50 ${percentile(warmLatencies, 50).toFixed(0)} ms, p99 ${percentile(warmLatencies, 99).toFixed(0)} ms)` : ''}${cpuPerEvent ? `; CPU ms per event: ${cpuPerEvent}` : ''}`,
      });

      // Stepped rates: the highest whose backlog does not grow. The backlog (sent, not yet
      // queryable) is sampled 2 s into the step and when the last send is due; it may hold what
      // is in flight (rate × latency) but must not climb by more than 5% of the offered rate per
      // second between the two, and everything must be stored within 2 s after the last send.
      // (Draining alone is too lenient: a 6 s step at 1.3× capacity still drains in 2 s.)
      let sustained = 0;
      /** When no step holds: what the first one stored per second, from its start to its drain. */
      let storedRate = 0;
      const steps: string[] = [];
      for (const rate of stepRates) {
        const step = newRun();
        const p = poll(stack, `r${rate}`, step);
        const started = performance.now();
        const backlog = () => step.sent.size - step.seen.size;
        let early = 0;
        const sample = setTimeout(() => {
          early = backlog();
        }, 2_000);
        let kept: boolean;
        let growth = 0;
        try {
          await offer(stack, `r${rate}`, rate, stepSeconds, step);
          // Measured when the last send was due, not when the last POST was answered:
          // a gateway that cannot take the offered rate is a backlog too.
          await sleep(Math.max(0, started + stepSeconds * 1000 - performance.now()));
          growth = (backlog() - early) / (stepSeconds - 2);
          const drained = await waitDrained(step, started + stepSeconds * 1000 + 2_000 - performance.now());
          kept = drained && growth <= rate * 0.05;
        } finally {
          clearTimeout(sample);
          await p.stop();
        }
        const stored = step.seen.size;
        steps.push(
          `${rate}/s → backlog ${growth >= 0 ? '+' : ''}${growth.toFixed(0)}/s, ${stored}/${step.sent.size} stored within 2 s of the last send${kept ? '' : ' (backlog grew)'}`,
        );
        if (!kept) {
          if (sustained === 0) storedRate = stored / ((performance.now() - started) / 1000);
          await waitDrained(step, 20_000);
          break;
        }
        sustained = rate;
      }
      // No step held (a machine busy with other work): the rate the path did store is the figure
      // then, under its own name, rather than a 0 that reads like a bench that measured nothing.
      figures.push({
        name:
          sustained > 0
            ? 'highest offered rate sustained without backlog growth'
            : `no offered rate sustained; stored while ${stepRates[0]} events/s were offered`,
        value: sustained > 0 ? sustained : storedRate,
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
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(f);
}
