/**
 * Snapchat Conversions API (v3): the whole platform in one value (docs/platforms.md, "Snapchat"). Its
 * mapping (mapping.ts), its request (driver.ts), its target check (target.ts), its consent signal
 * (consent.ts) and how its answers are read (responses.ts) are assembled here; platforms.ts lists
 * it.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { snapchatConsentSignals } from './consent.ts';
import { snapchatEvent, snapchatRequest } from './driver.ts';
import { SNAPCHAT_FACTS } from './facts.ts';
import { SNAPCHAT_MAPPING } from './mapping.ts';
import { SNAPCHAT_RESPONSES } from './responses.ts';
import { SNAPCHAT_STANDARD_EVENTS } from './standard-events.ts';
import { checkSnapchatEvent, SNAPCHAT_MAX_EVENTS } from './target.ts';

/** Why an event name is not one Snap takes, or undefined. */
export function snapchatEventNameProblem(name: string): string | undefined {
  return SNAPCHAT_STANDARD_EVENTS.standardEvents.includes(name)
    ? undefined
    : `"${name}" is not a Snapchat event name (Snap takes its standard events and CUSTOM_EVENT_1 to CUSTOM_EVENT_5)`;
}

export const SNAPCHAT_PLATFORM: Platform = definePlatform({
  ...SNAPCHAT_FACTS,
  requirements: {
    config: ['pixel_id'],
    optionalConfig: ['action_source'],
    secrets: ['access_token'],
    baseUrl: false,
    // Test mode is the Test Event Tool's validate path: no test code.
    testEventCode: false,
  },
  payload: {
    kind: 'mapped',
    mapping: SNAPCHAT_MAPPING,
    ...SNAPCHAT_STANDARD_EVENTS,
    eventNameProblem: snapchatEventNameProblem,
    consentSignals: snapchatConsentSignals,
    shape: snapchatEvent,
    check: (row, now) => checkSnapchatEvent(row, now),
    request: snapchatRequest,
    maxEvents: SNAPCHAT_MAX_EVENTS,
  },
  responses: SNAPCHAT_RESPONSES,
});

/** The driver the forward function uses for `snapchat_capi` destinations. */
export const snapchatDriver = SNAPCHAT_PLATFORM.driver;
