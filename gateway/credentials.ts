/**
 * Project tokens and write keys as data: issuing (the secret is returned once, only a salted
 * hash is kept), verifying in constant time, revoking, and scope checks. Pure apart from the
 * injected random source; storage is the token-store adapter's job.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { eventNameProblem } from '../schemas/catalogue.ts';

export const TOKEN_PREFIX = 'ebt_';
export const KEY_PREFIX = 'ebk_';

interface CredentialBase {
  /** Public id, part of the secret string, used to find the record without scanning hashes. */
  readonly id: string;
  readonly salt: string;
  /** hex SHA-256 of salt ‖ secret; the secret itself is 256 random bits, so no slow hash is needed. */
  readonly hash: string;
  readonly created_at: string;
  readonly description?: string;
  readonly expires_at?: string;
  readonly revoked_at?: string;
  /** Overrides settings.tokens.rate_limit_per_second for this credential. */
  readonly rate_limit_per_second?: number;
}

export interface TokenRecord extends CredentialBase {
  readonly kind: 'token';
  readonly scopes: readonly string[];
}

export interface KeyRecord extends CredentialBase {
  readonly kind: 'key';
  /** Browser origins the key may be used from (`https://shop.example`). */
  readonly origins: readonly string[];
  /**
   * Event names the key may publish; absent means any. A key is public (it sits in the page
   * source), so a shop that sends `purchase` from its backend leaves it off the key's list.
   */
  readonly events?: readonly string[];
  /**
   * Also usable by a server, as HTTP Basic's user name without an Origin (a Segment or
   * RudderStack server library). Off by default: a key is public, and a server-usable one
   * publishes from anywhere, so its event list matters more.
   */
  readonly server?: boolean;
  /**
   * May publish money events (`purchase`, `subscribe`: core/decision/unverified.ts) as verified.
   * Off by default: without it such an event is stored, marked unverified, and never sent to an
   * ad platform as a conversion (anyone can copy a page's key and claim a purchase).
   */
  readonly money?: boolean;
}

export type CredentialRecord = TokenRecord | KeyRecord;

/** Everything the token store holds: hashes and metadata, never a usable secret. */
export interface CredentialSet {
  readonly version: 1;
  readonly tokens: readonly TokenRecord[];
  readonly keys: readonly KeyRecord[];
}

export const EMPTY_CREDENTIALS: CredentialSet = Object.freeze({ version: 1, tokens: [], keys: [] });

const SCOPE =
  /^(admin|publish:\*|publish:[a-z][a-z0-9_-]{0,62}|translate:\*|translate:[a-z][a-z0-9_-]{0,62})$/;
const ORIGIN = /^https?:\/\/[^/\s]+$/;

/** Why a scope string is not valid, or undefined. */
export function scopeProblem(scope: string): string | undefined {
  return SCOPE.test(scope)
    ? undefined
    : `"${scope}" is not a scope (publish:*, publish:<topic or event>, translate:*, translate:<translator>, admin)`;
}

/** Why an origin is not valid, or undefined. */
export function originProblem(origin: string): string | undefined {
  return ORIGIN.test(origin) ? undefined : `"${origin}" is not an origin like https://shop.example`;
}

export type RandomBytes = (n: number) => Uint8Array;

function hashSecret(salt: string, secret: string): string {
  return createHash('sha256').update(salt).update(secret).digest('hex');
}

function newSecret(prefix: string, random: RandomBytes): { id: string; secret: string; salt: string } {
  const id = Buffer.from(random(6)).toString('hex');
  const secret = `${prefix}${id}_${Buffer.from(random(32)).toString('base64url')}`;
  return { id, secret, salt: Buffer.from(random(16)).toString('hex') };
}

export interface IssueTokenInput {
  readonly scopes: readonly string[];
  readonly expiresAt?: Date;
  readonly description?: string;
  readonly rateLimitPerSecond?: number;
}

/** How long a token made interactively (the studio, the admin API) lasts unless told otherwise. */
export const INTERACTIVE_TOKEN_DAYS = 90;

