/**
 * Defined events (docs/definitions.md): the registry's `EventDefinition`s as the normaliser sees
 * them — which definition version an event is checked against, its compiled validator, and the
 * defined name a typo was most likely meant to be. Pure: the adapter (adapters/definitions.ts)
 * reads the registry and hands a snapshot here.
 *
 * Versions are immutable, so a validator compiled for `name@major.minor` is kept for the life
 * of the process whatever snapshot it came from.
 */
import { nearestName } from '../../schemas/catalogue.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { FieldSpec } from './definitions.ts';
import { compileDefinition, type DefinitionValidator } from './event-validator.ts';

/** The `spec` of an EventDefinition, as `apply` checked it. */
export interface DefinitionSpec {
  readonly fields: readonly FieldSpec[];
  readonly mappings?: Readonly<Record<string, unknown>>;
  /** `YYYY-MM-DD`: until then an event invalid here but valid under the previous major is accepted. */
  readonly accept_previous_major_until?: string;
}

/** A previous major still accepted (docs/versioning.md): answered with Deprecation and Sunset. */
export interface Deprecated {
  readonly event: DefinedEvent;
  /** When the current major was created (epoch ms): the `Deprecation` date. */
  readonly sinceMs: number;
  /** The end of `accept_previous_major_until` (epoch ms, exclusive): the `Sunset` date. */
  readonly untilMs: number;
}

/** One version of one definition. */
export interface DefinedEvent {
  readonly name: string;
  /** `major.minor`. */
  readonly version: string;
  readonly spec: DefinitionSpec;
  /** `name@major.minor`, the stamp the gateway sets and `store` stores as definition_version. */
  readonly stamp: string;
  readonly validate: DefinitionValidator;
  /** `event_data.…` paths of the fields marked `pii` (objects' fields included, not arrays'). */
  readonly piiPaths: readonly string[];
  /** The previous major, while `accept_previous_major_until` keeps it accepted. */
  readonly previous?: Deprecated;
}

export interface DefinedEvents {
  /** The current version of a defined event, or undefined. */
  current(name: string): DefinedEvent | undefined;
  /** A given version (`name@major.minor`), when it is held (the current ones, and any loaded). */
  exact(stamp: string): DefinedEvent | undefined;
  /** The defined name a name that is not defined was most likely meant to be. */
  near(name: string): string | undefined;
}

const compiled = new Map<string, DefinedEvent>();

/**
 * A definition version with its validator, compiled once per process. `previous` is the last
 * version of the previous major and `created` this version's creation time, for
 * `accept_previous_major_until` (both are fixed for a version, like everything else here).
 */
export function definedEvent(
  name: string,
  version: string,
  spec: DefinitionSpec,
  extra: { created?: string; previous?: DefinedEvent } = {},
): DefinedEvent {
  const stamp = `${name}@${version}`;
  // Keyed by content too: a version is immutable in one registry, but a process (a test, the
  // CLI) may meet two registries that both have a quote_requested@1.0.
  const key = `${stamp}\n${JSON.stringify(spec)}`;
  let d = compiled.get(key);
  if (!d || (extra.previous && !d.previous)) {
    const until = spec.accept_previous_major_until;
    const previous =
      extra.previous && until
        ? {
            event: extra.previous,
            sinceMs: Date.parse(extra.created ?? '') || 0,
            untilMs: Date.parse(`${until}T00:00:00Z`) + 86_400_000,
          }
        : undefined;
    d = {
      name,
      version,
      spec,
      stamp,
      validate: compileDefinition(spec.fields),
      piiPaths: piiPaths(spec.fields),
      ...(previous ? { previous } : {}),
    };
    compiled.set(key, d);
  }
  return d;
}

function piiPaths(fields: readonly FieldSpec[], prefix = 'event_data'): string[] {
  return fields.flatMap((f) => {
    const path = `${prefix}.${f.name}`;
    if (f.pii) return [path];
    return f.type === 'object' && f.fields ? piiPaths(f.fields, path) : [];
  });
}

const STAMP = /^([a-z][a-z0-9_]{0,39})@(\d{1,6}\.\d{1,6})$/;

/** Splits `name@major.minor`; undefined when it is not a stamp. */
export function parseStamp(stamp: string): { name: string; version: string } | undefined {
  const m = STAMP.exec(stamp);
  return m ? { name: m[1] as string, version: m[2] as string } : undefined;
}

/** The major version of `major.minor`. */
export const majorOf = (version: string): number => Number(version.split('.')[0]);

/**
 * The defined events of one registry snapshot, plus older versions the caller loaded (store
 * re-validates against the version the gateway stamped, which may no longer be current).
 */
export function definedEvents(
  current: readonly (
    | { name: string; version: string; spec: DefinitionSpec; created?: string; previous?: DefinedEvent }
    | DefinedEvent
  )[],
  older: readonly DefinedEvent[] = [],
): DefinedEvents {
  const byName = new Map(
    current.map((d) => [
      d.name,
      'stamp' in d
        ? d
        : definedEvent(d.name, d.version, d.spec, {
            ...(d.created ? { created: d.created } : {}),
            ...(d.previous ? { previous: d.previous } : {}),
          }),
    ]),
  );
  const byStamp = new Map<string, DefinedEvent>();
  for (const d of [...older, ...byName.values()]) {
    byStamp.set(d.stamp, d);
    if (d.previous) byStamp.set(d.previous.event.stamp, d.previous.event);
  }
  const names = [...byName.keys()];
  return {
    current: (name) => byName.get(name),
    exact: (stamp) => byStamp.get(stamp),
    near: (name) => (byName.has(name) ? undefined : nearestName(name, names)),
  };
}

/** No definitions at all (an environment that has none, or a caller that does not check them). */
export const NO_DEFINITIONS: DefinedEvents = definedEvents([]);

/**
 * The destination as it applies to one defined event: the definition's mapping for the
 * destination's type (`spec.mappings.meta_capi`, …) under the event's name, unless the settings
 * already map that name there (an engineer's override wins over a definition's).
 */
export function withDefinitionMappings(
  destination: Readonly<Destination>,
  def: DefinedEvent | undefined,
): Readonly<Destination> {
  const mapping = def?.spec.mappings?.[destination.type];
  if (mapping === undefined || destination.mappings?.[def?.name as string] !== undefined) return destination;
  type Mappings = NonNullable<Destination['mappings']>;
  const mappings: Mappings = {
    ...destination.mappings,
    [(def as DefinedEvent).name]: mapping as Mappings[string],
  };
  return { ...destination, mappings };
}
