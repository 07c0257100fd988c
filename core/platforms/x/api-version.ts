/**
 * The X Ads API version our requests carry (`/12/`). X's versioning page lists 12.0 with its
 * deprecation and end of life "TBD": no sunset is published (by X's policy a new version opens a
 * six-month deprecation of the one before, so a sunset would be known that far ahead).
 */
import type { ApiVersion } from '../platform.ts';

export const X_API = Object.freeze({
  version: '12',
  carrier: 'path',
  sunset: null,
  source: 'https://docs.x.com/x-ads-api/fundamentals/versioning',
} as const satisfies ApiVersion);
