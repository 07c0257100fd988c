/**
 * LinkedIn's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts, age-limit.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { LINKEDIN_AGE_LIMIT } from './age-limit.ts';
import { LINKEDIN_API } from './api-version.ts';
import { LINKEDIN_STANDARD_EVENTS } from './standard-events.ts';

export const LINKEDIN_FACTS: PlatformFacts = {
  type: 'linkedin_capi',
  names: { short: 'LinkedIn', heading: 'LinkedIn Conversions API' },
  consent: ['ads', 'ad_user_data'],
  // Its hashed e-mail, phone and names only where a signal grants `ad_user_data` (docs/delivery.md).
  userData: 'granted',
  // No TCF vendor id: none confirmed on the Global Vendor List, so a TC string gates it by its
  // purposes alone (docs/delivery.md, "Consent").
  clickIds: [{ param: 'li_fat_id', channel: 'social' }],
  step3: { kind: 'id', label: 'LinkedIn conversion rule id', pattern: '[0-9]+', numeric: true },
  events: LINKEDIN_STANDARD_EVENTS,
  apiVersion: LINKEDIN_API,
  counts: {
    none: 'the platform reports no counts to this service: the Conversions API answers per request; Campaign Manager shows the rest',
    doc: 'https://learn.microsoft.com/en-us/linkedin/marketing/integrations/ads-reporting/conversions-api',
  },
  ageLimit: LINKEDIN_AGE_LIMIT,
};
