/**
 * The ingest gateway: a lean node:http server (the functions framework costs ~85% of the
 * throughput and answers malformed JSON with HTML, GCP-WIRE.md §6). Streaming body with hard
 * caps, nesting checked on the raw bytes, one Publish call per request, Google's error
 * envelope for every failure. Everything it talks to is injected.
 */
import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gunzip } from 'node:zlib';
import { type EventPublisher, type OutgoingMessage, PublishUnavailableError } from '../adapters/publisher.ts';
import { type ApiError, apiError, type ErrorCode, withViolations } from '../core/errors.ts';
import { type NormalizeOptions, normalizeEvent, normalizeOptions } from '../core/event.ts';
import { exceedsDepth, type Limits, limitsOf } from '../core/json-limits.ts';
import type { FieldViolation } from '../core/validation.ts';
import { eventNameProblem } from '../schemas/catalogue.ts';
import type { Settings } from '../schemas/settings.ts';
import { type AuthenticatorDeps, authenticate, type Principal, RateLimiter } from './auth.ts';
import { canPublish } from './credentials.ts';

export interface GatewayConfig {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  /** Event topics producers may publish to (plan().gateway.topics). */
  readonly topics: readonly string[];
  /** Take the client IP from X-Forwarded-For (Cloud Run's front end appends it). */
  readonly trustProxy?: boolean;
  /** How long a client may take to send its body. */
  readonly bodyTimeoutMs?: number;
  /** The OpenAPI document served at GET /v1/openapi.json. */
  readonly openapi?: unknown;
}

export interface GatewayDeps extends Omit<AuthenticatorDeps, 'principals' | 'now'> {
  readonly publisher: EventPublisher;
  readonly clock?: () => number;
  readonly newId: () => string;
  readonly log?: (entry: Record<string, unknown>) => void;
}

/** What one request asks to publish, before auth-dependent checks. */
interface Parsed {
  readonly topic: string;
  readonly messages: OutgoingMessage[];
  readonly eventNames: string[];
}

type Step<T> = { ok: true; value: T } | { ok: false; error: ApiError };
const fail = (code: ErrorCode, params: Record<string, string | number> = {}, v: FieldViolation[] = []) =>
  ({ ok: false, error: apiError(code, params, v) }) as const;

