/**
 * Money events a page sent without the right to: what makes one (a browser write key without the
 * money allowance publishing a money event), the attribute that marks it, and the decision rule
 * that keeps it from the ad platforms as a conversion (docs/gateway.md, "Unverified money events").
 * A write key sits in every page's source, so anyone can send `purchase` with it; such an event is
 * stored (nothing is lost, reports can count it) but a platform that bids on conversions never
 * gets it unless the key was given the allowance (`eventbus key create --money`).
 */
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { DEFAULT_CONSENT } from '../platforms/requirements.ts';

/** The events that report money paid: an ad platform counts them as conversions, with their value. */
export const MONEY_EVENTS: ReadonlySet<string> = new Set(['purchase', 'subscribe']);

/**
 * The message attribute set by the gateway on a money event from a write key without the money
 * allowance (value `money`), kept in the stored event's attributes and carried to the decision
 * layer as the stored event's `unverified`. The gateway sets it over any value a producer sent.
 */
export const UNVERIFIED_ATTRIBUTE = 'unverified';

/** Whether an event name is a money event (MONEY_EVENTS). */
export function isMoneyEvent(eventName: string): boolean {
  return MONEY_EVENTS.has(eventName);
}

/** What an `unverified` attribute value says: `money`, or nothing (absent, or not ours). */
export function unverifiedOf(value: string | undefined): 'money' | undefined {
  return value === 'money' ? 'money' : undefined;
}

/**
 * The skip reason of an unverified money event for a destination, or undefined: an ad platform
 * (one whose platform needs `ads` consent by default) never gets it; GA4 and webhooks do (they
 * report, they do not bid), with the attribute in the stored event for them to read.
 */
export function unverifiedSkip(
  destination: Readonly<Destination>,
  event: Pick<StoredEvent, 'event_name' | 'unverified'>,
): string | undefined {
  if (event.unverified !== 'money' || !DEFAULT_CONSENT[destination.type].includes('ads')) return undefined;
  return `unverified money event ${event.event_name}: a browser write key without the money allowance sent it (eventbus key create --money)`;
}
