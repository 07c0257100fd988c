/**
 * X's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { X_API } from './api-version.ts';
import { X_STANDARD_EVENTS } from './standard-events.ts';

export const X_FACTS: PlatformFacts = {
  type: 'x_conversions',
  names: { short: 'X', heading: 'X Conversions API' },
  // Ads and the user data they carry need both purposes (as Meta).
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  clickIds: [{ param: 'twclid', channel: 'social' }],
  step3: { kind: 'id', label: 'X event id', pattern: '(tw-[0-9a-z]+-)?[0-9a-z]+' },
  events: X_STANDARD_EVENTS,
  apiVersion: X_API,
  counts: {
    none: 'the platform reports no counts to this service: the Conversions API answers per request',
    doc: 'https://docs.x.com/x-ads-api/measurement/web-conversions/conversion-api',
  },
};
