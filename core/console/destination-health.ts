/**
 * Destination health (docs/console.md#destination-health): views of the ledger anyone can query
 * in the events dataset, and the studio page's queries over them. Each view reads only the
 * ledger's (and, for latency, the events') columns it names; filter on its time column to read
 * fewer partitions' worth of rows.
 *
 * - `destination_health`: per destination and hour, ledger rows by status, replays, and attempts
 *   the circuit breaker held back (core/delivery/breaker.ts writes them as `failed` rows whose
 *   reason starts `held back:`).
 * - `destination_errors`: per destination, day, status and reason, the rows, events, one sample
 *   event id, the newest HTTP status, first and last seen.
 * - `delivery_latency`: per `delivered` row, the milliseconds from Pub/Sub's receipt of the event
 *   (`events.received_at`) to the ledger row (`recorded_at`), with the attempt that delivered it.
 * - `match_quality`: per destination, event name, day and identifier kind, the share of delivered
 *   requests that carried it (the ledger's `identifiers`, core/delivery/identifiers.ts).
 */

/**
 * A view's column: the part of core/warehouse/warehouse.ts's ColumnPlan these views use (warehouse.ts lists
 * the views, so this file does not import it back).
 */
interface Column {
  readonly name: string;
  readonly type: 'STRING' | 'INT64' | 'FLOAT64' | 'BOOL' | 'TIMESTAMP' | 'DATE';
  readonly mode: 'NULLABLE';
  readonly description: string;
}

interface View {
  readonly name: string;
  readonly description: string;
  readonly query: string;
  readonly columns: readonly Column[];
}

export const HEALTH_VIEWS = Object.freeze({
  health: 'destination_health',
  errors: 'destination_errors',
  latency: 'delivery_latency',
  match: 'match_quality',
} as const);

/** The statuses of the ledger, in the order the page shows them. */
export const LEDGER_STATUSES = [
  'delivered',
  'folded',
  'skipped',
  'rejected',
  'failed',
  'dead_lettered',
] as const;

/** What the breaker's held-back attempts say first in their reason (core/delivery/forward.ts). */
export const HELD_BACK_PREFIX = 'held back:';

const c = (name: string, type: Column['type'], description: string): Column => ({
  name,
  type,
  mode: 'NULLABLE',
  description,
});

