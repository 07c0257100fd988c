/**
 * The Meta API version our requests carry (events and custom audiences), and Meta's sunset for it.
 * The Conversions API and custom audiences are Marketing API endpoints, and Meta dates Marketing
 * API versions apart from (and earlier than) Graph API versions: v25.0 is served by the Graph API
 * until 2028-07-29 but by the Marketing API only until 2027-02-23, so the Marketing API's date is
 * the one that counts. A destination may send another version (`config.api_version`).
 */
import type { ApiVersion } from '../platform.ts';

export const META_API = Object.freeze({
  version: 'v25.0',
  carrier: 'path',
  sunset: '2027-02-23',
  source:
    'https://developers.facebook.com/documentation/ads-commerce/marketing-api/marketing-api-changelog/versions',
  override: 'api_version',
} as const satisfies ApiVersion);
