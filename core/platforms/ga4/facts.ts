/**
 * GA4's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { GA4_AGE_LIMIT } from './age-limit.ts';
import { GA4_API } from './api-version.ts';
import { GA4_STANDARD_EVENTS } from './standard-events.ts';

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
  // No cookie of its own: GA4 is sent the tag's anonymous id as its client id, which a `_ga` the
  // gateway made would not join (a site running gtag.js would get a second GA4 client). The
  // storage rules still expire a `_ga` an earlier release set (core/consent/storage-rules.ts).
  step3: { kind: 'events', label: 'Google Analytics 4' },
  events: GA4_STANDARD_EVENTS,
  apiVersion: GA4_API,
  counts: {
    reads:
      'Analytics Data API `properties/{property}:runReport`: `eventCount` by `eventName` and `date`; where the BigQuery export is linked, the export’s `events_*` joined per event on the `event_id` parameter (storage.md)',
    doc: 'https://developers.google.com/analytics/devguides/reporting/data/v1/rest/v1beta/properties/runReport',
  },
  ageLimit: GA4_AGE_LIMIT,
};
