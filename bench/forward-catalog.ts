/**
 * forward-catalog beside forward (issue #65): cold start and CPU per delivery of each built
 * bundle under the real functions framework, pushed Pub/Sub push bodies on loopback. The
 * catalogue destination is Klaviyo's trackEvent with `base_url` on a capturing loopback server
 * (the contract's rewrite: `https://a.klaviyo.com/...` → `<base_url>/a.klaviyo.com/...`), so
 * every delivery makes the request the action builds; forward's is a signed webhook to the same
 * server. The same server fakes Cloud Storage (no erased list); the ledger is written to the
 * BigQuery emulator, in this process, through the Storage Write API as in production. And forward's own figures with and without a catalogue destination in its settings:
 * the catalogue costs forward nothing.
 *
 * Cold start: `require` of the bundle in a fresh node (as bench/bundles.ts), and a fresh process's
 * start until its first delivery is answered, which for forward-catalog includes loading
 * actions-core and the destination's module. Skipped, saying so, while
 * functions/forward-catalog/index.ts does not exist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deliveryMessage } from '../core/delivery/message.ts';
import { CATALOG_ENTRY_POINT, isCatalogDestination } from '../core/deploy/catalog-function.ts';
import type { StoredEvent } from '../core/event.ts';
import { plan } from '../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../emulators/bigquery/server.ts';
import { provision } from '../local/provision.ts';
import type { Destination, Settings } from '../schemas/settings.ts';
import {
  BUNDLES,
  buildBundles,
  catalogBundle,
  linkFramework,
  REPO_ROOT,
} from '../scripts/build-functions.ts';
import { FRAMEWORK_CLI, freePort, type Running, startAndProbe } from '../test/infra/support-bundles.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';
import { processCpuMs } from './proc-cpu.ts';

const CATALOG_ENTRY = 'functions/forward-catalog/index.ts';

/** The loopback server: captures the destinations' requests, answers the ledger and the registry. */
interface Loopback {
  readonly server: Server;
  readonly url: string;
  /** The BigQuery emulator the ledger is written to (its origin). */
  readonly bigquery: string;
  /** Requests per first path segment (the original host under `base_url`, or `hook`). */
  readonly hits: Map<string, number>;
}

function loopback(bigquery: string): Promise<Loopback> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '/';
      // Cloud Storage's JSON API (the registry's objects, the erased list): nothing exists.
      if (url.startsWith('/b/') || url.includes('/storage/v1/')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":404,"message":"No such object"}}');
        return;
      }
      const first = url.split('/')[2] ?? '';
      hits.set(first, (hits.get(first) ?? 0) + 1);
      // Klaviyo's Create Event answers 202 with no body; the webhook 200.
      res.writeHead(first === 'hook' ? 200 : 202).end();
    });
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () =>
      r({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bigquery, hits }),
    ),
  );
}

/**
 * The BigQuery emulator with the bench environment's dataset provisioned: the functions write their
 * ledger rows to it through the Storage Write API (gRPC), which a plain HTTP stand-in cannot answer.
 */
async function ledgerWarehouse(dataDir: string): Promise<BigQueryEmulator> {
  mkdirSync(dataDir, { recursive: true });
  const emulator = await startBigQueryEmulator({ port: 0, dataDir });
  await provision(plan(settingsOf('http://127.0.0.1:9', false)), {
    project: 'bench-project',
    bigquery: emulator.url,
    functionUrl: () => 'http://127.0.0.1:9/',
  });
  return emulator;
}

const destinations = (base: string): Destination[] => [
  {
    id: 'hook',
    type: 'webhook',
    base_url: `${base}/x/hook`,
    config: { path: '/events' },
    secrets: { signing_key: 'BENCH_HOOK_KEY' },
    consent: [],
  },
  {
    id: 'klaviyo',
    type: 'segment_action',
    destination: 'klaviyo',
    base_url: `${base}/standin`,
    secrets: { api_key: 'BENCH_KLAVIYO_KEY' },
    actions: [
      {
        action: 'trackEvent',
        mapping: {
          profile: { email: { '@path': '$.context.traits.email' } },
          value: { '@path': '$.properties.total' },
          // One request per delivery, as forward's webhook beside it: Klaviyo's trackEvent batches
          // by default (adapters/segment-actions/batches.ts), which would make the stand-in count
          // requests, not deliveries, and the CPU figures incomparable.
          enable_batching: false,
        },
      },
    ],
  },
];

const settingsOf = (base: string, catalog: boolean): Settings => ({
  name: 'bench',
  project: 'bench-project',
  region: 'europe-west1',
  destinations: destinations(base).filter((d) => catalog || !isCatalogDestination(d)),
});

