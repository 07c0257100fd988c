/**
 * How old a conversion LinkedIn's Conversions API takes (data; core/platforms/platform.ts
 * `AgeLimit`): `conversionHappenedAt` no older than 90 days.
 */
import type { AgeLimit } from '../platform.ts';

export const LINKEDIN_AGE_LIMIT: AgeLimit = {
  hours: 90 * 24,
  applies: 'conversions',
  source: 'https://learn.microsoft.com/en-us/linkedin/marketing/integrations/ads-reporting/conversions-api',
};
