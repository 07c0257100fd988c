/**
 * The console's overview (docs/console.md): over a time range, the events stored per hour by
 * name, the invalid ones per hour and their top reasons, the delivery ledger by destination and
 * status (dead letters among them), and the time from receipt to storage. Each figure is one
 * BigQuery SQL query over the warehouse, the same SQL a dashboard would run (docs/console.md
 * prints it); this module builds the queries and shapes their rows. Pure.
 *
 * Counting: an event is counted once however often it was stored, as `events_dedup` folds
 * redelivered copies (one per `event_id` and `event_time`; `COUNT(DISTINCT …)` is exact in
 * BigQuery). A copy redelivered in a later hour than the first counts in both hours (Pub/Sub
 * redelivers within seconds to minutes). Percentiles are exact (nearest rank over the range's
 * stored rows, copies included: each copy's storage took that long), not approximate.
 */

/** The range, as RFC 3339 timestamps: from inclusive, to exclusive. */
export interface OverviewRange {
  readonly from: string;
  readonly to: string;
}

export const OVERVIEW_QUERIES = [
  'events',
  'invalid',
  'reasons',
  'deliveries',
  'latency',
  'audience',
] as const;
export type OverviewQuery = (typeof OVERVIEW_QUERIES)[number];

/** The longest range an overview covers (a quarter: 2,208 hourly points per series at most). */
export const OVERVIEW_MAX_DAYS = 92;

/** What the overview is asked besides the range. */
export interface OverviewOptions {
  /** Count events flagged `enriched.bot` in the country, device and channel breakdowns (default no). */
  readonly bots?: boolean;
}

/** Each query's SQL; `table` quotes a table of the events dataset. Parameters: @from, @to. */
export function overviewSql(
  table: (name: string) => string,
  options: OverviewOptions = {},
): Record<OverviewQuery, string> {
  const key = "CONCAT(event_id, '|', CAST(event_time AS STRING))";
  const range = (column: string) => `${column} >= TIMESTAMP(@from) AND ${column} < TIMESTAMP(@to)`;
  return {
    events: `SELECT TIMESTAMP_TRUNC(received_at, HOUR) AS hour, event_name, COUNT(DISTINCT CONCAT(event_id, '|', CAST(event_time AS STRING))) AS events
FROM ${table('events')}
WHERE ${range('received_at')}
GROUP BY hour, event_name
ORDER BY hour, event_name`,
    invalid: `SELECT TIMESTAMP_TRUNC(received_at, HOUR) AS hour, COUNT(*) AS invalid
FROM ${table('invalid_events')}
WHERE ${range('received_at')}
GROUP BY hour
ORDER BY hour`,
    reasons: `SELECT reason, IFNULL(e.path, '') AS path, IFNULL(e.message, '') AS message, COUNT(*) AS events
FROM ${table('invalid_events')} AS i
LEFT JOIN UNNEST(i.errors) AS e
WHERE ${range('i.received_at')}
GROUP BY reason, path, message
ORDER BY events DESC, reason, path, message
LIMIT 10`,
    deliveries: `SELECT destination, status, COUNT(*) AS deliveries
FROM ${table('deliveries')}
WHERE ${range('recorded_at')}
GROUP BY destination, status
ORDER BY destination, status`,
    latency: `WITH d AS (
  SELECT TIMESTAMP_DIFF(stored_at, received_at, MILLISECOND) AS ms
  FROM ${table('events')}
  WHERE ${range('received_at')}
), r AS (
  SELECT ms, ROW_NUMBER() OVER (ORDER BY ms) AS rn, COUNT(*) OVER () AS n FROM d
)
SELECT COUNT(*) AS stored,
  MIN(IF(rn >= CEIL(n * 0.5), ms, NULL)) AS p50_ms,
  MIN(IF(rn >= CEIL(n * 0.99), ms, NULL)) AS p99_ms,
  MAX(ms) AS max_ms
FROM r`,
    // Country, device and channel (docs/enrichment.md) in one pass: each event has one of each,
    // so the three breakdowns are sums over these rows. Bots are counted apart, and left out of
    // the breakdowns unless asked for.
    audience: `SELECT country, device, channel,
  COUNT(DISTINCT ${options.bots ? 'k' : 'IF(bot, NULL, k)'}) AS events,
  COUNT(DISTINCT IF(bot, k, NULL)) AS bots
FROM (
  SELECT ${key} AS k, IFNULL(enriched.geo.country, '') AS country, IFNULL(enriched.device.type, '') AS device,
    IFNULL(enriched.channel, '') AS channel, IFNULL(enriched.bot, FALSE) AS bot
  FROM ${table('events')}
  WHERE ${range('received_at')}
)
GROUP BY country, device, channel`,
  };
}

type Row = Record<string, unknown>;

