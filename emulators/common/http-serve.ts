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
import {
  Enforcement,
  type IdentityListeners,
  type IdentityPort,
  type JwtService,
  listenAsIdentities,
} from './iam-enforce.ts';
import { acquireOwnerLock } from './owner-lock.ts';
import { RestError } from './rest-error.ts';

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
  /** The service a self-signed JWT must address (iam-keys.ts); any, when not given. */
  jwtService?: JwtService;
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
  const enforcement = opts.iam ? new Enforcement(opts.iam.file, parts.jwtService) : undefined;
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

/**
 * A JSON object request body of at most `limit` bytes (none = `{}`); what is not one is
 * `bad(message)`, the emulator's own 400.
 */
export async function readJsonObject(
  req: http.IncomingMessage,
  limit: number,
  bad: (message: string) => Error,
): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw bad(`The request body is over ${limit} bytes.`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw bad('The request body is not valid JSON.');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw bad('The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

/** Answers `body` as JSON with `status`. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * A JSON API's request listener: `answer` resolves with the 200 body or throws; a RestError is
 * answered as Google's envelope, anything else as 500 INTERNAL. A request body left unread is
 * drained so the connection stays usable.
 */
export function jsonListener(
  answer: (req: http.IncomingMessage, url: URL) => unknown,
  asError: (err: unknown) => RestError | undefined = (err) => (err instanceof RestError ? err : undefined),
): http.RequestListener {
  return (req, res) => {
    req.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://localhost');
    Promise.resolve()
      .then(() => answer(req, url))
      .then(
        (body) => sendJson(res, 200, body),
        (err: unknown) => {
          const e =
            asError(err) ??
            new RestError('INTERNAL', `Internal error: ${err instanceof Error ? err.message : String(err)}`);
          if (res.headersSent) res.destroy();
          else sendJson(res, e.code, e.body());
          if (!req.complete) req.resume();
        },
      );
  };
}
