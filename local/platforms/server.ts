/**
 * The loopback server the platform receivers share: a real node:http server on 127.0.0.1,
 * recording every request with the problems the platform's published rules find in it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a receiver saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly raw: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  /** What breaks the platform's rules; empty when the request is valid. */
  readonly problems: readonly string[];
  readonly status: number;
  /** The answer sent back. */
  readonly response: unknown;
}

/** What a platform answers: a status, a JSON body (undefined = no body) and headers (Retry-After). */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly problems?: readonly string[];
  /** Response headers besides content-type (a throttling answer's `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The path that scripts a stand-in's next answers from outside its process (`POST` a JSON
 * `{answers: Answer[]}`), as `failNext` does in-process: how an end-to-end test on `npm start`
 * makes the receiver's stand-in throttle. Never a platform's own path.
 */
export const SCRIPT_PATH = '/_standin/fail-next';

export interface PlatformReceiver {
  /** Base URL to put in a destination's `base_url`. */
  readonly url: string;
  /** Every request, oldest first, but the `HEAD`s (`probes`). */
  readonly received: ReceivedRequest[];
  /**
   * The paths of the `HEAD` requests, oldest first: `forward`'s eventless probes (a cold instance's
   * first call, an open breaker's), which the web front of a platform's API answers itself, as
   * a method the API does not have (405), without running a method or taking a scripted answer.
   */
  readonly probes: string[];
  /**
   * Scripts the next answers (throttling, outages) before the rules run: each call
   * answers one request with the given answer, in order.
   */
  failNext(...answers: Answer[]): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The secret the receiver accepts (default: any non-empty value). */
  readonly accessToken?: string;
  /** The receiver's clock, for time windows (default: the real clock). */
  readonly now?: () => Date;
  /**
   * The share (0 to 1) of what it received that a stand-in reporting counts leaves out of them
   * (Meta's pixel stats, GA4's runReport), so a test can make a gap; default 0.
   */
  readonly countShortfall?: number;
}

/** What a stand-in reports counted of `received` events: the configured shortfall left out. */
export function countedOf(received: number, shortfall: number | undefined): number {
  const share = shortfall !== undefined && shortfall > 0 && shortfall <= 1 ? shortfall : 0;
  return Math.round(received * (1 - share));
}

export type Handler = (req: {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  raw: string;
  body: unknown;
}) => Answer;

/** The path of a stand-in that scripts its next answers (as failNext does, from another process). */
function scriptedAnswers(body: unknown): Answer[] | undefined {
  const answers = (body as { answers?: unknown } | undefined)?.answers;
  if (!Array.isArray(answers) || answers.length > 1000) return undefined;
  const ok = answers.every(
    (a) =>
      typeof a === 'object' &&
      a !== null &&
      Number.isInteger((a as Answer).status) &&
      (a as Answer).status >= 100 &&
      (a as Answer).status <= 599,
  );
  return ok
    ? answers.map((a: Answer) => ({
        status: a.status,
        body: a.body,
        ...(a.headers ? { headers: a.headers } : {}),
      }))
    : undefined;
}

/** Starts a receiver on 127.0.0.1 port 0 that answers with `handle`. */
export async function startPlatformServer(handle: Handler): Promise<PlatformReceiver> {
  const received: ReceivedRequest[] = [];
  const probes: string[] = [];
  const scripted: Answer[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://localhost');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const request = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        raw,
        body,
      };
      if (request.method === 'HEAD') {
        probes.push(url.pathname);
        return void res.writeHead(405, { allow: 'GET, POST' }).end();
      }
      if (request.method === 'POST' && url.pathname === SCRIPT_PATH) {
        const answers = scriptedAnswers(body);
        if (!answers)
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'expected {answers: [{status: 100..599, body?, headers?}, …]}' }));
        scripted.push(...answers);
        return void res.writeHead(204).end();
      }
      const answer = scripted.shift() ?? handle(request);
      received.push({
        ...request,
        problems: answer.problems ?? [],
        status: answer.status,
        response: answer.body,
      });
      const replyHeaders = answer.headers ?? {};
      if (answer.body === undefined) res.writeHead(answer.status, replyHeaders).end();
      else
        res
          .writeHead(answer.status, { 'content-type': 'application/json', ...replyHeaders })
          .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    probes,
    failNext: (...answers) => {
      scripted.push(...answers);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SHA256_HEX = /^[a-f0-9]{64}$/;

/** True for a SHA-256 lowercase hex digest or a non-empty list of them. */
export function isHashed(v: unknown): boolean {
  if (typeof v === 'string') return SHA256_HEX.test(v);
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && SHA256_HEX.test(x));
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
