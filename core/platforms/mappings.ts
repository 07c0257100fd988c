/**
 * Which destination types take a mapping, their built-in mappings and envelopes, and the mapping
 * that applies to an event at a destination — derived from the table of platforms
 * (platforms.ts); the merge itself is mapping-resolve.ts, which each platform's driver uses on
 * its own mapping.
 */
import type { ResolvedMapping } from '../../schemas/mapping.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { type FieldOrigin, traceMapping } from '../linkage/engine.ts';
import { type MappingDefaults, resolveWith } from './mapping-resolve.ts';
import type { Fields } from './mapping-vocabulary.ts';
import { everyMapped, MAPPED_PLATFORMS, type MappedType } from './platforms.ts';

export type { MappedType };

/** Each mapped platform's built-in mapping, merged once by its platform value. */
const DEFAULTS: Readonly<Record<MappedType, MappingDefaults>> = everyMapped((p) => p.defaults);

/** The destination types that use mappings, in the table's order. */
export const MAPPED_TYPES: readonly MappedType[] = Object.freeze(MAPPED_PLATFORMS.map((p) => p.type));

/** True for the destination types whose payload comes from a mapping. */
export function isMappedType(type: Destination['type']): type is MappedType {
  return Object.hasOwn(DEFAULTS, type);
}

/** The built-in mapping of every catalogue event, per destination type. */
export const DEFAULT_MAPPINGS: Readonly<Record<MappedType, Readonly<Record<string, ResolvedMapping>>>> =
  everyMapped((p) => p.defaults.events);

/**
 * Whether a destination type sends a custom event of this name under the platform's own event
 * of the name with no mapping in the settings (GA4's recommended `login`: PlatformMapping's `native`).
 */
export function isNativeEvent(type: Destination['type'], eventName: string): boolean {
  return isMappedType(type) && Object.hasOwn(DEFAULTS[type].native, eventName);
}

/** The fields every mapping of a type starts from (custom-event mappings get them too). */
export const ENVELOPES: Readonly<Record<MappedType, Readonly<Fields>>> = everyMapped(
  (p) => p.defaults.envelope,
);

/**
 * The mapping for one event at one destination, or undefined when there is none (a custom
 * event without a mapping, or a webhook). `replace: true` drops the default and the envelope;
 * a `null` field removes a default field.
 */
export function resolveMapping(
  destination: Readonly<Pick<Destination, 'type' | 'mappings'>>,
  eventName: string,
): ResolvedMapping | undefined {
  if (!isMappedType(destination.type)) return undefined;
  return resolveWith(DEFAULTS[destination.type], destination, eventName);
}

/** Each mapped platform's rule for events its settings route nowhere (only some platforms have one). */
const UNROUTED = everyMapped((p) => p.unrouted);

/**
 * Why an event is not sent to a destination that routes it nowhere (Google Ads without a
 * conversion action for it), or undefined: the decision layer skips it with this reason.
 */
export function unroutedReason(
  destination: Readonly<Pick<Destination, 'type' | 'mappings'>>,
  eventName: string,
): string | undefined {
  if (!isMappedType(destination.type)) return undefined;
  const rule = UNROUTED[destination.type];
  return rule?.(eventName, resolveMapping(destination, eventName)?.event);
}

/** Where each field the destination's mapping fills for this event comes from (for preview). */
export function traceForDestination(destination: Readonly<Destination>, event: StoredEvent): FieldOrigin[] {
  const mapping = resolveMapping(destination, event.event_name);
  return mapping === undefined ? [] : traceMapping(mapping, event);
}
