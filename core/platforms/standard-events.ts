/**
 * The platforms' own event names a custom event can be sent as (the studio's creator offers
 * them; docs/linkage.md), and where each platform's event carries a value and its currency.
 * Each list is written in its platform's folder (`<platform>/standard-events.ts`) and is part of
 * the platform's value. This file lists those data-only files itself instead of deriving from
 * platforms.ts: the creator is bundled for the browser, which cannot load the platforms' drivers
 * (validators, `node:crypto` signing). The type checker refuses a mapped type missing here, and
 * test/unit/platforms/folders.test.ts checks each entry is the one the platform's value carries.
 */
import { GA4_STANDARD_EVENTS } from './ga4/standard-events.ts';
import { GOOGLE_ADS_STANDARD_EVENTS } from './google-ads/standard-events.ts';
import { LINKEDIN_STANDARD_EVENTS } from './linkedin/standard-events.ts';
import { META_STANDARD_EVENTS } from './meta/standard-events.ts';
import { MICROSOFT_STANDARD_EVENTS } from './microsoft/standard-events.ts';
import { PINTEREST_STANDARD_EVENTS } from './pinterest/standard-events.ts';
import type { StandardEvents } from './platform.ts';
import type { MappedType } from './platforms.ts';
import { REDDIT_STANDARD_EVENTS } from './reddit/standard-events.ts';
import { SNAPCHAT_STANDARD_EVENTS } from './snapchat/standard-events.ts';
import { TIKTOK_STANDARD_EVENTS } from './tiktok/standard-events.ts';
import { X_STANDARD_EVENTS } from './x/standard-events.ts';

/** The destination types a custom event can be mapped to (the platforms sent a mapping). */
type PlatformType = MappedType;

const LISTS: Readonly<Record<PlatformType, StandardEvents>> = {
  meta_capi: META_STANDARD_EVENTS,
  ga4_mp: GA4_STANDARD_EVENTS,
  tiktok_events: TIKTOK_STANDARD_EVENTS,
  google_ads: GOOGLE_ADS_STANDARD_EVENTS,
  pinterest_capi: PINTEREST_STANDARD_EVENTS,
  snapchat_capi: SNAPCHAT_STANDARD_EVENTS,
  x_conversions: X_STANDARD_EVENTS,
  linkedin_capi: LINKEDIN_STANDARD_EVENTS,
  microsoft_uet: MICROSOFT_STANDARD_EVENTS,
  reddit_capi: REDDIT_STANDARD_EVENTS,
};

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