/** A push of one purchase to a destination, as Pub/Sub delivers it; each with its own event id. */
function pushBody(destination: string, n: number): string {
  const event: StoredEvent = {
    event_name: 'purchase',
    event_id: `bench-${destination}-${n}`,
    event_time: new Date().toISOString(),
    user_id: `u-${n}`,
    user: { email: `person${n}@example.com` },
    consent: { analytics: 'granted', ads: 'granted' },
    event_data: { value: 49.9, currency: 'EUR', transaction_id: `o-${n}` },
  };
  // The usual delivery: the event's first fan-out, just published, which sends on store's claim
  // (core/claims/send-once.ts): no claim of its own to take.
  const now = Date.now();
  const m = deliveryMessage(event, destination, false, false, { first: true, at: now });
  return JSON.stringify({
    message: {
      data: Buffer.from(m.data).toString('base64'),
      attributes: m.attributes,
      messageId: `m-${n}`,
      publishTime: new Date(now).toISOString(),
    },
    subscription: `projects/bench-project/subscriptions/deliveries-${destination}`,
    deliveryAttempt: 1,
  });
}

/** Pushes `count` deliveries, `concurrency` at a time; throws on an answer that is not 2xx. */
async function pushAll(url: string, destination: string, from: number, count: number, concurrency: number) {
  let next = from;
  const worker = async () => {
    while (next < from + count) {
      const n = next++;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: pushBody(destination, n),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`push ${n} to ${destination}: ${res.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The function in `dir` under the framework CLI, with the bench's settings and loopback endpoints. */
async function serve(dir: string, target: string, settings: Settings, lb: Loopback): Promise<Running> {
  const base = lb.url;
  const port = await freePort();
  return startAndProbe([FRAMEWORK_CLI, `--target=${target}`, '--signature-type=http', `--port=${port}`], {
    cwd: dir,
    env: {
      NODE_ENV: 'production',
      EVENTBUS_SETTINGS: JSON.stringify(settings),
      GOOGLE_CLOUD_PROJECT: settings.project,
      METADATA_SERVER_DETECTION: 'none',
      BIGQUERY_EMULATOR_HOST: lb.bigquery,
      STORAGE_EMULATOR_HOST: base,
      PUBSUB_EMULATOR_HOST: '127.0.0.1:9',
      // The claims: never asked on this path; were they, the loopback stand-in answers.
      FIRESTORE_EMULATOR_HOST: new URL(base).host,
      // The bench's stand-in, named to the egress gate as the supervisor names the receiver.
      EVENTBUS_EGRESS_ALLOW: new URL(base).origin,
      BENCH_HOOK_KEY: 'bench-signing-key-0123456789abcdef',
      BENCH_KLAVIYO_KEY: 'pk_bench',
    },
    port,
    tcp: true,
    timeoutMs: 30_000,
  });
}

/** ms from spawning the function to its first delivery answered (a fresh process each run). */
async function firstDeliveryMs(
  dir: string,
  target: string,
  settings: Settings,
  lb: Loopback,
  destination: string,
) {
  const t0 = performance.now();
  const running = await serve(dir, target, settings, lb);
  try {
    await pushAll(running.url, destination, 0, 1, 1);
    return performance.now() - t0;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${running.output()}`);
  } finally {
    await running.stop();
  }
}

