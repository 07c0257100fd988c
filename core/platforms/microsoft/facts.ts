/**
 * Microsoft's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { MICROSOFT_API } from './api-version.ts';
import { MICROSOFT_STANDARD_EVENTS } from './standard-events.ts';

export const MICROSOFT_FACTS: PlatformFacts = {
  type: 'microsoft_uet',
  names: { short: 'Microsoft', heading: 'Microsoft Advertising' },
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  /**
   * Microsoft's IAB TCF vendor id: "Include Microsoft (Vendor ID: 1126)", Microsoft Advertising's
   * "Transparency and consent framework (TCF) for UET" (learn.microsoft.com/en-us/advertising/
   * msa-help/hlp_ba_conc_uet_tcf).
   */
  tcfVendor: 1126,
  clickIds: [{ param: 'msclkid', channel: 'paid_search' }],
  pageCookies: [{ cookie: '_uetmsclkid', field: 'msclkid', strip: '_uet' }],
  step3: { kind: 'events', label: 'Microsoft Advertising' },
  events: MICROSOFT_STANDARD_EVENTS,
  apiVersion: MICROSOFT_API,
  counts: {
    none: 'the platform reports no counts to this service: the UET Conversion API answers per request',
    doc: 'https://learn.microsoft.com/en-us/advertising/guides/uet-conversion-api-integration',
  },
};
