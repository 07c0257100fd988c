/**
 * Suppression of erased persons (docs/privacy.md "After an erasure"), shared by store and forward: an event that carries an
 * identifier of an erased person is, before it is stored or forwarded, either dropped or kept
 * without the identifiers (`privacy.erased_events`: `strip`, the default, or `drop`). The list holds
 * second-order hashes only (core/privacy/erasure.ts, `erasureHash`), so matching hashes each of the
 * event's identifiers once — and only while the list is not empty. Pure. Its own folder, which
 * imports only core/pii.ts, so the delivery and store paths need not import core/privacy/, whose
 * erasure reaches the syncs.
 */
import { REDACTED, scrubPayload, sha256 } from '../pii.ts';

export type ErasedEvents = 'strip' | 'drop';
export const DEFAULT_ERASED_EVENTS: ErasedEvents = 'strip';

/** The list as a function holds it (adapters/suppression-list.ts refreshes it). */
export interface Suppression {
  readonly hashes: ReadonlySet<string>;
  readonly mode: ErasedEvents;
}

export type Verdict = 'keep' | 'strip' | 'drop';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether an event (as sent, or as stored) belongs to an erased person, and what to do with it. */
export function suppressionVerdict(value: unknown, list: Suppression | undefined): Verdict {
  if (!list || list.hashes.size === 0 || !isObject(value)) return 'keep';
  for (const id of eventIdentifiers(value)) if (list.hashes.has(erasureHash(id))) return list.mode;
  return 'keep';
}

/** Campaign fields that are not identifiers (the click ids and cookies are). */
const CAMPAIGN_KEPT = /^(utm_|source$|medium$|name$|term$|content$|id$)/;

/**
 * Keys whose value is a person's data whatever it holds, wherever they sit in the event's data:
 * traits (Segment's `traits`, `context.traits`, the tag's), the ids, and the names personal fields go by.
 */
const PERSONAL_KEY =
  /^(traits|user|user_?id|userid|anonymous_?id|anonymousid|e-?mail|email_address|phone|phone_number|tel|mobile|first_?name|last_?name|firstname|lastname|address|birthday|ip|ip_address)$/i;

/** The event's own identifiers as given (not hashed), to find again in its data. */
function rawIdentifiers(value: Readonly<Record<string, unknown>>): string[] {
  const user = isObject(value['user']) ? value['user'] : {};
  return [value['user_id'], value['anonymous_id'], user['email'], user['phone']].filter(
    (v): v is string => typeof v === 'string' && v.trim().length >= 3,
  );
}

/**
 * Event data without a person in it: personal keys left out at any depth, e-mails and phone
 * numbers in text redacted, and the event's own identifiers wherever a custom field repeats them.
 */
function stripData(v: unknown, ids: readonly string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => stripData(x, ids));
  if (isObject(v))
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !PERSONAL_KEY.test(k))
        .map(([k, x]) => [k, stripData(x, ids)]),
    );
  if (typeof v !== 'string') return v;
  let text = scrubPayload(v);
  for (const id of ids) if (text.includes(id)) text = text.split(id).join(REDACTED);
  return text;
}

/**
 * The event without what identifies a person: the ids, `user`, `traits`, `device` (address, user
 * agent, hints), the click ids and cookies of `campaign`; in `event_data`, traits and personal
 * fields at any depth (stripData); page URLs keep their path with personal data in the query
 * redacted. What happened (name, time, value, items) stays.
 */
export function stripIdentifiers<T>(value: T): T {
  if (!isObject(value)) return value;
  const { user: _u, user_id: _i, anonymous_id: _a, session_id: _s, device: _d, traits: _t, ...rest } = value;
  const out: Record<string, unknown> = { ...rest };
  if (rest['event_data'] !== undefined)
    out['event_data'] = stripData(rest['event_data'], rawIdentifiers(value));
  if (isObject(rest['campaign']))
    out['campaign'] = Object.fromEntries(
      Object.entries(rest['campaign']).filter(([k]) => CAMPAIGN_KEPT.test(k)),
    );
  if (isObject(rest['page'])) out['page'] = scrubPayload(rest['page']);
  return out as T;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The second-order hash of a graph identifier, as `identity_erasures` and the suppression list keep it. */
export const erasureHash = (identifier: string): string => sha256(identifier);

/** An event's identifiers in the graph's form (what `requestHashes` hashes), for suppression. */
export function eventIdentifiers(event: {
  readonly anonymous_id?: unknown;
  readonly user_id?: unknown;
  readonly user?: unknown;
}): string[] {
  const out: string[] = [];
  if (typeof event.anonymous_id === 'string' && event.anonymous_id !== '')
    out.push(`anonymous_id:${event.anonymous_id}`);
  if (typeof event.user_id === 'string' && event.user_id !== '') out.push(`user_id:${event.user_id}`);
  const user = event.user as { email?: unknown; phone?: unknown } | undefined;
  if (user && typeof user === 'object') {
    if (typeof user.email === 'string' && user.email.trim() !== '')
      out.push(`email:${HEX64.test(user.email) ? user.email : sha256(user.email.trim().toLowerCase())}`);
    if (typeof user.phone === 'string' && /\d/.test(user.phone))
      out.push(`phone:${HEX64.test(user.phone) ? user.phone : sha256(user.phone.replace(/[^0-9]/g, ''))}`);
  }
  return out;
}
