/**
 * Segment action’s facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { SEGMENT_ACTION_API } from './api-version.ts';

export const SEGMENT_ACTION_FACTS: PlatformFacts = {
  type: 'segment_action',
  names: { short: 'Segment action', heading: 'Segment Action Destinations' },
  // CRM, e-mail and analytics tools by default; an ad destination's settings name `ads` too.
  consent: ['analytics'],
  apiVersion: SEGMENT_ACTION_API,
  counts: {
    none: 'the platform reports no counts to this service: a Segment action’s destination answers per request',
    doc: 'https://github.com/segmentio/action-destinations',
  },
};
