/**
 * Microsoft Advertising UET Conversions API: the whole platform in one value (docs/platforms.md,
 * Microsoft). Its mapping (mapping.ts), its request (driver.ts), its target check (target.ts), its
 * consent signal (consent.ts) and how its answers are read (responses.ts) are assembled here;
 * platforms.ts lists it. Access is given account by account (the customer must be enrolled).
 */
import { definePlatform, type Platform } from '../platform.ts';
import { microsoftConsentSignals } from './consent.ts';
import { microsoftEvent, microsoftRequest } from './driver.ts';
import { MICROSOFT_FACTS } from './facts.ts';
import { MICROSOFT_MAPPING } from './mapping.ts';
import { MICROSOFT_RESPONSES } from './responses.ts';
import { MICROSOFT_STANDARD_EVENTS } from './standard-events.ts';
import { checkMicrosoftEvent, MICROSOFT_MAX_EVENTS, trimMicrosoftEvent } from './target.ts';

export const MICROSOFT_PLATFORM: Platform = definePlatform({
  ...MICROSOFT_FACTS,
  requirements: {
    config: ['tag_id'],
    optionalConfig: [],
    secrets: ['access_token'],
    baseUrl: false,
    // Microsoft documents no test mode: a separate UET tag is the way (docs/platforms.md).
    testEventCode: false,
    noTestMode: 'send tests to a separate UET tag (docs/platforms.md, Microsoft)',
    configFormats: { tag_id: { pattern: /^[0-9]+$/, description: 'the numeric id of a UET tag' } },
  },
  payload: {
    kind: 'mapped',
    mapping: MICROSOFT_MAPPING,
    ...MICROSOFT_STANDARD_EVENTS,
    consentSignals: microsoftConsentSignals,
    shape: (mapped) => microsoftEvent(mapped),
    trim: trimMicrosoftEvent,
    check: (event) => checkMicrosoftEvent(event),
    request: microsoftRequest,
    maxEvents: MICROSOFT_MAX_EVENTS,
  },
  responses: MICROSOFT_RESPONSES,
});

/** The driver the forward function uses for `microsoft_uet` destinations. */
export const microsoftDriver = MICROSOFT_PLATFORM.driver;
