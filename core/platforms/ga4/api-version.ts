/**
 * The GA4 Measurement Protocol has no version: `/mp/collect` is unversioned, so there is nothing
 * to pin and no sunset to watch.
 */
import type { ApiVersion } from '../platform.ts';

export const GA4_API = Object.freeze({
  version: null,
  carrier: 'none',
  sunset: null,
  source: 'https://developers.google.com/analytics/devguides/collection/protocol/ga4',
} as const satisfies ApiVersion);
