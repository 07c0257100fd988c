/**
 * LinkedIn has no event names on the wire: each conversion goes to a conversion rule the
 * advertiser created in Campaign Manager (its type — PURCHASE, LEAD … — is set there), by the
 * rule's id (docs/platforms.md, LinkedIn). So the creator offers no names to pick from — a custom
 * event is sent as the rule id a person types — and the value sits in `conversionValue`. Data
 * only, importing nothing: the creator's browser bundle reads it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const LINKEDIN_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [],
  valueTargets: { value: 'conversionValue.amount', currency: 'conversionValue.currencyCode' },
};
