/**
 * How old an event Reddit's Conversions API takes (data; core/platforms/platform.ts `AgeLimit`):
 * `event_at` less than 7 days old.
 */
import type { AgeLimit } from '../platform.ts';

export const REDDIT_AGE_LIMIT: AgeLimit = {
  hours: 7 * 24,
  applies: 'conversion events',
  source: 'https://ads-api.reddit.com/docs/v3/',
};
