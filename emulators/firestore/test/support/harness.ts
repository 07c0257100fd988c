/** Shared helpers of the Firestore emulator tests: a started emulator, a database, raw REST calls. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exited,
  inTempDir,
  launchEmulator,
} from '@eventbus/emulator-common/test-support/emulator-process.ts';
import {
  type FirestoreEmulator,
  type FirestoreEmulatorOptions,
  startFirestoreEmulator,
} from '../../server.ts';

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'firestore-emu-'));

export interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown> & { error?: { code: number; status: string; message: string } };
}

/** A raw REST call; the body parsed as JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

export interface Running {
  readonly emulator: FirestoreEmulator;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export const start = (extra: Partial<FirestoreEmulatorOptions> = {}): Promise<Running> =>
  inTempDir('firestore-emu-', (dataDir) =>
    startFirestoreEmulator({ port: 0, dataDir, fsync: 'none', ttlSweepMs: 0, ...extra }),
  );

/** Creates database `id` of project `p` (owner). */
export async function createDatabase(base: string, id: string, project = 'p'): Promise<Answer> {
  return call(base, 'POST', `/v1/projects/${project}/databases?databaseId=${id}`, {
    locationId: 'europe-west1',
    type: 'FIRESTORE_NATIVE',
  });
}

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));

/** Runs the emulator as its own process (for kill -9), resolving with its URL once ready. */
export const launch = (dataDir: string, extra: readonly string[] = []) =>
  launchEmulator(MAIN, 'firestore emulator', ['--port', '0', '--data-dir', dataDir, ...extra]);

export { exited };
