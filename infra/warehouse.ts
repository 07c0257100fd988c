/**
 * The BigQuery dataset with the tables and views plan() lists (the same list the local
 * emulator is provisioned from), the writers' table grants and the analysts' access.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import type { ColumnPlan, TablePlan } from '../core/warehouse/warehouse.ts';
import { PII_COLUMNS, withPolicyTags } from './column-security.ts';

export interface WarehouseArgs {
  readonly plan: Plan;
  /** Deletion protection on tables (settings `warehouse.deletion_protection`, default on). */
  readonly deletionProtection: boolean;
  /** Who inserts rows into which tables (the functions' accounts): dataEditor on those tables only. */
  readonly writers: readonly TableWriter[];
  /** Workloads that query some tables: dataViewer on those tables only, jobUser on the project. */
  readonly readers?: readonly TableWriter[];
  /** Analysts: dataViewer on the dataset, jobUser on the project (to run queries). */
  readonly analysts: readonly string[];
  /** The `pii` policy tag to put on PII_COLUMNS, when column-level security is on. */
  readonly piiTag?: pulumi.Output<string> | undefined;
}

export interface TableWriter {
  /** Short label used in resource names, e.g. `store`. */
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly tables: readonly string[];
}

/**
 * The BigQuery REST schema of a table: plan columns are already TableFieldSchema-shaped. Columns
 * are only ever appended, NULLABLE or REPEATED (the ledger's `identifiers` and platform columns), so
 * a new release's schema updates an existing table in place (test/infra/warehouse-upgrade.test.ts).
 */
export function bigQuerySchema(columns: readonly ColumnPlan[]): string {
  return JSON.stringify(columns);
}

export class Warehouse extends pulumi.ComponentResource {
  readonly dataset: gcp.bigquery.Dataset;
  readonly tables: Readonly<Record<string, gcp.bigquery.Table>>;

  constructor(name: string, args: WarehouseArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Warehouse', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    this.dataset = new gcp.bigquery.Dataset(
      `${name}-dataset`,
      {
        project: plan.project,
        datasetId: plan.dataset,
        location: plan.location,
        description: `Events of the ${plan.environment} environment (eventbus)`,
        labels: { environment: plan.environment },
        // Deleted rows stay readable this long through time travel (docs/privacy.md#time-travel-and-fail-safe).
        ...(plan.timeTravelHours !== undefined ? { maxTimeTravelHours: String(plan.timeTravelHours) } : {}),
        // Never drop tables with the dataset: tearing down is an explicit step (docs/deploy.md).
        deleteContentsOnDestroy: false,
      },
      child,
    );
    const inDataset = { parent: this };
    const tables: Record<string, gcp.bigquery.Table> = {};
    for (const t of plan.tables) {
      tables[t.name] = new gcp.bigquery.Table(
        `${name}-table-${t.name}`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          tableId: t.name,
          description: t.description,
          schema: args.piiTag
            ? args.piiTag.apply((tag) =>
                JSON.stringify(withPolicyTags(t.columns, PII_COLUMNS[t.name] ?? [], tag)),
              )
            : bigQuerySchema(t.columns),
          ...partitioningOf(t),
          deletionProtection: args.deletionProtection,
          labels: { environment: plan.environment },
        },
        inDataset,
      );
    }
    // A view can only be created once what it reads exists: depend on every table or view
    // its query names (events_dedup before the per-event views and identities).
    const pending = [...plan.views];
    let progressed = true;
    while (pending.length > 0 && progressed) {
      progressed = false;
      for (const v of [...pending]) {
        const reads = [...plan.tables.map((t) => t.name), ...plan.views.map((w) => w.name)].filter(
          (n) => n !== v.name && v.query.includes(`.${n}\``),
        );
        if (!reads.every((n) => tables[n])) continue;
        tables[v.name] = new gcp.bigquery.Table(
          `${name}-view-${v.name}`,
          {
            project: plan.project,
            datasetId: this.dataset.datasetId,
            tableId: v.name,
            description: v.description,
            view: { query: v.query, useLegacySql: false },
            // Views hold no data and are regenerated from schemas/: replacing one must not be blocked.
            deletionProtection: false,
            labels: { environment: plan.environment },
          },
          { parent: this, dependsOn: reads.map((n) => tables[n] as gcp.bigquery.Table) },
        );
        pending.splice(pending.indexOf(v), 1);
        progressed = true;
      }
    }
    if (pending.length > 0)
      throw new Error(`views read each other in a cycle: ${pending.map((v) => v.name)}`);

    // Table-level grants: a dataset-level dataEditor could also create, change and delete
    // tables and views, and write the tables a function never touches.
    const tableGrant = (who: TableWriter, access: 'writer' | 'reader') => {
      for (const tableName of who.tables) {
        const table = tables[tableName];
        if (!table)
          throw new Error(
            `${who.who} ${access === 'writer' ? 'writes' : 'reads'} table "${tableName}" that the plan does not list`,
          );
        new gcp.bigquery.IamMember(
          `${name}-${access}-${who.who}-${tableName}`,
          {
            project: plan.project,
            datasetId: this.dataset.datasetId,
            tableId: table.tableId,
            role: access === 'writer' ? 'roles/bigquery.dataEditor' : 'roles/bigquery.dataViewer',
            member: who.member,
          },
          inDataset,
        );
      }
    };
    for (const writer of args.writers) tableGrant(writer, 'writer');
    for (const reader of args.readers ?? []) {
      tableGrant(reader, 'reader');
      new gcp.projects.IAMMember(
        `${name}-reader-jobuser-${reader.who}`,
        { project: plan.project, role: 'roles/bigquery.jobUser', member: reader.member },
        child,
      );
    }
    for (const analyst of args.analysts) {
      new gcp.bigquery.DatasetIamMember(
        `${name}-analyst-viewer-${analyst}`,
        {
          project: plan.project,
          datasetId: this.dataset.datasetId,
          role: 'roles/bigquery.dataViewer',
          member: analyst,
        },
        inDataset,
      );
      // Running a query is a job in the project: there is no narrower grant for it.
      new gcp.projects.IAMMember(
        `${name}-analyst-jobuser-${analyst}`,
        { project: plan.project, role: 'roles/bigquery.jobUser', member: analyst },
        child,
      );
    }
    this.tables = tables;
    this.registerOutputs({ dataset: this.dataset.datasetId });
  }
}

/** A planned table's partitioning (with its expiry) and clustering, as the Table resource takes them. */
export function partitioningOf(t: TablePlan) {
  return {
    ...(t.timePartitioning
      ? {
          timePartitioning: {
            type: t.timePartitioning.type,
            field: t.timePartitioning.field,
            ...(t.timePartitioning.expirationMs
              ? { expirationMs: Number(t.timePartitioning.expirationMs) }
              : {}),
          },
        }
      : {}),
    ...(t.clustering ? { clusterings: [...t.clustering] } : {}),
  };
}
