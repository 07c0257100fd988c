/**
 * Reconciliation (docs/storage.md, "Reconciliation"; docs/delivery.md, "Sent, accepted, counted"):
 * per day and destination, what should have gone, what was sent, what the platform accepted and
 * what the platform itself counted, in SQL anyone can query.
 *
 * - `platform_counts` (table): what a platform's own reporting says it counted, one row per
 *   destination, day and event name and read; written by the scheduler's PlatformCounts job
 *   (functions/schedule/platform-counts.ts) and `eventbus reconcile`. A later read of the same
 *   day (late data) is a newer row: the view takes each day's newest.
 * - `reconciliation` (view): the figures, their ratios and the source of the count. Where a
 *   platform writes tables of its own into the customer's BigQuery and the destination links
 *   them (GA4's BigQuery export), the view counts the destination's events itself, per event, by
 *   the platform's join (its facts' `countsJoin`), instead of its reads' rows.
 * - `reconciliation_gaps` (view): the ledger's skipped, refused and unanswered events per day,
 *   destination, stage and reason: why the figures differ.
 *
 * The day is the stored event's `event_time` (UTC), the day a platform counts it on. Permitted
 * events are the day's stored events (`events_dedup`) the decision layer did not skip, from the
 * first day the destination has a ledger row (a destination added later is not owed earlier days).
 *
 * A filter on a view's `day` does not prune `deliveries` (partitioned by `recorded_at`, joined to
 * the events' day) nor `events` (the day is computed under a join and a GROUP BY): BigQuery prunes
 * only on a filter on the partitioning column placed at the table's read. So the studio's page and
 * `eventbus reconcile` run the range form (`reconciliationRangeSql`): the views' very SQL with the
 * day range's bounds at each table's read, as named parameters: `events` by `event_time`,
 * `deliveries` by `recorded_at` from the range's first day on (less the hours an event may be
 * dated ahead of its receipt), `platform_counts` by `day`.
 */
import type { Settings } from '../../schemas/settings.ts';
import { PLATFORM_FACTS } from '../platforms/facts.ts';
import { partitionExpiration } from './retention.ts';
import { type ColumnPlan, column as col, type TablePlan, type ViewPlan } from './table-plan.ts';

export const PLATFORM_COUNTS_TABLE = 'platform_counts';
export const RECONCILIATION_VIEW = 'reconciliation';
export const RECONCILIATION_GAPS_VIEW = 'reconciliation_gaps';

/** What the view says of a destination whose platform publishes no count. */
export const NO_COUNTS = 'the platform reports no counts';

/** The reason prefix of a row written from a platform's later diagnosis (core/delivery/ledger.ts). */
const DIAGNOSIS_PREFIX = 'platform diagnostics';

/** Columns of `platform_counts`. */
export function platformCountsColumns(): ColumnPlan[] {
  return [
    col('day', 'DATE', 'The day counted, as the platform reports it (partition column)', 'REQUIRED'),
    col('reported_at', 'TIMESTAMP', 'When the platform was asked', 'REQUIRED'),
    col('destination', 'STRING', 'Destination id', 'REQUIRED'),
    col('platform', 'STRING', 'Destination type (meta_capi, ga4_mp, google_ads)', 'REQUIRED'),
    col('event_name', 'STRING', 'The event as the platform names it (Purchase, purchase)', 'REQUIRED'),
    col('counted', 'INT64', 'How many events the platform says it counted', 'REQUIRED'),
    col('source', 'STRING', 'The API asked (meta pixel stats v25.0, ga4 runReport v1beta)', 'REQUIRED'),
  ];
}

/** The table as plan() declares it in the events dataset. */
export function platformCountsTable(settings: Readonly<Settings>): TablePlan {
  return {
    name: PLATFORM_COUNTS_TABLE,
    description: 'What each platform’s own reporting counted, per destination, day and event name',
    columns: platformCountsColumns(),
    timePartitioning: { type: 'DAY', field: 'day', ...partitionExpiration(settings, 'deliveries') },
    clustering: ['destination'],
  };
}

const quote = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** What the SQL reads of the settings: the destinations, and how far ahead an event may be dated. */
export type ReconciliationSettings = Readonly<Pick<Settings, 'destinations' | 'limits'>>;

