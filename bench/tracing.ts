/**
 * What tracing costs each hop (issue #81): the gateway's, `store`'s and `forward`'s CPU per event
 * with tracing at the default sampling, against tracing off, in the same run. Two local
 * environments (emulators, one signed webhook destination) each run a gateway, `store` and
 * `forward` as `npm start` runs them, one pipeline with the settings' `tracing: {enabled: false}`
 * and the other with the defaults (ratio 0.01), its spans exported over OTLP/HTTP to a loopback
 * receiver answering 200 (this process's), so the export is counted. Both are offered the same
 * rate of single-event POSTs at the same time, so a machine that slows down slows both alike; each
 * hop's CPU is read from /proc over the measured stretch and its drain.
 *
 * Two pipelines differ by more than tracing: with tracing off in both, one hop measured 11 %
 * apart in a run (an A/A run: BENCH_TRACING_AA=1). So the measure is taken in rounds (4: each
 * environment each side twice), the settings swapped between the environments from one to the
 * next (the three hops restarted on the same emulators, ports and data), and each figure sums the
 * rounds: what one environment adds to a side in one round it adds to the other in the next.
 * Each round's own ratio per hop is printed as well: their spread is the bench's noise.
 * Env: BENCH_TRACING_RATE (events/s to each pipeline, default 300), BENCH_TRACING_SECONDS (15 a
 * round), BENCH_TRACING_WARMUP_SECONDS (5 a round), BENCH_TRACING_ROUNDS (4, made even),
 * BENCH_TRACING_PROFILE=<dir> writes each hop's CPU profile there (`off/` and `on/`),
 * BENCH_TRACING_AA=1 runs both sides with tracing off, BENCH_TRACING_RATIO=<0–1> sets the traced
 * side's `sample_ratio` (0: what tracing costs without exporting anything), BENCH_TRACING_HOPS=
 * gateway (a comma-separated list of hops) traces only those on the traced side, the others
 * running with tracing off on both (to tell a hop's own cost from what the others' tracing adds
 * to it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevToken, fileTokenStore } from '../gateway/token-store.ts';
import type { Receiver } from '../local/receiver/server.ts';
import {
  environmentOf,
  forwardFunction,
  gateway,
  type LocalContext,
  type ServiceSpec,
  settingsPath,
  storeFunction,
} from '../local/services.ts';
import { REPO_ROOT } from '../local/settings-file.ts';
import { type LocalEnvironment, startEnvironment } from '../local/supervisor.ts';
import type { Settings } from '../schemas/settings.ts';
import { stop } from './child.ts';
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
type Side = 'off' | 'on';
const DRAIN_MS = 30_000;
/** The hops traced on the traced side (BENCH_TRACING_HOPS, comma-separated); all by default. */
const tracedHops = env['BENCH_TRACING_HOPS']?.split(',').map((h) => h.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One environment's emulators and data, and the settings file of each side. */
interface Stack {
  readonly label: string;
  readonly local: LocalEnvironment;
  readonly ctx: LocalContext;
  readonly token: string;
  readonly settingsFiles: Readonly<Record<Side, string>>;
}

/** The three hops running on a stack with one side's settings. */
interface Hops {
  readonly side: Side;
  readonly stack: Stack;
  readonly services: readonly { readonly name: string; readonly pid: number }[];
  post(body: string): Promise<number>;
  stop(): Promise<void>;
}

async function startStack(label: string, settings: Settings, receiver: Receiver): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-tracing-${label}-`));
  writeSigningKey(dataDir);
  // The emulators only, provisioned from the plan: the hops are started and stopped by the rounds.
  const local = await startEnvironment({
    settings,
    dataDir,
    freePorts: true,
    egressAllow: [receiver.url],
    services: environmentOf([]),
    baseEnv: { ...process.env, METADATA_SERVER_DETECTION: 'none' },
    log: () => {},
  });
  // The settings as the supervisor wrote them for this environment (its ports), once per side.
  const written = JSON.parse(readFileSync(settingsPath(dataDir), 'utf8')) as Settings;
  const off: Settings = { ...written, tracing: { enabled: false } };
  // The defaults: tracing on at DEFAULT_SAMPLE_RATIO (an A/A run: off on both sides).
  const ratio = env['BENCH_TRACING_RATIO'];
  const on: Settings = env['BENCH_TRACING_AA']
    ? off
    : ratio
      ? { ...written, tracing: { enabled: true, sample_ratio: Number(ratio) } }
      : written;
  const settingsFiles = { off: join(dataDir, 'settings-off.json'), on: join(dataDir, 'settings-on.json') };
  writeFileSync(settingsFiles.off, JSON.stringify(off));
  writeFileSync(settingsFiles.on, JSON.stringify(on));
  const { token } = await ensureDevToken(dataDir, fileTokenStore(join(dataDir, 'tokens.json')));
  const ctx: LocalContext = {
    root: REPO_ROOT,
    dataDir,
    logDir: local.logDir,
    ports: local.ports,
    settings: written,
    project: written.project,
    node: process.execPath,
    egressAllow: [receiver.url],
  };
  return { label, local, ctx, token, settingsFiles };
}

/** Resolves once a hop answers as its spec says it is ready (bounded: 60 s). */
async function ready(spec: ServiceSpec, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  const probe = (): Promise<boolean> =>
    spec.readiness.kind === 'http'
      ? fetch(spec.readiness.url).then(
          (r) => r.ok,
          () => false,
        )
      : new Promise((done) => {
          const socket = connect(spec.port, '127.0.0.1');
          socket.once('connect', () => {
            socket.destroy();
            done(true);
          });
          socket.once('error', () => done(false));
        });
  while (!(await probe())) {
    if (child.exitCode !== null)
      throw new Error(`${spec.name} exited ${child.exitCode} (log: ${spec.logFile})`);
    if (Date.now() > deadline) throw new Error(`${spec.name} not ready within 60 s (log: ${spec.logFile})`);
    await sleep(100);
  }
}

/** Starts gateway, store and forward on a stack with `side`'s settings, profiled when BENCH_TRACING_PROFILE names a dir. */
async function startHops(stack: Stack, side: Side, endpoint: string): Promise<Hops> {
  const profile = env['BENCH_TRACING_PROFILE'];
  const children: { spec: ServiceSpec; child: ChildProcess }[] = [];
  try {
    for (const factory of [storeFunction, forwardFunction, gateway]) {
      const spec = factory(stack.ctx);
      const args = profile
        ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, side)}`, ...spec.args]
        : spec.args;
      // BENCH_TRACING_HOPS: only the hops it names are traced on the traced side (a diagnosis).
      const traced = side === 'on' && (tracedHops === undefined || tracedHops.includes(spec.name));
      const child = spawn(spec.command, args, {
        cwd: spec.cwd,
        env: {
          ...process.env,
          ...spec.env,
          EVENTBUS_SETTINGS_FILE: stack.settingsFiles[traced ? 'on' : 'off'],
          EVENTBUS_TRACE_ENDPOINT: endpoint,
        },
        stdio: 'ignore',
      });
      children.push({ spec, child });
    }
    await Promise.all(children.map((c) => ready(c.spec, c.child)));
  } catch (err) {
    await Promise.all(children.map((c) => stop(c.child)));
    throw err;
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  return {
    side,
    stack,
    services: children.map((c) => ({ name: c.spec.name, pid: c.child.pid ?? -1 })),
    post: gatewayPoster(stack.ctx.ports.gateway, stack.token, agent),
    stop: async () => {
      agent.destroy();
      await Promise.all(children.map((c) => stop(c.child)));
    },
  };
}

