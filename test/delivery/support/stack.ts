/**
 * A real delivery stack for integration tests: both emulators in this process (so a test
 * can stop and restart the warehouse), the store and forward functions served by the real
 * functions-framework CLI as children (the same command line `npm start` uses), the local
 * receiver as the webhook endpoint, and everything provisioned from plan(settings).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FirestoreEmulator, startFirestoreEmulator } from '@eventbus/firestore-emulator/server.ts';
import type { BigQuery } from '@google-cloud/bigquery';
import type { PubSub } from '@google-cloud/pubsub';
import type { LedgerRow } from '../../../core/delivery/ledger.ts';
import { type Plan, plan as planOf } from '../../../core/plan.ts';
import { checkSettings, formatErrors } from '../../../core/settings.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../../emulators/bigquery/server.ts';
import { type PubSubEmulator, startPubSubEmulator } from '../../../emulators/pubsub/server.ts';
import { type StorageEmulator, startStorageEmulator } from '../../../emulators/storage/server.ts';
import { localBundles } from '../../../local/bundles.ts';
import { freePort } from '../../../local/ports.ts';
import { emulatorBigQuery, emulatorPubSub, provision } from '../../../local/provision.ts';
import { type Receiver, type ReceiverOptions, startReceiver } from '../../../local/receiver/server.ts';
import {
  functionService,
  type LocalContext,
  type ServiceSpec,
  writeSettingsFile,
} from '../../../local/services.ts';
import { REPO_ROOT } from '../../../local/settings-file.ts';
import type { Settings } from '../../../schemas/settings.ts';

export const SIGNING_KEY_NAME = 'TEST_WEBHOOK_KEY';
export const SIGNING_KEY = 'test-signing-key-0123456789';

export interface Stack {
  readonly settings: Readonly<Settings>;
  readonly plan: Plan;
  readonly receiver: Receiver;
  readonly pubsub: PubSub;
  readonly bigquery: BigQuery;
  readonly pubsubHost: string;
  readonly bigqueryUrl: string;
  /** The Cloud Storage emulator (the registry bucket). */
  readonly storageUrl: string;
  /** The Firestore emulator's host:port (the claims). */
  readonly firestoreHost: string;
  readonly dataDir: string;
  /** Publishes events on `events` as the native path does (the JSON event as message data). */
  publishEvents(events: readonly Record<string, unknown>[]): Promise<void>;
  /** Ledger rows of an event, ordered by attempt then recording time. */
  ledger(eventId: string): Promise<LedgerRow[]>;
  /** How many rows `events_dedup` has for an event id. */
  storedCount(eventId: string): Promise<number>;
  stopWarehouse(): Promise<void>;
  startWarehouse(): Promise<void>;
  close(): Promise<void>;
}

/** The settings every delivery test starts from: a signed webhook and fast retries. */
export function testSettings(extraDestinations: Settings['destinations'] = []): Settings {
  return {
    name: 'deliverytest',
    project: 'delivery-test',
    region: 'europe-west1',
    dataset: 'events',
    // Storage retries long enough to outlast a warehouse outage in the storage-first test.
    retry: { minimum_backoff: '0.1s', maximum_backoff: '0.5s', max_attempts: 50 },
    destinations: [
      {
        id: 'hook',
        type: 'webhook',
        base_url: 'http://127.0.0.1:1', // replaced by the receiver's URL
        config: { path: '/webhook' },
        secrets: { signing_key: SIGNING_KEY_NAME },
        retry: { minimum_backoff: '0.1s', maximum_backoff: '0.2s', max_attempts: 5 },
        timeout_ms: 2000,
      },
      ...(extraDestinations ?? []),
    ],
  };
}

// Google's clients probe the GCE metadata server unless told not to (docs/google-wire.md §2); they
// read this only from the environment, so the test process sets it once.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

/** What a test adds to the stack: more secret values by name, webhooks that keep their own URL. */
export interface StackExtras {
  readonly secrets?: Readonly<Record<string, string>>;
  /** Ids of webhook destinations sent to the test's own endpoint rather than the receiver. */
  readonly ownEndpoints?: readonly string[];
}

