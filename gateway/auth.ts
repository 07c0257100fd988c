/**
 * Who is calling: project tokens, write keys and Google tokens, plus per-credential rate
 * limits. The gateway is public on Cloud Run (docs/google-wire.md §7), so every request passes here.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type ApiError, apiError } from '../core/errors.ts';
import { andThen, type MaybePromise } from '../core/maybe-async.ts';
import {
  type CredentialRecord,
  type CredentialSet,
  KEY_PREFIX,
  type KeyRecord,
  TOKEN_PREFIX,
  type TokenRecord,
  type VerifyResult,
  verifySecret,
} from './credentials.ts';
import { type GoogleIdentity, principalAllowed } from './google-identity.ts';
import type { TokenStore } from './token-store.ts';

export type Principal =
  | {
      readonly kind: 'token';
      readonly id: string;
      readonly scopes: readonly string[];
      readonly rate?: number;
    }
  | {
      readonly kind: 'key';
      readonly id: string;
      readonly origins: readonly string[];
      /** Event names the key may publish; absent: any. */
      readonly events?: readonly string[];
      readonly rate?: number;
      /** Its money events count as verified (KeyRecord.money; core/decision/unverified.ts). */
      readonly money?: boolean;
    }
  | { readonly kind: 'google'; readonly id: string }
  /** A sender whose body signature verified under a translator's secret; `id` is the translator. */
  | { readonly kind: 'signature'; readonly id: string };

export type AuthResult =
  | { readonly ok: true; readonly principal: Principal }
  | {
      readonly ok: false;
      readonly error: ApiError;
      /**
       * Which credential was refused, safe to log: `token:<id>` / `key:<id>` (the public part
       * of the secret), or `sha256:<8 hex>` of what was presented; never the secret itself.
       */
      readonly credential?: string;
    };

/** The current credential set, re-read from the store in the background or on demand. */
export interface CredentialCache {
  current(): CredentialSet | undefined;
  /** Re-reads now unless it did so within the last few seconds (a token created a moment ago). */
  refreshSoon(): Promise<void>;
  /**
   * On demand only: the re-read to wait for when the set is older than the store's refreshMs
   * (so a revoked credential is never honoured past it), else nothing, at no cost.
   */
  stale?(): Promise<void> | undefined;
  close(): void;
}

/**
 * How the set is kept fresh: `background`, a timer re-reads it every `store.refreshMs` (it needs
 * CPU between requests); `on-demand`, a request that finds the set older than that waits for a
 * re-read first, one read for all the requests that find it so (no timer: a Cloud Run instance
 * without CPU between requests, or one scaled to zero, reads only while it serves). Under steady
 * traffic the requests of about one read's time a minute wait for it; a revoked credential is
 * never honoured past `refreshMs`, as with the timer.
 */
export type CredentialRefresh = 'background' | 'on-demand';

/** Loads the store once, then re-reads it every `store.refreshMs`; a failed read keeps the last good set. */
export async function startCredentialCache(
  store: TokenStore,
  log: (entry: Record<string, unknown>) => void = () => {},
  now: () => number = Date.now,
  /** Least time between on-demand re-reads, so a flood of unknown tokens cannot hammer the store. */
  minRefreshMs = store.onDemandMinMs,
  refresh: CredentialRefresh = 'background',
): Promise<CredentialCache> {
  let set: CredentialSet | undefined;
  let lastRead = 0;
  let inFlight: Promise<void> | undefined;
  /** The read after the one under way, shared by every unknown credential seen meanwhile. */
  let queued: Promise<void> | undefined;
  const load = () => {
    inFlight ??= store
      .read()
      .then((s) => {
        set = s;
      })
      .catch((err: unknown) =>
        log({ severity: 'ERROR', message: `token store read failed: ${(err as Error).message}` }),
      )
      .finally(() => {
        lastRead = now();
        inFlight = undefined;
      });
    return inFlight;
  };
  /**
   * For an unknown credential: a read that begins now or later. A read already under way may
   * have begun before the credential was written (a token created a moment ago), so it is
   * followed by one more, which every unknown credential seen meanwhile waits for: at most one
   * queued read, and it is skipped when the one under way ended less than `minRefreshMs` ago.
   */
  const refreshSoon = (): Promise<void> => {
    if (now() - lastRead < minRefreshMs) return inFlight ?? Promise.resolve();
    if (!inFlight) return load();
    queued ??= inFlight.then(() => {
      queued = undefined;
      return now() - lastRead >= minRefreshMs ? load() : undefined;
    });
    return queued;
  };
  await load();
  if (refresh === 'on-demand') {
    return {
      current: () => set,
      refreshSoon,
      stale: () => (now() - lastRead >= store.refreshMs ? load() : undefined),
      close: () => {},
    };
  }
  const timer = setInterval(load, store.refreshMs);
  timer.unref();
  return {
    current: () => set,
    refreshSoon,
    close: () => clearInterval(timer),
  };
}

