/**
 * GA4's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts, client-id.ts). The
 * linked BigQuery export's join (`countsJoin`) is here too, pure SQL text the reconciliation runs.
 */
import type { CountsJoin } from '../counts.ts';
import type { PlatformFacts } from '../platform.ts';
import { GA4_AGE_LIMIT } from './age-limit.ts';
import { GA4_API } from './api-version.ts';
import { gaClientIdOf, gaCookie, isGaClientId } from './client-id.ts';
import { GA4_STANDARD_EVENTS } from './standard-events.ts';

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
    const v = d.config?.[COUNTS_EXPORT_CONFIG];
    return typeof v === 'string' && EXPORT_DATASET.test(v) ? v : undefined;
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

export const GA4_FACTS: PlatformFacts = {
  type: 'ga4_mp',
  names: { short: 'GA4', heading: 'GA4 Measurement Protocol' },
  // Analytics only.
  consent: ['analytics'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  /**
   * Google's IAB TCF vendor id, 755 ("Google Advertising Products"), whose consent Google Analytics
   * honours when its TCF support is on (Gravito, "Communicating consent with Google", 2020).
   */
  tcfVendor: 755,
  // `_ga`, gtag.js's client id cookie, from the id the gateway put in the event's
  // `campaign.ga_client_id` (the page's own `_ga`, else one derived from the anonymous id:
  // gateway/id-cookies.ts, client-id.ts), which is the `client_id` GA4 is sent, so gtag.js on the
  // page reads the same client. A page's `_ga` holding that id is re-affirmed as it is (its domain
  // index kept). Only with a GA4 destination.
  cookies: [
    {
      name: '_ga',
      purposes: [],
      withDestination: true,
      value: ({ campaign, cookie, index }) => {
        const id = campaign['ga_client_id'];
        const page = cookie('_ga');
        if (!isGaClientId(id)) return gaClientIdOf(page) === undefined ? undefined : page;
        return gaClientIdOf(page) === id ? page : gaCookie(index, id);
      },
    },
  ],
  step3: { kind: 'events', label: 'Google Analytics 4' },
  events: GA4_STANDARD_EVENTS,
  apiVersion: GA4_API,
  counts: {
    reads:
      'Analytics Data API `properties/{property}:runReport`: `eventCount` by `eventName` and `date`; where the BigQuery export is linked, the export’s `events_*` joined per event on the `event_id` parameter (storage.md)',
    doc: 'https://developers.google.com/analytics/devguides/reporting/data/v1/rest/v1beta/properties/runReport',
  },
  countsJoin: GA4_EXPORT_JOIN,
  ageLimit: GA4_AGE_LIMIT,
};
