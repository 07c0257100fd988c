/**
 * Which of a sample's time columns cannot be when its event happened (docs/creator-inference.md,
 * "Guesses"): a version written as a date, a time planned for the thing, a constant. guess.ts
 * chooses the event time among the others. Pure.
 */
import { nameWords } from './names.ts';
import { versionNamed } from './roles.ts';
import type { InferredField } from './sample.ts';

const leaf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const words = (column: string) => nameWords(column).join('');

/**
 * Words of a time that is planned for the thing rather than when the event happened: a booking's
 * `startsAt`, a period's `current_term_end`, a `due_date`, an `expires_at`, a `next_billing_at`,
 * a parcel's `estimated_delivery_date` or `expected_arrival_until`. (`started_at`, `ended_at` and
 * `expired_at` say something happened, and stay candidates.)
 */
const PLANNED_WORDS = new Set([
  'start',
  'starts',
  'begin',
  'begins',
  'end',
  'ends',
  'until',
  'due',
  'expire',
  'expires',
  'expiry',
  'expiration',
  'next',
  'upcoming',
  'scheduled',
  'planned',
  'renews',
  'renewal',
  'estimated',
  'expected',
  'projected',
  'eta',
]);

/**
 * Why a time column is not when each event happened, or undefined: its name says it is a version
 * (Twilio's `ApiVersion: "2010-04-01"`), names a time planned for the thing (`PLANNED_WORDS`), or
 * it holds one value in every row of a sample of three or more (a constant date is no event's
 * time).
 */
export function notWhenItHappened(
  f: InferredField,
  rows: readonly Record<string, unknown>[],
): string | undefined {
  if (versionNamed(f.name)) return `${f.name} is not a time: its name says it is a version`;
  const planned =
    nameWords(leaf(f.name)).find((w) => PLANNED_WORDS.has(w)) ??
    /^(next|upcoming|scheduled|planned|renews|renewal)/.exec(words(leaf(f.name)))?.[0];
  if (planned)
    return `${f.name} is not when it happened: "${planned}" names a time planned for the thing (a start, an end, a due date)`;
  const filled = rows.filter((r) => r[f.name] !== undefined && r[f.name] !== null && r[f.name] !== '').length;
  // Two events of a sample may share a time (a vendor's documented examples often do): only
  // three or more rows with one value say it is a constant.
  if (f.distinct === 1 && filled >= 3)
    return `${f.name} is not a time: the same value in all ${filled} rows (a constant, not when each happened)`;
  return undefined;
}
