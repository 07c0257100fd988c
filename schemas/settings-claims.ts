/**
 * Where the send-once claims are kept (`claims` in the settings; docs/delivery.md, "Claims in
 * Bigtable", #97): Firestore, serverless and billed per write (the design), or a Cloud Bigtable
 * instance, billed per node whether used or not and cheaper per event above a rate the cost
 * model states (docs/scale.md).
 */
import Type, { type Static } from 'typebox';

/** The claim stores a deployment can run on. */
export type ClaimStoreKind = 'firestore' | 'bigtable';

/** A zone id: the region and a letter (`europe-west1-b`). */
export const ZONE_PATTERN = '^[a-z]+-[a-z]+[0-9]+-[a-z]$';

export const ClaimsSettings = Type.Object(
  {
    store: Type.Optional(
      Type.Union([Type.Literal('firestore'), Type.Literal('bigtable')], {
        default: 'firestore',
        description:
          'Where the send-once claims are kept: `firestore`, a database of its own, serverless, billed per claim (no cost when idle); `bigtable`, a Cloud Bigtable instance billed per node around the clock, cheaper per event above the rate `settings check` states (docs/scale.md). Switching keeps the Firestore database: copies within 7 days of a switch may not fold (docs/delivery.md)',
      }),
    ),
    bigtable: Type.Optional(
      Type.Object(
        {
          nodes: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              default: 1,
              description: "Nodes of the instance's one cluster: each is billed by the hour",
            }),
          ),
          storage: Type.Optional(
            Type.Union([Type.Literal('SSD'), Type.Literal('HDD')], {
              default: 'SSD',
              description: "The cluster's storage type (SSD: the read latency a claim needs)",
            }),
          ),
          zone: Type.Optional(
            Type.String({
              pattern: ZONE_PATTERN,
              description: "The cluster's zone, within the settings' region; unset, the region's `-b` zone",
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'The Bigtable instance, when `claims.store` is `bigtable`',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'The send-once claim store (docs/delivery.md)' },
);
export type ClaimsSettings = Static<typeof ClaimsSettings>;
