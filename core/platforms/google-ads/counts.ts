/**
 * Google Ads' count of the conversions it took from uploads (docs/delivery.md, "Counted by the
 * platform"): the Google Ads API's reporting resource
 * `offline_conversion_upload_conversion_action_summary` ("Offline conversion upload summary at
 * conversion action level"), asked with `GoogleAdsService.SearchStream` in GAQL:
 * `POST {base}/v26/customers/{operating account}/googleAds:searchStream {"query": …}`. Each row
 * is one conversion action and upload client; its `daily_summaries` list the last days' uploads,
 * each an `OfflineConversionSummary` of `successful_count`, `failed_count` and `pending_count`
 * keyed by `upload_date`. The day's `successful_count` of each conversion action the destination
 * maps events to is what Google counted (the event name is the conversion action id, as the
 * events go). Source: developers.google.com/google-ads/api/fields/v26/
 * offline_conversion_upload_conversion_action_summary and …/reference/rpc/v26/OfflineConversionSummary.
 *
 * Unlike Data Manager, the Google Ads API wants a developer token (`developer-token` header, the
 * destination's `developer_token` secret), the `adwords` OAuth scope, and, when the credentials
 * belong to a manager account, its id as the `login-customer-id` header (`config.login_account_id`,
 * which the uploads name as their `loginAccount`). The credentials are the destination's own
 * (`credentials`, else the schedule function's account), as its uploads'. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import { type CountReads, countOf, type PlatformCount, sumByName } from '../counts.ts';
import { configText } from '../prepare.ts';
import { CREDENTIALS_ROLE } from './driver.ts';

/** The Google Ads API's origin and the version whose reporting is read. */
export const GOOGLE_ADS_API_BASE_URL = 'https://googleads.googleapis.com';
export const GOOGLE_ADS_REPORTING_VERSION = 'v26';
/** The OAuth scope of the Google Ads API. */
export const ADWORDS_SCOPE = 'https://www.googleapis.com/auth/adwords';
/** The secret role holding the Google Ads API developer token. */
export const DEVELOPER_TOKEN_ROLE = 'developer_token';
/** The reporting resource read. */
export const UPLOAD_SUMMARY = 'offline_conversion_upload_conversion_action_summary';

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const digits = (v: string | undefined) => (v === undefined ? undefined : v.replace(/-/g, ''));

/** The conversion action ids the destination's mappings route events to, sorted. */
export function mappedConversionActions(d: Readonly<Destination>): string[] {
  const ids = Object.values(d.mappings ?? {})
    .map((m) => m.event)
    .filter((e): e is string => typeof e === 'string' && /^\d{1,20}$/.test(e));
  return [...new Set(ids)].sort();
}

/** The GAQL query of the destination's conversion actions' upload summaries. */
export function uploadSummaryQuery(actions: readonly string[]): string {
  const f = (field: string) => `${UPLOAD_SUMMARY}.${field}`;
  return [
    `SELECT ${f('conversion_action_id')}, ${f('client')}, ${f('daily_summaries')}`,
    `FROM ${UPLOAD_SUMMARY}`,
    `WHERE ${f('conversion_action_id')} IN (${actions.join(', ')})`,
  ].join(' ');
}

/** An `upload_date` as YYYY-MM-DD (Google writes the day; a compact YYYYMMDD is read too). */
function dayOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(v);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

export const GOOGLE_ADS_COUNTS: CountReads = {
  auth: { kind: 'google_oauth', scope: ADWORDS_SCOPE, role: CREDENTIALS_ROLE },
  secrets: [DEVELOPER_TOKEN_ROLE],
  problem(d) {
    if (!d.secrets?.[DEVELOPER_TOKEN_ROLE])
      return 'Google Ads counts need secrets.developer_token (the Google Ads API developer token the reporting read sends)';
    if (mappedConversionActions(d).length === 0)
      return 'Google Ads counts need at least one mapping to a conversion action id (mappings.<event>.event)';
    return undefined;
  },
  request(d, _day, token, secrets) {
    const origin = (d.base_url ?? GOOGLE_ADS_API_BASE_URL).replace(/\/+$/, '');
    const customer = digits(configText(d, 'operating_account_id')) ?? '';
    const login = digits(configText(d, 'login_account_id'));
    const url = `${origin}/${GOOGLE_ADS_REPORTING_VERSION}/customers/${customer}/googleAds:searchStream`;
    return {
      method: 'POST',
      url,
      redactedUrl: url,
      headers: {
        authorization: `Bearer ${token}`,
        'developer-token': secrets?.[DEVELOPER_TOKEN_ROLE] ?? '',
        ...(login ? { 'login-customer-id': login } : {}),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ query: uploadSummaryQuery(mappedConversionActions(d)) }),
    };
  },
  /**
   * SearchStream's answer is a JSON array of batches `{results, fieldMask, requestId}`; a row's
   * resource is `offlineConversionUploadConversionActionSummary` with int64s as strings and zero
   * counts left out (proto3 JSON). A conversion action uploaded by several clients has a row each:
   * they add up.
   */
  read(body, day) {
    if (!Array.isArray(body)) return undefined;
    const out: PlatformCount[] = [];
    for (const batch of body) {
      const results = obj(batch)?.['results'];
      if (results === undefined) continue;
      if (!Array.isArray(results)) return undefined;
      for (const r of results) {
        const summary = obj(obj(r)?.['offlineConversionUploadConversionActionSummary']);
        const action = String(summary?.['conversionActionId'] ?? '');
        if (!summary || !/^\d{1,20}$/.test(action)) continue;
        const daily = Array.isArray(summary['dailySummaries']) ? summary['dailySummaries'] : [];
        for (const s of daily) {
          const entry = obj(s);
          if (!entry || dayOf(entry['uploadDate']) !== day) continue;
          const counted = countOf(entry['successfulCount'] ?? '0');
          if (counted !== undefined) out.push({ event_name: action, counted });
        }
      }
    }
    return sumByName(out);
  },
  source: () => `google ads ${UPLOAD_SUMMARY} ${GOOGLE_ADS_REPORTING_VERSION}`,
};