/** The settings' destinations as rows: id, platform, and what a missing count means. */
function destinationRows(settings: ReconciliationSettings): string {
  const rows = (settings.destinations ?? []).map((d) => {
    const counts = PLATFORM_FACTS[d.type].counts;
    const none = 'none' in counts ? quote(NO_COUNTS) : 'CAST(NULL AS STRING)';
    return `SELECT ${quote(d.id)} AS destination, ${quote(d.type)} AS platform, ${none} AS no_counts`;
  });
  return rows.length > 0
    ? rows.join('\n  UNION ALL ')
    : 'SELECT CAST(NULL AS STRING) AS destination, CAST(NULL AS STRING) AS platform, CAST(NULL AS STRING) AS no_counts FROM (SELECT 1 AS x) WHERE FALSE';
}

/**
 * The range form's filters, each on a table's partitioning column at its read (`a` is the
 * table's alias with its dot, or empty); absent: the view, every partition.
 */
interface Bounds {
  readonly events: (a: string) => string;
  readonly deliveries: (a: string) => string;
  readonly counts: string;
}

/** The named parameters of the range form: its first and last day, YYYY-MM-DD (UTC). */
export interface RangeParams {
  readonly from: string;
  readonly to: string;
}

/**
 * The range's filters. A ledger row of an event of the range's first day is written after the
 * event's receipt, which may come `event_time_future_hours` (default 24) before its `event_time`;
 * replays and backfills come later, never earlier, so the ledger is read from then to now.
 */
function boundsOf(settings: ReconciliationSettings, p: RangeParams): Bounds {
  const ahead = settings.limits?.event_time_future_hours ?? 24;
  return {
    events: (a) =>
      `${a}event_time >= TIMESTAMP(@${p.from}) AND ${a}event_time < TIMESTAMP_ADD(TIMESTAMP(@${p.to}), INTERVAL 1 DAY)`,
    deliveries: (a) => `${a}recorded_at >= TIMESTAMP_SUB(TIMESTAMP(@${p.from}), INTERVAL ${ahead} HOUR)`,
    counts: `day >= CAST(@${p.from} AS DATE) AND day <= CAST(@${p.to} AS DATE)`,
  };
}

/** Whether a ledger row `l` is a platform's answer to a request (sent, whatever it said). */
const ANSWERED =
  "l.status IN ('delivered', 'rejected') OR (l.status IN ('failed', 'dead_lettered') AND l.http_status IS NOT NULL)";

/**
 * Each stored event's fate per destination, on its event day: the ledger rows of the event
 * (event_id and payload_digest) folded into flags. `ref` quotes a table of the events dataset.
 */
function fatesSql(ref: (name: string) => string, b?: Bounds): string {
  return [
    'SELECT l.destination, DATE(e.event_time) AS day, l.event_id, l.payload_digest,',
    "  MAX(IF(l.status = 'skipped', 1, 0)) AS skipped,",
    `  MAX(IF(${ANSWERED}, 1, 0)) AS sent,`,
    "  MAX(IF(l.status = 'delivered', 1, 0)) AS delivered,",
    `  MAX(IF(l.status = 'rejected' AND STARTS_WITH(IFNULL(l.reason, ''), '${DIAGNOSIS_PREFIX}'), 1, 0)) AS diagnosed,`,
    `  MAX(IF(l.status = 'rejected' AND NOT STARTS_WITH(IFNULL(l.reason, ''), '${DIAGNOSIS_PREFIX}'), 1, 0)) AS rejected,`,
    "  MAX(IF(l.status = 'dead_lettered', 1, 0)) AS dead_lettered",
    `FROM ${ref('deliveries')} AS l`,
    `JOIN ${ref('events_dedup')} AS e ON e.event_id = l.event_id AND e.payload_digest = l.payload_digest`,
    ...(b ? [`WHERE ${b.deliveries('l.')} AND ${b.events('e.')}`] : []),
    'GROUP BY l.destination, DATE(e.event_time), l.event_id, l.payload_digest',
  ].join('\n');
}

const c = (name: string, type: ColumnPlan['type'], description: string): ColumnPlan =>
  col(name, type, description);

/**
 * The destinations whose count the view joins itself (GA4's BigQuery export, linked in the
 * destination's config): per day, `counted` of the destination's sent events (of `fates`), and its
 * source. Their `platform_counts` rows, if any, give way to it.
 */
function joinedCounts(settings: ReconciliationSettings): { ids: string[]; sql: string | undefined } {
  const joined = (settings.destinations ?? []).flatMap((d) => {
    const join = PLATFORM_FACTS[d.type].countsJoin;
    return join?.linked(d) ? [{ d, join }] : [];
  });
  if (joined.length === 0) return { ids: [], sql: undefined };
  const branches = joined.map(({ d, join }) => {
    const sent = `(SELECT day, event_id FROM fates WHERE destination = ${quote(d.id)} AND skipped = 0 AND sent = 1)`;
    return `SELECT ${quote(d.id)} AS destination, j.day, j.counted, ${quote(join.source)} AS source FROM (\n${join.sql(d, sent)}\n) AS j`;
  });
  return { ids: joined.map(({ d }) => d.id), sql: branches.join('\nUNION ALL\n') };
}

