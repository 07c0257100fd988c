/**
 * GA4's count of the events a property collected (docs/delivery.md, "Counted by the platform"):
 * the Analytics Data API's `POST /v1beta/properties/{property}:runReport` with the dimension
 * `eventName`, the metric `eventCount` and the day as its date range, under an OAuth token of
 * the `analytics.readonly` scope (the schedule function's own account, which needs the Viewer
 * role on the property). The property is `config.counts_property`, else `user_deletion.property`.
 * GA4's days are in the property's time zone. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import { type CountReads, type CountsJoin, countOf, type PlatformCount } from '../counts.ts';
import { configText } from '../prepare.ts';

/** The Data API's origin. */
export const GA4_DATA_BASE_URL = 'https://analyticsdata.googleapis.com';
export const GA4_REPORT_SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** The config key naming the GA4 property id (digits). */
export const COUNTS_PROPERTY_CONFIG = 'counts_property';
/**
 * The config key naming the dataset GA4's BigQuery export writes, `<project>.analytics_<property
 * id>` (the one dataset per property the export makes, "[GA4] BigQuery Export schema"): set, the
 * reconciliation view counts each event by its `event_id` parameter in the export's `events_*`
 * tables (core/warehouse/reconciliation.ts), and every event sent carries that parameter.
 */
export const COUNTS_EXPORT_CONFIG = 'counts_bigquery_export';
/** `<project id>.analytics_<digits>`: a Google Cloud project id and the export's dataset. */
export const EXPORT_DATASET = /^[a-z][a-z0-9-]{4,28}[a-z0-9]\.analytics_[0-9]{1,20}$/;
/** The event parameter the export is joined on: our event id. */
export const EXPORT_EVENT_PARAM = 'event_id';

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const propertyOf = (d: Readonly<Destination>) =>
  configText(d, COUNTS_PROPERTY_CONFIG) ?? d.user_deletion?.property;

export const GA4_COUNTS: CountReads = {
  auth: { kind: 'google_oauth', scope: GA4_REPORT_SCOPE },
  problem: (d) =>
    propertyOf(d)
      ? undefined
      : 'GA4 counts need config.counts_property (the GA4 property id, digits), or user_deletion.property',
  request(d, day, token) {
    // A stand-in serves the Data API at the destination's base_url; GA4 at its own origin.
    const origin = (d.base_url ?? GA4_DATA_BASE_URL).replace(/\/+$/, '');
    const url = `${origin}/v1beta/properties/${propertyOf(d) ?? ''}:runReport`;
    return {
      method: 'POST',
      url,
      redactedUrl: url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        dateRanges: [{ startDate: day, endDate: day }],
        dimensions: [{ name: 'eventName' }],
        metrics: [{ name: 'eventCount' }],
        limit: '10000',
      }),
    };
  },
  read(body) {
    const o = obj(body);
    if (!o || !Array.isArray(o['metricHeaders'])) return undefined;
    const rows = Array.isArray(o['rows']) ? o['rows'] : [];
    const out: PlatformCount[] = [];
    for (const r of rows) {
      const name = obj((obj(r)?.['dimensionValues'] as unknown[] | undefined)?.[0])?.['value'];
      const count = countOf(obj((obj(r)?.['metricValues'] as unknown[] | undefined)?.[0])?.['value']);
      if (typeof name === 'string' && name !== '' && count !== undefined)
        out.push({ event_name: name.slice(0, 100), counted: count });
    }
    return out;
  },
  source: () => 'ga4 runReport v1beta',
};

/**
 * How late GA4 still writes an event into its day's export table: "Analytics will update the daily
 * tables (events_YYYYMMDD) with events for those dates for up to three days after the dates of the
 * events … Events that arrive after that three-day window are not recorded" ("[GA4] BigQuery
 * Export schema", support.google.com/analytics/answer/7029846).
 */
export const EXPORT_LATE_DAYS = 3;

/** A table suffix's day: `20260302` and `intraday_20260302` alike (a `fresh_` table is left out). */
const SUFFIX_DAY = "SAFE.PARSE_DATE('%Y%m%d', REPLACE(_TABLE_SUFFIX, 'intraday_', ''))";

/**
 * GA4's BigQuery export, joined per event: our sent events of a day whose `event_id` parameter is
 * in the export's `events_*` tables (the daily `events_YYYYMMDD` and the streaming
 * `events_intraday_YYYYMMDD`, one event counted once), in the tables from the day before (GA4's
 * days are in the property's time zone, ours in UTC) to three days after (GA4's late-arrival
 * window). A day the export has no table of yet is not counted (NULL), never 0.
 */
export const GA4_EXPORT_JOIN: CountsJoin = {
  source: 'ga4_bigquery_export',
  linked: (d) => {
    const v = configText(d, COUNTS_EXPORT_CONFIG);
    return v !== undefined && EXPORT_DATASET.test(v) ? v : undefined;
  },
  sql(d, sent) {
    const tables = `\`${GA4_EXPORT_JOIN.linked(d) ?? ''}.events_*\``;
    return [
      `SELECT f.day, IF(MAX(IF(t.day IS NULL, 0, 1)) = 1, COUNT(DISTINCT x.event_id), NULL) AS counted`,
      `FROM (SELECT DISTINCT day, event_id FROM ${sent}) AS f`,
      'LEFT JOIN (',
      `  SELECT DISTINCT ${SUFFIX_DAY} AS day,`,
      '    COALESCE(p.value.string_value, CAST(p.value.int_value AS STRING)) AS event_id',
      `  FROM ${tables} AS e, UNNEST(e.event_params) AS p`,
      `  WHERE p.key = '${EXPORT_EVENT_PARAM}'`,
      ') AS x ON x.event_id = f.event_id',
      `  AND x.day BETWEEN DATE_SUB(f.day, INTERVAL 1 DAY) AND DATE_ADD(f.day, INTERVAL ${EXPORT_LATE_DAYS} DAY)`,
      `LEFT JOIN (SELECT DISTINCT ${SUFFIX_DAY} AS day FROM ${tables}) AS t ON t.day = f.day`,
      'GROUP BY f.day',
    ].join('\n');
  },
};