/**
 * An expiry as people write it: `never` (no expiry, said explicitly), a duration like `30d` or
 * `12h` from `now`, or a future date. Answers the date (undefined for `never`) or why the text
 * is not one.
 */
export function parseExpiry(
  text: string,
  now: Date,
): { ok: true; at: Date | undefined } | { ok: false; problem: string } {
  if (text === 'never') return { ok: true, at: undefined };
  const m = /^(\d{1,5})([dh])$/.exec(text);
  if (m && Number(m[1]) > 0)
    return { ok: true, at: new Date(now.getTime() + Number(m[1]) * (m[2] === 'd' ? 86_400_000 : 3_600_000)) };
  const t = Date.parse(text);
  if (m || Number.isNaN(t) || t <= now.getTime())
    return {
      ok: false,
      problem: `"${text.slice(0, 40)}" must be a future date, a duration like 30d or 12h, or never`,
    };
  return { ok: true, at: new Date(t) };
}

/** Adds a project token; returns the new set and the secret (shown once, never stored). */
export function issueToken(
  set: CredentialSet,
  input: IssueTokenInput,
  random: RandomBytes,
  now: Date,
): { set: CredentialSet; secret: string; record: TokenRecord } {
  const problems = input.scopes.map(scopeProblem).filter((p) => p !== undefined);
  if (input.scopes.length === 0) problems.push('at least one scope is required');
  if (problems.length > 0) throw new Error(problems.join('; '));
  const { id, secret, salt } = newSecret(TOKEN_PREFIX, random);
  const record: TokenRecord = {
    kind: 'token',
    id,
    salt,
    hash: hashSecret(salt, secret),
    scopes: [...new Set(input.scopes)],
    created_at: now.toISOString(),
    ...(input.expiresAt ? { expires_at: input.expiresAt.toISOString() } : {}),
    ...(input.description ? { description: input.description } : {}),
    ...(input.rateLimitPerSecond ? { rate_limit_per_second: input.rateLimitPerSecond } : {}),
  };
  return { set: { ...set, tokens: [...set.tokens, record] }, secret, record };
}

export interface IssueKeyInput {
  readonly origins: readonly string[];
  readonly events?: readonly string[];
  readonly description?: string;
  readonly rateLimitPerSecond?: number;
  /** Usable through HTTP Basic without an Origin (KeyRecord.server). */
  readonly server?: boolean;
  /** Its money events count as verified (KeyRecord.money). */
  readonly money?: boolean;
}