/** `reconciliation`'s SELECT: every partition (the view), or the range's (`b`). */
function reconciliationSelect(
  settings: ReconciliationSettings,
  ref: (name: string) => string,
  b?: Bounds,
): string {
  const where = (filter: string | undefined) => (filter ? ` WHERE ${filter}` : '');
  const joined = joinedCounts(settings);
  const apiOnly =
    joined.ids.length > 0 ? `destination NOT IN (${joined.ids.map(quote).join(', ')})` : undefined;
  const countsWhere = [b?.counts, apiOnly].filter((f) => f !== undefined).join(' AND ');
  return [
    `WITH destinations AS (\n  ${destinationRows(settings)}\n),`,
    // In the range form, a destination live before the range has ledger rows from its start on.
    `since AS (SELECT destination, MIN(DATE(recorded_at)) AS first_day FROM ${ref('deliveries')}${where(b?.deliveries(''))} GROUP BY destination),`,
    `stored AS (SELECT DATE(event_time) AS day, COUNT(*) AS stored FROM ${ref('events_dedup')}${where(b?.events(''))} GROUP BY DATE(event_time)),`,
    `fates AS (\n${fatesSql(ref, b)}\n),`,
    ...(joined.sql ? [`joined AS (\n${joined.sql}\n),`] : []),
    'fate AS (',
    '  SELECT destination, day, SUM(skipped) AS skipped,',
    '    COUNTIF(skipped = 0 AND sent = 1) AS sent,',
    '    COUNTIF(skipped = 0 AND delivered = 1 AND diagnosed = 0) AS accepted,',
    '    COUNTIF(skipped = 0 AND delivered = 0 AND rejected = 1) AS refused,',
    '    COUNTIF(skipped = 0 AND diagnosed = 1) AS refused_later,',
    '    COUNTIF(skipped = 0 AND delivered = 0 AND rejected = 0 AND dead_lettered = 1) AS dead_lettered',
    '  FROM fates GROUP BY destination, day',
    '),',
    'counts AS (',
    '  SELECT destination, day, SUM(counted) AS counted, MAX(source) AS source FROM (',
    '    SELECT destination, day, event_name, counted, source,',
    '      ROW_NUMBER() OVER (PARTITION BY destination, day, event_name ORDER BY reported_at DESC) AS newest',
    `    FROM ${ref(PLATFORM_COUNTS_TABLE)}${where(countsWhere || undefined)}`,
    '  ) WHERE newest = 1 GROUP BY destination, day',
    ...(joined.sql
      ? ['  UNION ALL SELECT destination, day, counted, source FROM joined WHERE counted IS NOT NULL']
      : []),
    ')',
    'SELECT day, destination, platform, permitted, sent, accepted, counted,',
    '  COALESCE(counted_source, no_counts, CAST(NULL AS STRING)) AS counted_source,',
    '  skipped, refused, refused_later, dead_lettered, permitted - sent AS unsent,',
    '  SAFE_DIVIDE(sent, permitted) AS sent_ratio, SAFE_DIVIDE(accepted, sent) AS accepted_ratio,',
    '  SAFE_DIVIDE(counted, accepted) AS counted_ratio',
    'FROM (',
    '  SELECT s.day, d.destination, d.platform, d.no_counts,',
    '    s.stored - IFNULL(f.skipped, 0) AS permitted, IFNULL(f.sent, 0) AS sent,',
    '    IFNULL(f.accepted, 0) AS accepted, k.counted, k.source AS counted_source,',
    '    IFNULL(f.skipped, 0) AS skipped, IFNULL(f.refused, 0) AS refused,',
    '    IFNULL(f.refused_later, 0) AS refused_later, IFNULL(f.dead_lettered, 0) AS dead_lettered',
    '  FROM stored AS s',
    '  CROSS JOIN destinations AS d',
    '  JOIN since AS b ON b.destination = d.destination AND s.day >= b.first_day',
    '  LEFT JOIN fate AS f ON f.destination = d.destination AND f.day = s.day',
    '  LEFT JOIN counts AS k ON k.destination = d.destination AND k.day = s.day',
    ') AS r',
  ].join('\n');
}

