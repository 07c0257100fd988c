/**
 * What tracing costs each hop (issue #81): the gateway's, `store`'s and `forward`'s CPU per event
 * with tracing at the default sampling, against the same pipeline with tracing off, in the same
 * run. Two local environments laid out as `npm start` runs them (emulators, gateway, store,
 * forward; one signed webhook destination), identical but for the settings' `tracing`: one with
 * `enabled: false`, one with the defaults (ratio 0.01), its spans exported over OTLP/HTTP to a
 * loopback receiver that answers 200 (this process's), so the export's cost is counted. Both are
 * offered the same rate of single-event POSTs at the same time, so a machine that slows down
 * slows both alike; each hop's CPU is read from /proc over the measured stretch and its drain.
 * Env: BENCH_TRACING_RATE (events/s to each environment, default 300), BENCH_TRACING_SECONDS (20),
 * BENCH_TRACING_WARMUP_SECONDS (5), BENCH_TRACING_PROFILE=<dir> writes each hop's CPU profile
 * there (`off/` and `on/`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevToken, fileTokenStore } from '../gateway/token-store.ts';
import type { Receiver } from '../local/receiver/server.ts';
import {
  environmentOf,
  forwardFunction,
  gateway,
  type ServiceFactory,
  storeFunction,
} from '../local/services.ts';
import { type LocalEnvironment, startEnvironment } from '../local/supervisor.ts';
import type { Settings } from '../schemas/settings.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';
import { childCpu } from './proc-cpu.ts';
import {
  gatewayPoster,
  offer,
  startWebhookReceiver,
  webhookSettings,
  writeSigningKey,
} from './webhook-stack.ts';

const env = process.env;
const HOPS = ['gateway', 'store', 'forward'] as const;
const DRAIN_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One of the two environments: its name, the POSTs it was sent, and its processes' CPU. */
interface Pipeline {
  readonly name: 'off' | 'on';
  readonly local: LocalEnvironment;
  readonly dataDir: string;
  post(body: string): Promise<number>;
  close(): Promise<void>;
}

/** A hop as `npm start` runs it, its spans sent to `endpoint`, profiled when BENCH_TRACING_PROFILE names a dir. */
const hop =
  (factory: ServiceFactory, endpoint: string, profileDir: string | undefined): ServiceFactory =>
  (ctx) => {
    const spec = factory(ctx);
    const args = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...spec.args] : spec.args;
    return { ...spec, args, env: { ...spec.env, EVENTBUS_TRACE_ENDPOINT: endpoint } };
  };

