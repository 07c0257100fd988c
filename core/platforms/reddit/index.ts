/**
 * Reddit Conversions API v3: the whole platform in one value (docs/platforms.md, Reddit). Its
 * mapping (mapping.ts), its request (driver.ts), its target check (target.ts), its consent signals
 * (consent.ts) and how its answers are read (responses.ts) are assembled here; platforms.ts lists it.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { redditConsentSignals } from './consent.ts';
import { redditEvent, redditRequest } from './driver.ts';
import { REDDIT_FACTS } from './facts.ts';
import { REDDIT_MAPPING } from './mapping.ts';
import { REDDIT_RESPONSES } from './responses.ts';
import { REDDIT_STANDARD_EVENTS } from './standard-events.ts';
import { checkRedditEvent, REDDIT_MAX_EVENTS, trimRedditEvent } from './target.ts';

export const REDDIT_PLATFORM: Platform = definePlatform({
  ...REDDIT_FACTS,
  requirements: {
    config: ['pixel_id'],
    optionalConfig: [],
    secrets: ['access_token'],
    baseUrl: false,
    // Test mode is the Events Manager's test id, sent as data.test_id.
    testEventCode: true,
  },
  payload: {
    kind: 'mapped',
    mapping: REDDIT_MAPPING,
    ...REDDIT_STANDARD_EVENTS,
    consentSignals: redditConsentSignals,
    shape: redditEvent,
    trim: trimRedditEvent,
    check: (event, now) => checkRedditEvent(event, now),
    request: redditRequest,
    maxEvents: REDDIT_MAX_EVENTS,
  },
  responses: REDDIT_RESPONSES,
});

/** The driver the forward function uses for `reddit_capi` destinations. */
export const redditDriver = REDDIT_PLATFORM.driver;
