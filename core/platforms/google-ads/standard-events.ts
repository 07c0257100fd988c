/**
 * Google Ads has no event names on the wire: each conversion is routed to a conversion action
 * the advertiser created, by its id (docs/platforms.md §6). So the creator offers no
 * names to pick from — a custom event is sent as the conversion action id a person types — and
 * the value and its currency sit at the top of the Data Manager event. Data only, importing
 * nothing: the creator's browser bundle reads it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const GOOGLE_ADS_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [],
  // What the platform says matters most for matching (docs/platforms.md).
  matchGuidance: 'Google Ads: gclid (or gbraid/wbraid), then hashed email or phone (enhanced conversions).',
  valueTargets: { value: 'conversionValue', currency: 'currency' },
};
