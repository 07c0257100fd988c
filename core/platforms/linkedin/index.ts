/**
 * LinkedIn Conversions API: the whole platform in one value (docs/platforms.md, LinkedIn). Its
 * mapping (mapping.ts), its request (driver.ts), its target check (target.ts), its consent
 * (consent.ts) and how its answers are read (responses.ts) are assembled here; platforms.ts lists
 * it. Each event is routed to a conversion rule the destination's mapping names by id.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { linkedinConsentSignals } from './consent.ts';
import { LINKEDIN_VERSION, linkedinEvent, linkedinRequest } from './driver.ts';
import { LINKEDIN_FACTS } from './facts.ts';
import { LINKEDIN_MAPPING } from './mapping.ts';
import { LINKEDIN_RESPONSES } from './responses.ts';
import { LINKEDIN_STANDARD_EVENTS } from './standard-events.ts';
import { CONVERSION_RULE_ID, checkLinkedInEvent, LINKEDIN_MAX_EVENTS, trimLinkedInEvent } from './target.ts';

/** Why an event name is not a conversion rule id, or undefined. */
export function conversionRuleProblem(name: string): string | undefined {
  return CONVERSION_RULE_ID.test(name)
    ? undefined
    : `"${name}" is not a conversion rule id (LinkedIn sends each conversion to the numeric id of a conversion rule created in Campaign Manager)`;
}

export const LINKEDIN_PLATFORM: Platform = definePlatform({
  ...LINKEDIN_FACTS,
  requirements: {
    config: [],
    optionalConfig: ['api_version'],
    secrets: ['access_token'],
    baseUrl: false,
    // LinkedIn documents no test mode: a test conversion rule is the way (docs/platforms.md).
    testEventCode: false,
    noTestMode: 'send tests to a conversion rule kept for them (docs/platforms.md, LinkedIn)',
    // The dated header LinkedIn serves each version under (202603): a typo is caught when settings load.
    configFormats: {
      api_version: { pattern: LINKEDIN_VERSION, description: 'a LinkedIn-Version, YYYYMM (such as 202603)' },
    },
  },
  payload: {
    kind: 'mapped',
    mapping: LINKEDIN_MAPPING,
    ...LINKEDIN_STANDARD_EVENTS,
    eventNameProblem: conversionRuleProblem,
    consentSignals: linkedinConsentSignals,
    shape: (mapped) => linkedinEvent(mapped),
    trim: trimLinkedInEvent,
    check: (event, now) => checkLinkedInEvent(event, now),
    request: linkedinRequest,
    maxEvents: LINKEDIN_MAX_EVENTS,
  },
  responses: LINKEDIN_RESPONSES,
  unrouted: (eventName, mapped) => {
    if (mapped === undefined)
      return `event ${eventName} is not a LinkedIn conversion (no mapping for linkedin_capi)`;
    if (CONVERSION_RULE_ID.test(mapped)) return undefined;
    return `no conversion rule for event ${eventName}: set mappings.${eventName}.event to its conversion rule id`;
  },
});

/** The driver the forward function uses for `linkedin_capi` destinations. */
export const linkedinDriver = LINKEDIN_PLATFORM.driver;
