/**
 * Minimum instances asked for in development: without `production: true` every service scales to
 * zero (core/plan.ts), so a `functions.<service>.min_instances` above zero is not applied. Said,
 * never refused: the same settings file may be promoted by adding `production: true`.
 */
import type { Settings } from '../../schemas/settings.ts';

export function minInstancesWarnings(settings: Readonly<Settings>): string[] {
  if (settings.production === true) return [];
  return Object.entries(settings.functions ?? {})
    .filter(([, s]) => (s?.min_instances ?? 0) > 0)
    .map(
      ([name, s]) =>
        `functions.${name}.min_instances: ${s?.min_instances} is not applied without production: true ` +
        '(development scales every service to zero; docs/scale.md#development-and-production)',
    );
}
