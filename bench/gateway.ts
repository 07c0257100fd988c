/**
 * Gateway benchmark (issue 4 §5): single-event POSTs over keep-alive with a project token,
 * validation and an acknowledged publish to the Pub/Sub emulator, beside a bare node:http
 * server measured in the same run (ratio), and 1000-event batches in events/s. The gateway and
 * the emulators run as `npm start` runs them (local/services.ts: provisioned, the registry bucket
 * included, which the gateway reads its definitions from); they and the bare server each run in
 * their own process so autocannon does not share their event loop.
 * Compared loads run in turns (4 rounds each, see inTurns), so a drifting machine slows both.
 * Env: BENCH_GATEWAY_PROFILE=<dir> writes the gateway's CPU profile there.
 * BENCH_GATEWAY_VARIANT="NAME=value …" also runs the single-event and batch loads against a second
 * gateway started with those variables (e.g. EVENTBUS_PUBLISH_HOLD_MS=0), in the same turns: a setting
 * compared on the same machine in the same minutes, which consecutive runs cannot do here.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublisher } from '../adapters/publisher.ts';
import { createRefusalRecorder } from '../adapters/refusal-recorder.ts';
import { INTERACTIVE_TOKEN_DAYS, issueToken } from '../gateway/credentials.ts';
import { fileTokenStore } from '../gateway/token-store.ts';
import { emulatorPubSub } from '../local/provision.ts';
import { environmentOf, gateway, receiver, type ServiceFactory } from '../local/services.ts';
import { type LocalEnvironment, startEnvironment } from '../local/supervisor.ts';
import { autocannon, type CannonResult, start, stop } from './child.ts';
import { stageCosts, stageFigures } from './gateway-stages.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';
import { processCpuMs } from './proc-cpu.ts';

const PROJECT = 'bench-project';
const DURATION = 8;
const event = (i = 0) => ({
  event_name: 'view_content',
  content_name: `Red Shoe ${i}`,
  content_type: 'product',
  value: 49.9,
  currency: 'EUR',
  user_id: `u${i}`,
  page: { url: 'https://shop.example/p/1' },
  consent: { analytics: 'granted' },
});

const cpuText = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([k, us]) => `${k} ${us.toFixed(0)}`)
    .join(', ');

/** One load to measure: where it goes, what it sends, whose CPU counts. */
interface Load {
  readonly url: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly connections: number;
  readonly pids?: Record<string, number | undefined>;
  /** The status every answer must have (refused requests: 401). */
  readonly expect?: number;
}

interface Measured {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly cpu: string;
  readonly cpuUs: Record<string, number>;
}

const optionsOf = (load: Load) => ({
  url: load.url,
  method: 'POST',
  body: load.body,
  headers: { 'content-type': 'application/json', ...load.headers },
  connections: load.connections,
});

/** CPU used so far (µs) by each process of a load, and by this one (autocannon). */
function sampleCpu(load: Load): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, pid] of Object.entries(load.pids ?? {})) out[k] = (processCpuMs(pid) ?? Number.NaN) * 1000;
  const self = process.cpuUsage();
  out['bench (autocannon)'] = self.user + self.system;
  return out;
}

/** One stretch of a load; every answer must have the expected status. */
async function stretch(load: Load, seconds: number): Promise<CannonResult & { cpu: Record<string, number> }> {
  const before = sampleCpu(load);
  const r = await autocannon({ ...optionsOf(load), duration: seconds });
  const after = sampleCpu(load);
  const expect = load.expect ?? 200;
  const others = Object.keys(r.statusCodeStats ?? {}).filter((code) => code !== String(expect));
  if ((expect === 200 && r.non2xx > 0) || others.length > 0 || r.errors > 0) {
    const failed = await fetch(load.url, {
      method: 'POST',
      body: load.body,
      headers: optionsOf(load).headers,
    });
    throw new Error(
      `${load.url}: ${r.non2xx} non-2xx answers (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors; e.g. ${failed.status} ${(await failed.text()).slice(0, 300)}`,
    );
  }
  const cpu = Object.fromEntries(
    Object.keys(after).map((k) => [k, (after[k] as number) - (before[k] as number)]),
  );
  return { ...r, cpu };
}

/**
 * Loads measured in turns: after a warm-up of each, `rounds` rounds in which each load runs for
 * its share of `timing.seconds`, one after the other. A machine whose speed drifts (other
 * tenants, CPU steal) then slows every load alike, so their ratio holds; one long run of each
 * compared a fast minute with a slow one. Rates and CPU are over all rounds; p50 is the median
 * of the rounds' and p99 the highest.
 */
