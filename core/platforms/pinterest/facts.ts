/**
 * Pinterest's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { PINTEREST_AGE_LIMIT } from './age-limit.ts';
import { PINTEREST_API } from './api-version.ts';
import { PINTEREST_STANDARD_EVENTS } from './standard-events.ts';

export const PINTEREST_FACTS: PlatformFacts = {
  type: 'pinterest_capi',
  names: { short: 'Pinterest', heading: 'Pinterest Conversions API' },
  // Ads and the user data they carry need both purposes (as Meta).
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'epik', channel: 'social' }],
  pageCookies: [{ cookie: '_epik', field: 'epik' }],
  step3: { kind: 'events', label: 'Pinterest' },
  events: PINTEREST_STANDARD_EVENTS,
  apiVersion: PINTEREST_API,
  counts: {
    none: 'the platform reports no counts to this service: the Conversions API answers per request (`num_events_received`, `num_events_processed`), read into the ledger',
    doc: 'https://developers.pinterest.com/docs/api/v5/',
  },
  ageLimit: PINTEREST_AGE_LIMIT,
};
