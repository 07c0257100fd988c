/**
 * How old an event Meta's Conversions API takes (data; core/platforms/platform.ts `AgeLimit`):
 * `event_time` may be at most 7 days before the event is sent, and up to 62 days for
 * `action_source: physical_store`; an older one fails the whole request (error 2804003).
 */
import type { AgeLimit } from '../platform.ts';

export const META_AGE_LIMIT: AgeLimit = {
  hours: 7 * 24,
  applies: 'web events',
  source: 'https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/server-event/',
  longer: {
    config: 'action_source',
    value: 'physical_store',
    hours: 62 * 24,
    applies: 'physical store events',
  },
};