/**
 * Counts the Authorization and X-Write-Key header lines in rawHeaders (node keeps only the first
 * Authorization), in one pass; only names of their lengths are lower-cased.
 */
function credentialHeaderCounts(req: IncomingMessage): { auth: number; key: number } {
  let auth = 0;
  let key = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') auth++;
    else if (name.length === 11 && name.toLowerCase() === 'x-write-key') key++;
  }
  return { auth, key };
}

/**
 * Secrets that passed verifySecret, per credential set. A set is immutable and replaced on
 * every re-read of the store, so a revocation drops its cached secrets with it; expiry is
 * still checked on every request. A hit skips the salted SHA-256 and the record search (a few
 * µs, run on every request of a keep-alive producer); only valid secrets are ever cached.
 */
const verified = new WeakMap<CredentialSet, Map<string, CredentialRecord>>();

/**
 * Refused secrets and why, per set: unknown (even after an on-demand re-read), revoked,
 * expired, malformed. Without it every repeat of an unknown secret re-verified twice and waited
 * on the store's re-read, so an unknown token answered ~1.5x slower than a revoked one (issue
 * 16 measured ~958 µs vs ~629 µs end to end), which tells an attacker which is which; with
 * every refusal remembered, repeats of either are one map lookup (npm run bench -- auth). A set
 * is immutable, so a refusal stays true for it (an expired secret does not un-expire); a secret
 * created after the set was read is a new string, and the next re-read starts a new set.
 */
const refused = new WeakMap<CredentialSet, Map<string, string>>();

function rememberRefusal(set: CredentialSet, presented: string, reason: string): void {
  let seen = refused.get(set);
  if (!seen) {
    seen = new Map();
    refused.set(set, seen);
  }
  if (seen.size >= 10_000) seen.clear();
  seen.set(presented, reason);
}

/** The safe name of a presented credential: its public id when it has one, else a hash prefix. */
function credentialName(presented: string): string {
  const m = /^eb([tk])_([0-9a-f]{12})_/.exec(presented);
  if (m) return `${m[1] === 't' ? 'token' : 'key'}:${m[2]}`;
  return `sha256:${createHash('sha256').update(presented).digest('hex').slice(0, 8)}`;
}

/**
 * Verifies a token or key, re-reading the store once when the secret is unknown (it may have
 * been created a moment ago), and remembering every refusal for the set it was made against.
 * A secret verified before (nearly every request) is answered at once, without a promise.
 */
function verifyFresh(
  deps: AuthenticatorDeps,
  set: CredentialSet,
  presented: string,
  kind: 'token' | 'key',
): MaybePromise<VerifyResult> {
  // A secret verified in this set is never also refused for its kind in it (an expired one is
  // re-verified below and refused from then on), so the cache of valid ones is looked at first.
  const hit = verified.get(set)?.get(presented);
  if (hit && hit.kind === kind && !expired(hit, deps.now())) return { ok: true, record: hit };
  // Keyed by kind too: a token sent once as a write key (`?key=`) is a malformed key, not a
  // refused token, and must still verify as a Bearer token (issue 33).
  const verdict = `${kind}\u0000${presented}`;
  const known = refused.get(set)?.get(verdict);
  if (known !== undefined) return { ok: false, reason: known };
  const r = verifyCached(set, presented, kind, deps.now());
  if (r.ok) return r;
  if (r.reason !== `unknown ${kind}`) {
    rememberRefusal(set, verdict, r.reason);
    return r;
  }
  return deps.credentials.refreshSoon().then(() => {
    const against = deps.credentials.current() ?? set;
    const again = verifyCached(against, presented, kind, deps.now());
    if (!again.ok) rememberRefusal(against, verdict, again.reason);
    return again;
  });
}

