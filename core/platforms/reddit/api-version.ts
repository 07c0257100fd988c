/**
 * The Reddit Ads API version our requests carry (`/api/v3/`): Reddit's current Ads API, for
 * which it publishes no sunset.
 */
import type { ApiVersion } from '../platform.ts';

export const REDDIT_API = Object.freeze({
  version: 'v3',
  carrier: 'path',
  sunset: null,
  source: 'https://ads-api.reddit.com/docs/v3/',
} as const satisfies ApiVersion);
