/**
 * Webhooks carry our own stored event to the business's endpoint: no platform API, no version,
 * no sunset (the format is ours: docs/delivery.md).
 */
import type { ApiVersion } from '../platform.ts';

export const WEBHOOK_API = Object.freeze({
  version: null,
  carrier: 'none',
  sunset: null,
  source: 'docs/delivery.md',
} as const satisfies ApiVersion);
