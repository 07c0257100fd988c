/**
 * Sends a driver's request over node:http / node:https with keep-alive agents, bounded by a
 * timeout, and reports every outcome as data: a response (any status) or a network error
 * (timeout, refused connection, DNS...). Redirects are not followed: a signed body must reach
 * the URL it was signed for.
 *
 * Why not fetch: undici's fetch cost ~0.5 ms CPU per delivery in the forward function (web
 * streams, a dozen promises per call, each one tracked by the functions framework's domain
 * hooks); a plain ClientRequest over a kept-alive socket is a fraction of that. Plain-http
 * destinations (local receivers, loopback platforms) go through a leaner client still
 * (LeanHttp below); https keeps node:https and its TLS.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { InboundResponse, OutboundRequest } from '../core/delivery/driver.ts';

/** Bodies of platform answers are kept up to this size (they end up in ledger reasons). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type Sender = (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;

export interface HttpSenderOptions {
  /** Agents to send through (tests, custom TLS); default keep-alive agents of this sender. */
  readonly httpAgent?: HttpAgent;
  readonly httpsAgent?: HttpsAgent;
  /**
   * Plain-http URLs go through node:http too (as https always does) instead of the lean
   * client; set when an httpAgent is given, and by tests comparing the two.
   */
  readonly nodeHttpOnly?: boolean;
}

/**
 * A sender with its own keep-alive agents: one connection pool per destination origin. Idle
 * sockets stay open until the server closes them (no per-socket idle timer: re-arming it cost a
 * timer per delivery); a request that meets a socket closed under it is sent again once.
 */
export function createHttpSender(options: HttpSenderOptions = {}): Sender {
  const agents = {
    'http:': options.httpAgent ?? new HttpAgent({ keepAlive: true }),
    'https:': options.httpsAgent ?? new HttpsAgent({ keepAlive: true }),
  };
  const lean = options.nodeHttpOnly || options.httpAgent ? undefined : new LeanHttp();
  return (request, timeoutMs) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ kind: 'network_error', message: `invalid URL (${request.redactedUrl})` });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return Promise.resolve({
        kind: 'network_error',
        message: `unsupported protocol ${url.protocol} (${request.redactedUrl})`,
      });
    const deadline = Date.now() + timeoutMs;
    if (lean && url.protocol === 'http:' && plainHeaders(request.headers))
      return lean.send(url, request, timeoutMs, deadline);
    return exchange(url, request, agents, timeoutMs, deadline, true);
  };
}

function exchange(
  url: URL,
  request: OutboundRequest,
  agents: { readonly 'http:': HttpAgent; readonly 'https:': HttpsAgent },
  timeoutMs: number,
  deadline: number,
  mayRetryStale: boolean,
): Promise<InboundResponse> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: InboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const body = Buffer.from(request.body, 'utf8');
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: request.method,
      headers: { ...request.headers, 'content-length': String(body.length) },
      agent: agents[url.protocol as 'http:' | 'https:'],
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
        resolve(exchange(url, request, agents, timeoutMs, deadline, false));
        return;
      }
      finish({ kind: 'network_error', message: describe(err, request) });
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // Stop reading a body that is larger than we keep; the connection is not reused.
        if (size >= MAX_RESPONSE_BYTES) {
          finish(response(res, chunks));
          res.destroy();
        }
      });
      res.on('end', () => finish(response(res, chunks)));
      res.on('error', (err: NodeJS.ErrnoException) =>
        finish({ kind: 'network_error', message: describe(err, request) }),
      );
    });
    req.end(body);
  });
}

function response(res: IncomingMessage, chunks: readonly Buffer[]): InboundResponse {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  const body =
    chunks.length === 0
      ? ''
      : (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks))
          .subarray(0, MAX_RESPONSE_BYTES)
          .toString('utf8');
  return { kind: 'response', status: res.statusCode ?? 0, headers, body };
}

function describe(err: NodeJS.ErrnoException, request: OutboundRequest): string {
  const code = err.code && !err.message.includes(err.code) ? ` (${err.code})` : '';
  return `${err.message}${code} (${request.redactedUrl})`;
}

