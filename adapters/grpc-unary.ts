/**
 * A minimal gRPC unary client on `node:http2`, for the gateway's one hot call (Pub/Sub's Publish,
 * adapters/publisher.ts). grpc-js builds a resolving call, a load-balanced subchannel call, a
 * filter stack, metadata objects and timers for every call: about 23 µs of the gateway's ~150 µs
 * per single-event request. Here a call is one HTTP/2 stream on one kept session per target:
 * headers built from a prepared object, the message framed once (flag 0, 4-byte length), the
 * status read from the trailers (or a Trailers-Only answer), one deadline timer.
 *
 * Besides unary calls, `stream` reads a server-streaming answer whole (every message until the
 * trailers), for Bigtable's ReadRows of one row (adapters/bigtable-claims.ts): no flow control
 * beyond HTTP/2's, no message is handed over before the status says OK.
 *
 * What it does not do, because Publish does not need it: client streaming, compression (no
 * `grpc-encoding` is offered, so the server sends none), name resolution beyond the OS's,
 * load balancing, retries (the caller's), keepalive pings while idle (a dead connection is found
 * by a ping after a call misses its deadline, and the server's GOAWAY or a closed socket opens a
 * new session for the next call). Failures are `GrpcError`s with grpc-js's numeric `code`, so
 * the caller's retry rules read the same.
 */

import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type SecureClientSessionOptions,
} from 'node:http2';
import { andThen } from '../core/maybe-async.ts';

/** gRPC status codes used here (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  UNIMPLEMENTED: 12,
} as const;

const NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** A failed call: `code` is the gRPC status (as grpc-js's errors carry it), `details` its message. */
export class GrpcError extends Error {
  override readonly name = 'GrpcError';
  readonly code: number;
  readonly details: string;
  constructor(code: number, details: string) {
    super(`${code} ${NAMES[code] ?? 'UNKNOWN'}: ${details}`);
    this.code = code;
    this.details = details;
  }
}

/**
 * Headers that authorise a call (`authorization`, maybe `x-goog-user-project`). `headers()`
 * answers synchronously while it has a value it trusts, so a call then waits for nothing;
 * `invalidate()` is called after UNAUTHENTICATED, so the next call asks afresh.
 */
export interface CallCredentials {
  headers(): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
  invalidate(): void;
}

export interface UnaryClientOptions {
  /** `https://host[:port]` (TLS, ALPN h2, Node's CA bundle) or `http://host:port` (plaintext h2c). */
  readonly origin: string;
  /** Largest message sent or accepted, in bytes (the 5-byte frame prefix not counted). */
  readonly maxMessageBytes: number;
  /** Headers every call carries (`user-agent`, `x-goog-api-client`). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly credentials?: CallCredentials;
  /**
   * A session with no traffic for this long is closed, and the next call opens a fresh one
   * (default 4 minutes). There are no keepalive pings while idle: a server may answer idle pings
   * with GOAWAY, and a connection a NAT or load balancer dropped silently would otherwise be
   * found only by a call that misses its deadline.
   */
  readonly idleCloseMs?: number;
}

export interface UnaryCall {
  /** `/package.Service/Method`. */
  readonly path: string;
  /** The request message's bytes. */
  readonly body: Buffer;
  /** Epoch milliseconds; the call fails with DEADLINE_EXCEEDED then (and the stream is cancelled). */
  readonly deadline: number;
  /** Headers of this call only (`x-goog-request-params`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface UnaryClient {
  /** Resolves with the response message's bytes; rejects with a GrpcError. */
  call(call: UnaryCall): Promise<Buffer>;
  /**
   * A server-streaming call (one request message): resolves with every response message, in
   * order, once the trailers say OK; rejects with a GrpcError otherwise (no partial answer). The
   * messages together, with their 5-byte prefixes, may not exceed maxMessageBytes.
   */
  stream(call: UnaryCall): Promise<Buffer[]>;
  /** Opens the session ahead of the first call (and gets credentials); failures are left to the calls. */
  connect(): Promise<void>;
  /** Closes the session once its calls end; later calls open a new one. */
  close(): Promise<void>;
}

