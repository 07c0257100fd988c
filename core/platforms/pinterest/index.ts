/**
 * Pinterest Conversions API (v5): the whole platform in one value (docs/platforms.md, "Pinterest"). Its
 * mapping (mapping.ts), its request (driver.ts), its target check (target.ts), its consent signals
 * (consent.ts) and how its answers are read (responses.ts) are assembled here; platforms.ts lists
 * it.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { pinterestConsentSignals } from './consent.ts';
import { pinterestEvent, pinterestRequest } from './driver.ts';
import { PINTEREST_FACTS } from './facts.ts';
import { PINTEREST_MAPPING } from './mapping.ts';
import { PINTEREST_RESPONSES } from './responses.ts';
import { PINTEREST_STANDARD_EVENTS } from './standard-events.ts';
import { checkPinterestEvent, PINTEREST_MAX_EVENTS, trimPinterestEvent } from './target.ts';

/** Why an event name is not one Pinterest takes, or undefined. */
export function pinterestEventNameProblem(name: string): string | undefined {
  return PINTEREST_STANDARD_EVENTS.standardEvents.includes(name)
    ? undefined
    : `"${name}" is not a Pinterest event name (Pinterest takes only its own: ${PINTEREST_STANDARD_EVENTS.standardEvents.join(', ')}; send an event of your own as custom)`;
}

export const PINTEREST_PLATFORM: Platform = definePlatform({
  ...PINTEREST_FACTS,
  requirements: {
    config: ['ad_account_id'],
    optionalConfig: ['action_source'],
    secrets: ['access_token'],
    baseUrl: false,
    // Test mode is Pinterest's `?test=true`: no test code.
    testEventCode: false,
  },
  payload: {
    kind: 'mapped',
    mapping: PINTEREST_MAPPING,
    ...PINTEREST_STANDARD_EVENTS,
    eventNameProblem: pinterestEventNameProblem,
    consentSignals: pinterestConsentSignals,
    shape: pinterestEvent,
    trim: trimPinterestEvent,
    check: (row, now) => checkPinterestEvent(row, now),
    request: pinterestRequest,
    maxEvents: PINTEREST_MAX_EVENTS,
  },
  responses: PINTEREST_RESPONSES,
});

/** The driver the forward function uses for `pinterest_capi` destinations. */
export const pinterestDriver = PINTEREST_PLATFORM.driver;
