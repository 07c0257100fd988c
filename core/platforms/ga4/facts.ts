/**
 * GA4's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts, client-id.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { GA4_AGE_LIMIT } from './age-limit.ts';
import { GA4_API } from './api-version.ts';
import { gaClientIdOf, gaCookie, isGaClientId } from './client-id.ts';
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
    reads: 'Analytics Data API `properties/{property}:runReport`: `eventCount` by `eventName` and `date`',
    doc: 'https://developers.google.com/analytics/devguides/reporting/data/v1/rest/v1beta/properties/runReport',
  },
  ageLimit: GA4_AGE_LIMIT,
};