/** How long an unanswered PING may take, after a missed deadline, before the session is dropped. */
const PING_TIMEOUT_MS = 2000;
const IDLE_CLOSE_MS = 240_000;
/** gRPC's HTTP-to-status table (doc/http-grpc-status-mapping.md), for answers without grpc-status. */
const HTTP_TO_CODE: Readonly<Record<number, number>> = {
  400: Code.INTERNAL,
  401: Code.UNAUTHENTICATED,
  403: Code.PERMISSION_DENIED,
  404: Code.UNIMPLEMENTED,
  429: Code.UNAVAILABLE,
  502: Code.UNAVAILABLE,
  503: Code.UNAVAILABLE,
  504: Code.UNAVAILABLE,
};

/**
 * `noDelay` is passed on to net/tls.connect (http2.connect takes their options; its types do
 * not list them): Nagle's algorithm would hold a small request behind an unacknowledged segment
 * (grpc-js sets no-delay too). A 10 MB request is buffered in the session, and node's default cap
 * of 10 MB of session memory would refuse it (ENHANCE_YOUR_CALM), hence 64 (megabytes).
 */
const SESSION_OPTIONS: SecureClientSessionOptions & { readonly noDelay: boolean } = {
  noDelay: true,
  maxSessionMemory: 64,
  settings: { enablePush: false },
};

/** One session and what the calls on it learnt about it. */
interface Conn {
  readonly session: ClientHttp2Session;
  /** GOAWAY received or the session failed: no new calls, and calls cut short are UNAVAILABLE. */
  dead: boolean;
  probing: boolean;
}