/** `reconciliation_gaps`'s SELECT: every partition (the view), or the range's (`b`). */
function gapsSelect(ref: (name: string) => string, b?: Bounds): string {
  return [
    `WITH fates AS (\n${fatesSql(ref, b)}\n)`,
    'SELECT DATE(e.event_time) AS day, l.destination,',
    "  CASE WHEN l.status = 'skipped' THEN 'skipped'",
    `    WHEN l.status = 'rejected' AND STARTS_WITH(IFNULL(l.reason, ''), '${DIAGNOSIS_PREFIX}') THEN 'refused_later'`,
    "    WHEN l.status = 'rejected' THEN 'refused' ELSE 'unsent' END AS stage,",
    "  IFNULL(l.reason, '(no reason)') AS reason, COUNT(DISTINCT l.event_id) AS events,",
    '  MIN(l.event_id) AS sample_event_id',
    `FROM ${ref('deliveries')} AS l`,
    `JOIN ${ref('events_dedup')} AS e ON e.event_id = l.event_id AND e.payload_digest = l.payload_digest`,
    'JOIN fates AS f ON f.destination = l.destination AND f.event_id = l.event_id AND f.payload_digest = l.payload_digest',
    "WHERE (l.status = 'skipped'",
    "  OR (l.status = 'rejected')",
    "  OR (l.status IN ('failed', 'dead_lettered') AND f.delivered = 0 AND f.rejected = 0))",
    ...(b ? [`  AND ${b.deliveries('l.')} AND ${b.events('e.')}`] : []),
    'GROUP BY DATE(e.event_time), l.destination, stage, reason',
  ].join('\n');
}

/**
 * The range form of the two views (the studio's destination page, `eventbus reconcile`): the
 * same rows as the views for the days from `@<from>` to `@<to>`, reading only those days'
 * partitions (and the ledger's from then on).
 */
export function reconciliationRangeSql(
  settings: ReconciliationSettings,
  ref: (name: string) => string,
  params: RangeParams,
): { readonly days: string; readonly gaps: string } {
  const b = boundsOf(settings, params);
  return { days: reconciliationSelect(settings, ref, b), gaps: gapsSelect(ref, b) };
}

/** The two views; `ref` quotes a table of the events dataset. */
export function reconciliationViews(settings: Readonly<Settings>, ref: (name: string) => string): ViewPlan[] {
  const reconciliation = reconciliationSelect(settings, ref);
  const gaps = gapsSelect(ref);

  return [
    {
      name: RECONCILIATION_VIEW,
      description:
        'Per day (event_time, UTC) and destination: permitted, sent, accepted and counted by the platform, with the gaps and ratios',
      query: reconciliation,
      columns: [
        c('day', 'DATE', 'The events’ day (event_time, UTC), the day platforms count them on'),
        c('destination', 'STRING', 'Destination id from the settings'),
        c('platform', 'STRING', 'Destination type'),
        c('permitted', 'INT64', 'Stored events the decision layer let through to the destination'),
        c('sent', 'INT64', 'Of them, events a request carried that the platform answered'),
        c('accepted', 'INT64', 'Of them, events the platform accepted (2xx) and did not refuse later'),
        c('counted', 'INT64', 'What the platform’s own reporting counted (platform_counts); null: not read'),
        c('counted_source', 'STRING', 'The API the count comes from, or that the platform reports none'),
        c('skipped', 'INT64', 'Stored events the decision layer skipped (reasons: reconciliation_gaps)'),
        c('refused', 'INT64', 'Events the platform refused in its answer'),
        c('refused_later', 'INT64', 'Events accepted, then refused by the platform’s later diagnosis'),
        c(
          'dead_lettered',
          'INT64',
          'Events no attempt got an answer for, given up to the dead-letter backlog',
        ),
        c('unsent', 'INT64', 'permitted - sent: events not (yet) sent'),
        c('sent_ratio', 'FLOAT64', 'sent / permitted'),
        c('accepted_ratio', 'FLOAT64', 'accepted / sent'),
        c('counted_ratio', 'FLOAT64', 'counted / accepted'),
      ],
    },
    {
      name: RECONCILIATION_GAPS_VIEW,
      description:
        'Per day, destination, stage (skipped, refused, refused_later, unsent) and reason: the events behind each gap of reconciliation',
      query: gaps,
      columns: [
        c('day', 'DATE', 'The events’ day (event_time, UTC)'),
        c('destination', 'STRING', 'Destination id'),
        c('stage', 'STRING', 'skipped | refused | refused_later | unsent'),
        c('reason', 'STRING', 'The ledger’s reason'),
        c('events', 'INT64', 'Distinct events'),
        c('sample_event_id', 'STRING', 'One of them, for the debugger'),
      ],
    },
  ];
}