export async function startStack(
  base: Settings,
  respond?: ReceiverOptions['respond'],
  extras: StackExtras = {},
): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'eventbus-delivery-'));
  const secretsDir = join(dataDir, 'secrets');
  mkdirSync(secretsDir);
  writeFileSync(join(secretsDir, SIGNING_KEY_NAME), `${SIGNING_KEY}\n`);
  for (const [name, value] of Object.entries(extras.secrets ?? {}))
    writeFileSync(join(secretsDir, name), `${value}\n`);
  const own = (d: { readonly id: string }) => extras.ownEndpoints?.includes(d.id) === true;
  const children: ChildProcess[] = [];
  let ps: PubSubEmulator | undefined;
  let bq: BigQueryEmulator | undefined;
  // The registry (event definitions) lives in Cloud Storage: store reads it for custom events.
  let gcs: StorageEmulator | undefined;
  let fs: FirestoreEmulator | undefined;
  let receiver: Receiver | undefined;
  let pubsub: PubSub | undefined;
  const cleanup = async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    await pubsub?.close().catch(() => {});
    await receiver?.close();
    await ps?.close();
    await bq?.close().catch(() => {});
    await gcs?.close().catch(() => {});
    await fs?.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    ps = await startPubSubEmulator({ port: 0, dataDir: join(dataDir, 'pubsub'), fsync: 'none' });
    bq = await startBigQueryEmulator({ port: 0, dataDir: join(dataDir, 'bigquery') });
    const bqPort = bq.port;
    gcs = await startStorageEmulator({ port: 0, dataDir: join(dataDir, 'storage'), fsync: 'none' });
    // The claims database: store's first sightings, forward's send-once claims.
    fs = await startFirestoreEmulator({ port: 0, dataDir: join(dataDir, 'firestore'), fsync: 'none' });
    receiver = await startReceiver({
      webhooks: [],
      signingKey: async () => SIGNING_KEY,
      ...(respond ? { respond } : {}),
    });
    const withUrls: Settings = {
      ...base,
      destinations: (base.destinations ?? []).map((d) =>
        d.type === 'webhook' && !own(d) ? { ...d, base_url: receiver?.url as string } : d,
      ),
    };
    const checked = checkSettings(withUrls);
    if (!checked.ok) throw new Error(formatErrors(checked.errors));
    const settings = checked.settings;
    // The receiver learns the webhooks now that their URLs are known.
    await receiver.close();
    receiver = await startReceiver({
      port: Number(new URL(receiver.url).port),
      webhooks: (settings.destinations ?? []).filter((d) => d.type === 'webhook' && !own(d)),
      signingKey: async () => SIGNING_KEY,
      ...(respond ? { respond } : {}),
    });
    const p = planOf(settings);
    const ports = {
      pubsub: ps.port,
      bigquery: bqPort,
      storage: gcs.port,
      firestore: fs.port,
      // No Secret Manager emulator here: the signing key is a file (EVENTBUS_SECRETS_DIR below).
      'secret-manager': 0,
      studio: 0,
      gateway: 0,
      store: await freePort(),
      forward: await freePort(),
      // No scheduler in this stack: nothing publishes ticks here.
      schedule: 0,
      'forward-catalog': 0,
      receiver: receiver.port,
    };
    // The egress gate lets the functions reach the stand-ins this stack's destinations name, by
    // origin, as the supervisor allows the local receiver: an explicit list, never the gate off.
    const standIns = [
      ...new Set(
        (settings.destinations ?? []).flatMap((d) => (d.base_url ? [new URL(d.base_url).origin] : [])),
      ),
    ];
    const ctx: LocalContext = {
      root: REPO_ROOT,
      dataDir,
      logDir: dataDir,
      ports,
      settings,
      project: settings.project,
      node: process.execPath,
      // The functions run from their bundles, as `eventbus start` runs them (local/bundles.ts).
      bundles: await localBundles(REPO_ROOT, ['store', 'forward'], () => {}),
      egressAllow: standIns,
    };
    writeSettingsFile(ctx);
    for (const name of ['store', 'forward'] as const) {
      const spec = functionService(ctx, name);
      const env = { ...spec.env, EVENTBUS_SECRETS_DIR: secretsDir, EVENTBUS_STORE_BATCH_MS: '2' };
      await startFunctionProcess({ ...spec, env }, children);
    }
    const pubsubHost = `127.0.0.1:${ps.port}`;
    const report = await provision(p, {
      project: settings.project,
      pubsub: pubsubHost,
      bigquery: bq.url,
      storage: gcs.url,
      firestore: fs.host,
      functionUrl: (fn) => `http://127.0.0.1:${ports[fn]}/`,
    });
    if (report.conflicts.length > 0) throw new Error(report.conflicts.join('\n'));
    pubsub = emulatorPubSub(settings.project, pubsubHost);
    const bigquery = emulatorBigQuery(settings.project, bq.url);
    const table = (name: string) => `\`${settings.project}.${p.dataset}.${name}\``;
    const topic = pubsub.topic('events');
    const r = receiver;
    return {
      settings,
      plan: p,
      receiver: r,
      pubsub,
      bigquery,
      pubsubHost,
      bigqueryUrl: bq.url,
      storageUrl: gcs.url,
      firestoreHost: fs.host,
      dataDir,
      async publishEvents(events) {
        await Promise.all(events.map((e) => topic.publishMessage({ data: Buffer.from(JSON.stringify(e)) })));
      },
      async ledger(eventId) {
        const [rows] = await bigquery.query({
          query: `SELECT event_id, event_name, destination, status, reason, attempt, http_status, replay, recorded_at
                  FROM ${table('deliveries')} WHERE event_id = @id ORDER BY attempt, recorded_at`,
          params: { id: eventId },
        });
        return (rows as Record<string, unknown>[]).map((row) => ({
          ...(row as unknown as LedgerRow),
          attempt: row['attempt'] === null ? null : Number(row['attempt']),
          http_status: row['http_status'] === null ? null : Number(row['http_status']),
          recorded_at: String((row['recorded_at'] as { value?: string } | null)?.value ?? row['recorded_at']),
        }));
      },
      async storedCount(eventId) {
        const [rows] = await bigquery.query({
          query: `SELECT COUNT(*) AS n FROM ${table('events_dedup')} WHERE event_id = @id`,
          params: { id: eventId },
        });
        return Number((rows[0] as { n: unknown }).n);
      },
      async stopWarehouse() {
        await bq?.close();
      },
      async startWarehouse() {
        bq = await startBigQueryEmulator({ port: bqPort, dataDir: join(dataDir, 'bigquery') });
      },
      close: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * A function's process from its ServiceSpec (functionService's command line, its env over this
 * process's), added to `children`; resolves once its port accepts connections. Its last 40 lines
 * of output are written out when it exits with an error, and name it when it never listens.
 */
export async function startFunctionProcess(
  spec: Pick<ServiceSpec, 'name' | 'command' | 'args' | 'cwd' | 'env' | 'port'>,
  children: ChildProcess[],
): Promise<ChildProcess> {
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (b: Buffer) => {
    tail.push(...b.toString().split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code) => {
    if (code !== 0 && code !== null)
      process.stderr.write(`${spec.name} exited ${code}:\n${tail.join('\n')}\n`);
  });
  children.push(child);
  await waitForPort(spec.port, child, tail);
  return child;
}

async function waitForPort(port: number, child: ChildProcess, tail: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`function exited ${child.exitCode}:\n${tail.join('\n')}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`function on port ${port} not listening:\n${tail.join('\n')}`);
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

/**
 * Runs the CLI in this process as an operator would against the stack: the emulators are
 * named by environment variables (as locally), restored afterwards.
 */
export async function runCliOn(
  stack: Stack,
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  const { run } = await import('../../../cli/main.ts');
  const saved = {
    ps: process.env['PUBSUB_EMULATOR_HOST'],
    bq: process.env['BIGQUERY_EMULATOR_HOST'],
    gcs: process.env['STORAGE_EMULATOR_HOST'],
    fs: process.env['FIRESTORE_EMULATOR_HOST'],
  };
  process.env['PUBSUB_EMULATOR_HOST'] = stack.pubsubHost;
  process.env['BIGQUERY_EMULATOR_HOST'] = stack.bigqueryUrl;
  process.env['STORAGE_EMULATOR_HOST'] = stack.storageUrl;
  process.env['FIRESTORE_EMULATOR_HOST'] = stack.firestoreHost;
  let out = '';
  let err = '';
  try {
    const code = await run([...args], { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  } finally {
    for (const [k, v] of [
      ['PUBSUB_EMULATOR_HOST', saved.ps],
      ['BIGQUERY_EMULATOR_HOST', saved.bq],
      ['STORAGE_EMULATOR_HOST', saved.gcs],
      ['FIRESTORE_EMULATOR_HOST', saved.fs],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