const TOPIC_PATH = /^\/v1\/topics\/([^/]+)$/;
const PUBLISH_PATH = /^\/v1\/projects\/([^/]+)\/topics\/([^/]+):publish$/;
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const RESERVED_TOPICS = new Set(['deliveries']);
const ENVELOPE_KEYS = new Set(['messages']);
const MESSAGE_KEYS = new Set(['data', 'attributes', 'orderingKey', 'messageId', 'publishTime']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const OUR_ATTRIBUTES = ['event_name', 'event_id', 'schema_version', 'source'] as const;

/** Creates the gateway's http.Server (not listening yet). */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Server {
  const limits: Limits = limitsOf(config.settings);
  const options: NormalizeOptions = normalizeOptions(config.settings);
  const origins = new Set(config.settings.producers?.origins ?? []);
  const topics = new Set(config.topics);
  const now = deps.clock ?? Date.now;
  const log = deps.log ?? (() => {});
  const limiter = new RateLimiter(
    config.settings.tokens?.rate_limit_per_second ?? 200,
    config.settings.tokens?.burst ?? 400,
  );
  const authDeps: AuthenticatorDeps = {
    credentials: deps.credentials,
    ...(deps.google ? { google: deps.google } : {}),
    principals: config.settings.producers?.principals ?? [],
    now,
  };
  const bodyTimeoutMs = config.bodyTimeoutMs ?? 10_000;
  const openapiBody = config.openapi ? JSON.stringify(config.openapi) : undefined;

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    if (res.headersSent) return;
    const text = JSON.stringify(body);
    const origin = req.headers.origin;
    if (origin && origins.has(origin)) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
    }
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
    });
    res.end(text);
  };
  const sendError = (req: IncomingMessage, res: ServerResponse, e: ApiError, close = false) => {
    // An answer sent before the body was read closes the connection rather than draining it.
    send(req, res, e.http, e.body, close ? { ...e.headers, connection: 'close' } : e.headers);
  };

  /** Resolves the topic segment: a configured topic, or an event name aliasing `events`. */
  const resolveTopic = (segment: string): { topic: string; eventName?: string } | undefined => {
    if (!NAME.test(segment) || RESERVED_TOPICS.has(segment)) return undefined;
    if (topics.has(segment)) return { topic: segment };
    if (eventNameProblem(segment) === undefined) return { topic: 'events', eventName: segment };
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';

    if (path === '/health' || path === '/v1/openapi.json') {
      if (method !== 'GET' && method !== 'HEAD') {
        return sendError(req, res, apiError('METHOD_NOT_ALLOWED', { method, path }), true);
      }
      if (path === '/health') return send(req, res, 200, { status: 'ok' });
      if (!openapiBody) return sendError(req, res, apiError('NOT_FOUND', { resource: path }));
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
      });
      res.end(openapiBody);
      return;
    }

    let target: { topic: string; eventName?: string } | undefined;
    let form: 'topics' | 'publish';
    const tm = TOPIC_PATH.exec(path);
    const pm = tm ? null : PUBLISH_PATH.exec(path);
    if (tm) {
      form = 'topics';
      target = resolveTopic(tm[1] as string);
    } else if (pm) {
      form = 'publish';
      const topic = pm[2] as string;
      target = pm[1] === config.project && NAME.test(topic) && topics.has(topic) ? { topic } : undefined;
    } else {
      return sendError(req, res, apiError('NOT_FOUND', { resource: truncate(path) }), true);
    }
    if (!target) return sendError(req, res, apiError('NOT_FOUND', { resource: truncate(path) }), true);

    if (method === 'OPTIONS') {
      const origin = req.headers.origin;
      if (!origin || !origins.has(origin)) {
        return sendError(req, res, apiError('ORIGIN_NOT_ALLOWED', { origin: origin ?? '(none)' }), true);
      }
      res.writeHead(204, {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type, content-encoding, x-write-key, authorization',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
      res.end();
      return;
    }
    if (method !== 'POST') {
      const e = apiError('METHOD_NOT_ALLOWED', { method, path: truncate(path) });
      return sendError(req, res, { ...e, headers: { ...e.headers, allow: 'POST, OPTIONS' } }, true);
    }

    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const auth = await authenticate(req, query.getAll('key'), authDeps);
    if (!auth.ok) return sendError(req, res, auth.error, true);
    const principal = auth.principal;
    const wait = limiter.take(
      `${principal.kind}:${principal.id}`,
      now(),
      'rate' in principal ? principal.rate : undefined,
    );
    if (wait > 0) return sendError(req, res, apiError('RATE_LIMITED', { retryAfter: wait }), true);

    const body = await readRequest(req, limits, bodyTimeoutMs);
    if (!body.ok) return sendError(req, res, body.error, true);

    const parsed =
      form === 'topics'
        ? parseTopicsForm(body.value, target.topic, target.eventName, req)
        : parsePublishForm(body.value, target.topic, req);
    if (!parsed.ok) return sendError(req, res, parsed.error);

    if (!allowed(principal, parsed.value)) {
      return sendError(
        req,
        res,
        apiError('PERMISSION_DENIED', {
          detail: `this credential may not publish ${[...new Set(parsed.value.eventNames)].join(', ')} to ${parsed.value.topic}`,
        }),
      );
    }

    try {
      const messageIds = await deps.publisher.publish(parsed.value.topic, parsed.value.messages);
      send(req, res, 200, { messageIds });
    } catch (err) {
      const retryAfter = err instanceof PublishUnavailableError ? err.retryAfterSeconds : 2;
      log({
        severity: 'ERROR',
        message: `publish failed: ${(err as Error).message}`,
        topic: parsed.value.topic,
      });
      sendError(req, res, apiError('UNAVAILABLE', { retryAfter }));
    }
  };

  const allowed = (principal: Principal, p: Parsed): boolean => {
    if (principal.kind === 'token') return canPublish(principal.scopes, p.topic, p.eventNames);
    return true; // write keys and listed Google principals are publish-only by definition
  };

  const clientOf = (req: IncomingMessage) => {
    let ip = req.socket.remoteAddress;
    if (config.trustProxy) {
      const xff = req.headers['x-forwarded-for'];
      const hops = (Array.isArray(xff) ? xff.join(',') : (xff ?? ''))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (hops.length > 0) ip = hops[hops.length - 1];
    }
    const ua = req.headers['user-agent'];
    return { ip, userAgent: ua };
  };

  /** Normalises events and builds the Pub/Sub messages; every violation of every event at once. */
  const buildMessages = (
    events: readonly { raw: unknown; prefix: string; attributes?: Record<string, string> }[],
    topic: string,
    pathEventName: string | undefined,
    req: IncomingMessage,
  ): Step<Parsed> => {
    const received = now();
    const client = clientOf(req);
    const violations: FieldViolation[] = [];
    const messages: OutgoingMessage[] = [];
    const eventNames: string[] = [];
    let total = 0;
    for (const item of events) {
      const r = normalizeEvent(item.raw, {
        options,
        now: received,
        newId: deps.newId,
        client,
        prefix: item.prefix,
        ...(pathEventName ? { pathEventName } : {}),
      });
      if (!r.ok) {
        violations.push(...r.violations);
        continue;
      }
      if (violations.length > 0) continue;
      const data = Buffer.from(JSON.stringify(r.event));
      if (data.length > limits.maxEventBytes) {
        return fail('EVENT_TOO_LARGE', {
          field: item.prefix || '(root)',
          size: data.length,
          max: limits.maxEventBytes,
        });
      }
      const ours = {
        event_name: r.event.event_name,
        event_id: r.event.event_id,
        schema_version: String(r.version),
        source: r.event.source ?? 'gateway',
      };
      const attributes: Record<string, string> = item.attributes ? { ...item.attributes, ...ours } : ours;
      total += data.length;
      for (const k in attributes) {
        total += Buffer.byteLength(k) + Buffer.byteLength(attributes[k] as string);
      }
      messages.push({ data, attributes });
      eventNames.push(r.event.event_name);
    }
    if (violations.length > 0) return fail('INVALID_EVENT', { count: violations.length }, violations);
    if (total > limits.maxRequestBytes) return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });
    return { ok: true, value: { topic, messages, eventNames } };
  };

  const parseTopicsForm = (
    value: unknown,
    topic: string,
    pathEventName: string | undefined,
    req: IncomingMessage,
  ): Step<Parsed> => {
    if (Array.isArray(value)) {
      if (value.length === 0) return fail('EMPTY_BATCH');
      if (value.length > limits.maxEventsPerRequest) {
        return fail('TOO_MANY_EVENTS', { count: value.length, max: limits.maxEventsPerRequest });
      }
      return buildMessages(
        value.map((raw, i) => ({ raw, prefix: `[${i}]` })),
        topic,
        pathEventName,
        req,
      );
    }
    if (value === null || typeof value !== 'object') {
      return fail('NOT_AN_EVENT', { expected: 'an event object or an array of them', got: kindOf(value) });
    }
    return buildMessages([{ raw: value, prefix: '' }], topic, pathEventName, req);
  };

  const parsePublishForm = (value: unknown, topic: string, req: IncomingMessage): Step<Parsed> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return fail('NOT_AN_EVENT', { expected: 'an event object or a publish envelope', got: kindOf(value) });
    }
    const obj = value as Record<string, unknown>;
    if (!Object.hasOwn(obj, 'messages') || Object.hasOwn(obj, 'event_name'))
      return buildMessages([{ raw: obj, prefix: '' }], topic, undefined, req);
    const unknown = Object.keys(obj).find((k) => !ENVELOPE_KEYS.has(k));
    if (unknown)
      return fail('INVALID_ENVELOPE', {
        detail: `Unknown name ${JSON.stringify(truncate(unknown))}: Cannot find field.`,
      });
    const list = obj['messages'];
    if (!Array.isArray(list)) return fail('INVALID_ENVELOPE', { detail: '"messages" must be an array.' });
    if (list.length === 0) return fail('EMPTY_BATCH');
    if (list.length > limits.maxEventsPerRequest) {
      return fail('TOO_MANY_EVENTS', { count: list.length, max: limits.maxEventsPerRequest });
    }
    const events: { raw: unknown; prefix: string; attributes: Record<string, string> }[] = [];
    for (let i = 0; i < list.length; i++) {
      const field = `messages[${i}]`;
      const m = list[i] as Record<string, unknown>;
      if (m === null || typeof m !== 'object' || Array.isArray(m)) {
        return fail('INVALID_ENVELOPE', { detail: `${field} must be an object.` }, [
          { field, description: 'expected object' },
        ]);
      }
      const unknownField = Object.keys(m).find((k) => !MESSAGE_KEYS.has(k));
      if (unknownField) {
        return fail('INVALID_ENVELOPE', {
          detail: `Unknown name ${JSON.stringify(truncate(unknownField))} at '${field}': Cannot find field.`,
        });
      }
      const attrs = checkAttributes(m['attributes'], field, limits.maxAttributes - OUR_ATTRIBUTES.length);
      if (!attrs.ok) return attrs;
      const data = m['data'];
      if (data === undefined || data === '') {
        if (Object.keys(attrs.value).length === 0) return fail('EMPTY_MESSAGE');
        return fail('INVALID_EVENT', { count: 1 }, [
          { field: `${field}.data`, description: 'is required: it carries the event as base64 JSON' },
        ]);
      }
      if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
        return fail('BAD_BASE64', { field: `${field}.data` }, [
          { field: `${field}.data`, description: 'is not standard base64' },
        ]);
      }
      const bytes = Buffer.from(data, 'base64');
      const decoded = decodeJson(bytes, limits.maxDepth);
      if (!decoded.ok) {
        const e = decoded.error;
        return {
          ok: false,
          error: withViolations(e, [{ field: `${field}.data`, description: e.body.error.message }]),
        };
      }
      events.push({ raw: decoded.value, prefix: `${field}.data`, attributes: attrs.value });
    }
    return buildMessages(events, topic, undefined, req);
  };

  const server = createServer(
    { requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 65_000, requireHostHeader: false },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        log({ severity: 'ERROR', message: `gateway bug: ${(err as Error).stack ?? String(err)}` });
        sendError(req, res, apiError('INTERNAL'), true);
      });
    },
  );
  // A malformed request line or headers: answer with our envelope instead of node's bare 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const e = apiError(err.code === 'HPE_HEADER_OVERFLOW' ? 'REQUEST_TOO_LARGE' : 'MALFORMED_REQUEST', {
      max: 16384,
    });
    const text = JSON.stringify(e.body);
    socket.end(
      `HTTP/1.1 ${e.http} ${e.http === 413 ? 'Payload Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}

function checkAttributes(value: unknown, field: string, max: number): Step<Record<string, string>> {
  if (value === undefined) return { ok: true, value: {} };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('INVALID_ENVELOPE', { detail: `${field}.attributes must be a map of strings.` });
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > max) {
    return fail('INVALID_ENVELOPE', {
      detail: `${field}.attributes has ${entries.length} entries; at most ${max} are allowed.`,
    });
  }
  // No prototype: an attribute named `__proto__` is kept as one, not swallowed by the setter.
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of entries) {
    const where = `${field}.attributes[${JSON.stringify(truncate(k))}]`;
    if (typeof v !== 'string') return fail('INVALID_ENVELOPE', { detail: `${where} must be a string.` });
    if (k === '' || Buffer.byteLength(k) > 256 || k.startsWith('goog') || !k.isWellFormed()) {
      return fail('INVALID_ENVELOPE', {
        detail: `${where}: keys are 1–256 bytes and must not start with "goog".`,
      });
    }
    if (Buffer.byteLength(v) > 1024 || !v.isWellFormed()) {
      return fail('INVALID_ENVELOPE', { detail: `${where}: values are at most 1024 bytes.` });
    }
    if ((OUR_ATTRIBUTES as readonly string[]).includes(k)) continue; // set by the gateway from the event
    out[k] = v;
  }
  return { ok: true, value: out };
}

/** Content type and encoding checks, then the body read with its caps, inflated and parsed. */
async function readRequest(req: IncomingMessage, limits: Limits, timeoutMs: number): Promise<Step<unknown>> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const [media = '', ...params] = type.split(';').map((s) => s.trim());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (
    (media !== 'application/json' && media !== 'text/plain') ||
    (charset && charset !== 'utf-8' && charset !== 'utf8')
  ) {
    return fail('UNSUPPORTED_MEDIA_TYPE', { type: type === '' ? '(none)' : truncate(type) });
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    return fail('UNSUPPORTED_MEDIA_TYPE', { type: `${media} with Content-Encoding ${truncate(encoding)}` });
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limits.maxRequestBytes) return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });

  const raw = await readCapped(req, limits.maxRequestBytes, timeoutMs);
  if (!raw.ok) return raw;
  let bytes = raw.value;
  if (encoding === 'gzip') {
    try {
      bytes = await new Promise<Buffer>((resolve, reject) =>
        gunzip(raw.value, { maxOutputLength: limits.maxRequestBytes }, (err, out) =>
          err ? reject(err) : resolve(out),
        ),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });
      }
      return fail('BAD_ENCODING');
    }
  }
  return decodeJson(bytes, limits.maxDepth);
}

function readCapped(req: IncomingMessage, max: number, timeoutMs: number): Promise<Step<Buffer>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: Step<Buffer>) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      if (!r.ok) req.pause();
      resolve(r);
    };
    // A small body usually arrives with its headers: when the parser already has all of it,
    // there is nothing to wait for and no timer to arm and clear on every request.
    const timer = req.complete ? undefined : setTimeout(() => finish(fail('REQUEST_TIMEOUT')), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) finish(fail('REQUEST_TOO_LARGE', { max }));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish({ ok: true, value: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) }),
    );
    req.once('error', () => finish(fail('REQUEST_TIMEOUT')));
    req.once('aborted', () => finish(fail('REQUEST_TIMEOUT')));
  });
}

/** UTF-8 check, nesting depth on the raw bytes, then JSON.parse; each failure has its own code. */
function decodeJson(bytes: Buffer, maxDepth: number): Step<unknown> {
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3; // a UTF-8 BOM
  const body = start ? bytes.subarray(start) : bytes;
  if (!isUtf8(body)) return fail('INVALID_UTF8');
  const text = body.toString('utf8');
  if (text.trim() === '') return fail('EMPTY_BODY');
  if (exceedsDepth(body, maxDepth)) return fail('TOO_DEEP', { max: maxDepth });
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return fail('MALFORMED_JSON', { detail: truncate((err as Error).message, 200) });
  }
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function truncate(s: string, n = 100): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
