/**
 * The send-once claims in Cloud Bigtable (`claims.store: bigtable`, #97; plan().claims.bigtable,
 * adapters/bigtable-claims.ts): one instance with one cluster in the plan's zone (its nodes and
 * storage type), the `claims` table with the claims' one column family, that family's GC rule
 * (max age: a claim's window and a day more; the adapter's expiry cell decides before it), and
 * `roles/bigtable.user` on the table for the workloads that claim.
 *
 * Instance and table have deletion protection: a `pulumi destroy` or a change that would replace
 * them stops instead of dropping claims that still hold. The Firestore claims database
 * (infra/claims.ts) is declared beside it whatever the store, never removed by a switch: claims
 * taken before the switch are only there, so a copy arriving within SEND_ONCE_DAYS of the switch
 * may not fold into its first delivery (docs/delivery.md, "Claims in Bigtable").
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { BigtableClaimsPlan } from '../core/claims/claims-plan.ts';

/** The APIs the Bigtable claims need: the admin API (this program) and the data API (the workloads). */
export const BIGTABLE_APIS = Object.freeze(['bigtableadmin.googleapis.com', 'bigtable.googleapis.com']);

/** Read and write of the table's rows (bigtable.tables.mutateRows, readRows, checkAndMutateRow, …). */
export const BIGTABLE_CLAIMS_ROLE = 'roles/bigtable.user';

export interface BigtableClaimsArgs {
  readonly project: string;
  readonly bigtable: BigtableClaimsPlan;
  /** The workloads that claim: each gets BIGTABLE_CLAIMS_ROLE on the claims table only. */
  readonly grants: readonly { readonly who: string; readonly member: pulumi.Input<string> }[];
}

/** A duration Bigtable's GC rule takes, in whole hours (`192h`) or else seconds. */
export const gcDuration = (seconds: number): string =>
  seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds}s`;

export class BigtableClaims extends pulumi.ComponentResource {
  readonly instance: gcp.bigtable.Instance;
  readonly table: gcp.bigtable.Table;

  constructor(name: string, args: BigtableClaimsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:BigtableClaims', name, {}, opts);
    const { project, bigtable: bt } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    this.instance = new gcp.bigtable.Instance(
      `${name}-claims-bigtable`,
      {
        project,
        name: bt.instance,
        displayName: `${bt.instance} (send-once claims)`.slice(0, 30),
        deletionProtection: true,
        clusters: [{ clusterId: bt.cluster, zone: bt.zone, numNodes: bt.nodes, storageType: bt.storage }],
      },
      child,
    );
    this.table = new gcp.bigtable.Table(
      `${name}-claims-bigtable-table`,
      {
        project,
        instanceName: this.instance.name,
        name: bt.table,
        columnFamilies: [{ family: bt.family }],
        deletionProtection: 'PROTECTED',
      },
      { parent: this },
    );
    new gcp.bigtable.GCPolicy(
      `${name}-claims-bigtable-gc`,
      {
        project,
        instanceName: this.instance.name,
        table: this.table.name,
        columnFamily: bt.family,
        maxAge: { duration: gcDuration(bt.maxAgeSeconds) },
      },
      { parent: this },
    );
    for (const g of args.grants)
      new gcp.bigtable.TableIamMember(
        `${name}-claims-bigtable-${g.who}`,
        {
          project,
          instanceName: this.instance.name,
          table: this.table.name,
          role: BIGTABLE_CLAIMS_ROLE,
          member: g.member,
        },
        { parent: this },
      );
    this.registerOutputs({ instance: this.instance.name, table: this.table.name });
  }
}
