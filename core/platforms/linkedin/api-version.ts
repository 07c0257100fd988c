/**
 * The LinkedIn Marketing API version our requests carry (the `LinkedIn-Version` header), and
 * LinkedIn's sunset for it. Versions are monthly (`YYYYMM`) and each is kept at least a year; the
 * migrations page dates each one's sunset. A destination may send another (`config.api_version`).
 */
import type { ApiVersion } from '../platform.ts';

export const LINKEDIN_API = Object.freeze({
  version: '202603',
  carrier: 'header',
  header: 'linkedin-version',
  sunset: '2027-03-16',
  source: 'https://learn.microsoft.com/en-us/linkedin/marketing/integrations/migrations',
  override: 'api_version',
} as const satisfies ApiVersion);
