/**
 * Where a Firestore database may live (issue #100): the claims database (infra/claims.ts) is
 * created in the settings' region, and a region Firestore does not offer fails the first
 * `pulumi up` half-way, after the topics and functions exist. `eventbus settings check` and the
 * program refuse it first, with the reason.
 *
 * The regional locations Firestore lists for its API (projects.locations, as published on
 * cloud.google.com/firestore/docs/reference/rest/v1/projects.locations and the locations page
 * cloud.google.com/firestore/docs/locations), reviewed FIRESTORE_LOCATIONS_REVIEWED. Multi-regions
 * (nam5, eur3, …) are not regions a setting can name: `region` is a Cloud Run region.
 */
import type { FieldViolation } from '../validation.ts';

export const FIRESTORE_LOCATIONS_REVIEWED = '2026-11';

export const FIRESTORE_REGIONS: ReadonlySet<string> = new Set([
  'africa-south1',
  'asia-east1',
  'asia-east2',
  'asia-northeast1',
  'asia-northeast2',
  'asia-northeast3',
  'asia-south1',
  'asia-south2',
  'asia-southeast1',
  'asia-southeast2',
  'asia-southeast3',
  'australia-southeast1',
  'australia-southeast2',
  'europe-central2',
  'europe-north1',
  'europe-north2',
  'europe-southwest1',
  'europe-west1',
  'europe-west10',
  'europe-west12',
  'europe-west15',
  'europe-west2',
  'europe-west3',
  'europe-west4',
  'europe-west6',
  'europe-west8',
  'europe-west9',
  'me-central1',
  'me-central2',
  'me-west1',
  'northamerica-northeast1',
  'northamerica-northeast2',
  'northamerica-south1',
  'southamerica-east1',
  'southamerica-west1',
  'us-central1',
  'us-east1',
  'us-east4',
  'us-east5',
  'us-south1',
  'us-west1',
  'us-west2',
  'us-west3',
  'us-west4',
]);

/** The refusal of a region that cannot hold the claims database; none for one that can. */
export function claimsLocationErrors(settings: { readonly region: string }): FieldViolation[] {
  if (FIRESTORE_REGIONS.has(settings.region)) return [];
  return [
    {
      field: 'region',
      description:
        `${settings.region} is not a Firestore location (as listed ${FIRESTORE_LOCATIONS_REVIEWED}), and the send-once ` +
        'claims database lives in the environment’s region: choose a region Firestore offers ' +
        '(cloud.google.com/firestore/docs/locations; docs/deploy.md)',
    },
  ];
}