/**
 * Each record's expiry as a time, parsed once: records are immutable (replaced with their set),
 * and a remembered secret is checked against its expiry on every request, where parsing the
 * ISO text again was most of a cached token check (a token made in the studio lasts 90 days).
 */
const expiries = new WeakMap<CredentialRecord, number>();

function expired(rec: CredentialRecord, now: number): boolean {
  if (!rec.expires_at) return false;
  let at = expiries.get(rec);
  if (at === undefined) {
    at = Date.parse(rec.expires_at);
    expiries.set(rec, at);
  }
  return at <= now;
}

function verifyCached(
  set: CredentialSet,
  presented: string,
  kind: 'token' | 'key',
  now: number,
): VerifyResult {
  let cache = verified.get(set);
  const hit = cache?.get(presented);
  if (hit && hit.kind === kind && !expired(hit, now)) {
    return { ok: true, record: hit };
  }
  const r = verifySecret(set, presented, kind, now);
  if (r.ok) {
    if (!cache) {
      cache = new Map();
      verified.set(set, cache);
    }
    if (cache.size >= 10_000) cache.clear();
    cache.set(presented, r.record);
  }
  return r;
}

export interface AuthenticatorDeps {
  readonly credentials: CredentialCache;
  readonly google?: GoogleIdentity;
  readonly principals: readonly string[];
  readonly now: () => number;
}

/**
 * The one-credential rule: a request carries exactly one credential, wherever the others would
 * sit (each Authorization and X-Write-Key header line, each `?key=`, a translator's path
 * segment). None → 401 UNAUTHENTICATED; more than one → 401 INVALID_CREDENTIALS, like any
 * credential the gateway does not accept: which one the sender meant is not guessed, and a
 * second one is never ignored unchecked (issue 61: a URL token beside an Authorization header
 * was taken).
 */
function countRefusal(total: number): AuthResult | undefined {
  if (total === 1) return undefined;
  if (total === 0) return { ok: false, error: apiError('UNAUTHENTICATED') };
  return {
    ok: false,
    error: apiError('INVALID_CREDENTIALS', {
      detail: `Send exactly one credential; this request carries ${total} (an Authorization header, an X-Write-Key header, a ?key= and a credential in the path count one each).`,
    }),
  };
}

/**
 * The one-credential rule for a request whose credential is in its URL (a translator's path
 * segment when `inPath`, else its `?key=`): a refusal, or undefined when it is the only one.
 */
export function oneCredential(
  req: IncomingMessage,
  queryKeys: readonly string[],
  inPath: boolean,
): AuthResult | undefined {
  const { auth, key } = credentialHeaderCounts(req);
  return countRefusal(auth + key + queryKeys.length + (inPath ? 1 : 0));
}

/**
 * Finds and checks the request's one credential. Missing → 401 UNAUTHENTICATED; unknown,
 * revoked, expired, malformed or more than one → 401 INVALID_CREDENTIALS; a write key from an
 * origin it is not bound to → 403.
 */
export function authenticate(
  req: IncomingMessage,
  queryKeys: readonly string[],
  deps: AuthenticatorDeps,
): MaybePromise<AuthResult> {
  const { auth: authCount, key: keyHeaderCount } = credentialHeaderCounts(req);
  const notOne = countRefusal(authCount + keyHeaderCount + queryKeys.length);
  if (notOne) return notOne;
  // Re-read on demand (no timer runs without CPU between requests): wait for a set past its age.
  const reread = deps.credentials.stale?.();
  if (reread) return reread.then(() => authenticate(req, queryKeys, deps));
  const set = deps.credentials.current();
  const invalid = (detail: string, presented?: string): AuthResult => ({
    ok: false,
    error: apiError('INVALID_CREDENTIALS', { detail }),
    ...(presented ? { credential: credentialName(presented) } : {}),
  });

  if (authCount === 1) {
    const header = req.headers.authorization ?? '';
    const basic = /^Basic +([A-Za-z0-9+/=]{1,1024}) *$/i.exec(header);
    if (basic) return authenticateBasic(req, basic[1] as string, deps);
    const m = /^Bearer +(\S+) *$/i.exec(header);
    if (!m) return invalid('Expected "Authorization: Bearer <token>" or Basic.', header);
    const bearer = m[1] as string;
    if (bearer.startsWith(TOKEN_PREFIX)) return authenticateToken(bearer, deps);
    if (bearer.startsWith(KEY_PREFIX))
      return invalid('Write keys go in ?key= or X-Write-Key, not Authorization.', bearer);
    if (!deps.google || deps.principals.length === 0)
      return invalid('Google tokens are not accepted here.', bearer);
    return authenticateGoogle(deps.google, bearer, deps.principals);
  }

  const key = keyHeaderCount === 1 ? String(req.headers['x-write-key'] ?? '') : (queryKeys[0] as string);
  if (!set) return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 1 }) };
  return andThen(verifyFresh(deps, set, key, 'key'), (r): AuthResult => {
    if (!r.ok) return invalid(`Write key: ${r.reason}.`, key);
    const rec = r.record;
    if (rec.kind !== 'key') return invalid('Not a write key.', key);
    const origin = req.headers.origin;
    if (!origin || !rec.origins.includes(origin)) {
      return {
        ok: false,
        error: apiError('ORIGIN_NOT_ALLOWED', { origin: origin ?? '(none)' }),
        credential: `key:${rec.id}`,
      };
    }
    markKeyOrigin(req, origin);
    return { ok: true, principal: keyPrincipal(rec) };
  });
}

