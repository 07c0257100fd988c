/**
 * GA4 Measurement Protocol: the whole platform in one value (docs/platforms.md §2). Its mapping
 * (mapping.ts), its request (driver.ts), its target check and event-name rules (target.ts), its
 * consent signals (consent.ts) and how its answers are read (responses.ts) are assembled here;
 * platforms.ts lists it.
 */

import { COUNTS_CONFIG } from '../counts.ts';
import { definePlatform, type Platform } from '../platform.ts';
import { ga4ConsentSignals } from './consent.ts';
import { COUNTS_PROPERTY_CONFIG, GA4_COUNTS } from './counts.ts';
import { ga4Body, ga4Request } from './driver.ts';
import { GA4_ERASURE } from './erasure.ts';
import { COUNTS_EXPORT_CONFIG, EXPORT_DATASET, GA4_FACTS } from './facts.ts';
import { GA4_MAPPING } from './mapping.ts';
import { GA4_RESPONSES } from './responses.ts';
import { GA4_STANDARD_EVENTS } from './standard-events.ts';
import { checkGa4Request, ga4NameProblem, trimGa4Request } from './target.ts';

export const GA4_PLATFORM: Platform = definePlatform({
  ...GA4_FACTS,
  requirements: {
    config: ['measurement_id'],
    // `counts: true` and the property: the scheduler reads GA4's own count of each day (counts.ts);
    // the linked BigQuery export: the reconciliation view counts each event in it.
    optionalConfig: [COUNTS_CONFIG, COUNTS_PROPERTY_CONFIG, COUNTS_EXPORT_CONFIG],
    configFormats: {
      [COUNTS_CONFIG]: { pattern: /(?!)/, description: 'a boolean (true or false, unquoted)' },
      [COUNTS_PROPERTY_CONFIG]: { pattern: /^[0-9]{1,20}$/, description: 'the GA4 property id (digits)' },
      [COUNTS_EXPORT_CONFIG]: {
        pattern: EXPORT_DATASET,
        description: 'the dataset GA4’s BigQuery export writes, as <project>.analytics_<property id>',
      },
    },
    secrets: ['api_secret'],
    baseUrl: false,
    // GA4's test mode is its debug endpoint: no test code.
    testEventCode: false,
  },
  payload: {
    kind: 'mapped',
    mapping: GA4_MAPPING,
    ...GA4_STANDARD_EVENTS,
    eventNameProblem: (name) => ga4NameProblem(name, 'event'),
    consentSignals: ga4ConsentSignals,
    shape: ga4Body,
    trim: trimGa4Request,
    check: checkGa4Request,
    request: ga4Request,
    // One event per request: events of different people cannot share a request's client_id.
    maxEvents: 1,
  },
  // GA4 drops an event under a reserved name or prefix (`session_start`, `ga_…`) without a word:
  // the decision layer skips it with GA4's own rule, never "no mapping".
  unrouted: (eventName, mapped) => {
    const why = ga4NameProblem(mapped ?? eventName, 'event');
    return why ? `GA4 refuses the event name: ${why} (GA4's reserved event names and prefixes)` : undefined;
  },
  responses: GA4_RESPONSES,
  erasure: GA4_ERASURE,
  countReads: GA4_COUNTS,
  // GA4 refuses a web stream's event without client_id: say so in the ledger, never invent one.
  identity: {
    anyOf: ['anonymous_id', 'user_id'],
    reason:
      'no GA4 client id: the event has no anonymous_id (the browser\'s GA client id) or user_id; carry one from the source (docs/sources/README.md, "GA4 client id")',
  },
});

/** The driver the forward function uses for `ga4_mp` destinations. */
export const ga4MpDriver = GA4_PLATFORM.driver;
