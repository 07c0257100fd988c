/**
 * The `forward-catalog` function's deploy shape (issue #65, docs/deploy.md "Catalogue
 * destinations"): which destinations it serves (those of `type: segment_action`), which
 * Segment destination folders its bundle carries, and its default sizing. Segment's runtime and
 * its destinations (~90 MB installed) stay out of `forward`: a second function, deployed only
 * when a catalogue destination exists, pushed by those destinations' own subscriptions. Pure.
 */

/** The destination type the catalogue runtime serves (schemas/settings.ts). */
export const CATALOG_DESTINATION_TYPE = 'segment_action';

/** The function's name: its plan entry, its functions-framework target's folder, its bundle. */
export const CATALOG_FUNCTION = 'forward-catalog';

/** Its functions-framework target (functions/forward-catalog/index.ts registers it). */
export const CATALOG_ENTRY_POINT = 'forwardCatalog';

/** Where the runtime deep-imports one destination from: `<package>/dist/destinations/<slug>`. */
export const SEGMENT_DESTINATIONS_PACKAGE = '@segment/action-destinations';
export const SEGMENT_DESTINATIONS_DIR = 'dist/destinations';

/** What this module reads of a destination (any version of the settings schema satisfies it). */
export interface DestinationLike {
  readonly id: string;
  readonly type: string;
  readonly enabled?: boolean | undefined;
  readonly destination?: unknown;
}

/** Whether a destination is delivered by `forward-catalog` rather than `forward`. */
export const isCatalogDestination = (d: Pick<DestinationLike, 'type'>): boolean =>
  d.type === CATALOG_DESTINATION_TYPE;

/** The enabled catalogue destinations of settings, in settings order. */
export function catalogDestinations<D extends DestinationLike>(settings: {
  readonly destinations?: readonly D[] | undefined;
}): D[] {
  return (settings.destinations ?? []).filter((d) => d.enabled !== false && isCatalogDestination(d));
}

/**
 * The Segment destination folders (slugs) the settings use, sorted and unique: what the
 * function's bundle carries, and nothing else. A slug is a folder name, never a path.
 */
export function catalogSlugs(settings: {
  readonly destinations?: readonly DestinationLike[] | undefined;
}): string[] {
  const slugs = catalogDestinations(settings)
    .map((d) => d.destination)
    .filter((s): s is string => typeof s === 'string' && /^[a-z0-9][a-z0-9._-]*$/i.test(s));
  return [...new Set(slugs)].sort();
}

/**
 * Its sizing unless `functions.forward-catalog` says otherwise. A Segment action builds its
 * payload with mapping-kit and validates it against the action's schema before one request: more
 * CPU per delivery than `forward`'s hand-written drivers, and the destination's module held in
 * memory, hence 1 GiB. Concurrency and max_instances come from the cost model like forward's
 * (core/deploy/cost.ts, `forwardSizing`, with CATALOG_CPU_SECONDS); it scales to zero when idle.
 */
export const CATALOG_DEFAULT_MEMORY = '1Gi';

/**
 * CPU seconds per catalogue delivery the model uses. `npm run bench forward-catalog` (2026-11-25,
 * quiet machine, docs/bench.md) measured Klaviyo's trackEvent at 0.81 ms a delivery under the
 * functions framework, 2.44 times forward's 0.33 ms for a webhook in the same run (mapping-kit,
 * the action's schema validation, actions-core's request client). The model keeps forward's
 * figure from the delivery bench (MEASURED_CPU.forward, 450 µs) and this one at the same ratio,
 * rounded up: re-measure and update both together.
 */
export const CATALOG_CPU_SECONDS = 1.1e-3;