/** Header names and values the lean client writes as given: no CR, LF or non-latin1 text. */
function plainHeaders(headers: Readonly<Record<string, string>>): boolean {
  for (const name in headers) {
    if (/[^\t\x20-\x7e]|:/.test(name) || /[^\t\x20-\xff]/.test(headers[name] as string)) return false;
  }
  return true;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 64 * 1024;

interface Exchange {
  readonly url: URL;
  readonly request: OutboundRequest;
  readonly data: string;
  readonly timeoutMs: number;
  readonly deadline: number;
  readonly resolve: (r: InboundResponse) => void;
  /** The request may be sent once more on a fresh socket if a reused one turns out closed. */
  mayRetryStale: boolean;
}

/**
 * A lean HTTP/1.1 client for plain-http destinations (local receivers and loopback
 * platforms; production endpoints are https and keep node:https). node:http's client cost
 * ~60-90 µs CPU per request outside the functions framework (request object, agent queue,
 * header bookkeeping, response stream; measured on loopback) and more inside its per-request
 * domain, where each async resource it makes runs the domain's hooks. This one writes a
 * request as one string over a kept-alive socket and parses only the status, the headers and
 * at most MAX_RESPONSE_BYTES of body. Same outcomes as the node:http path: any status is a
 * response, a timeout bounds the whole exchange, a reused socket found closed is retried
 * once, redirects are not followed, an oversized body is cut and its connection dropped.
 */
class LeanHttp {
  private readonly idle = new Map<string, LeanConnection[]>();

  send(url: URL, request: OutboundRequest, timeoutMs: number, deadline: number): Promise<InboundResponse> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
    for (const name in request.headers) head += `${name}: ${request.headers[name]}\r\n`;
    head += `content-length: ${Buffer.byteLength(request.body)}\r\n\r\n`;
    return new Promise((resolve) => {
      this.start(host, Number(url.port || 80), {
        url,
        request,
        data: head + request.body,
        timeoutMs,
        deadline,
        resolve,
        mayRetryStale: true,
      });
    });
  }

  start(host: string, port: number, x: Exchange): void {
    const key = `${host}:${port}`;
    const free = this.idle.get(key);
    let reused = free?.pop();
    // A socket the server ended while idle is not reused (its close may still be on its way).
    while (reused && !reused.usable) reused = free?.pop();
    if (reused) reused.begin(x, true);
    else new LeanConnection(this, key, host, port).begin(x, false);
  }

  release(c: LeanConnection): void {
    const free = this.idle.get(c.key);
    if (free) free.push(c);
    else this.idle.set(c.key, [c]);
  }

  forget(c: LeanConnection): void {
    const free = this.idle.get(c.key);
    const i = free ? free.indexOf(c) : -1;
    if (free && i >= 0) free.splice(i, 1);
  }
}

/** One kept-alive socket; one exchange at a time. */
class LeanConnection {
  readonly key: string;
  private readonly owner: LeanHttp;
  private readonly host: string;
  private readonly port: number;
  private readonly socket: Socket;
  private x: Exchange | undefined;
  private reused = false;
  private timer: NodeJS.Timeout | undefined;
  private buf: Buffer = Buffer.alloc(0);
  private gotBytes = false;
  // Response state: status < 0 while the head is read.
  private status = -1;
  private headers: Record<string, string> = {};
  private remaining = 0;
  private chunked = false;
  private untilClose = false;
  private keepAlive = true;
  private body: Buffer[] = [];
  private bodySize = 0;

  constructor(owner: LeanHttp, key: string, host: string, port: number) {
    this.owner = owner;
    this.key = key;
    this.host = host;
    this.port = port;
    this.socket = connect({ host, port, noDelay: true, keepAlive: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.onError(err));
    this.socket.on('close', () => this.onClose());
    this.socket.on('end', () => this.owner.forget(this));
  }

  get usable(): boolean {
    return this.socket.writable && !this.socket.destroyed && !this.socket.readableEnded;
  }

  begin(x: Exchange, reused: boolean): void {
    this.x = x;
    this.reused = reused;
    this.status = -1;
    this.gotBytes = false;
    this.body = [];
    this.bodySize = 0;
    this.buf = Buffer.alloc(0);
    this.timer = setTimeout(
      () => {
        this.socket.destroy();
        this.settle({
          kind: 'network_error',
          message: `timeout after ${x.timeoutMs} ms (${x.request.redactedUrl})`,
        });
      },
      Math.max(0, x.deadline - Date.now()),
    );
    // Written at once: a connecting socket queues it until connected.
    this.socket.write(x.data);
  }

  private settle(r: InboundResponse): void {
    const x = this.x;
    if (!x) return;
    this.x = undefined;
    clearTimeout(this.timer);
    x.resolve(r);
  }

  /** A reused socket closed before any answer: the request never got there; send it again. */
  private retryStale(): boolean {
    const x = this.x;
    if (!x || !this.reused || this.gotBytes || !x.mayRetryStale || Date.now() >= x.deadline) return false;
    this.x = undefined;
    clearTimeout(this.timer);
    x.mayRetryStale = false;
    this.owner.start(this.host, this.port, x);
    return true;
  }

  private onError(err: NodeJS.ErrnoException): void {
    const x = this.x;
    this.socket.destroy();
    if (!x) return;
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'ERR_STREAM_WRITE_AFTER_END') {
      if (this.retryStale()) return;
    }
    this.settle({ kind: 'network_error', message: describe(err, x.request) });
  }

