/**
 * How old an event GA4's Measurement Protocol takes (data; core/platforms/platform.ts
 * `AgeLimit`): `timestamp_micros` may backdate an event by up to 72 hours; an older one is
 * dropped without an error.
 */
import type { AgeLimit } from '../platform.ts';

export const GA4_AGE_LIMIT: AgeLimit = {
  hours: 72,
  applies: 'Measurement Protocol events',
  source: 'https://developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events',
};
