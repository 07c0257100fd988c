/**
 * The storage path, started for a test or a benchmark: both real emulators in-process on
 * port 0, the store function under the real functions-framework CLI (exactly as `npm start`
 * runs it, from local/services.ts), and everything provisioned from plan(settings).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FirestoreEmulator, startFirestoreEmulator } from '@eventbus/firestore-emulator/server.ts';
import type { BigQuery } from '@google-cloud/bigquery';
import type { PubSub } from '@google-cloud/pubsub';
import { type Plan, plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { type PubSubEmulator, startPubSubEmulator } from '../../emulators/pubsub/server.ts';
import { type StorageEmulator, startStorageEmulator } from '../../emulators/storage/server.ts';
import { localBundles } from '../../local/bundles.ts';
import { freePort } from '../../local/ports.ts';
import { emulatorBigQuery, emulatorPubSub, provision } from '../../local/provision.ts';
import {
  DEFAULT_PORTS,
  functionService,
  type LocalContext,
  writeSettingsFile,
} from '../../local/services.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import type { Settings } from '../../schemas/settings.ts';

// Google's clients in this process probe the GCE metadata server unless told not to (docs/google-wire.md §2);
// offline that only costs seconds and prints warnings.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

export interface StorageStack {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly bigquery: BigQuery;
  readonly pubsub: PubSub;
  readonly storeUrl: string;
  readonly bigqueryUrl: string;
  readonly pubsubHost: string;
  /** Env for a CLI child that should talk to this stack's emulators. */
  readonly env: Readonly<Record<string, string>>;
  /** Stops the BigQuery emulator (the store function then answers non-2xx). */
  stopBigQuery(): Promise<void>;
  /** Starts it again on the same port and data. */
  startBigQuery(): Promise<void>;
  /** Rows of a query, with timestamps as ISO strings. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Settings for tests: short backoffs so redeliveries happen within seconds. */
export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    name: 'storagetest',
    project: 'storage-test',
    region: 'europe-west1',
    dataset: 'events',
    location: 'EU',
    retry: { minimum_backoff: '0.2s', maximum_backoff: '1s', max_attempts: 5 },
    ...overrides,
  };
}

function waitForPort(port: number, child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`store function exited with ${child.exitCode}`));
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`store function did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Starts emulators, the store function and provisioning; `close()` undoes all of it. */
export async function startStorageStack(
  settings: Settings = testSettings(),
  options: { readonly storeEnv?: Readonly<Record<string, string>> } = {},
): Promise<StorageStack> {
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-storage-'));
  const p = plan(settings);
  let bq: BigQueryEmulator | undefined;
  let ps: PubSubEmulator | undefined;
  // The registry (event definitions) lives in Cloud Storage: store reads it for custom events.
  let gcs: StorageEmulator | undefined;
  let child: ChildProcess | undefined;
  let pubsub: PubSub | undefined;
  let fs: FirestoreEmulator | undefined;
  const cleanup = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await pubsub?.close().catch(() => undefined);
    await ps?.close().catch(() => undefined);
    await bq?.close().catch(() => undefined);
    await gcs?.close().catch(() => undefined);
    await fs?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bqDir = join(dir, 'bigquery');
    bq = await startBigQueryEmulator({ port: 0, dataDir: bqDir });
    const bqPort = bq.port;
    ps = await startPubSubEmulator({ port: 0, dataDir: join(dir, 'pubsub'), fsync: 'none' });
    const pubsubHost = `127.0.0.1:${ps.port}`;
    gcs = await startStorageEmulator({ port: 0, dataDir: join(dir, 'storage'), fsync: 'none' });
    // The claims database store writes first sightings to (core/claims/claim-store.ts).
    fs = await startFirestoreEmulator({ port: 0, dataDir: join(dir, 'firestore'), fsync: 'none' });
    const storePort = await freePort();
    mkdirSync(join(dir, 'logs'), { recursive: true });
    const ctx: LocalContext = {
      root: REPO_ROOT,
      dataDir: dir,
      logDir: join(dir, 'logs'),
      ports: {
        ...DEFAULT_PORTS,
        store: storePort,
        bigquery: bqPort,
        pubsub: ps.port,
        storage: gcs.port,
        firestore: fs.port,
      },
      settings,
      project: settings.project,
      node: process.execPath,
      // The functions run from their bundles, as `eventbus start` runs them (local/bundles.ts).
      bundles: await localBundles(REPO_ROOT, ['store'], () => {}),
    };
    writeSettingsFile(ctx);
    const spec = functionService(ctx, 'store');
    child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env, ...options.storeEnv },
      stdio: ['ignore', 'ignore', process.env['STORAGE_TEST_LOGS'] ? 'inherit' : 'ignore'],
    });
    await waitForPort(storePort, child);
    await provision(p, {
      project: settings.project,
      pubsub: pubsubHost,
      bigquery: bq.url,
      storage: gcs.url,
      firestore: fs.host,
      functionUrl: () => spec.url,
    });
    const bigquery = emulatorBigQuery(settings.project, bq.url);
    pubsub = emulatorPubSub(settings.project, pubsubHost);
    const stack: StorageStack = {
      plan: p,
      settings,
      bigquery,
      pubsub,
      storeUrl: spec.url,
      bigqueryUrl: bq.url,
      pubsubHost,
      env: {
        BIGQUERY_EMULATOR_HOST: bq.url,
        PUBSUB_EMULATOR_HOST: pubsubHost,
        // The claims database the CLI's events replay claims identities in, as store does.
        FIRESTORE_EMULATOR_HOST: fs.host,
        GOOGLE_CLOUD_PROJECT: settings.project,
        METADATA_SERVER_DETECTION: 'none',
      },
      async stopBigQuery() {
        await bq?.close();
        bq = undefined;
      },
      async startBigQuery() {
        bq = await startBigQueryEmulator({ port: bqPort, dataDir: bqDir });
      },
      async query(sql) {
        const [rows] = await bigquery.query({
          query: sql,
          defaultDataset: { projectId: settings.project, datasetId: p.dataset },
        });
        return (rows as Record<string, unknown>[]).map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [
              k,
              v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v,
            ]),
          ),
        );
      },
      close: cleanup,
    };
    return stack;
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/**
 * For one describe: the BigQuery emulator in a temp dir, the test settings' plan provisioned on
 * it (every table and view), and Google's client on it; stopped and removed after.
 */
export function provisionedBigQuery(prefix: string) {
  const settings = testSettings();
  const p = plan(settings);
  const fx = { settings, p } as { settings: Settings; p: Plan; bigquery: BigQuery; emu: BigQueryEmulator };
  let dir = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    fx.emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: fx.emu.url, functionUrl: () => '' });
    fx.bigquery = emulatorBigQuery(settings.project, fx.emu.url);
  });
  after(async () => {
    await fx.emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return fx;
}