/**
 * The origin a write key accepted on this request: the answer carries CORS for it
 * (runtime.ts, allowOrigin), so a key's origins and the gateway's CORS never disagree — a
 * browser always reads the answer to an event that was published, and never retries it blind.
 */
const KEY_ORIGIN = Symbol('origin a write key allowed');
type WithKeyOrigin = IncomingMessage & { [KEY_ORIGIN]?: string };

function markKeyOrigin(req: IncomingMessage, origin: string): void {
  (req as WithKeyOrigin)[KEY_ORIGIN] = origin;
}

/** The origin the request's write key allowed, if a write key authenticated it. */
export function keyOrigin(req: IncomingMessage): string | undefined {
  return (req as WithKeyOrigin)[KEY_ORIGIN];
}

/** A Google ID token, from a principal listed in the environment's producers. */
async function authenticateGoogle(
  google: GoogleIdentity,
  bearer: string,
  principals: readonly string[],
): Promise<AuthResult> {
  const invalid = (detail: string): AuthResult => ({
    ok: false,
    error: apiError('INVALID_CREDENTIALS', { detail }),
    credential: credentialName(bearer),
  });
  const g = await google.verify(bearer);
  if (!g.ok && g.denied) {
    // Like Pub/Sub's own "insufficient authentication scopes": the caller is known, not allowed.
    return {
      ok: false,
      error: apiError('PERMISSION_DENIED', { detail: g.reason }),
      credential: credentialName(bearer),
    };
  }
  if (!g.ok) return invalid(`${g.reason}.`);
  if (!principalAllowed(principals, g.email)) {
    return {
      ok: false,
      error: apiError('PERMISSION_DENIED', { detail: `${g.email} is not a producer of this environment` }),
      credential: `google:${g.email}`,
    };
  }
  return { ok: true, principal: { kind: 'google', id: g.email } };
}

/** A write key's principal: its origins, event list, rate and money allowance. */
function keyPrincipal(rec: KeyRecord): Principal {
  return {
    kind: 'key',
    id: rec.id,
    origins: rec.origins,
    ...(rec.events ? { events: rec.events } : {}),
    ...(rec.rate_limit_per_second ? { rate: rec.rate_limit_per_second } : {}),
    ...(rec.money ? { money: true } : {}),
  };
}

/** A project token, by its secret: the token's principal with its scopes, or why not. */
export function authenticateToken(presented: string, deps: AuthenticatorDeps): MaybePromise<AuthResult> {
  const set = deps.credentials.current();
  if (!set) return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 1 }) };
  return andThen(verifyFresh(deps, set, presented, 'token'), (r): AuthResult => {
    const invalid = (detail: string): AuthResult => ({
      ok: false,
      error: apiError('INVALID_CREDENTIALS', { detail }),
      credential: credentialName(presented),
    });
    if (!r.ok) return invalid(`Project token: ${r.reason}.`);
    const rec = r.record;
    if (rec.kind !== 'token') return invalid('Not a project token.');
    return { ok: true, principal: tokenPrincipal(rec) };
  });
}

/**
 * A token's principal, made once per record: records are immutable and replaced with their set,
 * so a keep-alive producer's requests share one principal object.
 */
