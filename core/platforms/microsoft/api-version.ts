/**
 * The UET Conversions API version our requests carry (`/v1/`). Microsoft's CAPI guide documents
 * only v1 and publishes no sunset for it.
 */
import type { ApiVersion } from '../platform.ts';

export const MICROSOFT_API = Object.freeze({
  version: 'v1',
  carrier: 'path',
  sunset: null,
  source: 'https://learn.microsoft.com/en-us/advertising/guides/uet-conversion-api-integration',
} as const satisfies ApiVersion);
