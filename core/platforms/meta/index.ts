/**
 * Meta Conversions API: the whole platform in one value (docs/platforms.md §1). Its mapping
 * (mapping.ts), its request (driver.ts), its target check (target.ts), its consent signals
 * (consent.ts), how its answers are read (responses.ts) and its custom audiences (audience.ts)
 * are assembled here; platforms.ts lists it.
 */

import { COUNTS_CONFIG } from '../counts.ts';
import { definePlatform, type Platform } from '../platform.ts';
import { META_AUDIENCES } from './audience.ts';
import { metaConsentSignals } from './consent.ts';
import { META_COUNTS } from './counts.ts';
import { DIAGNOSTICS_CONFIG } from './dataset-quality.ts';
import { metaRequest, metaServerEvent } from './driver.ts';
import { META_FACTS } from './facts.ts';
import { META_MAPPING } from './mapping.ts';
import { META_RESPONSES } from './responses.ts';
import { META_STANDARD_EVENTS } from './standard-events.ts';
import { checkMetaEvent, META_MAX_EVENTS, trimMetaEvent, trimMetaValue } from './target.ts';

export const META_PLATFORM: Platform = definePlatform({
  ...META_FACTS,
  requirements: {
    config: ['pixel_id'],
    // `diagnostics: true`: the scheduler asks Meta's Dataset Quality API daily (dataset-quality.ts).
    // `counts: true`: the scheduler reads Meta's own count of each day's events (counts.ts).
    optionalConfig: ['action_source', 'api_version', DIAGNOSTICS_CONFIG, COUNTS_CONFIG],
    secrets: ['access_token'],
    baseUrl: false,
    testEventCode: true,
    // A string ("true") is refused: only the boolean turns it on, so nothing is asked by accident.
    configFormats: {
      [DIAGNOSTICS_CONFIG]: { pattern: /(?!)/, description: 'a boolean (true or false, unquoted)' },
      [COUNTS_CONFIG]: { pattern: /(?!)/, description: 'a boolean (true or false, unquoted)' },
    },
  },
  payload: {
    kind: 'mapped',
    mapping: META_MAPPING,
    ...META_STANDARD_EVENTS,
    consentSignals: metaConsentSignals,
    shape: metaServerEvent,
    trim: (serverEvent) =>
      [trimMetaEvent(serverEvent), trimMetaValue(serverEvent)].filter(Boolean).join('; ') || undefined,
    check: (serverEvent, now) => checkMetaEvent(serverEvent, now),
    request: metaRequest,
    maxEvents: META_MAX_EVENTS,
  },
  responses: META_RESPONSES,
  audiences: META_AUDIENCES,
  countReads: META_COUNTS,
});

/** The driver the forward function uses for `meta_capi` destinations. */
export const metaCapiDriver = META_PLATFORM.driver;
