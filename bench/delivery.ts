/**
 * Delivery latency on loopback: events published at a fixed rate on `events` travel
 * store (warehouse write, decision, fan-out) → `deliveries` → forward → a signed webhook
 * POST to the local receiver; the figure is publish → webhook arrival, p50/p99.
 *
 * Events enter through the Pub/Sub client, not the gateway (the gateway's own suite measures
 * POST → publish, a few ms). Baseline: the same signed webhook POSTs sent straight to the
 * receiver at the same rate (the last hop alone). The emulators and both functions run as
 * `npm start` runs them (child processes); the receiver runs in this process.
 * Env: BENCH_DELIVERY_RATE (default 1000/s), BENCH_DELIVERY_SECONDS (10), BENCH_DELIVERY_WARMUP_SECONDS (3),
 * BENCH_DELIVERY_DEBUG=1 prints when the warehouse and the ledger saw the first/last rows,
 * and per second of sending: publish → received_at → stored_at → webhook arrival → ledger recorded_at.
 * BENCH_DELIVERY_PROFILE=<dir> writes store's and forward's CPU profiles there.
 * BENCH_DELIVERY_CLAIMS=bigtable keeps the send-once claims in the Bigtable twin (`claims.store`)
 * instead of Firestore's, the default: the CPU per event then names the twin that holds them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpSender } from '../adapters/http-sender.ts';
import type { StoredEvent } from '../core/event.ts';
import { webhookDriver } from '../core/platforms/webhook/index.ts';
import { emulatorBigQuery, emulatorPubSub } from '../local/provision.ts';
import { environmentOf, forwardFunction, type ServiceFactory, storeFunction } from '../local/services.ts';
import { type LocalEnvironment, startEnvironment } from '../local/supervisor.ts';
import { SIGNING_KEY } from '../test/delivery/support/stack.ts';
import { floorText, pushFloor } from './framework-floor.ts';
import { type BenchFigure, type BenchSuite, percentile } from './lib.ts';
import { childCpu } from './proc-cpu.ts';
import { offer, startWebhookReceiver, webhookSettings, writeSigningKey } from './webhook-stack.ts';

const env = process.env;
/** A function as `npm start` runs it, under `--cpu-prof` when BENCH_DELIVERY_PROFILE names a dir. */
const profiled =
  (factory: ServiceFactory): ServiceFactory =>
  (ctx) => {
    const spec = factory(ctx);
    const dir = env['BENCH_DELIVERY_PROFILE'];
    return dir ? { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...spec.args] } : spec;
  };
const RATE = Number(env['BENCH_DELIVERY_RATE'] ?? 1000);
const CLAIMS = env['BENCH_DELIVERY_CLAIMS'] === 'bigtable' ? 'bigtable' : 'firestore';
const SECONDS = Number(env['BENCH_DELIVERY_SECONDS'] ?? 10);
const DRAIN_MS = 30_000;
/**
 * Seconds at the offered rate before the measured run, drained and not counted (as bench/store
 * does): the figure is the steady state, not the first seconds of freshly started processes
 * (JIT, clients loading, pools filling), whose tail is printed beside it.
 */
const WARMUP_SECONDS = Number(env['BENCH_DELIVERY_WARMUP_SECONDS'] ?? 3);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function latencies(sent: Map<string, number>, seen: Map<string, number>): number[] {
  const out: number[] = [];
  for (const [id, t] of sent) {
    const s = seen.get(id);
    if (s !== undefined) out.push(s - t);
  }
  return out;
}

/**
 * Waits until every event sent under `prefix` has arrived (or DRAIN_MS passed). Arrivals are
 * counted as they come: scanning every sent id each 50 ms cost this process ~1.3 s of CPU per
 * 10 s run at 1k/s, taken from the pipeline it measures on the same 2 cores.
 */
async function drain(sent: Map<string, number>, arrived: Map<string, number>, prefix: string): Promise<void> {
  const deadline = Date.now() + DRAIN_MS;
  while (Date.now() < deadline && (arrived.get(prefix) ?? 0) < sent.size) await sleep(50);
}

