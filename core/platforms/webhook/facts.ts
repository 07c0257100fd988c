/**
 * webhook's facts as data (core/platforms/platform.ts, `PlatformFacts`): what the studio's browser
 * bundle, the gateway and enrichment read about it without loading its driver. Imports types only.
 */
import type { PlatformFacts } from '../platform.ts';

export const WEBHOOK_FACTS: PlatformFacts = {
  type: 'webhook',
  names: { short: 'webhook', heading: 'Webhooks' },
  // The business's own endpoint: no consent purpose by default.
  consent: [],
};
