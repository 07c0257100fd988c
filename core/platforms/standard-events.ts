/**
 * The platforms' own event names a custom event can be sent as (the studio's creator offers
 * them; docs/linkage.md), and where each platform's event carries a value and its currency —
 * derived from the table of platforms (platforms.ts); each list is written in its platform's
 * folder, from the platform's published list of standard events.
 */
import { everyMapped, type MappedType } from './platforms.ts';

/** The destination types a custom event can be mapped to. */
type PlatformType = MappedType;

export const STANDARD_EVENTS: Readonly<Record<PlatformType, readonly string[]>> = everyMapped(
  (p) => p.payload.standardEvents,
);

/** Where each platform's request carries an event's value and currency. */
export const VALUE_TARGETS: Readonly<Record<PlatformType, { value: string; currency: string }>> = everyMapped(
  (p) => p.payload.valueTargets,
);

export const PLATFORM_TYPES = Object.keys(STANDARD_EVENTS) as PlatformType[];
export type { PlatformType };
