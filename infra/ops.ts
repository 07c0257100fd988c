/**
 * The ops dataset (`eventbus_ops`, plan().ops): what the service records about its own work —
 * `sync_runs`, `gateway_refusals` (live events: the gateway writes it, the studio reads it), the
 * privacy audit (`erasures`; `exports`, where the studio records its access requests), and each
 * sync's state table, which the runs create and MERGE into at run time (syncs are runtime
 * resources: no deploy per sync). The scheduler's account may therefore edit
 * this dataset, and read the events dataset its syncs' and scheduled rules' queries read.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import { PRIVACY_TABLES } from '../core/warehouse/privacy-audit.ts';
import { OPS_TABLES } from '../core/warehouse/warehouse.ts';
import { bigQuerySchema, partitioningOf } from './warehouse.ts';

export interface OpsArgs {
  readonly plan: Plan;
  readonly deletionProtection: boolean;
  /** The schedule function's account. */
  readonly runner: pulumi.Input<string>;
  /** The events dataset, which the runner's queries read. */
  readonly eventsDataset: pulumi.Input<string>;
  /** The gateway's account: it writes refused requests to `gateway_refusals` (live events). */
  readonly gateway?: pulumi.Input<string>;
  /**
   * The studio's account: its live events page reads the ops dataset; its access requests
   * (studio/privacy-api.ts) add rows to `exports`.
   */
  readonly studio?: pulumi.Input<string>;
}

export class Ops extends pulumi.ComponentResource {
  readonly dataset: gcp.bigquery.Dataset;

  constructor(name: string, args: OpsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Ops', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    this.dataset = new gcp.bigquery.Dataset(
      `${name}-ops-dataset`,
      {
        project: plan.project,
        datasetId: plan.ops.dataset,
        location: plan.location,
        description: `What eventbus records about its own work in ${plan.environment}: sync runs and state`,
        labels: { environment: plan.environment },
        // Deleted rows stay readable this long through time travel (docs/privacy.md#time-travel-and-fail-safe).
        ...(plan.timeTravelHours !== undefined ? { maxTimeTravelHours: String(plan.timeTravelHours) } : {}),
        deleteContentsOnDestroy: false,
      },
      child,
    );
    const tables = new Map<string, gcp.bigquery.Table>();
    for (const t of plan.ops.tables) {
      const table = new gcp.bigquery.Table(
        `${name}-ops-table-${t.name}`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          tableId: t.name,
          description: t.description,
          schema: bigQuerySchema(t.columns),
          // gateway_refusals: bounded storage, its partitions expire.
          ...partitioningOf(t),
          deletionProtection: args.deletionProtection,
        },
        { parent: this },
      );
      tables.set(t.name, table);
    }
    const refusals = tables.get(OPS_TABLES.gatewayRefusals);
    if (args.gateway && refusals)
      new gcp.bigquery.IamMember(
        `${name}-ops-refusals-gateway`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          tableId: refusals.tableId,
          role: 'roles/bigquery.dataEditor',
          member: args.gateway,
        },
        { parent: this },
      );
    const exports = tables.get(PRIVACY_TABLES.exports);
    if (args.studio && exports)
      new gcp.bigquery.IamMember(
        `${name}-ops-exports-studio`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          tableId: exports.tableId,
          role: 'roles/bigquery.dataEditor',
          member: args.studio,
        },
        { parent: this },
      );
    if (args.studio)
      new gcp.bigquery.DatasetIamMember(
        `${name}-ops-viewer-studio`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          role: 'roles/bigquery.dataViewer',
          member: args.studio,
        },
        { parent: this },
      );
    new gcp.bigquery.DatasetIamMember(
      `${name}-ops-editor-schedule`,
      {
        project: plan.project,
        datasetId: this.dataset.datasetId,
        role: 'roles/bigquery.dataEditor',
        member: args.runner,
      },
      { parent: this },
    );
    new gcp.bigquery.DatasetIamMember(
      `${name}-events-viewer-schedule`,
      {
        project: plan.project,
        datasetId: args.eventsDataset,
        role: 'roles/bigquery.dataViewer',
        member: args.runner,
      },
      { parent: this },
    );
    this.registerOutputs({ dataset: this.dataset.datasetId });
  }
}
