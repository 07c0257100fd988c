/**
 * Reddit's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { REDDIT_AGE_LIMIT } from './age-limit.ts';
import { REDDIT_API } from './api-version.ts';
import { REDDIT_STANDARD_EVENTS } from './standard-events.ts';

export const REDDIT_FACTS: PlatformFacts = {
  type: 'reddit_capi',
  names: { short: 'Reddit', heading: 'Reddit Conversions API' },
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'rdt_cid', channel: 'social' }],
  pageCookies: [{ cookie: '_rdt_uuid', field: 'rdt_uuid' }],
  step3: { kind: 'events', label: 'Reddit' },
  events: REDDIT_STANDARD_EVENTS,
  apiVersion: REDDIT_API,
  counts: {
    none: 'the platform reports no counts to this service: the Conversions API answers per request',
    doc: 'https://ads-api.reddit.com/docs/v3/',
  },
  ageLimit: REDDIT_AGE_LIMIT,
};