  private onClose(): void {
    this.owner.forget(this);
    const x = this.x;
    if (!x) return;
    if (this.status >= 0 && this.untilClose) {
      this.finish();
      return;
    }
    if (this.retryStale()) return;
    const err = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    this.settle({ kind: 'network_error', message: describe(err, x.request) });
  }

  private onData(chunk: Buffer): void {
    if (!this.x) {
      // Bytes nobody asked for: the connection is out of step; do not reuse it.
      this.socket.destroy();
      return;
    }
    this.gotBytes = true;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      this.parse();
    } catch (err) {
      const x = this.x;
      this.socket.destroy();
      if (x)
        this.settle({
          kind: 'network_error',
          message: `${(err as Error).message} (${x.request.redactedUrl})`,
        });
    }
  }

  private parse(): void {
    while (this.status < 0) {
      const end = this.buf.indexOf(CRLFCRLF);
      if (end < 0) {
        if (this.buf.length > MAX_HEAD_BYTES) throw new Error('response head too large');
        return;
      }
      const head = this.buf.toString('latin1', 0, end);
      this.buf = this.buf.subarray(end + 4);
      this.readHead(head);
    }
    if (this.untilClose) {
      this.keep(this.buf);
      this.buf = Buffer.alloc(0);
      if (this.bodySize >= MAX_RESPONSE_BYTES) this.cut();
      return;
    }
    if (this.chunked ? this.readChunks() : this.readLength()) this.finish();
    else if (this.bodySize >= MAX_RESPONSE_BYTES) this.cut();
  }

  /** Status line and headers; a 1xx answer leaves status < 0 (the real one follows). */
  private readHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) throw new Error('not an HTTP/1 response');
    const status = Number(m[2]);
    if (status >= 100 && status < 200) return;
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      // Repeated headers are joined, as the node:http path reports them.
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const length = headers['content-length'];
    const connection = (headers['connection'] ?? '').toLowerCase();
    this.status = status;
    this.headers = headers;
    this.keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.chunked = false;
    this.untilClose = false;
    this.remaining = 0;
    if (status === 204 || status === 304) return;
    if ((headers['transfer-encoding'] ?? '').toLowerCase().endsWith('chunked')) this.chunked = true;
    else if (length !== undefined) {
      if (!/^\d+$/.test(length)) throw new Error('bad content-length');
      this.remaining = Number(length);
    } else {
      this.untilClose = true;
      this.keepAlive = false;
    }
  }

  private keep(part: Buffer): void {
    if (this.bodySize >= MAX_RESPONSE_BYTES || part.length === 0) return;
    this.body.push(part);
    this.bodySize += part.length;
  }

  /** Content-Length body; true once complete. */
  private readLength(): boolean {
    const take = Math.min(this.remaining, this.buf.length);
    this.keep(this.buf.subarray(0, take));
    this.remaining -= take;
    this.buf = this.buf.subarray(take);
    return this.remaining === 0;
  }

  /** Chunked body; true once the last chunk and its trailers are read. */
  private readChunks(): boolean {
    for (;;) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, this.buf.length);
        this.keep(this.buf.subarray(0, take));
        this.remaining -= take;
        this.buf = this.buf.subarray(take);
        if (this.remaining > 0) return false;
      }
      const eol = this.buf.indexOf('\r\n');
      if (eol < 0) return false;
      const line = this.buf.toString('latin1', 0, eol);
      if (line === '') {
        // The CRLF after a chunk's data.
        this.buf = this.buf.subarray(2);
        continue;
      }
      const size = Number.parseInt(line, 16);
      if (!Number.isFinite(size) || size < 0) throw new Error('bad chunk size');
      if (size === 0) {
        const end = this.buf.indexOf(CRLFCRLF, eol);
        if (end >= 0) {
          this.buf = this.buf.subarray(end + 4);
          return true;
        }
        return false;
      }
      this.buf = this.buf.subarray(eol + 2);
      this.remaining = size;
    }
  }

  /** A body larger than we keep: answer with its start and drop the connection. */
  private cut(): void {
    const x = this.x;
    this.finishWith(false);
    if (x) this.socket.destroy();
  }

  private finish(): void {
    this.finishWith(this.keepAlive && this.buf.length === 0);
  }

  private finishWith(reuse: boolean): void {
    const all = this.body.length === 1 ? (this.body[0] as Buffer) : Buffer.concat(this.body);
    const body = all.length === 0 ? '' : all.subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
    const r: InboundResponse = { kind: 'response', status: this.status, headers: this.headers, body };
    this.body = [];
    if (!reuse) this.socket.destroy();
    this.settle(r);
    if (reuse) this.owner.release(this);
  }
}
