/**
 * The settings a catalogue audience destination asks of each audience connected to it (Segment's
 * `audienceFields`, which Segment's app asks when an audience is connected: Dynamic Yield's
 * `audience_name` and `identifier_type`), checked on an `audience` sync's `settings` when it is
 * applied (docs/syncs.md, "Audience events"): without them every member would be refused by the
 * action (`Audience Name is required`). Pure.
 */

import type { Destination } from '../../schemas/settings.ts';
import { isCatalogDestination } from '../deploy/catalog-function.ts';
import { catalogEntry } from '../platforms/segment-action/catalog.ts';
import type { FieldViolation } from '../validation.ts';

/**
 * The violations of an audience sync's `settings` (`prefix` names the spec): each setting a
 * connected catalogue destination requires that the settings leave out or empty, named by field.
 * `catalogue` maps the settings' `segment_action` destination ids to their Segment folder; a
 * destination not in it (another type, or unknown here) asks nothing.
 */
export function audienceSettingViolations(
  spec: unknown,
  prefix: string,
  catalogue: Readonly<Record<string, string>> | undefined,
): FieldViolation[] {
  const audience = (spec as { destination?: { audience?: unknown } } | undefined)?.destination?.audience;
  if (catalogue === undefined || typeof audience !== 'object' || audience === null) return [];
  const { destinations, settings } = audience as { destinations?: unknown; settings?: unknown };
  if (!Array.isArray(destinations)) return [];
  const given = (typeof settings === 'object' && settings !== null ? settings : {}) as Record<
    string,
    unknown
  >;
  const out: FieldViolation[] = [];
  const asked = new Set<string>();
  for (const id of destinations) {
    const slug = typeof id === 'string' && Object.hasOwn(catalogue, id) ? catalogue[id] : undefined;
    const entry = slug === undefined ? undefined : catalogEntry(slug);
    for (const f of entry?.audienceFields ?? []) {
      if (!f.required || asked.has(f.key) || ![undefined, null, ''].includes(given[f.key] as never)) continue;
      asked.add(f.key);
      out.push({
        field: `${prefix}.destination.audience.settings.${f.key}`,
        description: `is required by destination ${id} (${entry?.name}) of each audience connected to it: ${f.label}${f.description ? `, ${f.description}` : ''}`,
      });
    }
  }
  return out;
}

/** The settings' `segment_action` destinations, id → Segment folder (what audienceSettingViolations reads). */
export function catalogDestinationsOf(destinations: readonly Destination[]): Record<string, string> {
  return Object.fromEntries(
    destinations.flatMap((d) =>
      isCatalogDestination(d) && typeof d.destination === 'string' ? [[d.id, d.destination]] : [],
    ),
  );
}
