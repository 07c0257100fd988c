/**
 * The `sessions` table, maintained incrementally by the scheduler's `Model` job (docs/sessions.md):
 * the columns of the model tables and the one BigQuery script a sessions run executes, with the
 * pieces every incremental model shares (its watermark, the erasure list). Pure: SQL text and
 * query parameters out; functions/schedule/models.ts runs them.
 *
 * A run reads only the events that arrived after its watermark (`received_at`, the Pub/Sub
 * publish time, which only grows), finds the visitors they belong to, recomputes those visitors'
 * sessions from the start of the session the earliest new event can touch, and writes exactly the
 * sessions that changed, all in one transaction with the watermark's move: a run over unchanged
 * data finds no visitor and writes no row (the watermark included), and a run that fails leaves
 * the watermark where it was.
 */
import { type ColumnPlan, tableRef } from '../warehouse/table-plan.ts';
import { cleanUrlSql } from './page-url.ts';

/** Table names of the models, in the events dataset. */
export const SESSION_TABLES = Object.freeze({
  sessions: 'sessions',
  watermarks: 'model_watermarks',
  identityMap: 'identity_map',
  identityMerges: 'identity_merges',
  erasures: 'identity_erasures',
} as const);

/** What shapes a model run; every value has a documented default. */
export interface SessionOptions {
  readonly project: string;
  readonly dataset: string;
  /** Inactivity that ends a session (default 30). */
  readonly gapMinutes?: number;
  /**
   * How far back an arriving event's event_time may lie and still be modelled incrementally
   * (default 72 h): the bound that lets BigQuery prune events' partitions. Older arrivals (a
   * back-fill) are modelled by a run with a longer lookback.
   */
  readonly lookbackHours?: number;
  /** Event names that count as conversions (default the catalogue's purchase, lead, sign_up…). */
  readonly conversions?: readonly string[];
}

export const DEFAULT_CONVERSIONS = Object.freeze([
  'purchase',
  'generate_lead',
  'lead',
  'sign_up',
  'subscribe',
  'begin_checkout',
]);

export const c = (
  name: string,
  type: ColumnPlan['type'],
  description: string,
  mode: ColumnPlan['mode'] = 'NULLABLE',
) => ({ name, type, mode, description }) as ColumnPlan;

/** Columns of `sessions` (partitioned by day of session_start, clustered by visitor_id). */
export function sessionColumns(): ColumnPlan[] {
  return [
    c('session_id', 'STRING', 'SHA-256 hex of visitor_id and session_start: stable across runs', 'REQUIRED'),
    c('visitor_id', 'STRING', 'anonymous_id, else user_id: whose visit it is', 'REQUIRED'),
    c('user_id', 'STRING', 'The last user_id seen in the session'),
    c('session_start', 'TIMESTAMP', 'event_time of its first event (partition column)', 'REQUIRED'),
    c('session_end', 'TIMESTAMP', 'event_time of its last event', 'REQUIRED'),
    c('events', 'INT64', 'How many events it holds', 'REQUIRED'),
    c('landing_page', 'STRING', 'page.url of its first event'),
    c('referrer_host', 'STRING', 'enriched.referrer_host of its first event'),
    c('channel', 'STRING', 'enriched.channel of its first event'),
    c('source', 'STRING', 'enriched.campaign.source of its first event'),
    c('medium', 'STRING', 'enriched.campaign.medium of its first event'),
    c('campaign', 'STRING', 'enriched.campaign.name of its first event'),
    c('country', 'STRING', 'enriched.geo.country of its first event'),
    c('device_type', 'STRING', 'enriched.device.type of its first event'),
    c('converted', 'BOOL', 'Whether a conversion event happened in it', 'REQUIRED'),
    c('conversions', 'INT64', 'How many conversion events it holds', 'REQUIRED'),
    c('updated_at', 'TIMESTAMP', 'When a run last wrote this row', 'REQUIRED'),
  ];
}

