/**
 * Google Ads' facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { GOOGLE_ADS_AGE_LIMIT } from './age-limit.ts';
import { GOOGLE_ADS_API } from './api-version.ts';
import { GOOGLE_ADS_STANDARD_EVENTS } from './standard-events.ts';

export const GOOGLE_ADS_FACTS: PlatformFacts = {
  type: 'google_ads',
  names: { short: 'Google Ads', heading: 'Google Ads' },
  // Ads and the user data they carry need both purposes (as Meta).
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  /**
   * Google's IAB TCF vendor id, 755 ("Google Advertising Products"), which Google's tags also read
   * for Google Analytics (IAB Europe's Global Vendor List; Gravito, "Communicating consent with
   * Google", 2020: "Google is on the framework with vendor id 755").
   */
  tcfVendor: 755,
  clickIds: [
    { param: 'gclid', channel: 'paid_search' },
    { param: 'gbraid', channel: 'paid_search' },
    { param: 'wbraid', channel: 'paid_search' },
  ],
  step3: { kind: 'id', label: 'Google Ads conversion action id', pattern: '[0-9]+', numeric: true },
  events: GOOGLE_ADS_STANDARD_EVENTS,
  apiVersion: GOOGLE_ADS_API,
  counts: {
    reads:
      'Google Ads API `GoogleAdsService.SearchStream` on `offline_conversion_upload_conversion_action_summary`: `daily_summaries.successful_count` per conversion action and upload day',
    doc: 'https://developers.google.com/google-ads/api/fields/v26/offline_conversion_upload_conversion_action_summary',
  },
  ageLimit: GOOGLE_ADS_AGE_LIMIT,
};
