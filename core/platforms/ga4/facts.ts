/**
 * GA4's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { GA4_API } from './api-version.ts';
import { GA4_STANDARD_EVENTS } from './standard-events.ts';

/** gtag's `_ga`: `GA1.<domain index>.<random>.<creation seconds>` (the client id is the last two). */
const GA = /^GA1\.\d\.\d{1,12}\.\d{9,11}$/;

export const GA4_FACTS: PlatformFacts = {
  type: 'ga4_mp',
  names: { short: 'GA4', heading: 'GA4 Measurement Protocol' },
  // Analytics only.
  consent: ['analytics'],
  /**
   * Google's IAB TCF vendor id, 755 ("Google Advertising Products"), whose consent Google Analytics
   * honours when its TCF support is on (Gravito, "Communicating consent with Google", 2020).
   */
  tcfVendor: 755,
  // The client id the GA4 mapping sends, kept by the site's own answer when GA4 is a destination.
  cookies: [
    {
      name: '_ga',
      purposes: [],
      withDestination: true,
      value: ({ cookie, index, now, random }) => {
        const ga = cookie('_ga');
        return ga && GA.test(ga) ? ga : `GA1.${index}.${random(1e8, 2 ** 31 - 1)}.${Math.floor(now / 1000)}`;
      },
    },
  ],
  step3: { kind: 'events', label: 'Google Analytics 4' },
  events: GA4_STANDARD_EVENTS,
  apiVersion: GA4_API,
};