async function inTurns(
  loads: readonly Load[],
  timing: { readonly warmup: number; readonly seconds: number; readonly rounds: number },
): Promise<Measured[]> {
  for (const load of loads) await autocannon({ ...optionsOf(load), duration: timing.warmup }); // JIT, pools, the emulator's log
  const runs = loads.map(() => [] as Awaited<ReturnType<typeof stretch>>[]);
  for (let round = 0; round < timing.rounds; round++)
    for (const [i, load] of loads.entries())
      runs[i]?.push(await stretch(load, timing.seconds / timing.rounds));
  return runs.map((rs) => {
    const total = rs.reduce((n, r) => n + r.requests.total, 0);
    const cpuUs: Record<string, number> = {};
    for (const r of rs)
      for (const [k, us] of Object.entries(r.cpu) as [string, number][])
        cpuUs[k] = (cpuUs[k] ?? 0) + us / total;
    const p50s = rs.map((r) => r.latency.p50).sort((x, y) => x - y);
    return {
      requests: { total, average: total / timing.seconds },
      latency: { p50: p50s[p50s.length >> 1] ?? Number.NaN, p99: Math.max(...rs.map((r) => r.latency.p99)) },
      cpu: cpuText(cpuUs),
      cpuUs,
    };
  });
}

export const suite: BenchSuite = {
  name: 'gateway: auth + validation + acknowledged publish to the Pub/Sub emulator',
  async run({ quick }): Promise<BenchFigure[]> {
    const timing = quick
      ? { warmup: 0.25, seconds: 0.75, rounds: 1 }
      : { warmup: 2, seconds: DURATION, rounds: 4 };
    const dir = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
    let local: LocalEnvironment | undefined;
    let bare: { child: ChildProcess; url: string } | undefined;
    let unrecorded: { child: ChildProcess; url: string } | undefined;
    let variant: { child: ChildProcess; url: string } | undefined;
    const variantEnv = parseVariant(process.env['BENCH_GATEWAY_VARIANT']);
    const settings = { name: 'bench', project: PROJECT, region: 'europe-west1' };
    let gatewayEnv: Record<string, string> = {};
    try {
      // A token whose rate limit is not what is measured, in the store the gateway reads. It
      // expires as one the studio makes does (INTERACTIVE_TOKEN_DAYS): the gateway checks a
      // token's expiry on every request, so a token without one measured less than most cost.
      const store = fileTokenStore(join(dir, 'tokens.json'));
      const token = await store.update((set) => {
        const now = new Date();
        const expiresAt = new Date(now.getTime() + INTERACTIVE_TOKEN_DAYS * 86_400_000);
        const r = issueToken(
          set,
          { scopes: ['publish:*'], rateLimitPerSecond: 1e9, expiresAt },
          randomBytes,
          now,
        );
        return { set: r.set, result: r.secret };
      });
      // As `npm start` runs it: the emulators provisioned from the plan (the events topic, the
      // registry bucket the gateway reads its definitions from), the receiver its sampled
      // requests' spans go to (EVENTBUS_TRACE_ENDPOINT), then the gateway. Without the receiver
      // every export was refused and retried, ~6 % of the gateway's CPU spent on connection errors
      // that a deployed gateway, exporting to Cloud Trace, never meets.
      const prof = process.env['BENCH_GATEWAY_PROFILE'];
      const profiled: ServiceFactory = (ctx) => {
        const spec = gateway(ctx);
        gatewayEnv = spec.env;
        return prof ? { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${prof}`, ...spec.args] } : spec;
      };
      local = await startEnvironment({
        settings,
        dataDir: dir,
        freePorts: true,
        services: environmentOf([receiver, profiled]),
        baseEnv: { ...process.env, METADATA_SERVER_DETECTION: 'none' },
        log: () => {},
      });
      // The plan's subscriptions push to functions this suite does not run: the emulator's
      // delivery attempts to them would take CPU from the publishing measured here.
      const pubsub = emulatorPubSub(PROJECT, `127.0.0.1:${local.ports.pubsub}`);
      const [subscriptions] = await pubsub.getSubscriptions();
      await Promise.all(subscriptions.map((sub) => sub.delete()));
      await pubsub.close();
      const pid = (name: string) => local?.services.find((x) => x.name === name)?.pid;
      bare = await start(['bench/gateway.ts', 'bare']);

      const auth = { authorization: `Bearer ${token}` };
      const single = JSON.stringify(event());
      const gw = `http://127.0.0.1:${local.ports.gateway}`;
      const pids = { gateway: pid('gateway'), emulator: pid('pubsub') };
      if (variantEnv) variant = await start(['gateway/main.ts'], { ...gatewayEnv, PORT: '0', ...variantEnv });
      // The gate's pair, in turns: the bare server and the gateway (and the variant, if any).
      const [b, s, v] = (await inTurns(
        [
          {
            url: `${bare.url}/v1/topics/events`,
            body: single,
            headers: auth,
            connections: 50,
            pids: { bare: bare.child.pid },
          },
          { url: `${gw}/v1/topics/events`, body: single, headers: auth, connections: 50, pids },
          ...(variant
            ? [
                {
                  url: `${variant.url}/v1/topics/events`,
                  body: single,
                  headers: auth,
                  connections: 50,
                  pids: { gateway: variant.child.pid, emulator: pid('pubsub') },
                },
              ]
            : []),
        ],
        timing,
      )) as [Measured, Measured, Measured?];
      const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => event(i)));
      const batches = (url: string, batchPids: Record<string, number | undefined>): Load => ({
        url: `${url}/v1/topics/events`,
        body: batch,
        headers: auth,
        connections: 4,
        pids: batchPids,
      });
      const [m, vm] = (await inTurns(
        [
          batches(gw, pids),
          ...(variant ? [batches(variant.url, { gateway: variant.child.pid, emulator: pid('pubsub') })] : []),
        ],
        timing,
      )) as [Measured, Measured?];
      if (variant) await stop(variant.child);
      // Live events: refused requests (a made-up token, 401) with refusal records on (the
      // environment's gateway) and off (a second gateway on the same emulators), in turns.
      unrecorded = await start(['gateway/main.ts'], {
        ...gatewayEnv,
        PORT: '0',
        EVENTBUS_LIVE_EVENTS: 'off',
      });
      const wrong = { authorization: 'Bearer ebt_not-a-token-000000000000000000000' };
      const refused = (url: string, refusedPids: Record<string, number | undefined>): Load => ({
        url: `${url}/v1/topics/events`,
        body: single,
        headers: wrong,
        connections: 50,
        pids: refusedPids,
        expect: 401,
      });
      const [refusedOn, refusedOff] = (await inTurns(
        [refused(gw, pids), refused(unrecorded.url, { gateway: unrecorded.child.pid })],
        timing,
      )) as [Measured, Measured];
      const raw = await rawPublishRate(
        `http://127.0.0.1:${local.ports.pubsub}`,
        Buffer.from(JSON.stringify({ ...event(), event_id: 'x'.repeat(36) })),
        timing.seconds,
      );
      const gatewayUs = s.cpuUs['gateway'] ?? Number.NaN;
      const stages = await stageCosts(store, token, single, settings, quick ? 2_000 : 50_000);
      const compared: BenchFigure[] = v
        ? [
            {
              name: `single-event POST, the gateway with ${process.env['BENCH_GATEWAY_VARIANT']}`,
              value: v.requests.average,
              unit: 'req/s',
              baseline: { name: 'the gateway as configured, in the same turns', value: s.requests.average },
              detail: `p50 ${v.latency.p50} ms, p99 ${v.latency.p99} ms; CPU µs/request: ${v.cpu}`,
            },
            ...(vm
              ? [
                  {
                    name: `1000-event batches, the gateway with ${process.env['BENCH_GATEWAY_VARIANT']}`,
                    value: vm.requests.average * 1000,
                    unit: 'events/s',
                    baseline: {
                      name: 'the gateway as configured, in the same turns',
                      value: m.requests.average * 1000,
                    },
                    detail: `p50 ${vm.latency.p50} ms, p99 ${vm.latency.p99} ms; CPU µs/request: ${vm.cpu}`,
                  },
                ]
              : []),
          ]
        : [];
      return [
        ...compared,
        {
          name: 'single-event POST, 50 keep-alive connections (token, validation, acknowledged publish)',
          value: s.requests.average,
          unit: 'req/s',
          baseline: { name: 'bare node:http (read body, JSON.parse, answer)', value: b.requests.average },
          target: { op: '>=', value: 0.35, of: 'ratio', hard: true },
          detail: `aim 0.5x; gateway p50 ${s.latency.p50} ms, p99 ${s.latency.p99} ms; bare p50 ${b.latency.p50} ms, p99 ${b.latency.p99} ms; CPU µs/request: ${s.cpu}; bare run: ${b.cpu}`,
        },
        {
          name: 'gateway CPU per single-event POST',
          value: gatewayUs,
          unit: 'µs',
          baseline: { name: 'bare node:http', value: b.cpuUs['bare'] ?? Number.NaN },
          target: { op: '<=', value: 60, hard: true },
          hopCpu: { hop: 'gateway', secondsPerRequest: gatewayUs / 1e6 },
          detail: 'the gateway process alone (/proc), not the Pub/Sub emulator it publishes to',
        },
        ...stageFigures(stages, s.cpuUs, b.cpuUs),
        {
          name: '1000-event batches, 4 connections',
          value: m.requests.average * 1000,
          unit: 'events/s',
          baseline: {
            name: 'raw v1.PublisherClient alone (the gateway’s publisher: no HTTP, no validation), 1000-message calls',
            value: raw,
          },
          target: { op: '>=', value: 100_000, hard: true },
          detail: `${m.requests.average.toFixed(1)} req/s, p50 ${m.latency.p50} ms, p99 ${m.latency.p99} ms, ${(Buffer.byteLength(batch) / 1024).toFixed(0)} KiB per request; CPU µs/request: ${m.cpu}`,
        },
        {
          name: 'refused requests (401), 50 connections, refusal records for live events on',
          value: refusedOn.requests.average,
          unit: 'req/s',
          baseline: {
            name: 'the same gateway with EVENTBUS_LIVE_EVENTS=off',
            value: refusedOff.requests.average,
          },
          target: { op: '>=', value: 0.9, of: 'ratio' },
          detail: `CPU µs/request on: ${refusedOn.cpu}; off: ${refusedOff.cpu}; the recorder alone: ${recordCost()}`,
        },
      ];
    } finally {
      if (bare) await stop(bare.child);
      if (unrecorded) await stop(unrecorded.child);
      if (variant) await stop(variant.child);
      await local?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** `NAME=value NAME2=value2` (BENCH_GATEWAY_VARIANT) as an environment; undefined when unset. */
export function parseVariant(text: string | undefined): Record<string, string> | undefined {
  if (!text?.trim()) return undefined;
  const env: Record<string, string> = {};
  for (const pair of text.trim().split(/\s+/)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_GATEWAY_VARIANT: "${pair}" is not NAME=value`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** The recorder's own cost per refusal, in process (one kind flooding, then every one a new kind). */
function recordCost(): string {
  const recorder = createRefusalRecorder({ insertAll: async () => [], flushMs: 60_000 });
  const refusal = (credential: string) => ({
    status: 401,
    code: 'INVALID_CREDENTIALS',
    reason: 'INVALID_CREDENTIALS',
    credential,
    path: '/v1/topics/events',
    size: 200,
  });
  const time = (n: number, credential: (i: number) => string): number => {
    const started = performance.now();
    for (let i = 0; i < n; i++) recorder.record(refusal(credential(i)));
    return ((performance.now() - started) * 1000) / n;
  };
  time(20_000, () => 'sha256:warm');
  const one = time(200_000, () => 'sha256:same');
  const many = time(200_000, (i) => `sha256:${i}`);
  void recorder.close();
  return `${one.toFixed(2)} µs per refusal of one kind, ${many.toFixed(2)} µs each of a new kind`;
}

/** What the emulator takes from the gateway's publisher client alone (no HTTP, no validation): 1000-message Publish calls, 4 at a time. */
async function rawPublishRate(emulatorUrl: string, data: Buffer, seconds: number): Promise<number> {
  const publisher = createPublisher({ project: PROJECT, emulatorHost: emulatorUrl.replace('http://', '') });
  const attributes = {
    event_name: 'view_content',
    event_id: 'x'.repeat(36),
    schema_version: '1',
    source: 'gateway',
  };
  const messages = Array.from({ length: 1000 }, () => ({ data, attributes }));
  try {
    await publisher.publish('events', messages);
    const started = performance.now();
    let sent = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (performance.now() - started < seconds * 1000) {
          await publisher.publish('events', messages);
          sent += messages.length;
        }
      }),
    );
    return sent / ((performance.now() - started) / 1000);
  } finally {
    await publisher.close();
  }
}

/** The baseline: a bare node:http server that reads the body, parses it and answers. */
function serveBare(): void {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = '{"messageIds":["1"]}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`bare server on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

if (import.meta.main) {
  if (process.argv[2] === 'bare') serveBare();
  else {
    const figures = await suite.run({ quick: process.argv.includes('--quick') });
    const { formatFigure } = await import('./lib.ts');
    for (const f of figures) console.log(formatFigure(f));
  }
}
