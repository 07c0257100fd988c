/**
 * The TikTok API for Business version our requests carry (`/open_api/v1.3/`). TikTok's versioning
 * page lists v1.3 as current and "available until: TBD": no sunset is published.
 */
import type { ApiVersion } from '../platform.ts';

export const TIKTOK_API = Object.freeze({
  version: 'v1.3',
  carrier: 'path',
  sunset: null,
  source: 'https://business-api.tiktok.com/portal/docs?id=1740029169927169',
} as const satisfies ApiVersion);
