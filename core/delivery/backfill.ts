/**
 * A backfill (docs/delivery.md#backfill): a slice replay to a destination added after some of the
 * slice's events were stored. Pure parts, used by the one slice replay (slice-replay.ts) that the
 * CLI and the scheduler's Replay job share:
 * - when the destination went live: when the event of its first ledger row not written by a
 *   replay was received (`store` writes one for every event it decides, sent or skipped, from the
 *   moment the settings hold the destination); an event received before it was never fanned out
 *   to it, and is backfilled;
 * - the platform's own age limit (its folder's age-limit.ts), applied to every event a replay
 *   would send, so an event the platform would refuse is a `skipped` row naming the limit;
 * - consent as collected, narrowed by a later withdrawal: the person's newest later event that
 *   carries consent must permit the destination too.
 */
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { PLATFORM_FACTS } from '../platforms/facts.ts';
import { tableRef } from '../warehouse/table-plan.ts';

/**
 * When the destination went live: when the first event it was decided for outside a replay (its
 * first ledger row by `store` or `forward`) was received. That event and every later one were
 * fanned out to it; an event received before it never was.
 */
export function wentLiveQuery(project: string, dataset: string): string {
  const deliveries = tableRef(project, dataset, 'deliveries');
  return [
    `SELECT MIN(e.received_at) AS went_live FROM ${deliveries} d`,
    `JOIN ${tableRef(project, dataset, 'events_dedup')} e ON e.event_id = d.event_id`,
    'WHERE d.destination = @destination AND NOT d.replay',
    `AND d.recorded_at = (SELECT MIN(recorded_at) FROM ${deliveries} WHERE destination = @destination AND NOT replay)`,
  ].join(' ');
}

/** The went-live instant from the query's row; none (it never saw an event yet): `now`. */
export function wentLiveOf(rows: readonly Readonly<Record<string, unknown>>[], now: Date): Date {
  const raw = rows[0]?.['went_live'];
  const value =
    typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
  if (value === null || value === undefined) return now;
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value));
  return Number.isNaN(ms) ? now : new Date(ms);
}

/** Whether a stored event of a slice is backfilled: received before the destination went live. */
export function isBackfill(event: StoredEvent, wentLive: Date | undefined): boolean {
  if (wentLive === undefined) return false;
  const received = Date.parse(event.received_at ?? event.event_time);
  return !Number.isNaN(received) && received < wentLive.getTime();
}

// As the platforms say it: GA4's 72 hours, Meta's 7 days.
const span = (hours: number): string =>
  hours > 72 && hours % 24 === 0 ? `${hours / 24}-day` : `${hours}-hour`;

/**
 * Why the platform would refuse the event for its age when sent at `now`, naming its documented
 * limit, or undefined (young enough, or a platform that publishes no limit).
 */
export function ageRefusal(
  destination: Readonly<Destination>,
  event: StoredEvent,
  now: Date,
): string | undefined {
  const facts = PLATFORM_FACTS[destination.type];
  const limit = facts.ageLimit;
  if (!limit) return undefined;
  const config = destination.config as Readonly<Record<string, unknown>> | undefined;
  const longer =
    limit.longer && config?.[limit.longer.config] === limit.longer.value ? limit.longer : undefined;
  const hours = longer?.hours ?? limit.hours;
  const applies = longer?.applies ?? limit.applies;
  const at = Date.parse(event.event_time);
  if (Number.isNaN(at) || now.getTime() - at <= hours * 3_600_000) return undefined;
  return `age limit: the event (event_time ${new Date(at).toISOString()}) is older than ${facts.names.short}'s ${span(hours)} limit for ${applies} (${limit.source})`;
}

/** Columns a person's later consent is read with. */
const LATER_COLUMNS = 'user_id, anonymous_id, received_at, consent';

/**
 * The consent the persons of some events recorded later: every event stored since `@since` of a
 * user id in `@users` or an anonymous id in `@anonymous` that carries consent, oldest first.
 */
export function laterConsentQuery(project: string, dataset: string): string {
  return `SELECT ${LATER_COLUMNS} FROM ${tableRef(project, dataset, 'events_dedup')} WHERE event_time >= @since AND consent IS NOT NULL AND (user_id IN UNNEST(@users) OR anonymous_id IN UNNEST(@anonymous)) ORDER BY received_at`;
}

/** The query's parameters for some events: their persons and the oldest of their times. */
export function laterConsentParams(
  events: readonly StoredEvent[],
): { since: Date; users: string[]; anonymous: string[] } | undefined {
  const users = [...new Set(events.flatMap((e) => (e.user_id ? [e.user_id] : [])))];
  const anonymous = [...new Set(events.flatMap((e) => (e.anonymous_id ? [e.anonymous_id] : [])))];
  if (users.length === 0 && anonymous.length === 0) return undefined;
  const times = events.map((e) => Date.parse(e.event_time)).filter((t) => !Number.isNaN(t));
  return { since: new Date(Math.min(...times)), users, anonymous };
}

/**
 * The consent the event's person recorded last, after the event was stored (same user id, or
 * same anonymous id), among `later` (events as stored, any order); undefined when none did.
 */
export function laterConsentOf(
  event: StoredEvent,
  later: readonly StoredEvent[],
): StoredEvent['consent'] | undefined {
  const after = Date.parse(event.received_at ?? event.event_time);
  let newest: StoredEvent | undefined;
  for (const l of later) {
    const at = Date.parse(l.received_at ?? l.event_time);
    const same =
      (event.user_id !== undefined && l.user_id === event.user_id) ||
      (event.anonymous_id !== undefined && l.anonymous_id === event.anonymous_id);
    if (!same || l.consent === undefined || !(at > after)) continue;
    if (!newest || at > Date.parse(newest.received_at ?? newest.event_time)) newest = l;
  }
  return newest?.consent;
}
