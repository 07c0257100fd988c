/**
 * What a gateway holds for its life (`Runtime`: its config, deps, limits, rate limiter and
 * refusal counts) and the steps every handler of gateway/server.ts shares over it: answers in
 * Google's error envelope, refusal records, the rate limit, the registry read now, the client a
 * request comes from.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventPublisher } from '../adapters/publisher.ts';
import { RegistryUnavailable } from '../adapters/registry.ts';
import { REFUSED_ATTRIBUTE } from '../adapters/tracing.ts';
import { type RefusalEvent, refusalDetail } from '../core/console/live-events.ts';
import type { DefinedEvents } from '../core/definitions/defined-events.ts';
import { type ApiError, apiError } from '../core/errors.ts';
import { type NormalizeOptions, normalizeOptions } from '../core/event.ts';
import { type Limits, limitsOf } from '../core/json-limits.ts';
import { isPending, type MaybePromise } from '../core/maybe-async.ts';
import { redactUrl } from '../core/privacy/redact-url.ts';
import type { Settings } from '../schemas/settings.ts';
import { type AuthenticatorDeps, keyOrigin, type Principal, RateLimiter } from './auth.ts';
import { clientHintsOf, type EnvelopeContext } from './envelope.ts';
import {
  createIdempotencyMemory,
  createReplayMemory,
  type IdempotencyMemory,
  type ReplayMemory,
} from './idempotency.ts';
import { splitUrl } from './routing.ts';
import { type SessionKeys, sessionKeys } from './session-key.ts';
import { type CertificateCache, createCertificateCache } from './signing-certificates.ts';
import { truncate } from './step.ts';
import { noteRequest } from './tracing.ts';
import type { TranslatorEntry } from './translate.ts';

export interface GatewayConfig {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  /** Event topics producers may publish to (plan().gateway.topics). */
  readonly topics: readonly string[];
  /** Take the client IP from X-Forwarded-For (Cloud Run's front end appends it). */
  readonly trustProxy?: boolean;
  /** The secret an edge proxy proves itself with (`EVENTBUS_EDGE_SECRET`; runtime.ts, viaEdge). */
  readonly edgeSecret?: string | undefined;
  /** The base of cookieless pages' daily salts (`EVENTBUS_SESSION_SALT`; gateway/session-key.ts). */
  readonly sessionSalt?: string | undefined;
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
   * Fetches signing certificates (Amazon SNS's, PayPal's): main.ts gives the egress gate
   * (adapters/egress.ts); global fetch when absent; tests map the vendor's host to loopback.
   */
  readonly fetch?: typeof fetch;
  /**
   * Where refused requests are recorded for the studio's live events (adapters/refusal-recorder.ts):
   * called once per error answer, it must not throw or wait.
   */
  readonly refusals?: { record(e: RefusalEvent): void };
}

/**
 * What a request's refusal record says about it, learnt as the request goes (never its body).
 * Its path is always the shown one (shownPath), never a handler's.
 */
interface RefusalNote {
  credential?: string;
  translator?: string;
  reason?: string;
}

/** What a gateway holds for its life, read by every step of every request. */
export interface Runtime {
  readonly config: GatewayConfig;
  readonly deps: GatewayDeps;
  readonly limits: Limits;
  readonly options: NormalizeOptions;
  /** Origins a browser may publish from (CORS). */
  readonly origins: ReadonlySet<string>;
  readonly topics: ReadonlySet<string>;
  readonly now: () => number;
  readonly log: (entry: Record<string, unknown>) => void;
  readonly idempotency: IdempotencyMemory;
  /** Signed deliveries seen in their tolerance window (translate.ts, verifyDelivery). */
  readonly replays: ReplayMemory;
  /** Signing certificates by URL (signing-certificates.ts). */
  readonly certificates: CertificateCache;
  readonly limiter: RateLimiter;
  readonly authDeps: AuthenticatorDeps;
  readonly bodyTimeoutMs: number;
  readonly openapiBody: string | undefined;
  /** Refusals counted per credential, translator and reason (refused()). */
  readonly refusals: Map<string, number>;
  /** A cookieless page's session keys (gateway/session-key.ts). */
  readonly sessionKeys: SessionKeys;
}

