/**
 * Cloud Build regions for the functions' gen2 builds (only the functions are built: the gateway
 * and the studio run from their archives). Cloud Build refuses builds in some regions for new
 * projects ("due to quota restrictions, Cloud Build cannot run builds in this region"; public
 * reports name europe-west3 refused where europe-west1 worked), and Google publishes no list of
 * the regions a new project may build in. The list below is dated and deliberately short:
 * the regions Cloud Functions has offered from its start, which Google's own quick starts and
 * the public reports use for first builds. A region outside it is not known to fail: it is
 * warned about so a first deploy there is not a surprise (docs/deploy.md).
 */
import type { Plan } from '../plan.ts';

/** When the list was last reviewed. */
export const BUILD_REGIONS_REVIEWED = '2026-11';

/** Regions where a new project's first gen2 build is known to run (as of BUILD_REGIONS_REVIEWED). */
export const KNOWN_BUILD_REGIONS: readonly string[] = Object.freeze([
  'us-central1',
  'us-east1',
  'us-west1',
  'europe-west1',
  'asia-east1',
]);

/** A warning when the functions would be built in a region not on the list; none otherwise. */
export function buildRegionWarnings(plan: Plan): string[] {
  if (plan.functions.length === 0 || KNOWN_BUILD_REGIONS.includes(plan.region)) return [];
  return [
    `region ${plan.region}: the functions are built there by Cloud Build, which refuses builds in some ` +
      `regions for new projects ("due to quota restrictions, Cloud Build cannot run builds in this region"). ` +
      `${plan.region} is not on the list of regions known to work (${KNOWN_BUILD_REGIONS.join(', ')}; reviewed ` +
      `${BUILD_REGIONS_REVIEWED}). If the first pulumi up fails so, ask Google for Cloud Build quota in the ` +
      `region or use a listed one (docs/deploy.md).`,
  ];
}
