/**
 * How old a conversion Google Ads takes (data; core/platforms/platform.ts `AgeLimit`): a click
 * conversion is imported only within the conversion action's click-through window, at most 90
 * days after the click; the click came before the conversion, so a conversion older than 90 days
 * can never be imported.
 */
import type { AgeLimit } from '../platform.ts';

export const GOOGLE_ADS_AGE_LIMIT: AgeLimit = {
  hours: 90 * 24,
  applies: 'click conversions',
  source: 'https://developers.google.com/google-ads/api/docs/conversions/upload-offline',
};