/** The three views; `ref` quotes a table of the events dataset. */
export function destinationHealthViews(ref: (name: string) => string): View[] {
  return [
    {
      name: HEALTH_VIEWS.health,
      description:
        'Per destination and hour: ledger rows by status, replays, and attempts the circuit breaker held back',
      query: [
        'SELECT destination, TIMESTAMP_TRUNC(recorded_at, HOUR) AS hour,',
        ...LEDGER_STATUSES.map((s) => `  COUNTIF(status = '${s}') AS ${s},`),
        '  COUNTIF(replay) AS replayed,',
        `  COUNTIF(status = 'failed' AND STARTS_WITH(IFNULL(reason, ''), '${HELD_BACK_PREFIX}')) AS held_back`,
        `FROM ${ref('deliveries')}`,
        'GROUP BY destination, hour',
      ].join('\n'),
      columns: [
        c('destination', 'STRING', 'Destination id from the settings'),
        c('hour', 'TIMESTAMP', 'The hour the ledger rows were recorded in (UTC)'),
        ...LEDGER_STATUSES.map((s) => c(s, 'INT64', `Ledger rows with status ${s}`)),
        c('replayed', 'INT64', 'Rows of replays (re-drives), any status'),
        c(
          'held_back',
          'INT64',
          'failed rows that were never sent: the circuit breaker or a Retry-After held them back',
        ),
      ],
    },
    {
      name: HEALTH_VIEWS.errors,
      description:
        'Per destination, day, status and reason: how often, a sample event, the newest HTTP status',
      query: [
        "SELECT destination, DATE(recorded_at) AS day, status, IFNULL(reason, '') AS reason,",
        '  COUNT(*) AS rows_recorded, COUNT(DISTINCT event_id) AS events, ANY_VALUE(event_id) AS sample_event_id,',
        '  MAX(http_status) AS http_status, MIN(recorded_at) AS first_seen, MAX(recorded_at) AS last_seen',
        `FROM ${ref('deliveries')}`,
        "WHERE status IN ('rejected', 'failed', 'dead_lettered')",
        'GROUP BY destination, day, status, reason',
      ].join('\n'),
      columns: [
        c('destination', 'STRING', 'Destination id'),
        c('day', 'DATE', 'The day the rows were recorded (UTC)'),
        c('status', 'STRING', 'rejected | failed | dead_lettered'),
        c('reason', 'STRING', 'The ledger’s reason, as recorded'),
        c('rows_recorded', 'INT64', 'Ledger rows with it'),
        c('events', 'INT64', 'Distinct events among them'),
        c('sample_event_id', 'STRING', 'One of those events (open it in the explorer)'),
        c('http_status', 'INT64', 'The highest HTTP status among them, when the platform answered'),
        c('first_seen', 'TIMESTAMP', 'Its first row that day'),
        c('last_seen', 'TIMESTAMP', 'Its last row that day'),
      ],
    },
    {
      name: HEALTH_VIEWS.latency,
      description:
        'Per delivered ledger row: milliseconds from the event’s receipt (events.received_at) to its delivery row',
      query: [
        'SELECT d.destination, d.event_name, d.event_id, e.received_at, d.recorded_at AS delivered_at,',
        '  TIMESTAMP_DIFF(d.recorded_at, e.received_at, MILLISECOND) AS latency_ms, d.attempt, d.replay',
        `FROM ${ref('deliveries')} AS d`,
        `JOIN ${ref('events')} AS e ON e.event_id = d.event_id AND e.payload_digest = d.payload_digest`,
        "WHERE d.status = 'delivered'",
      ].join('\n'),
      columns: [
        c('destination', 'STRING', 'Destination id'),
        c('event_name', 'STRING', 'Its event name'),
        c('event_id', 'STRING', 'The event delivered'),
        c('received_at', 'TIMESTAMP', 'When Pub/Sub accepted the event'),
        c('delivered_at', 'TIMESTAMP', 'When its delivered row was recorded'),
        c(
          'latency_ms',
          'INT64',
          'delivered_at − received_at, in milliseconds (a redelivered copy counts once per row)',
        ),
        c('attempt', 'INT64', 'The Pub/Sub attempt that delivered it'),
        c('replay', 'BOOL', 'Whether the row comes from a replay'),
      ],
    },
    {
      name: HEALTH_VIEWS.match,
      description:
        'Per destination, event name, day and identifier kind: the share of delivered requests that carried it (names, never values)',
      query: [
        'WITH d AS (',
        '  SELECT destination, event_name, DATE(recorded_at) AS day, identifiers',
        `  FROM ${ref('deliveries')}`,
        "  WHERE status = 'delivered' AND ARRAY_LENGTH(identifiers) > 0",
        '), totals AS (',
        '  SELECT destination, event_name, day, COUNT(*) AS delivered FROM d GROUP BY destination, event_name, day',
        ')',
        'SELECT d.destination, d.event_name, d.day, i AS identifier, COUNT(*) AS requests,',
        '  ANY_VALUE(t.delivered) AS delivered, COUNT(*) / ANY_VALUE(t.delivered) AS share',
        'FROM d CROSS JOIN UNNEST(d.identifiers) AS i',
        'JOIN totals AS t ON t.destination = d.destination AND t.event_name = d.event_name AND t.day = d.day',
        'GROUP BY d.destination, d.event_name, d.day, i',
      ].join('\n'),
      columns: [
        c('destination', 'STRING', 'Destination id'),
        c('event_name', 'STRING', 'Event name'),
        c('day', 'DATE', 'The day the requests were delivered (UTC)'),
        c(
          'identifier',
          'STRING',
          'email | phone | external_id | name | fbc | fbp | gclid | ttclid | client_id | ip | …',
        ),
        c('requests', 'INT64', 'Delivered requests that carried it'),
        c('delivered', 'INT64', 'Delivered requests that day with identifiers recorded'),
        c('share', 'FLOAT64', 'requests / delivered (no row: none carried it that day)'),
      ],
    },
  ];
}

