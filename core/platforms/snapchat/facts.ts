/**
 * Snapchat's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { SNAPCHAT_AGE_LIMIT } from './age-limit.ts';
import { SNAPCHAT_API } from './api-version.ts';
import { SNAPCHAT_STANDARD_EVENTS } from './standard-events.ts';

export const SNAPCHAT_FACTS: PlatformFacts = {
  type: 'snapchat_capi',
  names: { short: 'Snapchat', heading: 'Snapchat Conversions API' },
  // Ads and the user data they carry need both purposes (as Meta).
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'sccid', channel: 'social' }],
  pageCookies: [{ cookie: '_scid', field: 'scid' }],
  step3: { kind: 'events', label: 'Snapchat' },
  events: SNAPCHAT_STANDARD_EVENTS,
  apiVersion: SNAPCHAT_API,
  counts: {
    none: 'the platform reports no counts to this service: the Conversions API answers per request; Events Manager shows the rest',
    doc: 'https://developers.snap.com/api/marketing-api/Conversions-API',
  },
  ageLimit: SNAPCHAT_AGE_LIMIT,
};
