/**
 * The platforms' own event names a custom event can be sent as (the studio's creator offers
 * them; docs/linkage.md), and where each platform's event carries a value and its currency.
 * Each list is written in its platform's folder (`<platform>/standard-events.ts`), which its
 * facts (`events`) and its value both carry. Derived from the browser-safe list of facts
 * (facts.ts), not platforms.ts: the creator is bundled for the browser, which cannot load the
 * platforms' drivers (validators, `node:crypto` signing). test/unit/platforms/folders.test.ts
 * checks each entry is the one the platform's value carries.
 */
import { factsWith } from './facts.ts';
import type { StandardEvents } from './platform.ts';
import type { MappedType } from './platforms.ts';

/** The destination types a custom event can be mapped to (the platforms sent a mapping). */
type PlatformType = MappedType;

const LISTS = Object.fromEntries(factsWith('events').map((f) => [f.type, f.events])) as Readonly<
  Record<PlatformType, StandardEvents>
>;

const byType = <T>(pick: (s: StandardEvents) => T): Readonly<Record<PlatformType, T>> =>
  Object.freeze(
    Object.fromEntries(Object.entries(LISTS).map(([type, s]) => [type, pick(s)])) as Record<PlatformType, T>,
  );

export const STANDARD_EVENTS: Readonly<Record<PlatformType, readonly string[]>> = byType(
  (s) => s.standardEvents,
);

/** Where each platform's request carries an event's value and currency. */
export const VALUE_TARGETS: Readonly<Record<PlatformType, { value: string; currency: string }>> = byType(
  (s) => s.valueTargets,
);

/** Where a platform's event says where the conversion happened, for the platforms that have it. */
export const ACTION_SOURCE_TARGETS: Readonly<Record<PlatformType, string | undefined>> = byType(
  (s) => s.actionSourceTarget,
);

/** What each platform says matters most for matching, for the platforms that say. */
export const MATCH_GUIDANCE: Readonly<Record<PlatformType, string | undefined>> = byType(
  (s) => s.matchGuidance,
);

export const PLATFORM_TYPES = Object.keys(LISTS) as PlatformType[];
export type { PlatformType };