export const suite: BenchSuite = {
  name: `delivery: publish → store → forward → webhook (${RATE} events/s for ${SECONDS} s, one destination${CLAIMS === 'bigtable' ? ', claims in Bigtable' : ''})`,
  async run({ quick }): Promise<BenchFigure[]> {
    // Quick mode: a few hundred events, no warm-up (that the path works, not its speed).
    const { rate, seconds, warmup } = quick
      ? { rate: 200, seconds: 2, warmup: 0 }
      : { rate: RATE, seconds: SECONDS, warmup: WARMUP_SECONDS };
    const floor = await pushFloor(quick ? 0.5 : 3);
    const seen = new Map<string, number>();
    const seenWall = new Map<string, number>();
    const arrived = new Map<string, number>();
    const dataDir = mkdtempSync(join(tmpdir(), 'eventbus-bench-delivery-'));
    writeSigningKey(dataDir);
    // The receiver runs in this process; emulators and functions run as `npm start` runs them.
    const { receiver, destination } = await startWebhookReceiver((eventId) => {
      if (seen.has(eventId)) return;
      seen.set(eventId, performance.now());
      const prefix = eventId.slice(0, eventId.lastIndexOf('-'));
      arrived.set(prefix, (arrived.get(prefix) ?? 0) + 1);
      seenWall.set(eventId, Date.now());
    });
    const receiverPort = receiver.port;
    const settings = {
      ...webhookSettings(destination),
      ...(CLAIMS === 'bigtable' ? { claims: { store: 'bigtable' as const } } : {}),
    };
    let environment: LocalEnvironment | undefined;
    try {
      environment = await startEnvironment({
        settings,
        dataDir,
        freePorts: true,
        // The bench's receiver runs here, not as the environment's: the egress gate is told of it.
        egressAllow: [`http://127.0.0.1:${receiverPort}`],
        services: environmentOf([profiled(storeFunction), profiled(forwardFunction)]),
        log: () => {},
      });
      // Baseline: the last hop alone, signed POSTs straight to the receiver.
      const send = createHttpSender();
      const directEvent = (id: string): StoredEvent => ({
        event_name: 'view_content',
        event_id: id,
        event_time: new Date().toISOString(),
        event_data: { content_name: 'Shoe', content_type: 'product' },
      });
      const direct = await offer(
        'direct',
        async (id) => {
          const p = webhookDriver.prepare(directEvent(id), {
            destination,
            secrets: { signing_key: SIGNING_KEY },
            now: new Date(),
          });
          if (p.ok) await send(p.request, 5000);
        },
        rate,
        seconds,
      );
      await drain(direct, arrived, 'direct');
      const base = latencies(direct, seen);

      const pubsub = emulatorPubSub(settings.project, `127.0.0.1:${environment.ports.pubsub}`);
      const topic = pubsub.topic('events', { batching: { maxMessages: 1000, maxMilliseconds: 5 } });
      const publish = (id: string) =>
        topic.publishMessage({
          data: Buffer.from(
            JSON.stringify({
              event_name: 'view_content',
              event_id: id,
              content_name: 'Shoe',
              content_type: 'product',
            }),
          ),
        });
      const warm = warmup > 0 ? await offer('warm', publish, rate, warmup) : new Map<string, number>();
      await drain(warm, arrived, 'warm');
      const cold = latencies(warm, seen);
      const cpuBefore = childCpu(environment.services);
      const benchCpuBefore = process.cpuUsage();
      cpuBefore.set('bench (publisher + receiver)', 0);
      const sent = await offer('bus', publish, rate, seconds);
      await drain(sent, arrived, 'bus');
      const cpuAfter = childCpu(environment.services);
      const benchCpu = process.cpuUsage(benchCpuBefore);
      cpuAfter.set('bench (publisher + receiver)', (benchCpu.user + benchCpu.system) / 1000);
      await pubsub.close();
      const cpuPerEvent = [...cpuAfter]
        .map(([name, ms]) => `${name} ${((ms - (cpuBefore.get(name) ?? ms)) / sent.size).toFixed(2)}`)
        .join(', ');
      if (env['BENCH_DELIVERY_DEBUG']) {
        const bq = emulatorBigQuery(settings.project, `http://127.0.0.1:${environment.ports.bigquery}`);
        for (const q of [
          `SELECT MIN(received_at) a, MAX(received_at) b, MIN(stored_at) c, MAX(stored_at) d, COUNT(*) n FROM \`${settings.project}.events.events\``,
          `SELECT MIN(recorded_at) a, MAX(recorded_at) b, COUNT(*) n FROM \`${settings.project}.events.deliveries\``,
        ])
          console.log(JSON.stringify((await bq.query(q))[0]));
        // Per event: publish → stored (store handler) → webhook arrival → ledger recorded.
        const stored = new Map<string, number>();
        const received = new Map<string, number>();
        for (const r of (
          await bq.query(`SELECT event_id, received_at, stored_at FROM \`${settings.project}.events.events\``)
        )[0] as { event_id: string; received_at: { value: string }; stored_at: { value: string } }[]) {
          stored.set(r.event_id, Date.parse(r.stored_at.value));
          received.set(r.event_id, Date.parse(r.received_at.value));
        }
        const recorded = new Map<string, number>();
        for (const r of (
          await bq.query(`SELECT event_id, recorded_at FROM \`${settings.project}.events.deliveries\``)
        )[0] as { event_id: string; recorded_at: { value: string } }[])
          recorded.set(r.event_id, Date.parse(r.recorded_at.value));
        const wallOffset = Date.now() - performance.now();
        const t0 = Math.min(...sent.values());
        const rows = new Map<number, number[][]>();
        for (const [id, t] of sent) {
          const st = stored.get(id);
          const ar = seenWall.get(id);
          const rc = recorded.get(id);
          if (st === undefined || ar === undefined || rc === undefined) continue;
          const tw = t + wallOffset;
          const k = Math.floor((t - t0) / 1000);
          const xs = rows.get(k) ?? [[], [], [], []];
          xs[3]?.push((received.get(id) ?? Number.NaN) - tw);
          xs[0]?.push(st - tw);
          xs[1]?.push(ar - st);
          xs[2]?.push(rc - ar);
          rows.set(k, xs);
        }
        const pp = (x: number[] | undefined) =>
          `${percentile(x ?? [], 50).toFixed(0)}/${percentile(x ?? [], 99).toFixed(0)}`;
        for (const [k, xs] of [...rows].sort((a, b) => a[0] - b[0]))
          console.log(
            `  s${k} p50/p99 ms: publish→received_at ${pp(xs[3])}, publish→stored ${pp(xs[0])}, stored→arrival ${pp(xs[1])}, arrival→recorded ${pp(xs[2])}`,
          );
      }
      const lat = latencies(sent, seen);
      // One destination: a forward push per event, so forward's CPU per event is per delivery.
      const forwardMs =
        ((cpuAfter.get('forward') ?? Number.NaN) - (cpuBefore.get('forward') ?? Number.NaN)) / sent.size;
      if (env['BENCH_DELIVERY_DEBUG']) {
        // Latency by the second the event was sent: a start-up backlog shows as early seconds.
        const t0 = Math.min(...sent.values());
        const bySecond = new Map<number, number[]>();
        for (const [id, t] of sent) {
          const s = seen.get(id);
          if (s === undefined) continue;
          const k = Math.floor((t - t0) / 1000);
          const xs = bySecond.get(k) ?? [];
          xs.push(s - t);
          bySecond.set(k, xs);
        }
        for (const [k, xs] of [...bySecond].sort((a, b) => a[0] - b[0]))
          console.log(
            `  s${k}: n ${xs.length} p50 ${percentile(xs, 50).toFixed(0)} p99 ${percentile(xs, 99).toFixed(0)}`,
          );
      }
      const lost = sent.size - lat.length;
      const detail = (xs: number[], n: number) =>
        `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms, ${xs.length}/${n} arrived`;
      return [
        {
          name: 'publish → webhook arrival p99',
          value: percentile(lat, 99),
          unit: 'ms',
          baseline: { name: 'direct signed POST p99', value: percentile(base, 99) },
          target: { op: '<=', value: 500 },
          detail: `${detail(lat, sent.size)}${lost > 0 ? ` (${lost} not arrived within ${DRAIN_MS / 1000} s)` : ''}${warm.size > 0 ? `; after a ${warmup} s warm-up at the same rate (drained, not counted: ${detail(cold, warm.size)})` : ''}; baseline ${detail(base, direct.size)}; events enter via the Pub/Sub client, not the gateway${cpuPerEvent ? `; CPU ms per event: ${cpuPerEvent}` : ''}`,
        },
        {
          name: 'forward function CPU per delivery',
          value: forwardMs,
          unit: 'ms',
          // The floor is context, not the gate: the gate stays the issue's absolute figure.
          baseline: { name: 'the functions framework alone, per push', value: floor.frameworkMs },
          target: { op: '<=', value: 0.45, hard: true },
          hopCpu: { hop: 'forward', secondsPerRequest: forwardMs / 1000 },
          detail: `the forward process alone (/proc) under the real functions framework: push, decision, signed webhook POST, ledger row; ${floorText(floor)}`,
        },
        {
          name: 'publish → webhook arrival p50',
          value: percentile(lat, 50),
          unit: 'ms',
          baseline: { name: 'direct signed POST p50', value: percentile(base, 50) },
        },
      ];
    } finally {
      await environment?.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
