/**
 * TikTok Events API: the whole platform in one value (docs/platforms.md §3). Its mapping
 * (mapping.ts), its request (driver.ts), its target check (target.ts), its consent signal
 * (consent.ts) and how its answers are read (responses.ts) are assembled here; platforms.ts lists it.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { tiktokConsentSignals } from './consent.ts';
import { tiktokRequest, tiktokRow } from './driver.ts';
import { TIKTOK_FACTS } from './facts.ts';
import { TIKTOK_MAPPING } from './mapping.ts';
import { TIKTOK_RESPONSES } from './responses.ts';
import { TIKTOK_STANDARD_EVENTS } from './standard-events.ts';
import { checkTikTokEvent, TIKTOK_MAX_EVENTS, trimTikTokEvent } from './target.ts';

export const TIKTOK_PLATFORM: Platform = definePlatform({
  ...TIKTOK_FACTS,
  requirements: {
    config: ['pixel_code'],
    optionalConfig: ['event_source'],
    secrets: ['access_token'],
    baseUrl: false,
    testEventCode: true,
  },
  payload: {
    kind: 'mapped',
    mapping: TIKTOK_MAPPING,
    ...TIKTOK_STANDARD_EVENTS,
    consentSignals: tiktokConsentSignals,
    shape: tiktokRow,
    trim: trimTikTokEvent,
    check: (row) => checkTikTokEvent(row),
    request: tiktokRequest,
    maxEvents: TIKTOK_MAX_EVENTS,
  },
  responses: TIKTOK_RESPONSES,
});

/** The driver the forward function uses for `tiktok_events` destinations. */
export const tiktokEventsDriver = TIKTOK_PLATFORM.driver;