/** Adds a write key (publish-only, origin-bound); returns the new set and the key. */
export function issueKey(
  set: CredentialSet,
  input: IssueKeyInput,
  random: RandomBytes,
  now: Date,
): { set: CredentialSet; secret: string; record: KeyRecord } {
  const problems = input.origins.map(originProblem).filter((p) => p !== undefined);
  if (input.origins.length === 0) problems.push('at least one origin is required');
  for (const e of input.events ?? []) {
    const problem = eventNameProblem(e);
    if (problem) problems.push(`event "${e}" ${problem}`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  const { id, secret, salt } = newSecret(KEY_PREFIX, random);
  const record: KeyRecord = {
    kind: 'key',
    id,
    salt,
    hash: hashSecret(salt, secret),
    origins: [...new Set(input.origins)],
    ...(input.events?.length ? { events: [...new Set(input.events)] } : {}),
    ...(input.server ? { server: true } : {}),
    ...(input.money ? { money: true } : {}),
    created_at: now.toISOString(),
    ...(input.description ? { description: input.description } : {}),
    ...(input.rateLimitPerSecond ? { rate_limit_per_second: input.rateLimitPerSecond } : {}),
  };
  return { set: { ...set, keys: [...set.keys, record] }, secret, record };
}

/** Marks a token or key revoked (kept, so `list` shows it); throws when the id is unknown. */
export function revoke(set: CredentialSet, id: string, now: Date): CredentialSet {
  const mark = <T extends CredentialRecord>(r: T): T =>
    r.id === id && !r.revoked_at ? { ...r, revoked_at: now.toISOString() } : r;
  if (![...set.tokens, ...set.keys].some((r) => r.id === id))
    throw new Error(`no token or key with id ${id}`);
  return { ...set, tokens: set.tokens.map(mark), keys: set.keys.map(mark) };
}

export type VerifyResult =
  | { readonly ok: true; readonly record: CredentialRecord }
  | { readonly ok: false; readonly reason: string };

/**
 * Finds the record a presented secret belongs to and checks it: hash compared in constant
 * time, not revoked, not expired. `kind` says which prefix is expected.
 */
export function verifySecret(
  set: CredentialSet,
  presented: string,
  kind: 'token' | 'key',
  now: number,
): VerifyResult {
  const prefix = kind === 'token' ? TOKEN_PREFIX : KEY_PREFIX;
  const m = /^eb[tk]_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/.exec(presented);
  if (!m || !presented.startsWith(prefix)) return { ok: false, reason: `malformed ${kind}` };
  const list: readonly CredentialRecord[] = kind === 'token' ? set.tokens : set.keys;
  const record = list.find((r) => r.id === m[1]);
  // Hash even when the id is unknown so timing does not reveal which ids exist.
  const expected = Buffer.from(record?.hash ?? '0'.repeat(64), 'hex');
  const actual = Buffer.from(hashSecret(record?.salt ?? '', presented), 'hex');
  if (!record || !timingSafeEqual(expected, actual)) return { ok: false, reason: `unknown ${kind}` };
  if (record.revoked_at) return { ok: false, reason: `${kind} ${record.id} was revoked` };
  if (record.expires_at && Date.parse(record.expires_at) <= now) {
    return { ok: false, reason: `${kind} ${record.id} expired at ${record.expires_at}` };
  }
  return { ok: true, record };
}

/**
 * Whether scopes allow publishing `eventNames` to `topic`. `admin` and `publish:*` allow all.
 * `publish:<name>` names a topic when `name` is one of the environment's producer `topics`
 * (then it allows that topic only, whatever the events); otherwise it names an event, and an
 * event scope reaches only the `events` topic, where the plain form's event paths publish.
 * Every event of the request must be covered, so one foreign event refuses the whole batch.
 */
export function canPublish(
  scopes: readonly string[],
  topic: string,
  eventNames: readonly string[],
  topics: ReadonlySet<string>,
): boolean {
  if (scopes.includes('admin') || scopes.includes('publish:*') || scopes.includes(`publish:${topic}`))
    return true;
  if (topic !== 'events' || eventNames.length === 0) return false;
  return eventNames.every((n) => !topics.has(n) && scopes.includes(`publish:${n}`));
}

/** Whether a value is a credential set as the store writes it (a light structural check). */
export function isCredentialSet(value: unknown): value is CredentialSet {
  const v = value as CredentialSet | null;
  return !!v && v.version === 1 && Array.isArray(v.tokens) && Array.isArray(v.keys);
}

/**
 * How long a revoked or expired record is kept before an update drops it: long enough for
 * `token list` to show a recent revocation or expiry, short enough that the store (one Secret
 * Manager payload, see CREDENTIAL_STORE_LIMIT_BYTES) does not fill with dead records.
 */
export const CREDENTIAL_GRACE_MS = 30 * 86_400_000;

/** Secret Manager's limit on one secret version's payload (64 KiB); the file store keeps it too. */
export const CREDENTIAL_STORE_LIMIT_BYTES = 65_536;

/** When a record stopped being usable (revoked or expired), or undefined while it is active. */
function endedAt(r: CredentialRecord, now: number): number | undefined {
  const revoked = r.revoked_at ? Date.parse(r.revoked_at) : undefined;
  const expires = r.expires_at ? Date.parse(r.expires_at) : undefined;
  const expired = expires !== undefined && expires <= now ? expires : undefined;
  if (revoked === undefined) return expired;
  return expired === undefined ? revoked : Math.min(revoked, expired);
}

/** Whether a record is usable at `now`: not revoked, not expired. */
export function isActive(r: CredentialRecord, now: number): boolean {
  return endedAt(r, now) === undefined;
}

/**
 * Drops records revoked or expired more than `graceMs` before `now` (applied on every store
 * update). Active records and recently ended ones are kept, in their order.
 */
export function pruneCredentials(
  set: CredentialSet,
  now: number,
  graceMs = CREDENTIAL_GRACE_MS,
): CredentialSet {
  const keep = (r: CredentialRecord): boolean => {
    const ended = endedAt(r, now);
    return ended === undefined || now - ended <= graceMs;
  };
  return { ...set, tokens: set.tokens.filter(keep), keys: set.keys.filter(keep) };
}

/**
 * Unions two sets by record id: `ours` keeps its order and gains the records only `theirs`
 * has; a record revoked in either is revoked (the earlier time wins), so a concurrent
 * revocation is never undone. Used when two writers raced on the Secret Manager store.
 */
export function mergeCredentials(ours: CredentialSet, theirs: CredentialSet): CredentialSet {
  const merge = <T extends CredentialRecord>(a: readonly T[], b: readonly T[]): T[] => {
    const byId = new Map(b.map((r) => [r.id, r]));
    const merged = a.map((r) => {
      const other = byId.get(r.id);
      byId.delete(r.id);
      if (!other?.revoked_at || (r.revoked_at && r.revoked_at <= other.revoked_at)) return r;
      return { ...r, revoked_at: other.revoked_at };
    });
    return [...merged, ...byId.values()];
  };
  return { ...ours, tokens: merge(ours.tokens, theirs.tokens), keys: merge(ours.keys, theirs.keys) };
}

/** The bytes a store writes for a set (compact JSON: what Secret Manager receives). */
export function serializeCredentials(set: CredentialSet): string {
  return JSON.stringify(set);
}

/** Thrown instead of writing a set over CREDENTIAL_STORE_LIMIT_BYTES; nothing is written. */
export class CredentialStoreFullError extends Error {
  readonly code = 'CREDENTIAL_STORE_FULL';
  readonly bytes: number;
  readonly limitBytes: number;
  /** Tokens and keys in the set that would have been written, and how many of them are active. */
  readonly tokens: number;
  readonly keys: number;
  readonly active: number;
  constructor(fields: { bytes: number; limitBytes: number; tokens: number; keys: number; active: number }) {
    super(
      `the token store is full: ${fields.bytes} bytes is over the ${fields.limitBytes}-byte limit of one Secret Manager version ` +
        `(${fields.active} active credentials of ${fields.tokens} tokens and ${fields.keys} write keys; revoked and ` +
        `expired ones are dropped ${CREDENTIAL_GRACE_MS / 86_400_000} days after they end). Nothing was changed. ` +
        'Revoke tokens or keys that are no longer used (`token list`, `token revoke <id>`, `key revoke <id>`), ' +
        'or share one token between producers with the same scopes.',
    );
    this.name = 'CredentialStoreFullError';
    this.bytes = fields.bytes;
    this.limitBytes = fields.limitBytes;
    this.tokens = fields.tokens;
    this.keys = fields.keys;
    this.active = fields.active;
  }
}

/**
 * What every store update writes: the changed set pruned (CREDENTIAL_GRACE_MS) and serialized,
 * or a CredentialStoreFullError when the result is over `limitBytes`.
 */
export function prepareCredentialWrite(
  set: CredentialSet,
  now: number,
  limitBytes = CREDENTIAL_STORE_LIMIT_BYTES,
): { set: CredentialSet; text: string } {
  const pruned = pruneCredentials(set, now);
  const text = serializeCredentials(pruned);
  const bytes = Buffer.byteLength(text);
  if (bytes > limitBytes) {
    const all = [...pruned.tokens, ...pruned.keys];
    throw new CredentialStoreFullError({
      bytes,
      limitBytes,
      tokens: pruned.tokens.length,
      keys: pruned.keys.length,
      active: all.filter((r) => isActive(r, now)).length,
    });
  }
  return { set: pruned, text };
}
