/**
 * Built-in mappings from the standard catalogue to each platform, assembled from each
 * platform's own folder (meta/, ga4/, tiktok/mapping.ts). Every platform event gets the
 * platform's envelope (time, id, hashed user data, page) plus the event's own fields.
 */
import type { ResolvedMapping } from '../../schemas/mapping.ts';
import { GA4_MAPPING } from './ga4/mapping.ts';
import type { Fields, PlatformMapping } from './mapping-rules.ts';
import { META_MAPPING } from './meta/mapping.ts';
import { TIKTOK_MAPPING } from './tiktok/mapping.ts';

/** Destination types that use mappings (webhooks send the stored event as it is). */
export type MappedType = 'meta_capi' | 'ga4_mp' | 'tiktok_events';
export const MAPPED_TYPES: readonly MappedType[] = Object.freeze(['meta_capi', 'ga4_mp', 'tiktok_events']);

function build({ envelope, events }: PlatformMapping): Readonly<Record<string, ResolvedMapping>> {
  const out: Record<string, ResolvedMapping> = {};
  for (const [name, m] of Object.entries(events)) {
    out[name] = Object.freeze({ event: m.event, fields: Object.freeze({ ...envelope, ...m.fields }) });
  }
  return Object.freeze(out);
}

/** The built-in mapping of every catalogue event, per destination type. */
export const DEFAULT_MAPPINGS: Readonly<Record<MappedType, Readonly<Record<string, ResolvedMapping>>>> =
  Object.freeze({
    meta_capi: build(META_MAPPING),
    ga4_mp: build(GA4_MAPPING),
    tiktok_events: build(TIKTOK_MAPPING),
  });

/** The fields every mapping of a type starts from (custom-event mappings get them too). */
export const ENVELOPES: Readonly<Record<MappedType, Readonly<Fields>>> = Object.freeze({
  meta_capi: Object.freeze(META_MAPPING.envelope),
  ga4_mp: Object.freeze(GA4_MAPPING.envelope),
  tiktok_events: Object.freeze(TIKTOK_MAPPING.envelope),
});
