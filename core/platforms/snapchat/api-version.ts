/**
 * The Snap Conversions API version our requests carry (`/v3/`). Snap's page documents v3 and
 * dates only v2's deprecation (early 2025): no sunset is published for v3.
 */
import type { ApiVersion } from '../platform.ts';

export const SNAPCHAT_API = Object.freeze({
  version: 'v3',
  carrier: 'path',
  sunset: null,
  source: 'https://developers.snap.com/api/marketing-api/Conversions-API',
} as const satisfies ApiVersion);
