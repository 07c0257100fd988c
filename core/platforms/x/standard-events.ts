/**
 * X has no event names on the wire: each conversion goes to an event the advertiser created in
 * X's Events Manager, by its id (`o87ne`, or `tw-<pixel>-o87ne`) (docs/platforms.md, "X"). So the
 * creator offers no names to pick from, and the value and its currency sit at the top of the
 * conversion. Data only, importing nothing: the creator's browser bundle reads it
 * (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const X_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [],
  valueTargets: { value: 'value', currency: 'price_currency' },
};