/** Columns of `model_watermarks`: one row per incremental model. */
export function watermarkColumns(): ColumnPlan[] {
  return [
    c('model', 'STRING', 'sessions | identity_map', 'REQUIRED'),
    c('watermark', 'TIMESTAMP', 'received_at up to which events are in the model', 'REQUIRED'),
    c('updated_at', 'TIMESTAMP', 'When the run that moved it committed', 'REQUIRED'),
  ];
}

/** Columns of `identity_erasures`: identifiers the models must never bring back. */
export function erasureColumns(): ColumnPlan[] {
  return [
    c(
      'identifier_hash',
      'STRING',
      'SHA-256 hex of the erased identifier (`kind:value`): no PII kept',
      'REQUIRED',
    ),
    c('erased_at', 'TIMESTAMP', 'When it was erased', 'REQUIRED'),
  ];
}

/** A run's script and its parameters (`@upto`: the arrival time this run reads up to). */
export interface ModelRun {
  readonly sql: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The SQL of an identifier (`kind:value`) hashed: how erasures and person ids name it. */
export const identifierHash = (identifier: string): string => `TO_HEX(SHA256(${identifier}))`;

/** The visitor of an event row, as its identifier: `anonymous_id:…`, else `user_id:…`. */
export const visitorIdentifier = (alias = ''): string =>
  `IF(${alias}anonymous_id IS NOT NULL, CONCAT('anonymous_id:', ${alias}anonymous_id), CONCAT('user_id:', ${alias}user_id))`;

/** The script's head: where the model's last run stopped, the epoch on its first run. */
export function declareSince(watermarks: string, model: string): string {
  return [
    // BigQuery takes DECLARE only at the top of a script; the scheduler's lock keeps runs apart.
    '-- Where the last run stopped (the epoch on the first run).',
    'DECLARE since TIMESTAMP DEFAULT (',
    `  SELECT IFNULL(MAX(watermark), TIMESTAMP '1970-01-01') FROM ${watermarks} WHERE model = '${model}'`,
    ');',
  ].join('\n');
}

/**
 * The watermark's move, inside the run's transaction, only forward and only when `condition`
 * holds (events arrived): a run over unchanged data writes no row at all.
 */
export function moveWatermark(watermarks: string, model: string, condition: string): string {
  return [
    `MERGE ${watermarks} AS w`,
    `USING (SELECT '${model}' AS model, @upto AS watermark FROM (SELECT 1) WHERE ${condition}) AS n`,
    'ON w.model = n.model',
    'WHEN MATCHED AND w.watermark < n.watermark THEN UPDATE SET watermark = n.watermark, updated_at = CURRENT_TIMESTAMP()',
    'WHEN NOT MATCHED THEN INSERT (model, watermark, updated_at) VALUES (n.model, n.watermark, CURRENT_TIMESTAMP());',
  ].join('\n');
}

const firstOf = (expr: string) =>
  `ARRAY_AGG(${expr} IGNORE NULLS ORDER BY event_time, event_id LIMIT 1)[SAFE_OFFSET(0)]`;
const FIRST = (expr: string, alias: string) => `${firstOf(expr)} AS ${alias}`;

/** The session columns a run recomputes from events (all but updated_at). */
const RECOMPUTED = sessionColumns()
  .map((col) => col.name)
  .filter((n) => n !== 'updated_at');

/**
 * The script of one incremental run. `upto` should trail now by a few minutes so rows still in
 * BigQuery's streaming buffer are read by the next run rather than missed: a row's received_at is
 * its publish time, earlier than its arrival in the table. Its result is one row: how many
 * visitors it touched and how many sessions it wrote and deleted.
 */
export function sessionsRunSql(options: SessionOptions, upto: Date): ModelRun {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const gapSeconds = (options.gapMinutes ?? 30) * 60;
  const lookbackHours = options.lookbackHours ?? 72;
  const visitor = 'COALESCE(anonymous_id, user_id)';
  // The oldest event (and so session start) a run can touch: every read of `sessions` is bounded
  // by it too, so BigQuery prunes the table's partitions as it prunes events'. Sound because the
  // anchors only take sessions that start after it, and every recomputed session starts at or
  // after its anchor.
  const floor = 'TIMESTAMP_SUB(@upto, INTERVAL @lookback_hours + 24 HOUR)';
  const sql = [
    declareSince(ref(SESSION_TABLES.watermarks), 'sessions'),
    '',
    'BEGIN TRANSACTION;',
    '',
    '-- Visitors with events that arrived since, and their earliest such event; bots and erased',
    '-- visitors are not sessionised.',
    'CREATE TEMP TABLE arrived AS',
    `SELECT ${visitor} AS visitor_id, MIN(event_time) AS first_new`,
    `FROM ${ref('events')}`,
    'WHERE received_at > since AND received_at <= @upto',
    // The partition filter: what BigQuery prunes on (events are partitioned by event_time).
    '  AND event_time >= TIMESTAMP_SUB(@upto, INTERVAL @lookback_hours HOUR)',
    `  AND ${visitor} IS NOT NULL`,
    '  AND enriched.bot IS NOT TRUE',
    `  AND ${identifierHash(visitorIdentifier())} NOT IN (SELECT identifier_hash FROM ${ref(SESSION_TABLES.erasures)})`,
    'GROUP BY visitor_id;',
    '',
    '-- Where each visitor’s recomputation starts: the start of the stored session the earliest',
    '-- new event extends (one gap or less before it), else that event itself.',
    'CREATE TEMP TABLE anchors AS',
    'SELECT a.visitor_id, LEAST(a.first_new, IFNULL(MIN(s.session_start), a.first_new)) AS anchor',
    'FROM arrived AS a',
    `LEFT JOIN ${ref(SESSION_TABLES.sessions)} AS s`,
    '  ON s.visitor_id = a.visitor_id',
    '  AND s.session_end >= TIMESTAMP_SUB(a.first_new, INTERVAL @gap_seconds SECOND)',
    '  AND s.session_start <= a.first_new',
    `  AND s.session_start >= ${floor}`,
    'GROUP BY a.visitor_id, a.first_new;',
    '',
    '-- Their sessions from the anchor on, recomputed from events_dedup (one row per event).',
    'CREATE TEMP TABLE recomputed AS',
    'WITH touched AS (',
    `  SELECT ${visitor} AS visitor_id, e.event_id, e.event_time, e.event_name, e.user_id, e.page.url AS url, e.enriched`,
    `  FROM ${ref('events_dedup')} AS e`,
    `  JOIN anchors AS a ON ${visitor} = a.visitor_id`,
    '  WHERE e.event_time >= a.anchor',
    `    AND e.event_time >= ${floor}`,
    '    AND e.enriched.bot IS NOT TRUE',
    '), numbered AS (',
    '  SELECT *, COUNTIF(gap) OVER (PARTITION BY visitor_id ORDER BY event_time, event_id) AS n',
    '  FROM (',
    '    SELECT *, IFNULL(TIMESTAMP_DIFF(event_time, LAG(event_time) OVER (PARTITION BY visitor_id ORDER BY event_time, event_id), SECOND) > @gap_seconds, TRUE) AS gap',
    '    FROM touched',
    '  )',
    ')',
    'SELECT',
    "  TO_HEX(SHA256(CONCAT(visitor_id, '|', CAST(UNIX_MICROS(MIN(event_time)) AS STRING)))) AS session_id,",
    '  visitor_id,',
    '  ARRAY_AGG(user_id IGNORE NULLS ORDER BY event_time DESC, event_id DESC LIMIT 1)[SAFE_OFFSET(0)] AS user_id,',
    '  MIN(event_time) AS session_start,',
    '  MAX(event_time) AS session_end,',
    '  COUNT(*) AS events,',
    // Without the personal data or secrets a link may carry (core/models/page-url.ts).
    `  ${cleanUrlSql(firstOf('url'))} AS landing_page,`,
    `  ${FIRST('enriched.referrer_host', 'referrer_host')},`,
    `  ${FIRST('enriched.channel', 'channel')},`,
    `  ${FIRST('enriched.campaign.source', 'source')},`,
    `  ${FIRST('enriched.campaign.medium', 'medium')},`,
    `  ${FIRST('enriched.campaign.name', 'campaign')},`,
    `  ${FIRST('enriched.geo.country', 'country')},`,
    `  ${FIRST('enriched.device.type', 'device_type')},`,
    '  COUNTIF(event_name IN UNNEST(@conversions)) > 0 AS converted,',
    '  COUNTIF(event_name IN UNNEST(@conversions)) AS conversions',
    'FROM numbered',
    'GROUP BY visitor_id, n;',
    '',
    '-- The stored sessions the recomputation replaces: the visitors’ sessions from their anchor on',
    '-- that no longer exist (a late event merged two sessions, or moved a start).',
    'CREATE TEMP TABLE gone AS',
    `SELECT s.session_id FROM ${ref(SESSION_TABLES.sessions)} AS s`,
    'JOIN anchors AS a ON a.visitor_id = s.visitor_id AND s.session_start >= a.anchor',
    `WHERE s.session_start >= ${floor} AND s.session_id NOT IN (SELECT session_id FROM recomputed);`,
    '',
    '-- The recomputed sessions that differ from what is stored: the only rows written.',
    'CREATE TEMP TABLE changed AS',
    'SELECT r.* FROM recomputed AS r',
    `LEFT JOIN (SELECT * FROM ${ref(SESSION_TABLES.sessions)} WHERE session_start >= ${floor}) AS t`,
    '  ON t.session_id = r.session_id',
    'WHERE t.session_id IS NULL',
    '  OR t.session_end != r.session_end OR t.events != r.events OR t.conversions != r.conversions',
    "  OR IFNULL(t.user_id, '') != IFNULL(r.user_id, '')",
    // A row written before URLs were cleaned is rewritten when its visitor's sessions are.
    "  OR IFNULL(t.landing_page, '') != IFNULL(r.landing_page, '');",
    '',
    `DELETE FROM ${ref(SESSION_TABLES.sessions)}`,
    `WHERE session_start >= ${floor} AND session_id IN (SELECT session_id FROM gone);`,
    '',
    `MERGE ${ref(SESSION_TABLES.sessions)} AS t`,
    'USING changed AS s',
    `ON t.session_id = s.session_id AND t.session_start >= ${floor}`,
    'WHEN MATCHED THEN UPDATE SET',
    '  user_id = s.user_id, session_end = s.session_end, events = s.events, converted = s.converted,',
    '  conversions = s.conversions, landing_page = s.landing_page, updated_at = CURRENT_TIMESTAMP()',
    `WHEN NOT MATCHED THEN INSERT (${RECOMPUTED.join(', ')}, updated_at)`,
    `  VALUES (${RECOMPUTED.map((n) => `s.${n}`).join(', ')}, CURRENT_TIMESTAMP());`,
    '',
    '-- The watermark moves with the rows, in the same transaction, when events arrived.',
    moveWatermark(ref(SESSION_TABLES.watermarks), 'sessions', 'EXISTS (SELECT 1 FROM arrived)'),
    '',
    'COMMIT TRANSACTION;',
    '',
    'SELECT (SELECT COUNT(*) FROM arrived) AS visitors, (SELECT COUNT(*) FROM changed) AS written,',
    '  (SELECT COUNT(*) FROM gone) AS deleted;',
  ].join('\n');
  return {
    sql,
    params: {
      upto,
      gap_seconds: gapSeconds,
      lookback_hours: lookbackHours,
      conversions: [...(options.conversions ?? DEFAULT_CONVERSIONS)],
    },
  };
}
