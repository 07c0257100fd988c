/**
 * The per-destination debugger (docs/console.md#debugger): the checks of a `destination-attempts`
 * call, the SQL of one destination's last attempts from the ledger (`deliveries`), each beside
 * the stored event it is about (`events_dedup`, by event_id and payload_digest), the platform's
 * answer as the ledger keeps it, and the `replay-start` body that sends one event to the
 * destination again. How the studio masks what it shows is studio/debugger-mask.ts (it reads
 * core/delivery's identifier table, a layer above this one). Pure.
 */
import { LEDGER_STATUSES } from './destination-health.ts';

/** Attempts shown when no limit is asked for, and the most one call reads. */
export const ATTEMPTS_DEFAULT = 50;
export const ATTEMPTS_MAX = 200;
/** How far back the ledger is read (its partitions), and how far before that the events are. */
export const ATTEMPTS_DAYS = 30;
export const EVENTS_LOOKBACK_DAYS = 90;
/** The longest reason filter taken. */
const MAX_REASON_CHARS = 200;

/** Prefix of the stored event's columns in attemptsSql's rows (the ledger has the same names). */
export const EVENT_PREFIX = 'ev_';

/** What a `destination-attempts` call asks for, checked. */
export interface AttemptsQuery {
  readonly destination: string;
  /** '' for every status. */
  readonly status: string;
  /** Lower-cased text the reason must contain; '' for any. */
  readonly reason: string;
  readonly limit: number;
}

/** The request checked: the query, or the field that is wrong and why. */
export function attemptsQuery(
  body: Readonly<Record<string, unknown>>,
  destinations: readonly string[],
): { ok: true; query: AttemptsQuery } | { ok: false; field: string; description: string } {
  const bad = (field: string, description: string) => ({ ok: false as const, field, description });
  const { destination, status, reason, limit } = body;
  if (typeof destination !== 'string' || !destinations.includes(destination))
    return bad(
      'destination',
      `must be one of the environment's destinations (${destinations.join(', ') || 'none configured'})`,
    );
  if (
    status !== undefined &&
    status !== '' &&
    !LEDGER_STATUSES.includes(status as (typeof LEDGER_STATUSES)[number])
  )
    return bad('status', `must be one of ${LEDGER_STATUSES.join(', ')}`);
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_CHARS))
    return bad('reason', `must be text of at most ${MAX_REASON_CHARS} characters`);
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > ATTEMPTS_MAX)
  )
    return bad('limit', `must be a whole number from 1 to ${ATTEMPTS_MAX}`);
  return {
    ok: true,
    query: {
      destination,
      status: typeof status === 'string' ? status : '',
      reason: typeof reason === 'string' ? reason.trim().toLowerCase() : '',
      limit: typeof limit === 'number' ? limit : ATTEMPTS_DEFAULT,
    },
  };
}

/**
 * The last attempts of @destination since @since (newest first), filtered by @status and @reason
 * ('' for none), each with its stored event's columns prefixed EVENT_PREFIX (null when the event
 * is not in the events read: older than EVENTS_LOOKBACK_DAYS before @since, or erased). `ref`
 * quotes a table of the events dataset; `limit` is an AttemptsQuery's, checked, so written in.
 */
export function attemptsSql(
  ref: (name: string) => string,
  eventColumns: readonly string[],
  limit: number,
): string {
  if (!Number.isInteger(limit) || limit < 1 || limit > ATTEMPTS_MAX) throw new Error(`limit ${limit}`);
  return [
    'WITH a AS (',
    '  SELECT recorded_at, event_id, event_name, status, http_status, reason, attempt, replay,',
    '    identifiers, payload_digest, platform_ref, platform_events_received, platform_response',
    `  FROM ${ref('deliveries')}`,
    '  WHERE destination = @destination AND recorded_at >= TIMESTAMP(@since)',
    "    AND (@status = '' OR status = @status)",
    "    AND (@reason = '' OR STRPOS(LOWER(IFNULL(reason, '')), @reason) > 0)",
    `  ORDER BY recorded_at DESC LIMIT ${limit}`,
    ')',
    `SELECT a.*, ${eventColumns.map((c) => `e.${c} AS ${EVENT_PREFIX}${c}`).join(', ')}`,
    'FROM a',
    `LEFT JOIN ${ref('events_dedup')} AS e`,
    '  ON e.event_id = a.event_id AND e.payload_digest = a.payload_digest',
    `  AND e.event_time >= TIMESTAMP_SUB(TIMESTAMP(@since), INTERVAL ${EVENTS_LOOKBACK_DAYS} DAY)`,
    'ORDER BY a.recorded_at DESC, a.event_id',
  ].join('\n');
}

/** What the platform answered, as JSON when the ledger holds JSON (it does: a bounded excerpt). */
export function platformAnswer(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A string literal BigQuery reads back as `text` (quotes and backslashes escaped). */
const sqlString = (text: string): string => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/**
 * The `replay-start` body that sends one stored event to one destination again: a slice of the
 * millisecond its event_time falls in, narrowed to its event_id (docs/console.md#replays).
 */
export function resendRequest(
  destination: string,
  eventId: string,
  eventTime: string,
): { destination: string; source: 'slice'; from: string; to: string; where: string } | undefined {
  const ms = Date.parse(eventTime);
  if (Number.isNaN(ms)) return undefined;
  return {
    destination,
    source: 'slice',
    from: new Date(ms).toISOString(),
    to: new Date(ms + 1).toISOString(),
    where: `event_id = ${sqlString(eventId)}`,
  };
}
