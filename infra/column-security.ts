/**
 * BigQuery column-level security for personal data: a policy-tag taxonomy with one `pii` tag,
 * put on the PII columns of the warehouse tables, and a data-masking rule (SHA-256) on that
 * tag. Analysts read those columns as SHA-256 (Masked Reader on the rule); the settings'
 * `pii_readers` read them raw (Fine-Grained Reader on the tag); anybody else who can read the
 * table gets an access error when a query selects them. Declared only when the settings ask
 * (`pii.column_security: true`); locally the BigQuery emulator enforces the same tag, rule and
 * grants (local/access-file.ts, docs/bigquery-emulator.md).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import { PII_COLUMNS, withPolicyTags } from '../core/warehouse/pii-columns.ts';

export { PII_COLUMNS, withPolicyTags };

/** The masking rule's id: letters, digits and underscores only (BigQuery data policy ids). */
export const dataPolicyId = (environment: string) =>
  `${environment.replace(/[^A-Za-z0-9_]/g, '_')}_pii_sha256`;

/** A workload account that reads the PII columns, raw or masked. */
export interface PiiWorkload {
  /** Short label used in resource names, e.g. `schedule`. */
  readonly who: string;
  readonly member: pulumi.Input<string>;
}

export interface ColumnSecurityArgs {
  readonly plan: Plan;
  /** See masked values (SHA-256) of the PII columns. */
  readonly analysts: readonly string[];
  /** See raw values of the PII columns. */
  readonly piiReaders: readonly string[];
  /**
   * Workloads whose queries must send personal data on to platforms (syncs, scheduled rules,
   * slice replays): raw, or the platforms would get SHA-256 of a hash where data belongs.
   */
  readonly rawWorkloads?: readonly PiiWorkload[];
  /** Workloads that only show or check queries (the studio's previews and dry runs): masked. */
  readonly maskedWorkloads?: readonly PiiWorkload[];
  /**
   * Workloads that create tables carrying the `pii` tag in a dataset (the scheduler's slice
   * replay tables in the ops dataset, core/delivery/replay.ts): setting a column's policy tag is
   * `bigquery.tables.setCategory` (Data Owner has it, Data Editor does not) and naming the tag
   * reads its taxonomy. Two custom roles, each bound where it is needed only.
   */
  readonly taggedTableMakers?: readonly (PiiWorkload & { readonly dataset: pulumi.Input<string> })[];
}

/** Custom role ids (letters, digits, periods, underscores): one environment's, per project. */
export const customRoleId = (environment: string, role: 'policyTaggedTables' | 'taxonomyReader'): string =>
  `eventbus.${environment.replace(/[^A-Za-z0-9_]/g, '_')}.${role}`;

export class ColumnSecurity extends pulumi.ComponentResource {
  /** The `pii` policy tag's resource name, for table schemas' `policyTags.names`. */
  readonly piiTag: pulumi.Output<string>;

  constructor(name: string, args: ColumnSecurityArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:ColumnSecurity', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    // Taxonomies live where the dataset does (multi-regions `EU`/`US` are `eu`/`us` here).
    const location = plan.location.toLowerCase();
    const taxonomy = new gcp.datacatalog.Taxonomy(
      `${name}-pii-taxonomy`,
      {
        project: plan.project,
        region: location,
        displayName: `eventbus ${plan.environment} personal data`,
        description: 'Columns of the eventbus warehouse that hold personal data',
        activatedPolicyTypes: ['FINE_GRAINED_ACCESS_CONTROL'],
      },
      child,
    );
    const tag = new gcp.datacatalog.PolicyTag(
      `${name}-pii-tag`,
      {
        taxonomy: taxonomy.id,
        displayName: 'pii',
        description: 'Personal data: raw to pii_readers, SHA-256 to analysts',
      },
      { parent: this },
    );
    const policyId = dataPolicyId(plan.environment);
    const rule = new gcp.bigquerydatapolicy.DataPolicy(
      `${name}-pii-masking`,
      {
        project: plan.project,
        location,
        dataPolicyId: policyId,
        policyTag: tag.name,
        dataPolicyType: 'DATA_MASKING_POLICY',
        dataMaskingPolicy: { predefinedExpression: 'SHA256' },
      },
      { parent: this },
    );
    for (const reader of args.piiReaders) {
      new gcp.datacatalog.PolicyTagIamMember(
        `${name}-pii-reader-${reader}`,
        { policyTag: tag.name, role: 'roles/datacatalog.categoryFineGrainedReader', member: reader },
        { parent: this },
      );
    }
    for (const w of args.rawWorkloads ?? []) {
      new gcp.datacatalog.PolicyTagIamMember(
        `${name}-pii-reader-workload-${w.who}`,
        { policyTag: tag.name, role: 'roles/datacatalog.categoryFineGrainedReader', member: w.member },
        { parent: this },
      );
    }
    const masked = [
      ...args.analysts.map((a) => ({ label: a, member: a as pulumi.Input<string> })),
      ...(args.maskedWorkloads ?? []).map((w) => ({ label: `workload-${w.who}`, member: w.member })),
    ];
    for (const m of masked) {
      new gcp.bigquerydatapolicy.DataPolicyIamMember(
        `${name}-pii-masked-${m.label}`,
        {
          project: plan.project,
          location,
          dataPolicyId: rule.dataPolicyId,
          role: 'roles/bigquerydatapolicy.maskedReader',
          member: m.member,
        },
        { parent: this },
      );
    }
    const makers = args.taggedTableMakers ?? [];
    if (makers.length > 0) {
      const custom = (
        role: 'policyTaggedTables' | 'taxonomyReader',
        title: string,
        permissions: string[],
      ) => {
        const roleId = customRoleId(plan.environment, role);
        const made = new gcp.projects.IAMCustomRole(
          `${name}-role-${role}`,
          { project: plan.project, roleId, title, permissions, stage: 'GA' },
          child,
        );
        // The role's full name, known before it exists; bindings wait for the role itself.
        return { name: `projects/${plan.project}/roles/${roleId}`, made };
      };
      const tables = custom('policyTaggedTables', 'eventbus: tables with policy-tagged columns', [
        'bigquery.tables.setCategory',
      ]);
      const reader = custom('taxonomyReader', 'eventbus: read the personal-data taxonomy', [
        'datacatalog.taxonomies.get',
      ]);
      for (const m of makers) {
        new gcp.bigquery.DatasetIamMember(
          `${name}-tagged-tables-${m.who}`,
          { project: plan.project, datasetId: m.dataset, role: tables.name, member: m.member },
          { parent: this, dependsOn: [tables.made] },
        );
        new gcp.datacatalog.TaxonomyIamMember(
          `${name}-taxonomy-reader-${m.who}`,
          { taxonomy: taxonomy.id, role: reader.name, member: m.member },
          { parent: this, dependsOn: [reader.made] },
        );
      }
    }
    this.piiTag = tag.name;
    this.registerOutputs({ piiTag: this.piiTag });
  }
}
