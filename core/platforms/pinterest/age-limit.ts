/**
 * How old an event Pinterest's Conversions API takes (data; core/platforms/platform.ts
 * `AgeLimit`): only events of the previous seven days may be sent to `events/create`
 * (Amperity's Pinterest guide, which cites Pinterest's own page: docs/platforms.md, "Pinterest").
 */
import type { AgeLimit } from '../platform.ts';

export const PINTEREST_AGE_LIMIT: AgeLimit = {
  hours: 7 * 24,
  applies: 'conversion events',
  source: 'https://developers.pinterest.com/docs/api/v5/events-create',
};
