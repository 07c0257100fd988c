/**
 * X Conversions API: the whole platform in one value (docs/platforms.md, "X"). Its mapping
 * (mapping.ts), its signed request (driver.ts, oauth1.ts), its target check (target.ts) and how
 * its answers are read (responses.ts) are assembled here; platforms.ts lists it. Like Google Ads,
 * each conversion is routed to an id the advertiser created (an X event), so a catalogue event
 * whose mapping names none is skipped.
 */
import { definePlatform, type Platform } from '../platform.ts';
import { xConsentSignals } from './consent.ts';
import { X_CONVERSION_ID_SOURCES, X_SECRETS, xConversion, xRequest } from './driver.ts';
import { X_FACTS } from './facts.ts';
import { X_MAPPING } from './mapping.ts';
import { X_RESPONSES } from './responses.ts';
import { X_STANDARD_EVENTS } from './standard-events.ts';
import { checkXConversion, X_EVENT_ID, X_MAX_EVENTS } from './target.ts';

/** Whether a mapped name is an X event id the advertiser set, not the catalogue's own name. */
const routed = (eventName: string, mapped: string) => mapped !== eventName && X_EVENT_ID.test(mapped);

export const X_PLATFORM: Platform = definePlatform({
  ...X_FACTS,
  requirements: {
    config: ['pixel_id'],
    // What conversion_id carries, to match what the X pixel sends (driver.ts): default event_id.
    optionalConfig: ['conversion_id'],
    configFormats: {
      conversion_id: {
        pattern: new RegExp(`^(${X_CONVERSION_ID_SOURCES.join('|')})$`),
        description: X_CONVERSION_ID_SOURCES.join(' or '),
      },
    },
    secrets: [...X_SECRETS],
    baseUrl: false,
    // X has no test endpoint: test mode sends every conversion to the test event this names
    // (an event created in X's Events Manager for testing), so without it events would go live.
    testEventCode: true,
  },
  payload: {
    kind: 'mapped',
    mapping: X_MAPPING,
    ...X_STANDARD_EVENTS,
    eventNameProblem: (name) =>
      X_EVENT_ID.test(name)
        ? undefined
        : `"${name}" is not an X event id (X routes each conversion to an event created in its Events Manager: o87ne or tw-<pixel>-o87ne)`,
    consentSignals: xConsentSignals,
    shape: xConversion,
    check: (conversion) => checkXConversion(conversion),
    request: xRequest,
    maxEvents: X_MAX_EVENTS,
  },
  responses: X_RESPONSES,
  unrouted: (eventName, mapped) => {
    if (mapped === undefined)
      return `event ${eventName} is not an X conversion (no mapping for x_conversions)`;
    if (routed(eventName, mapped)) return undefined;
    return `no X event for event ${eventName}: set mappings.${eventName}.event to the id of its event in X's Events Manager`;
  },
});

/** The driver the forward function uses for `x_conversions` destinations. */
export const xDriver = X_PLATFORM.driver;