export interface Overview {
  readonly range: OverviewRange;
  /** Every hour of the range, oldest first (ISO 8601, the hour's start). */
  readonly hours: readonly string[];
  /** Per event name, the events of each hour (aligned with `hours`), busiest name first. */
  readonly events: readonly {
    readonly name: string;
    readonly counts: readonly number[];
    readonly total: number;
  }[];
  /** Invalid events per hour (aligned with `hours`). */
  readonly invalid: readonly number[];
  readonly totals: { readonly events: number; readonly invalid: number };
  readonly reasons: readonly { reason: string; path: string; message: string; events: number }[];
  readonly deliveries: readonly { destination: string; status: string; deliveries: number }[];
  /** Dead letters per destination (the ledger's `dead_lettered` rows). */
  readonly deadLetters: readonly { destination: string; deliveries: number }[];
  readonly latency: { stored: number; p50_ms: number | null; p99_ms: number | null; max_ms: number | null };
  /**
   * Events by country, device type and channel (`enriched.*`; '' when not derived), most first;
   * bots left out unless the overview was asked to count them (`botsIncluded`).
   */
  readonly audience: {
    readonly countries: readonly Share[];
    readonly devices: readonly Share[];
    readonly channels: readonly Share[];
    /** Events flagged as bots in the range. */
    readonly bots: number;
    readonly botsIncluded: boolean;
  };
}

export interface Share {
  readonly value: string;
  readonly events: number;
}

/** Sums the audience rows by one column, most events first. */
function shares(rows: readonly Row[], column: string): Share[] {
  const sums = new Map<string, number>();
  for (const r of rows) {
    const v = String(r[column] ?? '');
    sums.set(v, (sums.get(v) ?? 0) + num(r['events']));
  }
  return [...sums]
    .filter(([, events]) => events > 0)
    .map(([value, events]) => ({ value, events }))
    .sort((a, b) => b.events - a.events || a.value.localeCompare(b.value));
}

/** The range checked: two timestamps, from before to, at most OVERVIEW_MAX_DAYS apart. */
export function overviewRangeProblem(r: { from?: unknown; to?: unknown }): string | undefined {
  if (typeof r.from !== 'string' || Number.isNaN(Date.parse(r.from)))
    return 'from must be an RFC 3339 timestamp';
  if (typeof r.to !== 'string' || Number.isNaN(Date.parse(r.to))) return 'to must be an RFC 3339 timestamp';
  const span = Date.parse(r.to) - Date.parse(r.from);
  if (span <= 0) return 'from must be before to';
  if (span > OVERVIEW_MAX_DAYS * 86_400_000) return `the range must be at most ${OVERVIEW_MAX_DAYS} days`;
  return undefined;
}

const HOUR = 3_600_000;
/** BigQuery's client gives TIMESTAMP values as `{ value }` objects; plain JSON gives strings. */
const time = (v: unknown): number =>
  Date.parse(
    typeof v === 'object' && v !== null && 'value' in v ? String((v as { value: unknown }).value) : String(v),
  );
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The queries' rows as the overview: hourly series with every hour present (zeros included). */
export function shapeOverview(
  range: OverviewRange,
  rows: Record<OverviewQuery, readonly Row[]>,
  options: OverviewOptions = {},
): Overview {
  const start = Math.floor(Date.parse(range.from) / HOUR) * HOUR;
  const end = Date.parse(range.to);
  const hours: string[] = [];
  for (let t = start; t < end; t += HOUR) hours.push(new Date(t).toISOString());
  const slot = (v: unknown) => Math.floor((time(v) - start) / HOUR);

  const byName = new Map<string, number[]>();
  for (const r of rows.events) {
    const name = String(r['event_name']);
    let counts = byName.get(name);
    if (!counts) {
      counts = hours.map(() => 0);
      byName.set(name, counts);
    }
    const i = slot(r['hour']);
    if (i >= 0 && i < hours.length) counts[i] = (counts[i] ?? 0) + num(r['events']);
  }
  const events = [...byName]
    .map(([name, counts]) => ({ name, counts, total: counts.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));

  const invalid = hours.map(() => 0);
  for (const r of rows.invalid) {
    const i = slot(r['hour']);
    if (i >= 0 && i < hours.length) invalid[i] = (invalid[i] ?? 0) + num(r['invalid']);
  }
  const deliveries = rows.deliveries.map((r) => ({
    destination: String(r['destination']),
    status: String(r['status']),
    deliveries: num(r['deliveries']),
  }));
  const l = rows.latency[0] ?? {};
  return {
    range,
    hours,
    events,
    invalid,
    totals: {
      events: events.reduce((a, e) => a + e.total, 0),
      invalid: invalid.reduce((a, b) => a + b, 0),
    },
    reasons: rows.reasons.map((r) => ({
      reason: String(r['reason']),
      path: String(r['path'] ?? ''),
      message: String(r['message'] ?? ''),
      events: num(r['events']),
    })),
    deliveries,
    deadLetters: deliveries
      .filter((d) => d.status === 'dead_lettered')
      .map((d) => ({ destination: d.destination, deliveries: d.deliveries })),
    latency: {
      stored: num(l['stored']),
      p50_ms: numOrNull(l['p50_ms']),
      p99_ms: numOrNull(l['p99_ms']),
      max_ms: numOrNull(l['max_ms']),
    },
    audience: {
      countries: shares(rows.audience, 'country'),
      devices: shares(rows.audience, 'device'),
      channels: shares(rows.audience, 'channel'),
      bots: rows.audience.reduce((a, r) => a + num(r['bots']), 0),
      botsIncluded: options.bots === true,
    },
  };
}
