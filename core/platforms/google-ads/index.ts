/**
 * Google Ads conversions through the Data Manager API: the whole platform in one value
 * (docs/platforms.md §6). Its mapping (mapping.ts), its request (driver.ts), its
 * target check (target.ts), its consent signals (consent.ts) and how its answers are read
 * (responses.ts) are assembled here; platforms.ts lists it. It takes an OAuth access token
 * obtained from the `credentials` secret, and routes each event to a conversion action.
 */
import { COUNTS_CONFIG } from '../counts.ts';
import { definePlatform, type Platform } from '../platform.ts';
import { googleAdsConsentSignals } from './consent.ts';
import { GOOGLE_ADS_COUNTS } from './counts.ts';
import { CREDENTIALS_ROLE, DATA_MANAGER_SCOPE, googleAdsEvent, googleAdsRequest } from './driver.ts';
import { GOOGLE_ADS_FACTS } from './facts.ts';
import { GOOGLE_ADS_MAPPING } from './mapping.ts';
import { GOOGLE_ADS_RESPONSES } from './responses.ts';
import { GOOGLE_ADS_STANDARD_EVENTS } from './standard-events.ts';
import {
  CONVERSION_ACTION_ID,
  checkGoogleAdsEvent,
  GOOGLE_ADS_MAX_EVENTS,
  trimGoogleAdsEvent,
} from './target.ts';

/** Why an event name is not a conversion action id, or undefined. */
export function conversionActionProblem(name: string): string | undefined {
  return CONVERSION_ACTION_ID.test(name)
    ? undefined
    : `"${name}" is not a conversion action id (Google Ads routes each conversion to the numeric id of a conversion action in the operating account)`;
}

export const GOOGLE_ADS_PLATFORM: Platform = definePlatform({
  ...GOOGLE_ADS_FACTS,
  requirements: {
    config: ['operating_account_id'],
    // `counts: true`: the scheduler reads Google's upload summaries of each day (counts.ts).
    optionalConfig: ['login_account_id', COUNTS_CONFIG],
    configFormats: {
      [COUNTS_CONFIG]: { pattern: /(?!)/, description: 'a boolean (true or false, unquoted)' },
    },
    // Optional: without it the forward function calls with its own service account's token
    // (adapters/google-oauth.ts); a key or a user's refresh token only when named.
    secrets: [],
    baseUrl: false,
    // Test mode is Data Manager's validateOnly: no test code.
    testEventCode: false,
  },
  payload: {
    kind: 'mapped',
    mapping: GOOGLE_ADS_MAPPING,
    ...GOOGLE_ADS_STANDARD_EVENTS,
    eventNameProblem: conversionActionProblem,
    consentSignals: googleAdsConsentSignals,
    shape: googleAdsEvent,
    trim: trimGoogleAdsEvent,
    check: (event) => checkGoogleAdsEvent(event),
    request: googleAdsRequest,
    maxEvents: GOOGLE_ADS_MAX_EVENTS,
  },
  responses: GOOGLE_ADS_RESPONSES,
  // The request diagnostics the scheduler asks for an hour later (functions/schedule/google-ads-diagnostics.ts).
  scheduledSecrets: [CREDENTIALS_ROLE],
  oauth: { credentials: CREDENTIALS_ROLE, scope: DATA_MANAGER_SCOPE },
  countReads: GOOGLE_ADS_COUNTS,
  unrouted: (eventName, mapped) => {
    if (mapped === undefined)
      return `event ${eventName} is not a Google Ads conversion (no mapping for google_ads)`;
    if (CONVERSION_ACTION_ID.test(mapped)) return undefined;
    return `no conversion action for event ${eventName}: set mappings.${eventName}.event to its conversion action id`;
  },
});

/** The driver the forward function uses for `google_ads` destinations. */
export const googleAdsDriver = GOOGLE_ADS_PLATFORM.driver;
