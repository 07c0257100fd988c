/**
 * Which mapping applies to an event at a destination: the built-in default for catalogue
 * events, merged field by field with the destination's `mappings` override; for custom
 * events the destination's mapping on top of the platform envelope.
 */

import type { FieldRule, Mapping, ResolvedMapping } from '../../schemas/mapping.ts';
import type { Destination } from '../../schemas/settings.ts';
import { DEFAULT_MAPPINGS, ENVELOPES, type MappedType } from './mapping-defaults.ts';

/** True for the destination types whose payload comes from a mapping. */
export function isMappedType(type: Destination['type']): type is MappedType {
  return type === 'meta_capi' || type === 'ga4_mp' || type === 'tiktok_events';
}

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
  const base = DEFAULT_MAPPINGS[destination.type][eventName];
  const override = destination.mappings?.[eventName] as Mapping | undefined;
  if (override === undefined) return base;
  const event = override.event ?? base?.event;
  if (event === undefined) return undefined;
  const start: Readonly<Record<string, FieldRule>> = override.replace
    ? {}
    : (base?.fields ?? ENVELOPES[destination.type]);
  const fields: Record<string, FieldRule> = { ...start };
  for (const [target, rule] of Object.entries(override.fields ?? {})) {
    if (rule === null) delete fields[target];
    else fields[target] = rule;
  }
  return Object.freeze({ event, fields: Object.freeze(fields) });
}