/**
 * Match quality for the page: per destination, event and identifier, the share of delivered
 * requests carrying it since @recent and over @from..@recent before it. Read from the ledger (not
 * the view), so an identifier that stopped coming has a share of 0, not a missing row. Rows
 * without identifiers (written before the column existed) are left out.
 */
export function matchSql(ref: (name: string) => string): string {
  return [
    'WITH d AS (',
    '  SELECT destination, event_name, identifiers, recorded_at >= TIMESTAMP(@recent) AS recent',
    `  FROM ${ref('deliveries')}`,
    "  WHERE status = 'delivered' AND ARRAY_LENGTH(identifiers) > 0",
    '    AND recorded_at >= TIMESTAMP(@from) AND recorded_at < TIMESTAMP(@to)',
    '), totals AS (',
    '  SELECT destination, event_name, COUNTIF(recent) AS recent_total, COUNTIF(NOT recent) AS before_total',
    '  FROM d GROUP BY destination, event_name',
    '), ids AS (',
    '  SELECT destination, event_name, i AS identifier, COUNTIF(recent) AS recent_n, COUNTIF(NOT recent) AS before_n',
    '  FROM d CROSS JOIN UNNEST(d.identifiers) AS i GROUP BY destination, event_name, i',
    ')',
    'SELECT ids.destination, ids.event_name, ids.identifier, ids.recent_n, ids.before_n, t.recent_total, t.before_total',
    'FROM ids JOIN totals AS t ON t.destination = ids.destination AND t.event_name = ids.event_name',
    'ORDER BY ids.destination, ids.event_name, ids.identifier',
  ].join('\n');
}

/** A drop in share worth a warning: ten points or more. */
export const MATCH_DROP_WARNING = 0.1;

export interface MatchShare {
  readonly destination: string;
  readonly event_name: string;
  readonly identifier: string;
  /** Share of the recent window's delivered requests carrying it; null without any. */
  readonly recent: number | null;
  /** Share before it; null without any. */
  readonly before: number | null;
  /** True when both exist and the share fell by MATCH_DROP_WARNING or more. */
  readonly dropped: boolean;
}

/** matchSql's rows as shares with their warnings. */
export function shapeMatch(rows: readonly Row[]): MatchShare[] {
  return rows.map((r) => {
    const share = (k: string, total: string) => (n(r[total]) === 0 ? null : n(r[k]) / n(r[total]));
    const recent = share('recent_n', 'recent_total');
    const before = share('before_n', 'before_total');
    return {
      destination: String(r['destination']),
      event_name: String(r['event_name']),
      identifier: String(r['identifier']),
      recent,
      before,
      dropped: recent !== null && before !== null && before - recent >= MATCH_DROP_WARNING - 1e-9,
    };
  });
}

