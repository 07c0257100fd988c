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
import type { InboundResponse, OutboundRequest } from '../core/platforms/driver.ts';

/** Bodies of platform answers are kept up to this size (they end up in ledger reasons). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type Sender = (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;

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
  const agents = {
    'http:': options.httpAgent ?? new HttpAgent({ keepAlive: true }),
    'https:': options.httpsAgent ?? new HttpsAgent({ keepAlive: true }),
  };
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
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
    return exchange(url, request, agents, timeoutMs, deadline, true, maxBytes);
  };
}

function exchange(
  url: URL,
  request: OutboundRequest,
  agents: { readonly 'http:': HttpAgent; readonly 'https:': HttpsAgent },
  timeoutMs: number,
  deadline: number,
  mayRetryStale: boolean,
  maxBytes: number,
): Promise<InboundResponse> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: InboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: request.method,
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body, 'utf8')) },
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
        resolve(exchange(url, request, agents, timeoutMs, deadline, false, maxBytes));
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

function response(res: IncomingMessage, chunks: readonly Buffer[], maxBytes: number): InboundResponse {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(res.headers)) {
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

function describe(err: NodeJS.ErrnoException, request: OutboundRequest): string {
  const code = err.code && !err.message.includes(err.code) ? ` (${err.code})` : '';
  return `${err.message}${code} (${request.redactedUrl})`;
}
