/**
 * webhook's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. It imports only its
 * folder's other data files (api-version.ts, standard-events.ts).
 */
import type { PlatformFacts } from '../platform.ts';
import { WEBHOOK_API } from './api-version.ts';

export const WEBHOOK_FACTS: PlatformFacts = {
  type: 'webhook',
  names: { short: 'webhook', heading: 'Webhooks' },
  // The business's own endpoint: no consent purpose by default.
  consent: [],
  apiVersion: WEBHOOK_API,
  counts: {
    none: 'the platform reports no counts: a webhook is the customer’s own endpoint, whose 2xx is its whole answer',
    doc: 'docs/senders.md',
  },
};