/** The page's queries over the views, with @from and @to (RFC 3339 timestamps). */
export function destinationHealthSql(ref: (name: string) => string): {
  hours: string;
  errors: string;
  latency: string;
} {
  const range = (col: string) => `${col} >= TIMESTAMP(@from) AND ${col} < TIMESTAMP(@to)`;
  return {
    hours: [
      `SELECT destination, hour, ${LEDGER_STATUSES.join(', ')}, replayed, held_back`,
      `FROM ${ref(HEALTH_VIEWS.health)}`,
      `WHERE ${range('hour')}`,
      'ORDER BY destination, hour',
    ].join('\n'),
    errors: [
      'SELECT destination, status, reason, SUM(rows_recorded) AS rows_recorded, SUM(events) AS events,',
      '  ANY_VALUE(sample_event_id) AS sample_event_id, MAX(http_status) AS http_status, MAX(last_seen) AS last_seen',
      `FROM ${ref(HEALTH_VIEWS.errors)}`,
      `WHERE ${range('last_seen')}`,
      'GROUP BY destination, status, reason',
      'ORDER BY rows_recorded DESC, destination, reason LIMIT 50',
    ].join('\n'),
    // Nearest rank, exact, per destination (as the overview's latency).
    latency: [
      'WITH r AS (',
      '  SELECT destination, latency_ms,',
      '    ROW_NUMBER() OVER (PARTITION BY destination ORDER BY latency_ms) AS rn,',
      '    COUNT(*) OVER (PARTITION BY destination) AS n',
      `  FROM ${ref(HEALTH_VIEWS.latency)}`,
      `  WHERE ${range('delivered_at')}`,
      ')',
      'SELECT destination, COUNT(*) AS delivered,',
      '  MIN(IF(rn >= CEIL(n * 0.5), latency_ms, NULL)) AS p50_ms,',
      '  MIN(IF(rn >= CEIL(n * 0.95), latency_ms, NULL)) AS p95_ms,',
      '  MAX(latency_ms) AS max_ms',
      'FROM r GROUP BY destination ORDER BY destination',
    ].join('\n'),
  };
}

type Row = Record<string, unknown>;

/** One destination's health over a range, as the page shows it. */
export interface DestinationHealth {
  readonly destination: string;
  readonly totals: Readonly<Record<(typeof LEDGER_STATUSES)[number] | 'replayed' | 'held_back', number>>;
  /** failed + rejected + dead_lettered over every row but skipped; null with no such row. */
  readonly failure_rate: number | null;
  /** Per hour of the range with rows: the counts by status. */
  readonly hours: readonly Row[];
  readonly latency: {
    delivered: number;
    p50_ms: number | null;
    p95_ms: number | null;
    max_ms: number | null;
  };
  /**
   * The breaker as the ledger shows it (per function instance, so approximately): `open` when the
   * newest hour of the range with attempts had attempts held back and none delivered, `closed`
   * when it had none held back or some delivered, `unknown` without attempts in the range.
   */
  readonly breaker: 'open' | 'closed' | 'unknown';
}

const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Shapes the three queries' rows per destination (every destination of `known` present). */
export function shapeDestinationHealth(
  known: readonly string[],
  rows: { hours: readonly Row[]; latency: readonly Row[] },
): DestinationHealth[] {
  const names = [...new Set([...known, ...rows.hours.map((r) => String(r['destination']))])].sort();
  return names.map((destination) => {
    const hours = rows.hours.filter((r) => r['destination'] === destination);
    const sum = (k: string) => hours.reduce((t, r) => t + n(r[k]), 0);
    const totals = Object.fromEntries(
      [...LEDGER_STATUSES, 'replayed', 'held_back'].map((k) => [k, sum(k)]),
    ) as DestinationHealth['totals'];
    const attempted = totals.delivered + totals.rejected + totals.failed + totals.dead_lettered;
    const lat = rows.latency.find((r) => r['destination'] === destination);
    // The newest hour with an attempt tells whether the breaker held the destination back.
    const lastAttempt = [...hours]
      .reverse()
      .find((r) => n(r['delivered']) + n(r['failed']) + n(r['rejected']) > 0);
    const breaker = !lastAttempt
      ? 'unknown'
      : n(lastAttempt['held_back']) > 0 && n(lastAttempt['delivered']) === 0
        ? 'open'
        : 'closed';
    return {
      destination,
      totals,
      failure_rate:
        attempted === 0 ? null : (totals.rejected + totals.failed + totals.dead_lettered) / attempted,
      hours,
      latency: {
        delivered: n(lat?.['delivered']),
        p50_ms: lat?.['p50_ms'] == null ? null : n(lat['p50_ms']),
        p95_ms: lat?.['p95_ms'] == null ? null : n(lat['p95_ms']),
        max_ms: lat?.['max_ms'] == null ? null : n(lat['max_ms']),
      },
      breaker,
    };
  });
}
