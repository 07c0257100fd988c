/**
 * TikTok's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { TIKTOK_API } from './api-version.ts';
import { TIKTOK_STANDARD_EVENTS } from './standard-events.ts';

export const TIKTOK_FACTS: PlatformFacts = {
  type: 'tiktok_events',
  names: { short: 'TikTok', heading: 'TikTok Events API' },
  // Ads and the user data they carry need both purposes.
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'ttclid', channel: 'social' }],
  pageCookies: [{ cookie: '_ttp', field: 'ttp' }],
  step3: { kind: 'events', label: 'TikTok' },
  events: TIKTOK_STANDARD_EVENTS,
  apiVersion: TIKTOK_API,
  counts: {
    none: 'the platform reports no counts to this service: the Events API answers per request, and what TikTok counted is shown in Events Manager only',
    doc: 'https://business-api.tiktok.com/portal/docs?id=1740029169927169',
  },
};