/** The runtime of a gateway: everything its handlers share, derived from its config once. */
export function runtimeOf(config: GatewayConfig, deps: GatewayDeps): Runtime {
  const now = deps.clock ?? Date.now;
  return {
    config,
    deps,
    limits: limitsOf(config.settings),
    options: normalizeOptions(config.settings),
    origins: new Set(config.settings.producers?.origins ?? []),
    topics: new Set(config.topics),
    now,
    log: deps.log ?? (() => {}),
    idempotency: createIdempotencyMemory(),
    replays: createReplayMemory(),
    certificates: createCertificateCache(deps.fetch ?? fetch, now),
    limiter: new RateLimiter(
      config.settings.tokens?.rate_limit_per_second ?? 200,
      config.settings.tokens?.burst ?? 400,
    ),
    authDeps: {
      credentials: deps.credentials,
      ...(deps.google ? { google: deps.google } : {}),
      principals: config.settings.producers?.principals ?? [],
      now,
    },
    bodyTimeoutMs: config.bodyTimeoutMs ?? 10_000,
    openapiBody: config.openapi ? JSON.stringify(config.openapi) : undefined,
    refusals: new Map(),
    sessionKeys: sessionKeys(config.sessionSalt),
  };
}

/** A JSON answer with the gateway's headers (CORS for a listed origin). */
export function send(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  allowOrigin(rt, req, res);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/**
 * CORS on an answer: an origin of `producers.origins`, or the one the request's write key allowed
 * (auth.ts, keyOrigin), may read it.
 */
export function allowOrigin(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (origin && (rt.origins.has(origin) || keyOrigin(req) === origin)) {
    res.setHeader('access-control-allow-origin', origin);
    // The tag sends its batches with credentials on the site's own domain, so the ids its answer
    // sets are kept (gateway/id-cookies.ts); a credentialed answer is read only with this header
    // and an exact origin. The gateway authenticates nothing by cookie: reading an answer with
    // them gives a page nothing it could not read without.
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('vary', 'Origin');
  }
}

/** A method the path does not serve: 405, its `Allow` header listing those it does. */
export function refuseMethod(rt: Runtime, req: IncomingMessage, res: ServerResponse, allow: string): void {
  const e = apiError('METHOD_NOT_ALLOWED', { method: req.method ?? 'GET', path: shownPath(req) });
  sendError(rt, req, res, { ...e, headers: { ...e.headers, allow } }, true);
}

/**
 * Where a request carries its note and its shown URL: properties of its own (every request
 * takes the same shape), cheaper per request than entries in a WeakMap keyed by requests.
 */
const NOTE = Symbol('refusal note');
const SHOWN = Symbol('shown url');
type Noted = IncomingMessage & { [NOTE]?: RefusalNote; [SHOWN]?: string };

/**
 * The one place a request's URL is redacted (core/privacy/redact-url.ts), called for every request
 * before it is routed: refusal records, log lines and answers show this URL's path
 * (shownPath), so no route, routed or not, made now or later, can show a URL credential.
 */
export function showUrl(req: IncomingMessage): string {
  const shown = redactUrl(req.url ?? '/');
  (req as Noted)[SHOWN] = shown;
  return shown;
}

/** The path of the request's shown URL, cut to a length a record or a message carries. */
export function shownPath(req: IncomingMessage): string {
  return truncate(splitUrl((req as Noted)[SHOWN] ?? showUrl(req)).path);
}

/** Adds to what the request's refusal record would say (only when records are kept). */
export function note(rt: Runtime, req: IncomingMessage, n: RefusalNote): void {
  if (!rt.deps.refusals) return;
  const noted = req as Noted;
  const had = noted[NOTE];
  noted[NOTE] = had ? Object.assign(had, n) : n;
}

/** An error answer, recorded for the studio's live events when records are kept. */
export function sendError(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  e: ApiError,
  close = false,
): void {
  // The request's span says why it was refused: the code, never the request's values.
  noteRequest(req, REFUSED_ATTRIBUTE, e.code);
  const recorder = rt.deps.refusals;
  if (recorder && !res.headersSent) {
    const n = (req as Noted)[NOTE];
    recorder.record({
      status: e.http,
      code: e.code,
      reason: n?.reason ?? e.code,
      credential: n?.credential,
      translator: n?.translator,
      path: shownPath(req),
      size: sizeOf(req),
      ...refusalDetail(e.body),
    });
  }
  // An answer sent before the body was read closes the connection rather than draining it.
  send(rt, req, res, e.http, e.body, close ? { ...e.headers, connection: 'close' } : e.headers);
}

/** The rate limit of a principal; false (and 429 sent) when it is over. */
export function admit(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  principal: Principal,
  /** The principal as `kind:id`. */
  who: string,
): boolean {
  const wait = rt.limiter.take(who, rt.now(), 'rate' in principal ? principal.rate : undefined);
  if (wait > 0) sendError(rt, req, res, apiError('RATE_LIMITED', { retryAfter: wait }), true);
  return wait <= 0;
}

/** The translator now; undefined when there is none, null when the registry cannot be read. */
export async function translatorNow(rt: Runtime, name: string): Promise<TranslatorEntry | null | undefined> {
  if (!rt.deps.translators) return undefined;
  try {
    return await rt.deps.translators.get(name);
  } catch (err) {
    if (!(err instanceof RegistryUnavailable)) throw err;
    rt.log({ severity: 'ERROR', message: err.message });
    return null;
  }
}

/** The definitions now; null when no copy of the registry could be read (RegistryUnavailable). */
export function definitionsNow(rt: Runtime): MaybePromise<DefinedEvents | null | undefined> {
  if (!rt.deps.definitions) return undefined;
  const unreadable = (err: unknown): null => {
    if (!(err instanceof RegistryUnavailable)) throw err;
    rt.log({ severity: 'ERROR', message: err.message });
    return null;
  };
  try {
    // The copy in memory (nearly always) is answered at once, without a promise.
    const got = rt.deps.definitions.get();
    return isPending(got) ? got.catch(unreadable) : got;
  } catch (err) {
    return unreadable(err);
  }
}

/**
 * One refusal record per 401/403 (and per signature refused for want of a secret): a
 * structured line in the logs and the `eventbus/auth_refusals` log-based metric, for the
 * studio to show. It names the credential by its public id, `signature:<scheme>` or a hash
 * prefix of what was presented, the translator, our reason and the declared size; never the
 * body or a secret (its path is the shown one: every URL credential redacted). Counted per
 * credential, translator and reason.
 */
export function refused(
  rt: Runtime,
  req: IncomingMessage,
  e: ApiError,
  credential: string | undefined,
  at: { size: number | undefined; translator?: string; reason?: string },
): void {
  if (e.http !== 401 && e.http !== 403 && at.reason === undefined) return;
  const reason = at.reason ?? e.code;
  const who = credential ?? '(none)';
  note(rt, req, { reason, ...(credential ? { credential } : {}) });
  const key = `${who} ${at.translator ?? ''} ${reason}`;
  const count = (rt.refusals.get(key) ?? 0) + 1;
  if (rt.refusals.size >= 10_000 && !rt.refusals.has(key)) rt.refusals.clear();
  rt.refusals.set(key, count);
  rt.log({
    severity: 'WARNING',
    message: `refused ${e.http} ${reason}${credential ? ` for ${credential}` : ''}${at.translator ? ` at translator ${at.translator}` : ''}`,
    refusal: {
      status: e.http,
      code: e.code,
      reason,
      credential: who,
      ...(at.translator ? { translator: at.translator } : {}),
      path: shownPath(req),
      ...(at.size !== undefined ? { size: at.size } : {}),
      count,
    },
  });
}

/** The body's declared size, for refusal records (the body itself is never read for them). */
export function sizeOf(req: IncomingMessage): number | undefined {
  const n = Number(req.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The host the browser sent the request to, when a proxy in front says it in X-Forwarded-Host
 * (a Cloudflare Worker or Akamai rule that calls the gateway by its own host); read only where
 * proxies are trusted. The load balancer and Cloud Run keep the browser's `Host` themselves.
 */
export function forwardedHost(rt: Runtime, req: IncomingMessage): string | undefined {
  const h = rt.config.trustProxy ? req.headers['x-forwarded-host'] : undefined;
  return (Array.isArray(h) ? h[0] : h)?.split(',')[0]?.trim() || undefined;
}

/**
 * A request URL under `gateway.origin_path` (`/_eb/v1/tag.js` on the site's own origin) as the
 * gateway's own (`/v1/tag.js`): the prefix is taken off here, so a proxy in front forwards the
 * path unchanged. Any other URL is returned as it is (the gateway's own address keeps working).
 */
export function withoutOriginPath(rt: Runtime, url: string): string {
  const prefix = rt.config.settings.gateway?.origin_path;
  if (!prefix || !url.startsWith(prefix)) return url;
  const next = url.charCodeAt(prefix.length);
  // `/` or `?` after the prefix (47, 63); `/_ebx` is another path.
  return next === 47 ? url.slice(prefix.length) : next === 63 ? `/${url.slice(prefix.length)}` : url;
}

/** The scheme the sender used: Cloud Run's front end says it in X-Forwarded-Proto. */
export function protoOf(rt: Runtime, req: IncomingMessage): string {
  const p = rt.config.trustProxy ? req.headers['x-forwarded-proto'] : undefined;
  const first = (Array.isArray(p) ? p[0] : p)?.split(',')[0]?.trim();
  return first === 'https' || first === 'http' ? first : 'http';
}

/**
 * Who sent a request (core/sender.ts) and, for a browser, the device it comes from: its address
 * (as Google's nearest proxy saw it), user agent and hints. A write key is a browser's when the request
 * names an Origin the key lists (a browser always sends Origin on a POST); a server-usable key
 * called from a server, a project token and a Google identity are servers, whose request is their
 * own machine and whose headers are never read into the event (docs/gateway.md, "Who sent an event").
 */
export function clientOf(rt: Runtime, req: IncomingMessage, principal: Principal): EnvelopeContext['client'] {
  if (!fromBrowser(principal, req.headers.origin)) return SERVER_CLIENTS[principal.kind];
  let ip = req.socket.remoteAddress;
  if (rt.config.trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(xff) ? xff.join(',') : (xff ?? ''))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // The visitor is the hop the nearest Google proxy appended: the last one from Cloud Run's
    // own front end (run.app, a domain mapping); the one before the last through the load
    // balancer, which appends `<client-ip>,<load-balancer-ip>` (docs/browser.md#first-party-domains).
    // An edge proxy that proved itself (viaEdge) put the visitor first, and the front end appended it.
    const back = hops.length > 1 && (viaLoadBalancer(rt, req) || viaEdge(rt, req)) ? 2 : 1;
    if (hops.length > 0) ip = hops[hops.length - back];
  }
  const ua = req.headers['user-agent'];
  const hints = clientHintsOf(req.headers);
  return hints
    ? { sender: 'browser', credential: principal.kind, ip, userAgent: ua, hints }
    : { sender: 'browser', credential: principal.kind, ip, userAgent: ua };
}

/**
 * Whether a request came through the gateway's load balancer (`gateway.domain_via:
 * load_balancer`): it names the domain as its host. Cloud Run's front end routes a `run.app` or
 * mapped host only, so a request sent straight to the service cannot claim the balancer's.
 */
function viaLoadBalancer(rt: Runtime, req: IncomingMessage): boolean {
  const g = rt.config.settings.gateway;
  const host = req.headers.host?.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const balanced = (g?.domain_via ?? 'load_balancer') === 'load_balancer';
  if (g?.domain && host === g.domain) return balanced;
  // gateway.origin_path: the site's load balancer keeps the site's host. A request sent to the
  // service's own address carries a `run.app` host (or the mapped domain), so cannot pass for it.
  // With a Cloudflare Worker or an Akamai rule in front (origin_via) there is no such balancer:
  // only the edge secret vouches for a hop (viaEdge).
  if ((g?.origin_via ?? 'load_balancer') !== 'load_balancer') return false;
  if (!host || host.endsWith('.run.app') || host === g?.domain) return false;
  return originPathOf(rt, req) !== undefined;
}

/** `gateway.origin_path` when the request's URL is under it (as the browser sent it), else undefined. */
export function originPathOf(rt: Runtime, req: IncomingMessage): string | undefined {
  const prefix = rt.config.settings.gateway?.origin_path;
  const url = req.url ?? '';
  return prefix && withoutOriginPath(rt, url) !== url ? prefix : undefined;
}

/**
 * Whether a request came through an edge proxy (examples/edge/: a Cloudflare Worker, an Akamai
 * rule) that proved itself with the shared secret `EVENTBUS_EDGE_SECRET` in `X-Eventbus-Edge`:
 * such a proxy sets `X-Forwarded-For` to the visitor alone, and Cloud Run's front end appends the
 * proxy's address after it. Without the secret, the last hop (the proxy's address) is taken.
 */
function viaEdge(rt: Runtime, req: IncomingMessage): boolean {
  const secret = rt.config.edgeSecret;
  const given = req.headers['x-eventbus-edge'];
  if (!secret || typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether a request is a page's: a write key, with an Origin it lists. */
function fromBrowser(principal: Principal, origin: string | undefined): boolean {
  return principal.kind === 'key' && origin !== undefined && principal.origins.includes(origin);
}

/** A sender's client, one per credential kind: nothing of the request is read. */
function clientsOf(
  sender: 'server' | 'translator',
): Readonly<Record<Principal['kind'], EnvelopeContext['client']>> {
  const of = (credential: Principal['kind']) => Object.freeze({ sender, credential });
  return Object.freeze({
    token: of('token'),
    key: of('key'),
    google: of('google'),
    signature: of('signature'),
  });
}
const SERVER_CLIENTS = clientsOf('server');
const TRANSLATOR_CLIENTS = clientsOf('translator');

/** A translator's client: its rows are other people's, the request is the vendor's or the uploader's. */
export function translatorClient(principal: Principal): EnvelopeContext['client'] {
  return TRANSLATOR_CLIENTS[principal.kind];
}
