/**
 * The one table of platforms: one line per destination type, each the `Platform` value its
 * folder exports. Every other table — requirements, default consent and TCF vendors (requirements.ts), drivers
 * (drivers.ts), mappings (mappings.ts) — is derived from it; the creator's browser-safe list of
 * standard events (standard-events.ts) is checked against it. Adding a platform is a folder, a
 * line here, its settings type (schemas/settings.ts), its local stand-in (local/platforms/) and
 * its docs section (docs/architecture.md, "Platforms").
 */
import type { DestinationType } from '../../schemas/settings.ts';
import { GA4_PLATFORM } from './ga4/index.ts';
import { GOOGLE_ADS_PLATFORM } from './google-ads/index.ts';
import { LINKEDIN_PLATFORM } from './linkedin/index.ts';
import type { MappingDefaults } from './mapping-resolve.ts';
import { META_PLATFORM } from './meta/index.ts';
import { MICROSOFT_PLATFORM } from './microsoft/index.ts';
import { PINTEREST_PLATFORM } from './pinterest/index.ts';
import type { MappedPayload, Platform } from './platform.ts';
import { REDDIT_PLATFORM } from './reddit/index.ts';
import { SEGMENT_ACTION_PLATFORM } from './segment-action/index.ts';
import { SNAPCHAT_PLATFORM } from './snapchat/index.ts';
import { TIKTOK_PLATFORM } from './tiktok/index.ts';
import { WEBHOOK_PLATFORM } from './webhook/index.ts';
import { X_PLATFORM } from './x/index.ts';

/** Every platform by its destination type (the type checker refuses a settings type without one). */
export const PLATFORMS: Readonly<Record<DestinationType, Platform>> = Object.freeze({
  meta_capi: META_PLATFORM,
  ga4_mp: GA4_PLATFORM,
  tiktok_events: TIKTOK_PLATFORM,
  google_ads: GOOGLE_ADS_PLATFORM,
  pinterest_capi: PINTEREST_PLATFORM,
  snapchat_capi: SNAPCHAT_PLATFORM,
  x_conversions: X_PLATFORM,
  webhook: WEBHOOK_PLATFORM,
  linkedin_capi: LINKEDIN_PLATFORM,
  microsoft_uet: MICROSOFT_PLATFORM,
  reddit_capi: REDDIT_PLATFORM,
  segment_action: SEGMENT_ACTION_PLATFORM,
});

/** The platforms in the table's order. */
export const PLATFORM_LIST: readonly Platform[] = Object.freeze(Object.values(PLATFORMS));

/** A table keyed by destination type: one value derived from every platform. */
export function everyPlatform<T>(pick: (p: Platform) => T): Readonly<Record<DestinationType, T>> {
  const out: Partial<Record<DestinationType, T>> = {};
  for (const p of PLATFORM_LIST) out[p.type] = pick(p);
  return Object.freeze(out as Record<DestinationType, T>);
}

/**
 * Destination types whose payload comes from a mapping. The type names the platforms sent the
 * stored event instead (the webhook); the list, MAPPED_PLATFORMS, is derived.
 */
export type MappedType = Exclude<DestinationType, 'webhook' | 'segment_action'>;

/** A platform whose payload comes from a mapping. */
export type MappedPlatform = Platform & {
  readonly type: MappedType;
  readonly payload: MappedPayload;
  readonly defaults: MappingDefaults;
};

/** The platforms whose payload comes from a mapping, in the table's order. */
export const MAPPED_PLATFORMS: readonly MappedPlatform[] = Object.freeze(
  PLATFORM_LIST.filter((p): p is MappedPlatform => p.payload.kind === 'mapped' && p.defaults !== undefined),
);

/** A table keyed by mapped destination type: one value derived from every mapped platform. */
export function everyMapped<T>(pick: (p: MappedPlatform) => T): Readonly<Record<MappedType, T>> {
  const out: Partial<Record<MappedType, T>> = {};
  for (const p of MAPPED_PLATFORMS) out[p.type] = pick(p);
  return Object.freeze(out as Record<MappedType, T>);
}
