/**
 * The Bigtable emulator: the data API (google.bigtable.v2.Bigtable) and the table admin API
 * (google.bigtable.admin.v2.BigtableTableAdmin) on one gRPC port, state in the data directory
 * (one emulator per directory: emulators/common/owner-lock.ts). Google's clients reach it with
 * BIGTABLE_EMULATOR_HOST=<host>:<port> or their `apiEndpoint` option, unchanged. With `iam`, every
 * call is authorized first (access.ts), and each identity port's connections, handed to the same
 * gRPC server, act as its member.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import { httpUrl } from '@eventbus/emulator-common/cli.ts';
import { localPortInterceptor } from '@eventbus/emulator-common/grpc-identity.ts';
import {
  Enforcement,
  type IdentityListeners,
  type IdentityPort,
  listenAsIdentities,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { acquireOwnerLock } from '@eventbus/emulator-common/owner-lock.ts';
import * as grpc from '@grpc/grpc-js';
import { BigtableAccess, guarded } from './access.ts';
import { tableAdminHandlers } from './admin.ts';
import { CallCounter } from './calls.ts';
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
  /** Enforce IAM with this access file; each identity port's connections act as its member. */
  iam?: { file: string; identities?: readonly IdentityPort[] } | undefined;
}

export interface BigtableEmulator {
  readonly port: number;
  /** `http://host:port`, the ready line's URL. */
  readonly url: string;
  /** `host:port`, for BIGTABLE_EMULATOR_HOST or a client's `apiEndpoint`. */
  readonly endpoint: string;
  /** Member → the identity port it took (empty without `iam`). */
  readonly identityPorts: ReadonlyMap<string, number>;
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
  let calls: CallCounter;
  try {
    calls = new CallCounter(opts.dataDir);
    state = await BigtableState.open(opts.dataDir, opts.fsync ?? 'always');
    await state.collect();
  } catch (err) {
    release();
    throw err;
  }
  const services = loadServices();
  const access = opts.iam ? new BigtableAccess(new Enforcement(opts.iam.file)) : undefined;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE,
    'grpc.max_send_message_length': -1,
    ...(access ? { interceptors: [localPortInterceptor] } : {}),
  });
  server.addService(services.data, guarded(access, 'data', services.data, dataHandlers(state, calls)));
  server.addService(
    services.tableAdmin,
    guarded(access, 'admin', services.tableAdmin, tableAdminHandlers(state)),
  );
  let port: number;
  let identities: IdentityListeners | undefined;
  try {
    const address = host.includes(':') ? `[${host}]` : host;
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${address}:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    if (access && opts.iam) {
      // The bound ports' connections go to the same server; the interceptor tells them apart.
      const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
      identities = await listenAsIdentities(host, opts.iam.identities ?? [], (socket) =>
        injector.injectConnection(socket),
      );
      access.identities = identities;
    }
  } catch (err) {
    server.forceShutdown();
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
    identityPorts: identities?.ports ?? new Map(),
    collectGarbage,
    close: () => {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        await identities?.close();
        server.forceShutdown();
        await collecting.catch(() => 0);
        calls.flush();
        await state.close();
        release();
      })();
      return closing;
    },
  };
}
