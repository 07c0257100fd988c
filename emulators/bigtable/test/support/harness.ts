/** Shared helpers of the Bigtable emulator tests: a started emulator and a client of it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exited,
  inTempDir,
  type LaunchedEmulator,
  launchEmulator,
} from '@eventbus/emulator-common/test-support/emulator-process.ts';
import { Bigtable } from '@google-cloud/bigtable';
import * as grpc from '@grpc/grpc-js';
import { loadServices } from '../../protos.ts';
import { type BigtableEmulator, type BigtableEmulatorOptions, startBigtableEmulator } from '../../server.ts';

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'bigtable-emu-'));

export interface Running {
  readonly emulator: BigtableEmulator;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export const start = (extra: Partial<BigtableEmulatorOptions> = {}): Promise<Running> =>
  inTempDir('bigtable-emu-', (dataDir) =>
    startBigtableEmulator({ port: 0, dataDir, fsync: 'none', gcIntervalMs: 0, ...extra }),
  );

/**
 * Google's client, unchanged, pointed at the emulator by `apiEndpoint` (as BIGTABLE_EMULATOR_HOST
 * would), its client-side metrics off: they export to Cloud Monitoring, which no test may reach.
 */
export const clientOf = (endpoint: string): Bigtable =>
  new Bigtable({ projectId: 'p', apiEndpoint: endpoint, metricsEnabled: false });

/**
 * The gRPC status code of a rejection, and its message; of a MutateRows entry's status when the
 * client reports one entry's failure (its PartialFailureError).
 */
export async function refusal(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  try {
    await p;
  } catch (err) {
    const entries = (err as { errors?: { code: number; message: string }[] }).errors;
    if (entries?.length === 1 && entries[0]) return { code: entries[0].code, details: entries[0].message };
    const e = err as { code?: number; details?: string; message?: string };
    return { code: e.code ?? -1, details: e.details ?? e.message ?? '' };
  }
  throw new Error('expected a refusal, got an answer');
}

/**
 * A raw gRPC client of the data API, for requests Google's client would not send as they are (or
 * with metadata it would not send, a bearer token).
 */
export function rawDataClient(endpoint: string): {
  call(
    method: string,
    req: Record<string, unknown>,
    metadata?: grpc.Metadata,
  ): Promise<Record<string, unknown>>;
  stream(
    method: string,
    req: Record<string, unknown>,
    metadata?: grpc.Metadata,
  ): Promise<Record<string, unknown>[]>;
  close(): void;
} {
  const Ctor = grpc.makeGenericClientConstructor(loadServices().data, 'Bigtable');
  const client = new Ctor(endpoint, grpc.credentials.createInsecure(), {
    'grpc.max_send_message_length': -1,
  }) as unknown as Record<string, (...args: unknown[]) => unknown> & grpc.Client;
  return {
    call: (method, req, metadata = new grpc.Metadata()) =>
      new Promise((resolve, reject) =>
        (
          client[method] as (r: unknown, m: grpc.Metadata, cb: (e: unknown, res: unknown) => void) => void
        ).call(client, req, metadata, (e, res) => (e ? reject(e) : resolve(res as Record<string, unknown>))),
      ),
    stream: (method, req, metadata = new grpc.Metadata()) =>
      new Promise((resolve, reject) => {
        const out: Record<string, unknown>[] = [];
        const s = (
          client[method] as (
            r: unknown,
            m: grpc.Metadata,
          ) => grpc.ClientReadableStream<Record<string, unknown>>
        ).call(client, req, metadata);
        s.on('data', (d) => out.push(d));
        s.on('error', reject);
        s.on('end', () => resolve(out));
      }),
    close: () => client.close(),
  };
}

/** The emulator as its own process (main.ts) on `dataDir`, for kill -9 and restart. */
export const launch = (dataDir: string, extra: readonly string[] = []): Promise<LaunchedEmulator> =>
  launchEmulator(fileURLToPath(new URL('../../main.ts', import.meta.url)), 'bigtable emulator', [
    '--port',
    '0',
    '--data-dir',
    dataDir,
    ...extra,
  ]);

/** `host:port` of a ready line's `http://host:port`. */
export const endpointOf = (url: string): string => new URL(url).host;

export { exited };
