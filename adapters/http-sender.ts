/**
 * Sends a driver's request over node:http / node:https with keep-alive agents, bounded by a
 * timeout, and reports every outcome as data: a response (any status) or a network error
 * (timeout, refused connection, DNS...). Redirects are not followed: a signed body must reach
 * the URL it was signed for.
 *
 * Why not fetch: undici's fetch cost ~0.5 ms CPU per delivery in the forward function (web
 * streams, a dozen promises per call, each one tracked by the functions framework's domain
 * hooks); a plain ClientRequest over a kept-alive socket is a fraction of that.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { InboundResponse, OutboundRequest } from '../core/platforms/driver.ts';

/** Bodies of platform answers are kept up to this size (they end up in ledger reasons). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** What the transport itself can answer: a response or a network error (refusals are the gate's, adapters/egress.ts). */
export type TransportResponse = Exclude<InboundResponse, { readonly kind: 'refused' }>;

export type Sender = (request: OutboundRequest, timeoutMs: number) => Promise<TransportResponse>;

/** A request as the transport sends it: any method, the body as text (empty for none). */
export interface TransportRequest {
  readonly method: string;
  readonly redactedUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The address a connection is pinned to: the one the gate checked (no second resolution). */
export interface PinnedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Sends one request to a parsed target, optionally over a connection pinned to an address. */
export type Transport = (
  target: Target,
  request: TransportRequest,
  timeoutMs: number,
  pinned?: PinnedAddress,
) => Promise<TransportResponse>;

export interface HttpSenderOptions {
  /** Agents to send through (tests, custom TLS); default keep-alive agents of this sender. */
  readonly httpAgent?: HttpAgent;
  readonly httpsAgent?: HttpsAgent;
  /** Largest answer body kept (default MAX_RESPONSE_BYTES); a longer one is cut there. */
  readonly maxResponseBytes?: number;
}

/**
 * A sender with its own keep-alive agents: one connection pool per destination origin. Idle
 * sockets stay open until the server closes them (no per-socket idle timer: re-arming it cost a
 * timer per delivery); a request that meets a socket closed under it is sent again once.
 */
export function createHttpSender(options: HttpSenderOptions = {}): Sender {
  const transport = createTransport(options);
  const targets = new TargetCache();
  return (request, timeoutMs) => {
    const target = targets.get(request.url);
    if (typeof target === 'string') {
      return Promise.resolve({ kind: 'network_error', message: `${target} (${request.redactedUrl})` });
    }
    return transport(target, request, timeoutMs);
  };
}

/**
 * The exchange itself, for the egress gate (adapters/egress.ts), which checks the target and
 * its address first and pins the connection to that address.
 */
export function createTransport(options: HttpSenderOptions = {}): Transport {
  const agents = {
    'http:': options.httpAgent ?? new HttpAgent({ keepAlive: true }),
    'https:': options.httpsAgent ?? new HttpsAgent({ keepAlive: true }),
  };
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  return (target, request, timeoutMs, pinned) => {
    const deadline = Date.now() + timeoutMs;
    const sent = pinned ? { ...target, lookup: pinnedLookup(pinned) } : target;
    return exchange(sent, agents[target.protocol], request, timeoutMs, deadline, true, maxBytes);
  };
}

/** A `lookup` that answers the checked address for any name: the connection goes there, and only there. */
function pinnedLookup(pinned: PinnedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

/** Where a URL sends a request: node:http's options, without the URL object they are read from. */
export interface Target {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  /** Undefined for the protocol's default port. */
  readonly port: number | undefined;
  readonly path: string;
  /** `user:password` of a URL that carries them (Basic authentication), as node:http takes it. */
  readonly auth: string | undefined;
  /** Set by the transport for a pinned connection. */
  readonly lookup?: LookupFunction;
}

/**
 * Each URL parsed once: a destination's URL is the same for every delivery, and `new URL` with
 * node's conversion of it to request options was a quarter of the sender's CPU per request.
 * Bounded (cleared when full), so URLs that vary per event cannot grow it without end. Holds
 * why a URL cannot be sent to, as text, for the ones that cannot.
 */
class TargetCache {
  readonly #known = new Map<string, Target | string>();
  get(url: string): Target | string {
    let t = this.#known.get(url);
    if (t === undefined) {
      t = parseTarget(url);
      if (this.#known.size >= 1000) this.#known.clear();
      this.#known.set(url, t);
    }
    return t;
  }
}

function parseTarget(text: string): Target | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'invalid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `unsupported protocol ${url.protocol}`;
  return targetOf(url);
}

/** node:http's options for an http(s) URL. */
export function targetOf(url: URL): Target {
  return {
    protocol: url.protocol === 'https:' ? 'https:' : 'http:',
    // A bracketed IPv6 literal is given to node:http without its brackets (as urlToHttpOptions does).
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    auth:
      url.username || url.password
        ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
        : undefined,
  };
}

function exchange(
  target: Target,
  agent: HttpAgent | HttpsAgent,
  request: TransportRequest,
  timeoutMs: number,
  deadline: number,
  mayRetryStale: boolean,
  maxBytes: number,
): Promise<TransportResponse> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: TransportResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      ...(target.auth ? { auth: target.auth } : {}),
      ...(target.lookup ? { lookup: target.lookup } : {}),
      method: request.method,
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body, 'utf8')) },
      agent,
    });
    // One timer bounds the whole exchange: connecting, waiting, and reading the answer.
    const timer = setTimeout(
      () => {
        finish({ kind: 'network_error', message: `timeout after ${timeoutMs} ms (${request.redactedUrl})` });
        req.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      // A kept-alive socket the server closed while we picked it: the request never got
      // there, so it is sent once more on a fresh connection (Node's documented pattern).
      if (mayRetryStale && req.reusedSocket && err.code === 'ECONNRESET' && Date.now() < deadline) {
        settled = true;
        clearTimeout(timer);
        resolve(exchange(target, agent, request, timeoutMs, deadline, false, maxBytes));
        return;
      }
      finish({ kind: 'network_error', message: describe(err, request) });
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size >= maxBytes) return;
        chunks.push(chunk);
        size += chunk.length;
        // Stop reading a body that is larger than we keep; the connection is not reused.
        if (size >= maxBytes) {
          finish(response(res, chunks, maxBytes));
          res.destroy();
        }
      });
      res.on('end', () => finish(response(res, chunks, maxBytes)));
      res.on('error', (err: NodeJS.ErrnoException) =>
        finish({ kind: 'network_error', message: describe(err, request) }),
      );
    });
    // The body as a string: Node then writes it and the headers as one chunk (a Buffer goes out
    // as a second chunk of a writev, one more copy and system call per delivery).
    req.end(request.body, 'utf8');
  });
}

function response(res: IncomingMessage, chunks: readonly Buffer[], maxBytes: number): TransportResponse {
  const headers: Record<string, string> = {};
  const given = res.headers;
  for (const key in given) {
    const value = given[key];
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body =
    chunks.length === 0
      ? ''
      : (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks))
          .subarray(0, maxBytes)
          .toString('utf8');
  return { kind: 'response', status: res.statusCode ?? 0, headers, body };
}

function describe(err: NodeJS.ErrnoException, request: TransportRequest): string {
  const code = err.code && !err.message.includes(err.code) ? ` (${err.code})` : '';
  return `${err.message}${code} (${request.redactedUrl})`;
}