/** CPU ms per delivery of the function's process over `count` pushes, after a warm-up. */
async function cpuPerDelivery(
  dir: string,
  target: string,
  settings: Settings,
  lb: Loopback,
  destination: string,
  count: number,
): Promise<number> {
  const running = await serve(dir, target, settings, lb);
  try {
    await pushAll(running.url, destination, 0, Math.max(20, count / 5), 20);
    const before = processCpuMs(running.child.pid);
    await pushAll(running.url, destination, 100_000, count, 20);
    const after = processCpuMs(running.child.pid);
    return ((after ?? Number.NaN) - (before ?? Number.NaN)) / count;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${running.output()}`);
  } finally {
    await running.stop();
  }
}

/** `require` of a bundle in a fresh node, in ms (the module's own load, not Node's start). */
function loadMs(main: string, settings: Settings): number {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      'const t=process.hrtime.bigint();require(process.argv[1]);process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6));process.exit(0)',
      main,
    ],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        NODE_ENV: 'production',
        EVENTBUS_SETTINGS: JSON.stringify(settings),
        GOOGLE_CLOUD_PROJECT: settings.project,
        METADATA_SERVER_DETECTION: 'none',
      },
      timeout: 20_000,
    },
  );
  return Number(out.toString());
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const repeat = <T>(n: number, f: () => T): T[] => Array.from({ length: n }, f);

export const suite: BenchSuite = {
  name: 'forward-catalog: cold start and CPU per delivery beside forward',
  async run({ quick }): Promise<BenchFigure[]> {
    const runs = quick ? 1 : 5;
    const deliveries = quick ? 100 : 3000;
    const out = mkdtempSync(join(tmpdir(), 'eventbus-bench-catalog-'));
    const bq = await ledgerWarehouse(join(out, 'bigquery'));
    const lb = await loopback(bq.url);
    try {
      const present = existsSync(join(REPO_ROOT, CATALOG_ENTRY));
      if (!present) console.log(`  (${CATALOG_ENTRY} does not exist yet: forward's figures only)`);
      const specs = [
        ...BUNDLES.filter((b) => b.name === 'forward'),
        ...(present ? [catalogBundle(['klaviyo'])] : []),
      ];
      const manifest = await buildBundles({ specs, outDir: out });
      const dirOf = (name: string) => resolve(REPO_ROOT, manifest[name]?.dir ?? '');
      for (const s of specs) linkFramework(dirOf(s.name));
      const forwardDir = dirOf('forward');
      const forwardMain = join(forwardDir, 'index.js');
      const plain = settingsOf(lb.url, false);
      const withCatalog = settingsOf(lb.url, true);
      const figures: BenchFigure[] = [];

      const forwardLoad = median(repeat(runs, () => loadMs(forwardMain, plain)));
      const forwardFirst = median(
        await sequential(runs, () => firstDeliveryMs(forwardDir, 'forward', plain, lb, 'hook')),
      );
      const forwardCpu = await cpuPerDelivery(forwardDir, 'forward', plain, lb, 'hook', deliveries);
      const forwardCpuCatalog = await cpuPerDelivery(
        forwardDir,
        'forward',
        withCatalog,
        lb,
        'hook',
        deliveries,
      );
      figures.push({
        name: 'forward CPU per delivery (webhook), a catalogue destination in the settings',
        value: forwardCpuCatalog,
        unit: 'ms',
        baseline: { name: 'the same without a catalogue destination', value: forwardCpu },
        target: { op: '<=', value: 1.15, of: 'ratio' },
        detail: `forward's bundle is the same either way (${manifest['forward']?.object}, ${((manifest['forward']?.bytes ?? 0) / 1024).toFixed(0)} KiB: no Segment code); ${deliveries} pushes, 20 at a time, under the real functions framework; ${lb.hits.get('hook') ?? 0} webhook requests received`,
      });

      if (present) {
        const built = manifest['forward-catalog'];
        const dir = dirOf('forward-catalog');
        const catalogLoad = median(repeat(runs, () => loadMs(join(dir, 'index.js'), withCatalog)));
        figures.push({
          name: 'forward-catalog bundle load (require in a fresh node)',
          value: catalogLoad,
          unit: 'ms',
          baseline: { name: 'forward bundle load', value: forwardLoad },
          target: { op: '<=', value: 150 },
          detail: `archive ${((built?.bytes ?? 0) / 1024).toFixed(0)} KiB carrying ${built?.segmentDestinations?.join(', ')} (actions-core installed beside it, loaded at the first delivery); median of ${runs}`,
        });
        const catalogFirst = median(
          await sequential(runs, () => firstDeliveryMs(dir, CATALOG_ENTRY_POINT, withCatalog, lb, 'klaviyo')),
        );
        figures.push({
          name: 'forward-catalog start until its first delivery is answered (fresh process)',
          value: catalogFirst,
          unit: 'ms',
          baseline: { name: 'forward, the same', value: forwardFirst },
          detail: `includes Node's start, the framework, loading actions-core and Klaviyo's module, the action's request to the loopback server and the ledger write; median of ${runs}`,
        });
        const before = lb.hits.get('a.klaviyo.com') ?? 0;
        const catalogCpu = await cpuPerDelivery(
          dir,
          CATALOG_ENTRY_POINT,
          withCatalog,
          lb,
          'klaviyo',
          deliveries,
        );
        const sent = (lb.hits.get('a.klaviyo.com') ?? 0) - before;
        if (sent < deliveries)
          throw new Error(`only ${sent} of ${deliveries}+ deliveries reached the Klaviyo stand-in`);
        figures.push({
          name: 'forward-catalog CPU per delivery (Klaviyo trackEvent)',
          value: catalogCpu,
          unit: 'ms',
          baseline: { name: 'forward per delivery (webhook)', value: forwardCpu },
          detail: `${deliveries} pushes, 20 at a time; ${sent} requests reached a.klaviyo.com under base_url; core/deploy/catalog-function.ts's CATALOG_CPU_SECONDS is the model's figure`,
        });
      }
      return figures;
    } finally {
      lb.server.close();
      await bq.close();
      rmSync(out, { recursive: true, force: true });
    }
  },
};

/** Runs `f` `n` times, one after the other (a cold start must not share the machine with another). */
async function sequential<T>(n: number, f: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

if (import.meta.main) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
