/**
 * The Data Manager API version our Google Ads requests carry (`/v1/`). Google ships it as minor
 * releases of v1 (1.3, 1.4 in its release notes) and has announced no sunset for v1.
 */
import type { ApiVersion } from '../platform.ts';

export const GOOGLE_ADS_API = Object.freeze({
  version: 'v1',
  carrier: 'path',
  sunset: null,
  source: 'https://developers.google.com/data-manager/api/reference',
} as const satisfies ApiVersion);