const tokenPrincipals = new WeakMap<CredentialRecord, Principal>();
function tokenPrincipal(rec: TokenRecord): Principal {
  let p = tokenPrincipals.get(rec);
  if (!p) {
    p = {
      kind: 'token',
      id: rec.id,
      scopes: rec.scopes,
      ...(rec.rate_limit_per_second ? { rate: rec.rate_limit_per_second } : {}),
    };
    tokenPrincipals.set(rec, p);
  }
  return p;
}

/**
 * HTTP Basic with the credential as the user name and no password (how Segment's and
 * RudderStack's libraries send their write key): a project token with its scopes, or a write
 * key marked server-usable (a key is public: an unmarked one stays bound to its origins).
 */
async function authenticateBasic(
  req: IncomingMessage,
  encoded: string,
  deps: AuthenticatorDeps,
): Promise<AuthResult> {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  const invalid = (detail: string): AuthResult => ({
    ok: false,
    error: apiError('INVALID_CREDENTIALS', { detail }),
    credential: credentialName(user),
  });
  // A password beside the key would be a second secret we do not check: refused, not ignored.
  if (password !== '') return invalid('Basic: the token or key is the user name, with no password.');
  if (user.startsWith(TOKEN_PREFIX)) return authenticateToken(user, deps);
  if (!user.startsWith(KEY_PREFIX)) return invalid('Basic: the user name is a project token or a write key.');
  const set = deps.credentials.current();
  if (!set) return { ok: false, error: apiError('UNAVAILABLE', { retryAfter: 1 }) };
  const r = await verifyFresh(deps, set, user, 'key');
  if (!r.ok) return invalid(`Write key: ${r.reason}.`);
  const rec = r.record;
  if (rec.kind !== 'key') return invalid('Not a write key.');
  if (!rec.server) {
    // A browser's key in Basic: still bound to its origins, as in X-Write-Key.
    const origin = req.headers.origin;
    if (origin && rec.origins.includes(origin)) markKeyOrigin(req, origin);
    if (!origin || !rec.origins.includes(origin))
      return {
        ok: false,
        error: apiError('PERMISSION_DENIED', {
          detail: `write key ${rec.id} is not server-usable: from a server, use a project token or a key created with --server`,
        }),
        credential: `key:${rec.id}`,
      };
  }
  return { ok: true, principal: keyPrincipal(rec) };
}

/**
 * A credential given in a translator's URL (`?key=` or its last path segment): a project token
 * whose only scope is `translate:<translator>`, so a URL that leaks into a proxy's or the
 * sender's logs can feed that one translator and nothing else (docs/senders.md).
 */
export async function authenticateUrlToken(
  presented: string,
  translator: string,
  deps: AuthenticatorDeps,
): Promise<AuthResult> {
  await deps.credentials.stale?.();
  const r = await authenticateToken(presented, deps);
  if (!r.ok) return r;
  const p = r.principal;
  if (p.kind === 'token' && p.scopes.length === 1 && p.scopes[0] === `translate:${translator}`) return r;
  return {
    ok: false,
    error: apiError('PERMISSION_DENIED', {
      detail: `a credential in a URL may hold translate:${translator} alone (a URL is logged by proxies and senders)`,
    }),
    credential: `token:${p.id}`,
  };
}

/**
 * Token buckets per credential, refilled at its rate per second. A credential without a rate of
 * its own has the environment's (tokens.rate_limit_per_second) and holds tokens.burst, at least
 * that rate; one made with its own rate (`--rate`) holds that rate, at least one request. The
 * environment's burst is sized for the environment's rate: a key made with `--rate 5` that held
 * it let 405 requests through before the first 429 (issue 61).
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #rate: number;
  readonly #burst: number;
  constructor(rate: number, burst: number) {
    this.#rate = rate;
    this.#burst = burst;
  }

  /** Takes one request from the bucket; returns 0 when allowed, else seconds to wait. */
  take(id: string, now: number, own?: number): number {
    const rate = own ?? this.#rate;
    const burst = own === undefined ? Math.max(this.#burst, rate) : Math.max(1, own);
    let b = this.#buckets.get(id);
    if (!b) {
      b = { tokens: burst, at: now };
      this.#buckets.set(id, b);
      if (this.#buckets.size > 100_000) this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }
}