/** POSTs `rate` events/s to every pipeline at once for `seconds`; ids `<stack>-<prefix>-<n>`. */
async function offerAll(pipelines: readonly Hops[], prefix: string, rate: number, seconds: number) {
  let failed = 0;
  const sent = await offer(
    prefix,
    async (id) => {
      for (const status of await Promise.all(
        pipelines.map((p) =>
          p.post(
            JSON.stringify({
              event_id: `${p.stack.label}-${id}`,
              content_name: 'Shoe',
              content_type: 'product',
            }),
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

/** Waits until `count` webhooks of each key arrived (or DRAIN_MS passed). */
async function drain(arrived: Map<string, number>, keys: readonly string[], count: number): Promise<boolean> {
  const deadline = Date.now() + DRAIN_MS;
  const done = () => keys.every((k) => (arrived.get(k) ?? 0) >= count);
  while (Date.now() < deadline && !done()) await sleep(50);
  return done();
}

/** Each side's CPU ms per hop and events, summed over the rounds. */
type Totals = Record<Side, { cpu: Map<string, number>; events: number }>;

export const suite: BenchSuite = {
  name: 'tracing: gateway, store and forward CPU per event, tracing at the default ratio vs off (same run)',
  async run({ quick }): Promise<BenchFigure[]> {
    const { rate, seconds, warmup, rounds } = quick
      ? { rate: 100, seconds: 1, warmup: 0, rounds: 2 }
      : {
          rate: Number(env['BENCH_TRACING_RATE'] ?? 300),
          seconds: Number(env['BENCH_TRACING_SECONDS'] ?? 15),
          warmup: Number(env['BENCH_TRACING_WARMUP_SECONDS'] ?? 5),
          // Even: each environment is each side as often.
          rounds: 2 * Math.max(1, Math.round(Number(env['BENCH_TRACING_ROUNDS'] ?? 4) / 2)),
        };
    // Webhook arrivals by `<stack>-<round>-<phase>`, each event counted once (a redelivery is not).
    const arrived = new Map<string, number>();
    const seen = new Set<string>();
    const { receiver, destination } = await startWebhookReceiver((eventId) => {
      if (seen.has(eventId)) return;
      seen.add(eventId);
      const key = eventId.slice(0, eventId.lastIndexOf('-'));
      arrived.set(key, (arrived.get(key) ?? 0) + 1);
    });
    const settings: Settings = {
      ...webhookSettings(destination),
      // One producer sends the whole offered rate: its credential's limit must not be what is measured.
      tokens: { rate_limit_per_second: 1_000_000, burst: 1_000_000 },
    };
    const stacks: Stack[] = [];
    let running: Hops[] = [];
    const totals: Totals = { off: { cpu: new Map(), events: 0 }, on: { cpu: new Map(), events: 0 } };
    const roundText: string[] = [];
    let spans = 0;
    try {
      stacks.push(await startStack('a', settings, receiver));
      stacks.push(await startStack('b', settings, receiver));
      for (let round = 0; round < rounds; round++) {
        const sides: readonly Side[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        running = await Promise.all(stacks.map((s, i) => startHops(s, sides[i] as Side, receiver.url)));
        const keys = (phase: string) => stacks.map((s) => `${s.label}-${round}${phase}`);
        if (warmup > 0) {
          const n = await offerAll(running, `${round}warm`, rate, warmup);
          await drain(arrived, keys('warm'), n);
          await sleep(500);
        }
        const before = running.map((h) => childCpu(h.services));
        const spansBefore = receiver.traces.taken();
        const sent = await offerAll(running, `${round}run`, rate, seconds);
        const drained = await drain(arrived, keys('run'), sent);
        // The ledger row is written after the webhook answered: let the last ones finish.
        await sleep(1000);
        spans += receiver.traces.taken() - spansBefore;
        // This round's CPU ms per hop on each side, added to the totals and shown as its ratio.
        const roundCpu: Record<Side, Map<string, number>> = { off: new Map(), on: new Map() };
        for (const [i, h] of running.entries()) {
          const after = childCpu(h.services);
          const side = totals[h.side];
          side.events += sent;
          for (const name of HOPS) {
            const ms = (after.get(name) ?? Number.NaN) - (before[i]?.get(name) ?? Number.NaN);
            roundCpu[h.side].set(name, ms);
            side.cpu.set(name, (side.cpu.get(name) ?? 0) + ms);
          }
        }
        const roundRatios = HOPS.map(
          (name) =>
            `${name} ${((roundCpu.on.get(name) ?? Number.NaN) / (roundCpu.off.get(name) ?? Number.NaN)).toFixed(2)}x`,
        ).join(' ');
        roundText.push(
          `round ${round + 1}: ${running.map((h) => `${h.stack.label} ${h.side}`).join(', ')}, ${sent} events to each${drained ? '' : ' (NOT all arrived within 30 s)'}, on/off ${roundRatios}`,
        );
        await Promise.all(running.map((h) => h.stop()));
        running = [];
      }
      const perEvent = (side: Side, name: string) =>
        ((totals[side].cpu.get(name) ?? Number.NaN) * 1000) / totals[side].events;
      return HOPS.map((name) => ({
        name: `${name} CPU per event, tracing at the default ratio (0.01), exported over OTLP/HTTP`,
        value: perEvent('on', name),
        unit: 'µs',
        baseline: {
          name: 'the same, tracing off (tracing.enabled: false), at the same time',
          value: perEvent('off', name),
        },
        target: { op: '<=', value: 1.1, of: 'ratio', hard: true },
        detail: `${env['BENCH_TRACING_AA'] ? 'A/A run (tracing off on both sides); ' : ''}${tracedHops ? `traced on the traced side: ${tracedHops.join(', ')} only; ` : ''}two environments offered ${rate} events/s each at once for ${seconds} s a round${warmup > 0 ? ` after a ${warmup} s warm-up` : ''}, the sides swapped between rounds (${roundText.join('; ')}); spans the loopback OTLP receiver took: ${spans}`,
      }));
    } finally {
      await Promise.all(running.map((h) => h.stop()));
      for (const s of stacks) {
        await s.local.stop();
        rmSync(s.ctx.dataDir, { recursive: true, force: true });
      }
      await receiver.close();
    }
  },
};

if (import.meta.main) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
