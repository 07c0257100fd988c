/** Shared helpers of the Cloud Storage emulator tests: a started emulator and a client on it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exited, launchEmulator } from '@eventbus/emulator-common/test-support/emulator-process.ts';
import { type Bucket, Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../../server.ts';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'storage-emu-'));
}

export interface Running {
  readonly emulator: StorageEmulator;
  readonly dataDir: string;
  /** A client that finds the emulator through STORAGE_EMULATOR_HOST, as a deployed function would. */
  readonly storage: Storage;
  stop(): Promise<void>;
}

/**
 * Starts an emulator on port 0 with a fresh data dir; STORAGE_EMULATOR_HOST points at it while it
 * runs (the client reads it when constructed).
 */
export async function start(fsync: 'always' | 'none' = 'none'): Promise<Running> {
  const dataDir = tempDir();
  const emulator = await startStorageEmulator({ port: 0, dataDir, fsync });
  const before = process.env.STORAGE_EMULATOR_HOST;
  process.env.STORAGE_EMULATOR_HOST = emulator.url;
  const storage = new Storage({ projectId: 'test-project' });
  return {
    emulator,
    dataDir,
    storage,
    stop: async () => {
      if (before === undefined) delete process.env.STORAGE_EMULATOR_HOST;
      else process.env.STORAGE_EMULATOR_HOST = before;
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A raw JSON API call; the body parsed when it is JSON. */
export async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | undefined; text: string }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body =
      typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body);
    if (typeof body === 'object' && !(body instanceof Uint8Array))
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));

/** Runs the emulator as its own process (for kill -9), resolving with its URL once ready. */
export const launch = (dataDir: string, extra: readonly string[] = []) =>
  launchEmulator(MAIN, 'storage emulator', ['--port', '0', '--data-dir', dataDir, ...extra]);

export { exited };

/** The current emulator, a fresh bucket for the current test, and its number. */
export interface Fixture {
  readonly run: Running;
  readonly bucket: Bucket;
  readonly n: number;
}

/** Mocha hooks: one emulator for the suite, a new bucket named `<prefix>-<n>` before each test. */
export function emulatorWithFreshBuckets(prefix: string): Fixture {
  const state: { run?: Running; bucket?: Bucket; n: number } = { n: 0 };
  before(async () => {
    state.run = await start();
  });
  after(() => state.run?.stop());
  beforeEach(async () => {
    state.n += 1;
    [state.bucket] = await (state.run as Running).storage.createBucket(`${prefix}-${state.n}`);
  });
  return {
    get run() {
      return state.run as Running;
    },
    get bucket() {
      return state.bucket as Bucket;
    },
    get n() {
      return state.n;
    },
  };
}
