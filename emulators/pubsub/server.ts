/**
 * The Pub/Sub emulator: gRPC and REST on one port, like Google's emulator. One `net.Server`
 * peeks at the first bytes of each connection: HTTP/2 prior knowledge (`PRI * HTTP/2.0`) goes to
 * grpc-js through its connection injector, anything else to a `node:http` server (docs/google-wire.md §2).
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

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0');

/** Starts the emulator on `host:port` (port 0 = ephemeral) with its state under `dataDir`. */
export async function startPubSubEmulator(opts: PubSubEmulatorOptions): Promise<PubSubEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const engine = await Engine.open({ dataDir: opts.dataDir, fsync: opts.fsync ?? 'always' });
  const push = new PushManager(engine, { bigquery: opts.bigqueryEndpoint, storage: opts.storageEndpoint });
  const access = opts.iam
    ? new PubSubAccess(new Enforcement(opts.iam.file), {
        topicOf: (sub) => engine.subs.get(sub)?.resource.topic,
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

  const sockets = new Set<net.Socket>();
  /** Every connection, on the port or an identity port: gRPC or REST, told by its first bytes. */
  const onSocket = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, HTTP2_PREFACE.length);
      // Wait until the bytes seen so far could still be either protocol only if too short to tell.
      if (n < 3 && head.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n))) return;
      socket.off('data', onData);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n))) {
        // Node's HTTP/2 session reads the socket's handle itself and takes over the bytes
        // buffered by unshift; resuming here would let them flow away as 'data' events.
        injector.injectConnection(socket);
      } else {
        httpServer.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  };
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
        for (const s of sockets) s.destroy();
        await engine.close();
      })();
      return closing;
    },
  };
}