async function startPipeline(name: 'off' | 'on', settings: Settings, receiver: Receiver): Promise<Pipeline> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-tracing-${name}-`));
  writeSigningKey(dataDir);
  const profile = env['BENCH_TRACING_PROFILE'] ? join(env['BENCH_TRACING_PROFILE'], name) : undefined;
  const local = await startEnvironment({
    settings,
    dataDir,
    freePorts: true,
    egressAllow: [receiver.url],
    services: environmentOf(
      [storeFunction, forwardFunction, gateway].map((f) => hop(f, receiver.url, profile)),
    ),
    baseEnv: { ...process.env, METADATA_SERVER_DETECTION: 'none' },
    log: () => {},
  });
  const { token } = await ensureDevToken(dataDir, fileTokenStore(join(dataDir, 'tokens.json')));
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  return {
    name,
    local,
    dataDir,
    post: gatewayPoster(local.ports.gateway, token, agent),
    close: async () => {
      agent.destroy();
      await local.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs `rate` events/s to every pipeline at once for `seconds`; ids `<pipeline>-<prefix>-<n>`. */
async function offerAll(pipelines: readonly Pipeline[], prefix: string, rate: number, seconds: number) {
  let failed = 0;
  const sent = await offer(
    prefix,
    async (id) => {
      for (const status of await Promise.all(
        pipelines.map((p) =>
          p.post(
            JSON.stringify({ event_id: `${p.name}-${id}`, content_name: 'Shoe', content_type: 'product' }),
          ),
        ),
      ))
        if (status !== 200) failed++;
    },
    rate,
    seconds,
  );
  if (failed > 0) throw new Error(`${failed} of ${sent.size * pipelines.length} POSTs were not accepted`);
  return sent.size;
}

/** Waits until `count` webhooks of each pipeline's `prefix` arrived (or DRAIN_MS passed). */
async function drain(arrived: Map<string, number>, keys: readonly string[], count: number): Promise<boolean> {
  const deadline = Date.now() + DRAIN_MS;
  const done = () => keys.every((k) => (arrived.get(k) ?? 0) >= count);
  while (Date.now() < deadline && !done()) await sleep(50);
  return done();
}

export const suite: BenchSuite = {
  name: 'tracing: gateway, store and forward CPU per event, tracing at the default ratio vs off (same run)',
  async run({ quick }): Promise<BenchFigure[]> {
    const { rate, seconds, warmup } = quick
      ? { rate: 100, seconds: 2, warmup: 0 }
      : {
          rate: Number(env['BENCH_TRACING_RATE'] ?? 300),
          seconds: Number(env['BENCH_TRACING_SECONDS'] ?? 20),
          warmup: Number(env['BENCH_TRACING_WARMUP_SECONDS'] ?? 5),
        };
    // Webhook arrivals by `<pipeline>-<prefix>`, counted as they come.
    const arrived = new Map<string, number>();
    const seen = new Set<string>();
    const { receiver, destination } = await startWebhookReceiver((eventId) => {
      // A redelivered webhook is counted once.
      if (seen.has(eventId)) return;
      seen.add(eventId);
      const key = eventId.slice(0, eventId.lastIndexOf('-'));
      arrived.set(key, (arrived.get(key) ?? 0) + 1);
    });
    const base: Settings = {
      ...webhookSettings(destination),
      // One producer sends the whole offered rate: its credential's limit must not be what is measured.
      tokens: { rate_limit_per_second: 1_000_000, burst: 1_000_000 },
    };
    const pipelines: Pipeline[] = [];
    try {
      pipelines.push(await startPipeline('off', { ...base, tracing: { enabled: false } }, receiver));
      // The defaults: tracing on at DEFAULT_SAMPLE_RATIO.
      pipelines.push(await startPipeline('on', base, receiver));
      if (warmup > 0) {
        const n = await offerAll(pipelines, 'warm', rate, warmup);
        await drain(
          arrived,
          pipelines.map((p) => `${p.name}-warm`),
          n,
        );
        await sleep(500);
      }
      const before = pipelines.map((p) => childCpu(p.local.services));
      const spansBefore = receiver.traces.spans().length;
      const sent = await offerAll(pipelines, 'run', rate, seconds);
      const drained = await drain(
        arrived,
        pipelines.map((p) => `${p.name}-run`),
        sent,
      );
      // The ledger row is written after the webhook answered: let the last ones finish.
      await sleep(1000);
      const after = pipelines.map((p) => childCpu(p.local.services));
      const spans = receiver.traces.spans().length - spansBefore;
      const perEvent = (i: number, name: string) =>
        (((after[i]?.get(name) ?? Number.NaN) - (before[i]?.get(name) ?? Number.NaN)) * 1000) / sent;
      const arrivedText = pipelines.map((p) => `${p.name} ${arrived.get(`${p.name}-run`) ?? 0}`).join(', ');
      return HOPS.map((name) => ({
        name: `${name} CPU per event, tracing at the default ratio (0.01), exported over OTLP/HTTP`,
        value: perEvent(1, name),
        unit: 'µs',
        baseline: {
          name: 'the same, tracing off (tracing.enabled: false), at the same time',
          value: perEvent(0, name),
        },
        target: { op: '<=', value: 1.1, of: 'ratio', hard: true },
        detail: `${sent} events to each pipeline at ${rate}/s for ${seconds} s, both at once${warmup > 0 ? ` after a ${warmup} s warm-up` : ''}; webhooks arrived: ${arrivedText}${drained ? '' : ' (NOT all within 30 s)'}; spans the loopback OTLP receiver took meanwhile: ${spans}`,
      }));
    } finally {
      for (const p of pipelines) await p.close();
      await receiver.close();
    }
  },
};

if (import.meta.main) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
