/**
 * Suppression of erased persons (docs/privacy.md "After an erasure"): an event that carries an
 * identifier of an erased person is, before it is stored or forwarded, either dropped or kept
 * without the identifiers (`privacy.erased_events`: `strip`, the default, or `drop`). The list holds
 * second-order hashes only (core/privacy/erasure.ts, `erasureHash`), so matching hashes each of the
 * event's identifiers once — and only while the list is not empty. Pure.
 */
import { scrubPayload } from '../pii.ts';
import { erasureHash, eventIdentifiers } from './erasure.ts';

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
 * The event without what identifies a person: the ids, `user`, `device` (address, user agent,
 * hints), the click ids and cookies of `campaign`; page URLs keep their path with personal data in
 * the query redacted. What happened (name, time, value, items) stays.
 */
export function stripIdentifiers<T>(value: T): T {
  if (!isObject(value)) return value;
  const { user: _u, user_id: _i, anonymous_id: _a, session_id: _s, device: _d, ...rest } = value;
  const out: Record<string, unknown> = { ...rest };
  if (isObject(rest['campaign']))
    out['campaign'] = Object.fromEntries(
      Object.entries(rest['campaign']).filter(([k]) => CAMPAIGN_KEPT.test(k)),
    );
  if (isObject(rest['page'])) out['page'] = scrubPayload(rest['page']);
  return out as T;
}
