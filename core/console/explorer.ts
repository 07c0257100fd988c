/**
 * The console's events explorer (docs/console.md): find events by time, `user_id` or name, and
 * for one `event_id` everything the warehouse knows: its stored row(s) (a redelivered copy is a
 * second row), its invalid twin(s) in `invalid_events`, and each destination's ledger rows.
 * This module builds the SQL (BigQuery's dialect, parameters named) and checks the requests.
 * Pure.
 */

/** The most events a list shows (the newest first). */
export const EXPLORE_LIMIT = 50;
/** The longest time range a list covers. */
export const EXPLORE_MAX_DAYS = 92;

export interface ExploreList {
  readonly from: string;
  readonly to: string;
  readonly user_id?: string;
  readonly event_name?: string;
}

/**
 * Events whose `event_time` is in the range (the partition column: a range reads only its days),
 * one row per event however often it was stored, the newest first.
 */
export function exploreListSql(table: (name: string) => string, q: ExploreList): string {
  const filters = [
    'event_time >= TIMESTAMP(@from)',
    'event_time < TIMESTAMP(@to)',
    ...(q.user_id !== undefined ? ['user_id = @user_id'] : []),
    ...(q.event_name !== undefined ? ['event_name = @event_name'] : []),
  ];
  return `SELECT event_id, event_name, event_time, MIN(received_at) AS received_at, ANY_VALUE(user_id) AS user_id, COUNT(*) AS copies
FROM ${table('events')}
WHERE ${filters.join(' AND ')}
GROUP BY event_id, event_name, event_time
ORDER BY received_at DESC, event_id
LIMIT ${EXPLORE_LIMIT}`;
}

/** One event's rows: stored, invalid, and the ledger. Parameter: @event_id. */
export function exploreEventSql(table: (name: string) => string): {
  stored: string;
  invalid: string;
  ledger: string;
} {
  return {
    stored: `SELECT * FROM ${table('events')} WHERE event_id = @event_id ORDER BY received_at, message_id LIMIT 20`,
    invalid: `SELECT received_at, stored_at, reason, topic, message_id, event_name, payload, errors
FROM ${table('invalid_events')} WHERE event_id = @event_id ORDER BY received_at LIMIT 20`,
    ledger: `SELECT recorded_at, destination, status, reason, attempt, http_status, replay
FROM ${table('deliveries')} WHERE event_id = @event_id ORDER BY recorded_at, destination LIMIT 200`,
  };
}

const IDS = /^[\x21-\x7e]{1,128}$/;

/** What is wrong with a request, as a field and a description; undefined when it is fine. */
export function exploreProblem(
  body: Readonly<Record<string, unknown>>,
): { field: string; description: string } | undefined {
  const text = (field: string) => {
    const v = body[field];
    return v === undefined || (typeof v === 'string' && IDS.test(v))
      ? undefined
      : { field, description: 'must be 1 to 128 printable ASCII characters without spaces' };
  };
  if (body['event_id'] !== undefined) return text('event_id');
  for (const field of ['user_id', 'event_name']) {
    const p = text(field);
    if (p) return p;
  }
  for (const field of ['from', 'to']) {
    const v = body[field];
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v)))
      return { field, description: 'must be an RFC 3339 timestamp (or give event_id)' };
  }
  const span = Date.parse(String(body['to'])) - Date.parse(String(body['from']));
  if (span <= 0) return { field: 'from', description: 'must be before to' };
  if (span > EXPLORE_MAX_DAYS * 86_400_000)
    return { field: 'from', description: `the range must be at most ${EXPLORE_MAX_DAYS} days` };
  return undefined;
}