export function createUnaryClient(options: UnaryClientOptions): UnaryClient {
  const { origin, maxMessageBytes, credentials } = options;
  const fixed: Record<string, string> = {
    ':method': 'POST',
    'content-type': 'application/grpc',
    te: 'trailers',
    ...options.headers,
  };
  let current: Conn | undefined;

  const open = (): Conn => {
    if (current && !current.dead && !current.session.destroyed && !current.session.closed) return current;
    const session = connect(origin, SESSION_OPTIONS);
    const conn: Conn = { session, dead: false, probing: false };
    const drop = () => {
      conn.dead = true;
      if (current === conn) current = undefined;
    };
    // A connection error is reported to the calls on it (their streams close); the listener only
    // keeps it from being an uncaught exception.
    session.on('error', drop);
    session.on('goaway', drop);
    session.on('close', drop);
    // Idle for long: no new calls on it; it closes once (already finished) streams are done.
    session.setTimeout(options.idleCloseMs ?? IDLE_CLOSE_MS, () => {
      drop();
      session.close();
    });
    // Never holds the process: a call in flight holds it by its deadline timer.
    session.unref();
    current = conn;
    return conn;
  };

  /** After a missed deadline: a session whose peer does not answer a PING is dropped. */
  const probe = (conn: Conn) => {
    const s = conn.session;
    if (conn.probing || conn.dead || s.destroyed) return;
    conn.probing = true;
    const timer = setTimeout(() => s.destroy(), PING_TIMEOUT_MS).unref();
    const answered = (err: Error | null) => {
      clearTimeout(timer);
      conn.probing = false;
      if (err) s.destroy();
    };
    try {
      if (!s.ping(answered)) answered(new Error('too many pings'));
    } catch (err) {
      answered(err as Error);
    }
  };

  const start = (
    call: UnaryCall,
    auth: Readonly<Record<string, string>> | undefined,
    many: boolean,
    resolve: (answer: Buffer | Buffer[]) => void,
    reject: (err: GrpcError) => void,
  ) => {
    const ms = Math.ceil(call.deadline - Date.now());
    if (ms <= 0)
      return reject(new GrpcError(Code.DEADLINE_EXCEEDED, 'Deadline exceeded before the call started'));
    const headers: Record<string, string> = Object.assign({}, fixed, call.headers, auth);
    headers[':path'] = call.path;
    headers['grpc-timeout'] = `${Math.min(ms, 99_999_999)}m`;
    let conn: Conn;
    let stream: ClientHttp2Stream;
    try {
      conn = open();
      stream = conn.session.request(headers, { endStream: false });
    } catch (err) {
      // The session was closing (GOAWAY, destroyed) between open() and the request.
      if (current?.session.destroyed || current?.session.closed) current = undefined;
      return reject(new GrpcError(Code.UNAVAILABLE, `cannot start a stream: ${(err as Error).message}`));
    }
    let settled = false;
    let httpStatus = 0;
    let status: number | undefined;
    let message = '';
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (err: GrpcError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err.code === Code.UNAUTHENTICATED) credentials?.invalidate();
      reject(err);
    };
    const timer = setTimeout(() => {
      fail(new GrpcError(Code.DEADLINE_EXCEEDED, `Deadline exceeded after ${ms} ms`));
      stream.close(constants.NGHTTP2_CANCEL);
      probe(conn);
    }, ms);
    const readStatus = (h: Readonly<Record<string, string | string[] | undefined>>) => {
      const s = h['grpc-status'];
      if (s === undefined) return;
      const n = Number(s);
      status = Number.isInteger(n) && n >= 0 ? n : Code.UNKNOWN;
      const m = h['grpc-message'];
      if (typeof m === 'string') message = percentDecode(m);
    };
    stream.on('response', (h) => {
      httpStatus = Number(h[':status']);
      readStatus(h); // a Trailers-Only answer carries its status here
    });
    stream.on('trailers', readStatus);
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received > (many ? maxMessageBytes : maxMessageBytes + 5)) {
        fail(new GrpcError(Code.RESOURCE_EXHAUSTED, `Received message larger than max (${maxMessageBytes})`));
        stream.close(constants.NGHTTP2_CANCEL);
      }
    });
    // Errors of the stream (its session's failure, a reset) are read from its state at close.
    stream.on('error', () => {});
    stream.on('close', () => {
      if (settled) return;
      if (status === Code.OK) {
        const parsed = unframe(chunks, received, maxMessageBytes, many);
        if (parsed instanceof GrpcError) fail(parsed);
        else {
          settled = true;
          clearTimeout(timer);
          resolve(parsed);
        }
      } else if (status !== undefined) fail(new GrpcError(status, message));
      else if (httpStatus !== 0 && httpStatus !== 200)
        fail(
          new GrpcError(HTTP_TO_CODE[httpStatus] ?? Code.UNKNOWN, `Received HTTP status code ${httpStatus}`),
        );
      else fail(closedWithoutStatus(stream.rstCode, conn));
    });
    // One DATA frame for a small message; a large one is not copied to put 5 bytes before it.
    const prefix = Buffer.allocUnsafe(5);
    prefix[0] = 0;
    prefix.writeUInt32BE(call.body.length, 1);
    if (call.body.length <= 16_384) stream.end(Buffer.concat([prefix, call.body]));
    else {
      stream.write(prefix);
      stream.end(call.body);
    }
  };

  const begin = (
    call: UnaryCall,
    many: boolean,
    resolve: (answer: Buffer | Buffer[]) => void,
    reject: (err: GrpcError) => void,
  ) => {
    if (call.body.length > maxMessageBytes) {
      return reject(
        new GrpcError(
          Code.RESOURCE_EXHAUSTED,
          `Sent message larger than max (${call.body.length} vs. ${maxMessageBytes})`,
        ),
      );
    }
    const auth = credentials?.headers();
    // As grpc-js reports a failed credentials plugin: UNAVAILABLE, so the caller retries.
    andThen(
      auth,
      (h) => start(call, h, many, resolve, reject),
      (err: unknown) =>
        reject(new GrpcError(Code.UNAVAILABLE, `Getting credentials failed: ${(err as Error).message}`)),
    );
  };

  return {
    call: (call) =>
      new Promise<Buffer>((resolve, reject) =>
        begin(call, false, resolve as (answer: Buffer | Buffer[]) => void, reject),
      ),
    stream: (call) =>
      new Promise<Buffer[]>((resolve, reject) =>
        begin(call, true, resolve as (answer: Buffer | Buffer[]) => void, reject),
      ),
    async connect() {
      await credentials?.headers();
      open();
    },
    async close() {
      const conn = current;
      current = undefined;
      if (!conn || conn.session.closed || conn.session.destroyed) return;
      await new Promise<void>((r) => conn.session.close(() => r()));
    },
  };
}

