/**
 * The ingest gateway: a lean node:http server (the functions framework costs ~85% of the
 * throughput and answers malformed JSON with HTML, docs/google-wire.md §6). It composes the steps of a
 * request, each in its own module: routing (routing.ts), authentication and rate limits
 * (auth.ts), the body read with hard caps (body.ts), the two request forms (envelope.ts), then
 * one Publish call per request. Google's error envelope for every failure; everything it talks
 * to is injected.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type EventPublisher, PublishUnavailableError } from '../adapters/publisher.ts';
import { RegistryUnavailable } from '../adapters/registry.ts';
import type { RefusalEvent } from '../core/console/live-events.ts';
import type { DefinedEvents } from '../core/definitions/defined-events.ts';
import { type ApiError, apiError } from '../core/errors.ts';
import { type NormalizeOptions, normalizeOptions } from '../core/event.ts';
import { type Limits, limitsOf } from '../core/json-limits.ts';
import { verifySignature } from '../core/translate/signatures.ts';
import { lookupEvent } from '../schemas/catalogue.ts';
import type { Settings } from '../schemas/settings.ts';
import {
  type AuthenticatorDeps,
  type AuthResult,
  authenticate,
  authenticateUrlToken,
  type Principal,
  RateLimiter,
} from './auth.ts';
import { inflateBody, type RawBody, readRawBody, readRequest, receiveBody } from './body.ts';
import { canPublish, TOKEN_PREFIX } from './credentials.ts';
import {
  clientHintsOf,
  deprecationHeaders,
  type EnvelopeContext,
  type Parsed,
  parsePublishForm,
  parseTopicsForm,
} from './envelope.ts';
import { createIdempotencyMemory } from './idempotency.ts';
import { route, SEGMENT_TRANSLATOR, type SegmentCall, splitUrl } from './routing.ts';
import { truncate } from './step.ts';
import {
  invalidCalls,
  publishChunks,
  SEGMENT_MEDIA,
  TRANSLATOR_CHARSETS,
  TRANSLATOR_MEDIA,
  type TranslatorEntry,
  translateAnswer,
  translateRows,
} from './translate.ts';

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
  /** The registry's event definitions (adapters/definitions.ts); without it custom events are not checked. */
  readonly definitions?: {
    get(): DefinedEvents | Promise<DefinedEvents>;
    /** Read now, for a custom name the copy does not know (adapters/definitions.ts). */
    afresh?(): Promise<DefinedEvents | undefined>;
  };
  /** The registry's translators; without it `/v1/translators/…` answers 404. */
  readonly translators?: { get(name: string): Promise<TranslatorEntry | undefined> };
  /** Secret values by name (adapters/secrets.ts): translators' signing secrets. */
  readonly secrets?: { get(name: string): Promise<string | undefined> };
  /**
   * Where refused requests are recorded for the studio's live events (adapters/refusal-recorder.ts):
   * called once per error answer, it must not throw or wait.
   */
  readonly refusals?: { record(e: RefusalEvent): void };
}

/** What a request's refusal record says about it, learnt as the request goes (never its body). */
interface RefusalNote {
  credential?: string;
  translator?: string;
  /** The path as records may show it (a credential segment redacted). */
  path?: string;
  reason?: string;
}

/** The query of a URL without one: shared, read only (nothing here adds parameters). */
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();

