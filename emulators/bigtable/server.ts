/**
 * The Bigtable emulator: the data API (google.bigtable.v2.Bigtable) and the table admin API
 * (google.bigtable.admin.v2.BigtableTableAdmin) on one gRPC port, state in the data directory
 * (one emulator per directory: emulators/common/owner-lock.ts). Google's clients reach it with
 * BIGTABLE_EMULATOR_HOST=<host>:<port> or their `apiEndpoint` option, unchanged.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import { httpUrl } from '@eventbus/emulator-common/cli.ts';
import { acquireOwnerLock } from '@eventbus/emulator-common/owner-lock.ts';
import * as grpc from '@grpc/grpc-js';
import { tableAdminHandlers } from './admin.ts';
import { dataHandlers } from './data.ts';
import { LIMITS } from './limits.ts';
import { loadServices } from './protos.ts';
import { BigtableState } from './state.ts';

export interface BigtableEmulatorOptions {
  host?: string;
  port?: number;
  dataDir: string;
  fsync?: FsyncPolicy;
  /** How often cells past their GC rule are collected (ms; 0 = only on start). */
  gcIntervalMs?: number;
}

export interface BigtableEmulator {
  readonly port: number;
  /** `http://host:port`, the ready line's URL. */
  readonly url: string;
  /** `host:port`, for BIGTABLE_EMULATOR_HOST or a client's `apiEndpoint`. */
  readonly endpoint: string;
  /** Collects the cells past their GC rule now; resolves with how many went. */
  collectGarbage(): Promise<number>;
  close(): Promise<void>;
}

/** Room for a request carrying a cell just over the 100 MiB limit, so the limit is ours to refuse. */
const MAX_MESSAGE = LIMITS.valueBytes + 16 * 1024 * 1024;

export async function startBigtableEmulator(opts: BigtableEmulatorOptions): Promise<BigtableEmulator> {
  const host = opts.host ?? '127.0.0.1';
  mkdirSync(opts.dataDir, { recursive: true });
  const release = acquireOwnerLock(join(opts.dataDir, 'LOCK'), `data directory ${opts.dataDir}`, 'emulator');
  let state: BigtableState;
  try {
    state = await BigtableState.open(opts.dataDir, opts.fsync ?? 'always');
    await state.collect();
  } catch (err) {
    release();
    throw err;
  }
  const services = loadServices();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE,
    'grpc.max_send_message_length': -1,
  });
  server.addService(services.data, dataHandlers(state) as grpc.UntypedServiceImplementation);
  server.addService(services.tableAdmin, tableAdminHandlers(state) as grpc.UntypedServiceImplementation);
  let port: number;
  try {
    const address = host.includes(':') ? `[${host}]` : host;
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${address}:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
  } catch (err) {
    await state.close();
    release();
    throw err;
  }
  let collecting: Promise<number> = Promise.resolve(0);
  const collectGarbage = (): Promise<number> => {
    collecting = collecting.then(() => state.collect());
    return collecting;
  };
  const interval = opts.gcIntervalMs ?? 60_000;
  const timer = interval > 0 ? setInterval(() => void collectGarbage().catch(() => {}), interval) : undefined;
  timer?.unref();

  let closing: Promise<void> | undefined;
  return {
    port,
    url: httpUrl(host, port),
    endpoint: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    collectGarbage,
    close: () => {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        server.forceShutdown();
        await collecting.catch(() => 0);
        await state.close();
        release();
      })();
      return closing;
    },
  };
}
