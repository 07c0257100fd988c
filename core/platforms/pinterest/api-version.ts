/**
 * The Pinterest API version our requests carry (`/v5/`): Pinterest's current API, for which
 * it publishes no sunset.
 */
import type { ApiVersion } from '../platform.ts';

export const PINTEREST_API = Object.freeze({
  version: 'v5',
  carrier: 'path',
  sunset: null,
  source: 'https://developers.pinterest.com/docs/api/v5/',
} as const satisfies ApiVersion);
