/**
 * Meta's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { META_AGE_LIMIT } from './age-limit.ts';
import { META_API } from './api-version.ts';
import { META_STANDARD_EVENTS } from './standard-events.ts';

/** Meta's cookie formats: `fb.<subdomain index>.<creation ms>.<random>` and `fb.<index>.<ms>.<fbclid>`. */
const FBP = /^fb\.\d\.\d{13}\.\d{1,20}$/;
const FBC = /^fb\.\d\.\d{13}\.[\w-]{1,500}$/;

export const META_FACTS: PlatformFacts = {
  type: 'meta_capi',
  names: { short: 'Meta', heading: 'Meta Conversions API' },
  // Ads and the user data they carry need both purposes.
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'fbclid', channel: 'social' }],
  // Set whatever the destinations: a page's browser id and click are Meta's to match later.
  cookies: [
    {
      name: '_fbp',
      purposes: ['ads'],
      withDestination: false,
      value: ({ campaign, index, now, random }) => {
        const fbp = campaign['fbp'];
        return typeof fbp === 'string' && FBP.test(fbp) ? fbp : `fb.${index}.${now}.${random(1e9, 1e10)}`;
      },
    },
    {
      name: '_fbc',
      purposes: ['ads'],
      withDestination: false,
      // A new click (an fbclid the page's fbc does not end with) makes a new one.
      value: ({ campaign, index, now }) => {
        const fbc = campaign['fbc'];
        const fbclid = campaign['fbclid'];
        if (
          typeof fbclid === 'string' &&
          fbclid !== '' &&
          !(typeof fbc === 'string' && fbc.endsWith(`.${fbclid}`))
        )
          return `fb.${index}.${now}.${fbclid}`;
        return typeof fbc === 'string' && FBC.test(fbc) ? fbc : undefined;
      },
    },
  ],
  pageCookies: [
    { cookie: '_fbp', field: 'fbp' },
    { cookie: '_fbc', field: 'fbc' },
  ],
  step3: { kind: 'events', label: 'Meta' },
  events: META_STANDARD_EVENTS,
  apiVersion: META_API,
  counts: {
    reads: 'Graph API `GET /{pixel_id}/stats?aggregation=event`: events received per event name and hour',
    doc: 'https://developers.facebook.com/docs/marketing-api/reference/ads-pixel/stats/',
  },
  ageLimit: META_AGE_LIMIT,
};
