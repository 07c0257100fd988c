/**
 * One emulator's HTTP listener and its lifetime: the main port, the identity ports (`--iam`;
 * their connections are handed to the same server), every socket closed on `close()`, and the
 * data directory's owner lock held from start to close. An emulator brings its request handler
 * and its state's open and close.
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { join } from 'node:path';
import type { FsyncPolicy } from './append-log.ts';
import { httpUrl, listenOn } from './cli.ts';
import { Enforcement, type IdentityListeners, type IdentityPort, listenAsIdentities } from './iam-enforce.ts';
import { acquireOwnerLock } from './owner-lock.ts';

/** The start options every emulator takes. */
export interface EmulatorOptions {
  host?: string;
  port?: number;
  dataDir: string;
  fsync?: FsyncPolicy;
  /** Enforce IAM with this access file; each identity port's connections act as its member. */
  iam?: { file: string; identities?: readonly IdentityPort[] };
}

/** What a request handler is given besides the state. */
export interface HandlerContext {
  readonly host: string;
  /** The access file's policies, with `iam` only. */
  readonly enforcement: Enforcement | undefined;
  /** Which member a socket's port belongs to (once the identity ports listen). */
  identities(): IdentityListeners | undefined;
}

export interface EmulatorParts<S> {
  /** Opens the emulator's state (after the lock is taken); a throw releases the lock. */
  open(dataDir: string, fsync: FsyncPolicy): Promise<S>;
  /** Closes it, after the listeners. */
  closeState(state: S): Promise<void>;
  handler(state: S, ctx: HandlerContext): http.RequestListener;
}

export interface Served<S> {
  readonly state: S;
  readonly port: number;
  readonly url: string;
  readonly identityPorts: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Takes the data directory's lock, opens the state, and listens on the main and identity ports. */
export async function serveEmulator<S>(opts: EmulatorOptions, parts: EmulatorParts<S>): Promise<Served<S>> {
  const host = opts.host ?? '127.0.0.1';
  mkdirSync(opts.dataDir, { recursive: true });
  const release = acquireOwnerLock(join(opts.dataDir, 'LOCK'), `data directory ${opts.dataDir}`, 'emulator');
  let state: S;
  try {
    state = await parts.open(opts.dataDir, opts.fsync ?? 'always');
  } catch (err) {
    release();
    throw err;
  }
  let identities: IdentityListeners | undefined;
  const enforcement = opts.iam ? new Enforcement(opts.iam.file) : undefined;
  const server = http.createServer(parts.handler(state, { host, enforcement, identities: () => identities }));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const shut = async (): Promise<void> => {
    server.close();
    for (const s of sockets) s.destroy();
    await identities?.close();
    await parts.closeState(state);
    release();
  };
  let port: number;
  try {
    port = await listenOn(server, opts.port ?? 0, host);
    const bound = opts.iam?.identities ?? [];
    if (bound.length) identities = await listenAsIdentities(host, bound, (s) => server.emit('connection', s));
  } catch (err) {
    await shut();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    state,
    port,
    url: httpUrl(host, port),
    identityPorts: identities?.ports ?? new Map(),
    close: () => {
      closing ??= shut();
      return closing;
    },
  };
}
