/**
 * How old an event Snap's Conversions API reports (data; core/platforms/platform.ts `AgeLimit`):
 * "events can have a date (timestamp) of maximum 37 days back to be eligible to be reported".
 */
import type { AgeLimit } from '../platform.ts';

export const SNAPCHAT_AGE_LIMIT: AgeLimit = {
  hours: 37 * 24,
  applies: 'conversion events',
  source: 'https://developers.snap.com/api/marketing-api/Conversions-API',
};