/** A stream that closed with neither grpc-status nor an HTTP error: grpc-js's reading of it. */
function closedWithoutStatus(rstCode: number | undefined, conn: Conn): GrpcError {
  if (conn.dead || conn.session.destroyed || rstCode === constants.NGHTTP2_REFUSED_STREAM)
    return new GrpcError(Code.UNAVAILABLE, `Connection dropped (stream code ${rstCode ?? 'none'})`);
  if (rstCode === constants.NGHTTP2_ENHANCE_YOUR_CALM)
    return new GrpcError(Code.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded');
  if (rstCode === constants.NGHTTP2_INADEQUATE_SECURITY)
    return new GrpcError(Code.PERMISSION_DENIED, 'Protocol not secure enough');
  if (rstCode === constants.NGHTTP2_CANCEL)
    return new GrpcError(Code.CANCELLED, 'Call cancelled by the server');
  if (rstCode !== undefined && rstCode !== constants.NGHTTP2_NO_ERROR)
    return new GrpcError(Code.INTERNAL, `Received RST_STREAM with code ${rstCode}`);
  return new GrpcError(Code.UNKNOWN, 'No status received');
}

/**
 * The one message of a unary answer, from its DATA (flag byte, 4-byte big-endian length, bytes),
 * or every message of a server-streaming one (`many`: none is an answer too).
 */
function unframe(
  chunks: readonly Buffer[],
  received: number,
  max: number,
  many: boolean,
): Buffer | Buffer[] | GrpcError {
  const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks as Buffer[], received);
  if (many) return unframeAll(all, max);
  if (all.length < 5) return new GrpcError(Code.INTERNAL, 'No message received');
  if (all[0] !== 0) return new GrpcError(Code.INTERNAL, 'Compressed message received, none was accepted');
  const length = all.readUInt32BE(1);
  if (length > max)
    return new GrpcError(Code.RESOURCE_EXHAUSTED, `Received message larger than max (${max})`);
  if (all.length < 5 + length) return new GrpcError(Code.INTERNAL, 'Truncated message received');
  if (all.length > 5 + length)
    return new GrpcError(Code.UNIMPLEMENTED, 'More than one message for a unary call');
  return all.subarray(5);
}

function unframeAll(all: Buffer, max: number): Buffer[] | GrpcError {
  const out: Buffer[] = [];
  for (let at = 0; at < all.length; ) {
    if (all.length - at < 5) return new GrpcError(Code.INTERNAL, 'Truncated message received');
    if (all[at] !== 0) return new GrpcError(Code.INTERNAL, 'Compressed message received, none was accepted');
    const length = all.readUInt32BE(at + 1);
    if (length > max)
      return new GrpcError(Code.RESOURCE_EXHAUSTED, `Received message larger than max (${max})`);
    if (all.length < at + 5 + length) return new GrpcError(Code.INTERNAL, 'Truncated message received');
    out.push(all.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return out;
}

/** grpc-message is percent-encoded UTF-8; a malformed one is kept as sent. */
function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
