/** Shared helpers for the Pub/Sub emulator tests: temp data dirs, a started emulator, REST calls. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exited,
  type LaunchedEmulator,
  launchEmulator,
} from '@eventbus/emulator-common/test-support/emulator-process.ts';
import { PubSub } from '@google-cloud/pubsub';
import { type PubSubEmulator, startPubSubEmulator } from '../../server.ts';

// The client probes the GCE metadata server when offline; this test process never needs it.
process.env['METADATA_SERVER_DETECTION'] = 'none';

export const PROJECT = 'test-project';

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));

/** Runs the emulator as its own process on port 0 and `dataDir` (for kill -9), once it is ready. */
export function launch(dataDir: string, extraArgs: readonly string[] = []): Promise<LaunchedEmulator> {
  return launchEmulator(MAIN, 'pubsub emulator', ['--port', '0', '--data-dir', dataDir, ...extraArgs]);
}

export { exited };

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'pubsub-emu-'));
}

export interface Running {
  readonly emulator: PubSubEmulator;
  readonly dataDir: string;
  readonly client: PubSub;
  stop(): Promise<void>;
}

/** Starts an emulator on port 0 with a fresh data dir, and a client pointed at it. */
export async function start(): Promise<Running> {
  const dataDir = tempDir();
  const emulator = await startPubSubEmulator({ port: 0, dataDir, fsync: 'none' });
  const client = pubsubClient(emulator.port);
  return {
    emulator,
    dataDir,
    client,
    stop: async () => {
      await client.close();
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function pubsubClient(port: number): PubSub {
  return new PubSub({ projectId: PROJECT, apiEndpoint: `127.0.0.1:${port}` });
}

export interface RestAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One REST call; `raw` sends the body as given (for malformed JSON). */
export async function rest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
): Promise<RestAnswer> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
  if (raw !== undefined) init.body = raw;
  else if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function errorOf(a: RestAnswer): {
  code: number;
  message: string;
  status: string;
  details?: unknown[];
} {
  return a.body['error'] as { code: number; message: string; status: string; details?: unknown[] };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns true or `ms` pass. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error('condition not met in time');
}

/**
 * A data dir and the child processes a test starts on it; after the tests, the children still
 * running are killed and the dir is removed.
 */
export function childrenOnTempDir(): { dataDir: string; children: ChildProcess[] } {
  const dataDir = tempDir();
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir, children };
}

/**
 * Runs `before` against an emulator process on `dataDir`, kills it with SIGKILL, and answers a
 * client of a new emulator process on the same directory (and its URL), for durability tests.
 */
export async function afterKill9(
  dataDir: string,
  children: ChildProcess[],
  before: (client: PubSub, url: string) => Promise<void>,
): Promise<{ client: PubSub; url: string }> {
  const first = await launch(dataDir);
  children.push(first.child);
  const client = pubsubClient(Number(new URL(first.url).port));
  await before(client, first.url);
  await client.close();
  first.child.kill('SIGKILL');
  await exited(first.child);
  const second = await launch(dataDir);
  children.push(second.child);
  return { client: pubsubClient(Number(new URL(second.url).port)), url: second.url };
}
