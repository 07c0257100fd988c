/**
 * The Pub/Sub emulator: gRPC and REST on one port, like Google's emulator. One `net.Server`
 * peeks at the first bytes of each connection (emulators/common/protocol-split.ts, docs/google-wire.md §2).
 * With `iam`, every call is authorized first (access.ts), and each identity port's connections,
 * handled the same way, act as its member.
 */
import http from 'node:http';
import net from 'node:net';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import { httpUrl, listenOn } from '@eventbus/emulator-common/cli.ts';
import {
  Enforcement,
  type IdentityListeners,
  type IdentityPort,
  listenAsIdentities,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { splitProtocols } from '@eventbus/emulator-common/protocol-split.ts';
import * as grpc from '@grpc/grpc-js';
import { PubSubAccess } from './access.ts';
import { Engine } from './engine.ts';
import { createGrpcServer, widenFlowControl } from './grpc.ts';
import { PushManager } from './push.ts';
import { handleRest } from './rest.ts';

export interface PubSubEmulatorOptions {
  host?: string;
  port?: number;
  dataDir: string;
  fsync?: FsyncPolicy;
  /** Base URLs of the BigQuery and Storage emulators, for BigQuery and Cloud Storage subscriptions. */
  bigqueryEndpoint?: string | undefined;
  storageEndpoint?: string | undefined;
  /** Enforce IAM with this access file; each identity port's connections act as its member. */
  iam?: { file: string; identities?: readonly IdentityPort[] } | undefined;
}

export interface PubSubEmulator {
  readonly port: number;
  readonly url: string;
  /** Member → the identity port it took (empty without `iam`). */
  readonly identityPorts: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Starts the emulator on `host:port` (port 0 = ephemeral) with its state under `dataDir`. */
export async function startPubSubEmulator(opts: PubSubEmulatorOptions): Promise<PubSubEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const engine = await Engine.open({ dataDir: opts.dataDir, fsync: opts.fsync ?? 'always' });
  const push = new PushManager(engine, { bigquery: opts.bigqueryEndpoint, storage: opts.storageEndpoint });
  const access = opts.iam
    ? new PubSubAccess(new Enforcement(opts.iam.file), {
        topicOf: (sub) => engine.subs.get(sub)?.resource.topic,
        policyOf: (resource) => engine.enforcedPolicy(resource),
      })
    : undefined;
  const grpcHandle = createGrpcServer(engine, access);
  const injector = grpcHandle.server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  widenFlowControl(grpcHandle.server);
  let ready = false;
  const httpServer = http.createServer((req, res) => {
    void handleRest({ engine, push, access, isReady: () => ready }, req, res);
  });
  httpServer.keepAliveTimeout = 65_000;

  /** Every connection, on the port or an identity port: gRPC or REST, told by its first bytes. */
  const split = splitProtocols(injector, httpServer);
  const onSocket = split.onSocket;
  const listener = net.createServer(onSocket);

  const port = await listenOn(listener, opts.port ?? 0, host);
  let identities: IdentityListeners | undefined;
  if (access && opts.iam) {
    try {
      identities = await listenAsIdentities(host, opts.iam.identities ?? [], onSocket);
    } catch (err) {
      // A bound port already taken: nothing has been served yet.
      push.stop();
      listener.close();
      grpcHandle.server.forceShutdown();
      injector.destroy();
      await engine.close();
      throw err;
    }
    access.identities = identities;
  }
  ready = true;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: httpUrl(host, port),
    identityPorts: identities?.ports ?? new Map(),
    close: () => {
      closing ??= (async () => {
        ready = false;
        push.stop();
        grpcHandle.endStreams();
        listener.close();
        await identities?.close();
        httpServer.closeAllConnections();
        grpcHandle.server.forceShutdown();
        injector.destroy();
        split.destroyAll();
        await engine.close();
      })();
      return closing;
    },
  };
}
