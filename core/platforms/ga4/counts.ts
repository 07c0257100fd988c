/**
 * GA4's count of the events a property collected (docs/delivery.md, "Counted by the platform"):
 * the Analytics Data API's `POST /v1beta/properties/{property}:runReport` with the dimension
 * `eventName`, the metric `eventCount` and the day as its date range, under an OAuth token of
 * the `analytics.readonly` scope (the schedule function's own account, which needs the Viewer
 * role on the property). The property is `config.counts_property`, else `user_deletion.property`.
 * GA4's days are in the property's time zone. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import { type CountReads, countOf, type PlatformCount } from '../counts.ts';
import { configText } from '../prepare.ts';

/** The Data API's origin. */
export const GA4_DATA_BASE_URL = 'https://analyticsdata.googleapis.com';
export const GA4_REPORT_SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** The config key naming the GA4 property id (digits). */
export const COUNTS_PROPERTY_CONFIG = 'counts_property';

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