/** Creates the gateway's http.Server (not listening yet). */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Server {
  const limits: Limits = limitsOf(config.settings);
  const options: NormalizeOptions = normalizeOptions(config.settings);
  const origins = new Set(config.settings.producers?.origins ?? []);
  const topics = new Set(config.topics);
  const now = deps.clock ?? Date.now;
  const log = deps.log ?? (() => {});
  const idempotency = createIdempotencyMemory();
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
  const recorder = deps.refusals;
  const notes = new WeakMap<IncomingMessage, RefusalNote>();
  /** Adds to what the request's refusal record would say (only when records are kept). */
  const note = (req: IncomingMessage, n: RefusalNote): void => {
    if (!recorder) return;
    const had = notes.get(req);
    notes.set(req, had ? Object.assign(had, n) : n);
  };
  const sendError = (req: IncomingMessage, res: ServerResponse, e: ApiError, close = false) => {
    if (recorder && !res.headersSent) {
      const n = notes.get(req);
      recorder.record({
        status: e.http,
        code: e.code,
        reason: n?.reason ?? e.code,
        credential: n?.credential,
        translator: n?.translator,
        path: n?.path ?? truncate(splitUrl(req.url ?? '/').path),
        size: sizeOf(req),
      });
    }
    // An answer sent before the body was read closes the connection rather than draining it.
    send(req, res, e.http, e.body, close ? { ...e.headers, connection: 'close' } : e.headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { path, query: queryText } = splitUrl(req.url ?? '/');
    const method = req.method ?? 'GET';
    const r = route(path, config.project, topics);

    if (r.kind === 'health' || r.kind === 'openapi') {
      if (method !== 'GET' && method !== 'HEAD') {
        return sendError(req, res, apiError('METHOD_NOT_ALLOWED', { method, path }), true);
      }
      if (r.kind === 'health') return send(req, res, 200, { status: 'ok' });
      if (!openapiBody) return sendError(req, res, apiError('NOT_FOUND', { resource: path }));
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
      });
      res.end(openapiBody);
      return;
    }
    if (r.kind === 'not_found') {
      return sendError(req, res, apiError('NOT_FOUND', { resource: truncate(path) }), true);
    }
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
    // Most publishes carry no query: no parameters object to build for them.
    const query = queryText === '' ? NO_QUERY : new URLSearchParams(queryText);
    if ((method === 'GET' || method === 'HEAD') && r.kind === 'translate') {
      const inUrl = urlCredential(r.pathCredential, query);
      if (inUrl) return verifyUrl(req, res, r.translator, inUrl, r.pathCredential !== undefined);
    }
    if (method !== 'POST') {
      const e = apiError('METHOD_NOT_ALLOWED', { method, path: truncate(path) });
      return sendError(req, res, { ...e, headers: { ...e.headers, allow: 'POST, OPTIONS' } }, true);
    }

    if (r.kind === 'translate') return handleTranslate(req, res, r.translator, r.pathCredential, query);
    if (r.kind === 'segment') return handleTranslate(req, res, SEGMENT_TRANSLATOR, undefined, query, r.call);
    const auth = await authenticate(req, query.getAll('key'), authDeps);
    if (!auth.ok) {
      refused(req, auth.error, auth.credential, { path, size: sizeOf(req) });
      return sendError(req, res, auth.error, true);
    }
    const principal = auth.principal;
    note(req, { credential: `${principal.kind}:${principal.id}` });
    if (!admit(req, res, principal)) return;
    const { form, target } = r;

    const body = await readRequest(req, limits, bodyTimeoutMs);
    if (!body.ok) return sendError(req, res, body.error, true);
    let defined = await definitionsNow();

    const ctx = (): EnvelopeContext => ({
      limits,
      options,
      received: now(),
      // A write key sits in a page's source: the address the gateway observes wins over the
      // event's device.ip. Tokens and Google identities are servers that may forward their
      // users' addresses (docs/gateway.md).
      client: { ...clientOf(req), observedIpWins: principal.kind === 'key' },
      newId: deps.newId,
      ...(defined ? { defined } : {}),
    });
    const parse = () =>
      form === 'topics'
        ? parseTopicsForm(body.value, target.topic, target.eventName, ctx())
        : parsePublishForm(body.value, target.topic, ctx());
    let parsed = parse();
    // A custom name the copy of the definitions does not know may be defined a moment ago: the
    // definitions are read again (at most once a second) and the request parsed with them.
    if (
      parsed.ok &&
      defined &&
      parsed.value.eventNames.some((n) => !lookupEvent(n) && !defined?.current(n))
    ) {
      const again = await deps.definitions?.afresh?.();
      if (again) {
        defined = again;
        parsed = parse();
      }
    }
    if (!parsed.ok) return sendError(req, res, parsed.error);
    if (defined === null && parsed.value.eventNames.some((n) => !lookupEvent(n))) {
      // No copy of the definitions: a custom event may be a defined one, so it is not accepted unchecked.
      return sendError(req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }));
    }

    if (!allowed(principal, parsed.value)) {
      const e = apiError('PERMISSION_DENIED', {
        detail: `this credential may not publish ${[...new Set(parsed.value.eventNames)].join(', ')} to ${parsed.value.topic}`,
      });
      refused(req, e, `${principal.kind}:${principal.id}`, { path, size: sizeOf(req) });
      return sendError(req, res, e);
    }

    try {
      const published = await deps.publisher.publish(parsed.value.topic, parsed.value.messages);
      // One id per event of the request, in order; copies of an event_id share its message's id.
      const messageIds = parsed.value.order.map((i) => published[i]);
      send(req, res, 200, { messageIds }, deprecationHeaders(parsed.value.deprecated));
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

  /** The rate limit of a principal; false (and 429 sent) when it is over. */
  const admit = (req: IncomingMessage, res: ServerResponse, principal: Principal): boolean => {
    const wait = limiter.take(
      `${principal.kind}:${principal.id}`,
      now(),
      'rate' in principal ? principal.rate : undefined,
    );
    if (wait > 0) sendError(req, res, apiError('RATE_LIMITED', { retryAfter: wait }), true);
    return wait <= 0;
  };

  /**
   * `POST /v1/translators/{name}[/{credential}]` (gateway/translate.ts, docs/senders.md). The
   * translator is read first, since it says how its senders prove themselves: a vendor's body
   * signature (checked on the bytes as received, before anything is parsed), a token scoped to
   * it alone in the URL, or the usual credentials.
   */
  const handleTranslate = async (
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    pathCredential: string | undefined,
    query: URLSearchParams,
    /** A call on Segment's paths: the `segment` translator, with their content types and answers. */
    segment?: SegmentCall,
  ): Promise<void> => {
    // The path with a credential segment redacted: what refusal records and logs may show.
    const shownPath = segment
      ? `/v1/${segment}`
      : `/v1/translators/${name}${pathCredential ? '/[redacted]' : ''}`;
    note(req, { translator: name, path: shownPath });
    const entry = await translatorNow(name);
    if (entry === null) return sendError(req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }), true);
    const refuse = (e: ApiError, credential: string | undefined, reason?: string) => {
      refused(req, e, credential, {
        path: shownPath,
        translator: name,
        size: sizeOf(req),
        ...(reason ? { reason } : {}),
      });
      return sendError(req, res, e, true);
    };
    const format = entry ? TRANSLATOR_MEDIA[entry.spec.format.type] : undefined;
    // RudderStack's library labels its gzipped JSON application/x-www-form-urlencoded.
    const media = format && segment && format === 'application/json' ? SEGMENT_MEDIA : format && [format];
    const signature = entry?.spec.auth?.signature;
    let body: RawBody | undefined;
    let principal: Principal;
    if (entry && signature && media) {
      // A signing sender (Stripe, GitHub, …) cannot add a token: its signature is its credential,
      // checked on the bytes as they arrived, before they are inflated or parsed.
      const got = await receiveBody(req, limits, bodyTimeoutMs, media, TRANSLATOR_CHARSETS);
      if (!got.ok) return sendError(req, res, got.error, true);
      let values: (string | undefined)[];
      try {
        values = await Promise.all(signature.secrets.map((s) => deps.secrets?.get(s)));
      } catch (err) {
        log({
          severity: 'ERROR',
          message: `signing secret unreadable: ${(err as Error).message}`,
          translator: name,
        });
        return sendError(req, res, apiError('UNAVAILABLE', { retryAfter: 5 }), true);
      }
      const check = verifySignature(
        signature,
        {
          method: req.method ?? 'POST',
          url: `${protoOf(req)}://${req.headers.host ?? ''}${req.url ?? ''}`,
          header: (h) => {
            const v = req.headers[h];
            return Array.isArray(v) ? v[0] : v;
          },
          body: got.value.received,
        },
        values.filter((v): v is string => v !== undefined),
        now(),
      );
      const credential = `signature:${signature.scheme}`;
      if (!check.ok && check.reason === 'no_secret') {
        // The operator's doing, not the sender's: a 5xx makes the vendor retry once it is set.
        log({
          severity: 'ERROR',
          message: `translator ${name}: ${check.detail}`,
          secrets: signature.secrets,
        });
        return refuse(apiError('UNAVAILABLE', { retryAfter: 30 }), credential, check.reason);
      }
      if (!check.ok)
        return refuse(apiError('INVALID_CREDENTIALS', { detail: check.detail }), credential, check.reason);
      principal = { kind: 'signature', id: name };
      const inflated = await inflateBody(got.value, limits);
      if (!inflated.ok) return sendError(req, res, inflated.error, true);
      body = inflated.value;
    } else {
      const inUrl = urlCredential(pathCredential, query);
      const auth = inUrl
        ? await authenticateInUrl(entry, name, inUrl)
        : await authenticate(req, query.getAll('key'), authDeps);
      if (!auth.ok) return refuse(auth.error, auth.credential);
      principal = auth.principal;
    }
    note(req, { credential: `${principal.kind}:${principal.id}` });
    if (!entry || !media)
      return sendError(
        req,
        res,
        apiError('NOT_FOUND', {
          resource: segment
            ? `translator ${name} (Segment's paths need it: apply examples/translators/segment-rudderstack.yaml)`
            : `translator ${name}`,
        }),
        true,
      );
    if (!mayTranslate(principal, name)) {
      const e = apiError('PERMISSION_DENIED', { detail: `this credential may not use translator ${name}` });
      return refuse(e, `${principal.kind}:${principal.id}`);
    }
    if (!admit(req, res, principal)) return;
    if (!body) {
      const read = await readRawBody(req, limits, bodyTimeoutMs, media, TRANSLATOR_CHARSETS);
      if (!read.ok) return sendError(req, res, read.error, true);
      body = read.value;
    }
    let defined = await definitionsNow();
    if (defined === null && !lookupEvent(entry.spec.event))
      return sendError(req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }));
    // The translator's event defined a moment ago (applied with it, typically): read it now.
    if (defined && !lookupEvent(entry.spec.event) && !defined.current(entry.spec.event))
      defined = (await deps.definitions?.afresh?.()) ?? defined;
    const ctx: EnvelopeContext = {
      limits,
      options,
      received: now(),
      // A file's rows are other people's: the uploader's address and user agent are nobody's
      // device here (they would reach Meta as every row's client_ip_address).
      client: { ip: undefined, userAgent: undefined, observedIpWins: false },
      newId: deps.newId,
      ...(defined ? { defined } : {}),
    };
    const keyHeader = req.headers['idempotency-key'];
    const key = Array.isArray(keyHeader) ? keyHeader[0] : keyHeader;
    const rows = translateRows(
      entry,
      segment ? { ...body, media: 'application/json', charset: undefined } : body,
      ctx,
      {
        // A Segment library cannot add ?partial=true: one bad call must not refuse its batch.
        partial: segment !== undefined || query.get('partial') === 'true',
        idempotencyKey: key,
        ...(segment && segment !== 'batch' ? { defaults: { type: segment } } : {}),
      },
    );
    if (!rows.ok) return sendError(req, res, rows.error);
    if (key !== undefined && !idempotency.admit(name, key, body.bytes, now()))
      return sendError(
        req,
        res,
        apiError('IDEMPOTENCY_KEY_REUSED', { key: JSON.stringify(key.slice(0, 64)) }),
      );
    // Segment's calls that could not become events are kept in invalid_events, not dropped.
    const invalid = segment ? invalidCalls(entry, body, rows.value.violations) : [];
    try {
      const ids = await publishChunks(deps.publisher, 'events', [...rows.value.messages, ...invalid]);
      const answer = translateAnswer(rows.value.order, ids, rows.value.violations);
      send(
        req,
        res,
        200,
        segment ? { success: true, ...answer } : answer,
        deprecationHeaders(rows.value.deprecated),
      );
    } catch (err) {
      const retryAfter = err instanceof PublishUnavailableError ? err.retryAfterSeconds : 2;
      log({ severity: 'ERROR', message: `publish failed: ${(err as Error).message}`, translator: name });
      sendError(req, res, apiError('UNAVAILABLE', { retryAfter }));
    }
  };

  /** A credential in a translator's URL: its last path segment, or a token in `?key=`. */
  const urlCredential = (pathCredential: string | undefined, query: URLSearchParams): string | undefined => {
    const key = query.get('key');
    return pathCredential ?? (key?.startsWith(TOKEN_PREFIX) ? key : undefined);
  };

  /** A URL credential, where the translator takes one (auth.url_token). */
  const authenticateInUrl = async (
    entry: TranslatorEntry | undefined,
    name: string,
    presented: string,
  ): Promise<AuthResult> =>
    entry && !entry.spec.auth?.url_token
      ? {
          ok: false,
          error: apiError('INVALID_CREDENTIALS', {
            detail: `translator ${name} takes no credential in its URL (its spec's auth.url_token)`,
          }),
        }
      : authenticateUrlToken(presented, name, authDeps);

  /**
   * `GET` on a translator's URL with its credential: senders that check a webhook URL before
   * they post to it (Mailchimp sends a GET when the webhook is saved) get 200 when the URL would
   * be accepted, and the refusal a POST would get otherwise. Nothing is read or published.
   */
  const verifyUrl = async (
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    presented: string,
    inPath: boolean,
  ): Promise<void> => {
    note(req, { translator: name, path: `/v1/translators/${name}${inPath ? '/[redacted]' : ''}` });
    const entry = await translatorNow(name);
    if (entry === null) return sendError(req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }), true);
    const auth = await authenticateInUrl(entry, name, presented);
    if (!auth.ok) {
      const shown = `/v1/translators/${name}${inPath ? '/[redacted]' : ''}`;
      refused(req, auth.error, auth.credential, { path: shown, translator: name, size: undefined });
      return sendError(req, res, auth.error, true);
    }
    if (!entry) return sendError(req, res, apiError('NOT_FOUND', { resource: `translator ${name}` }), true);
    send(req, res, 200, { status: 'ok', translator: name });
  };

  /** The translator now; undefined when there is none, null when the registry cannot be read. */
  const translatorNow = async (name: string): Promise<TranslatorEntry | null | undefined> => {
    if (!deps.translators) return undefined;
    try {
      return await deps.translators.get(name);
    } catch (err) {
      if (!(err instanceof RegistryUnavailable)) throw err;
      log({ severity: 'ERROR', message: err.message });
      return null;
    }
  };

  const mayTranslate = (principal: Principal, name: string): boolean => {
    if (principal.kind === 'signature') return principal.id === name;
    if (principal.kind === 'token')
      return ['admin', 'translate:*', `translate:${name}`].some((s) => principal.scopes.includes(s));
    // A write key sits in a page's source: it publishes events, never bulk payloads.
    return principal.kind !== 'key';
  };

  /** The definitions now; null when no copy of the registry could be read (RegistryUnavailable). */
  const definitionsNow = async (): Promise<DefinedEvents | null | undefined> => {
    if (!deps.definitions) return undefined;
    try {
      return await deps.definitions.get();
    } catch (err) {
      if (!(err instanceof RegistryUnavailable)) throw err;
      log({ severity: 'ERROR', message: err.message });
      return null;
    }
  };

  const allowed = (principal: Principal, p: Parsed): boolean => {
    if (principal.kind === 'token') return canPublish(principal.scopes, p.topic, p.eventNames, topics);
    if (principal.kind === 'key' && principal.events)
      return p.eventNames.every((n) => principal.events?.includes(n));
    return true; // listed Google principals (and keys without a list) may publish any event
  };

  /**
   * One refusal record per 401/403 (and per signature refused for want of a secret): a
   * structured line in the logs and the `eventbus/auth_refusals` log-based metric, for the
   * studio to show. It names the credential by its public id, `signature:<scheme>` or a hash
   * prefix of what was presented, the translator, our reason and the declared size; never the
   * body or a secret (a URL credential's path segment is redacted). Counted per credential,
   * translator and reason.
   */
  const refusals = new Map<string, number>();
  const refused = (
    req: IncomingMessage,
    e: ApiError,
    credential: string | undefined,
    at: { path: string; size: number | undefined; translator?: string; reason?: string },
  ) => {
    if (e.http !== 401 && e.http !== 403 && at.reason === undefined) return;
    const reason = at.reason ?? e.code;
    const who = credential ?? '(none)';
    note(req, { reason, ...(credential ? { credential } : {}) });
    const key = `${who} ${at.translator ?? ''} ${reason}`;
    const count = (refusals.get(key) ?? 0) + 1;
    if (refusals.size >= 10_000 && !refusals.has(key)) refusals.clear();
    refusals.set(key, count);
    log({
      severity: 'WARNING',
      message: `refused ${e.http} ${reason}${credential ? ` for ${credential}` : ''}${at.translator ? ` at translator ${at.translator}` : ''}`,
      refusal: {
        status: e.http,
        code: e.code,
        reason,
        credential: who,
        ...(at.translator ? { translator: at.translator } : {}),
        path: truncate(at.path),
        ...(at.size !== undefined ? { size: at.size } : {}),
        count,
      },
    });
  };

  /** The body's declared size, for refusal records (the body itself is never read for them). */
  const sizeOf = (req: IncomingMessage): number | undefined => {
    const n = Number(req.headers['content-length']);
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  };

  /** The scheme the sender used: Cloud Run's front end says it in X-Forwarded-Proto. */
  const protoOf = (req: IncomingMessage): string => {
    const p = config.trustProxy ? req.headers['x-forwarded-proto'] : undefined;
    const first = (Array.isArray(p) ? p[0] : p)?.split(',')[0]?.trim();
    return first === 'https' || first === 'http' ? first : 'http';
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
    const hints = clientHintsOf(req.headers);
    return hints ? { ip, userAgent: ua, hints } : { ip, userAgent: ua };
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
