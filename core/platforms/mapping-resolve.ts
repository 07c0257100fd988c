/**
 * Which mapping applies to an event at a destination of one platform: the platform's built-in
 * mapping for catalogue events, merged field by field with the destination's `mappings`
 * override; for custom events the destination's mapping on top of the platform's envelope.
 * Pure over one platform's mapping, so a platform's driver resolves its own without reading the
 * table of all platforms (docs/architecture.md, "Platforms").
 */
import type { FieldSource, Mapping, ResolvedMapping } from '../../schemas/mapping.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { Fields, PlatformMapping } from './mapping-vocabulary.ts';

/** A platform's built-in mapping, with the envelope merged into each catalogue event's fields. */
export interface MappingDefaults {
  readonly envelope: Readonly<Fields>;
  readonly events: Readonly<Record<string, ResolvedMapping>>;
  /** The platform's own events outside the catalogue (PlatformMapping's `native`), envelope merged. */
  readonly native: Readonly<Record<string, ResolvedMapping>>;
}

/** Builds a platform's defaults once: every catalogue event gets the envelope plus its own fields. */
export function mappingDefaults({ envelope, events, native }: PlatformMapping): MappingDefaults {
  const merged = (table: PlatformMapping['events']) => {
    const out: Record<string, ResolvedMapping> = {};
    for (const [name, m] of Object.entries(table))
      out[name] = Object.freeze({ event: m.event, fields: Object.freeze({ ...envelope, ...m.fields }) });
    return Object.freeze(out);
  };
  return Object.freeze({
    envelope: Object.freeze({ ...envelope }),
    events: merged(events),
    native: merged(native ?? {}),
  });
}

/**
 * The mapping for one event at one destination of the platform whose defaults are given, or
 * undefined when there is none (a custom event without a mapping). `replace: true` drops the
 * default and the envelope; a `null` field removes a default field.
 */
export function resolveWith(
  defaults: MappingDefaults,
  destination: Readonly<Pick<Destination, 'mappings'>>,
  eventName: string,
): ResolvedMapping | undefined {
  const base = Object.hasOwn(defaults.events, eventName)
    ? defaults.events[eventName]
    : Object.hasOwn(defaults.native, eventName)
      ? defaults.native[eventName]
      : undefined;
  const override = destination.mappings?.[eventName] as Mapping | undefined;
  if (override === undefined) return base;
  const event = override.event ?? base?.event;
  if (event === undefined) return undefined;
  const start: Readonly<Record<string, FieldSource>> = override.replace
    ? {}
    : (base?.fields ?? defaults.envelope);
  const fields: Record<string, FieldSource> = { ...start };
  for (const [target, rule] of Object.entries(override.fields ?? {})) {
    if (rule === null) delete fields[target];
    else fields[target] = rule;
  }
  return Object.freeze({ event, fields: Object.freeze(fields) });
}
