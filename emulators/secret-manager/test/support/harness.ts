/** Shared helpers of the Secret Manager emulator tests: a started emulator and raw REST calls. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exited,
  inTempDir,
  launchEmulator,
  processKeeper,
} from '@eventbus/emulator-common/test-support/emulator-process.ts';
import { type SecretManagerEmulatorOptions, startSecretManagerEmulator } from '../../server.ts';

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'secret-manager-emu-'));

/** The project the tests use, and the number the emulator is told it has. */
export const PROJECT = 'p-test';
export const NUMBER = '123456789012';

export interface Reply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers as plain JSON
  readonly json: Record<string, any>;
}

/** A raw REST call under `/v1/`; the body parsed as JSON. */
export async function rest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(`${base}/v1/${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

export const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** Creates secret `id` (automatic replication) and adds one version holding `value`, as the owner. */
export async function seed(base: string, id: string, value?: string, labels?: Record<string, string>) {
  const created = await rest(base, 'POST', `projects/${PROJECT}/secrets?secretId=${id}`, {
    replication: { automatic: {} },
    ...(labels ? { labels } : {}),
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created.json));
  if (value !== undefined) {
    const added = await rest(base, 'POST', `projects/${PROJECT}/secrets/${id}:addVersion`, {
      payload: { data: b64(value) },
    });
    if (added.status !== 200) throw new Error(JSON.stringify(added.json));
  }
}

export type Running = Awaited<ReturnType<typeof start>>;

export const start = (extra: Partial<SecretManagerEmulatorOptions> = {}) =>
  inTempDir('secret-manager-emu-', (dataDir) =>
    startSecretManagerEmulator({
      port: 0,
      dataDir,
      fsync: 'none',
      projectNumbers: new Map([[PROJECT, NUMBER]]),
      ...extra,
    }),
  );

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));

/** Runs the emulator as its own process (for kill -9), resolving with its URL once ready. */
export const launch = (dataDir: string, extra: readonly string[] = []) =>
  launchEmulator(MAIN, 'secret manager emulator', [
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--project-number',
    `${PROJECT}=${NUMBER}`,
    ...extra,
  ]);

export { exited, processKeeper };
