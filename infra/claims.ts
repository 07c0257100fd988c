/**
 * The send-once claims' Firestore database (plan().claims; core/claims/claim-store.ts,
 * adapters/firestore-claims.ts): a Firestore Native database of its own in the environment's
 * region, a TTL policy on CLAIM_EXPIRE_FIELD of each claims collection, every field of a claim
 * (CLAIM_EXPIRE_FIELD and CLAIM_FIELDS) exempt from single-field indexing (nothing queries claims:
 * an index would be more storage per claim, and a rising indexed time caps a collection at 500
 * writes a second), and `roles/datastore.user` for the workloads that claim, conditioned on this
 * database.
 *
 * Firestore has no IAM policy on a database: grants are the project's, and an IAM condition on
 * `resource.name` keeps them to this one (the local Firestore emulator enforces the same
 * condition). A production environment's database has delete protection and is abandoned, not
 * deleted, by `pulumi destroy`; another's is deleted with the stack. Locally `npm start`
 * provisions the same database and TTL fields in the Firestore emulator (local/provision.ts).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { CLAIM_COLLECTIONS, CLAIM_EXPIRE_FIELD, CLAIM_FIELDS, type Plan } from '../core/plan.ts';

export interface ClaimsArgs {
  readonly plan: Plan;
  /** The workloads that claim: each gets `roles/datastore.user` on this database only. */
  readonly grants: readonly { readonly who: string; readonly member: pulumi.Input<string> }[];
}

/** The IAM condition that keeps a project-level grant to one Firestore database. */
export const databaseCondition = (project: string, database: string): string =>
  `resource.name == "projects/${project}/databases/${database}"`;

export class Claims extends pulumi.ComponentResource {
  readonly database: gcp.firestore.Database;

  constructor(name: string, args: ClaimsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Claims', name, {}, opts);
    const { plan } = args;
    // The component's dependencies (the APIs' wait) hold for each resource it declares.
    const after = pulumi.output(opts?.dependsOn ?? []).apply((d) => (Array.isArray(d) ? d : [d]));
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const production = plan.production;
    this.database = new gcp.firestore.Database(
      `${name}-claims`,
      {
        project: plan.project,
        name: plan.claims.database,
        locationId: plan.claims.location,
        type: 'FIRESTORE_NATIVE',
        deleteProtectionState: production ? 'DELETE_PROTECTION_ENABLED' : 'DELETE_PROTECTION_DISABLED',
        deletionPolicy: production ? 'ABANDON' : 'DELETE',
      },
      child,
    );
    for (const collection of CLAIM_COLLECTIONS) {
      for (const field of CLAIM_FIELDS[collection])
        new gcp.firestore.Field(
          `${name}-claims-noindex-${collection}-${field}`,
          // Empty: no single-field index (claims are read by id only).
          { project: plan.project, database: this.database.name, collection, field, indexConfig: {} },
          child,
        );
      new gcp.firestore.Field(
        `${name}-claims-ttl-${collection}`,
        {
          project: plan.project,
          database: this.database.name,
          collection,
          field: CLAIM_EXPIRE_FIELD,
          ttlConfig: {},
          // Empty: no single-field index on the field (claims are read by id only).
          indexConfig: {},
        },
        child,
      );
    }
    const condition = databaseCondition(plan.project, plan.claims.database);
    for (const g of args.grants)
      new gcp.projects.IAMMember(
        `${name}-claims-${g.who}`,
        {
          project: plan.project,
          role: 'roles/datastore.user',
          member: g.member,
          condition: {
            title: 'claims database only',
            description: `The send-once claims in Firestore database ${plan.claims.database}`,
            expression: condition,
          },
        },
        { parent: this, dependsOn: after.apply((d) => [...d, this.database]) },
      );
    this.registerOutputs({ database: this.database.name });
  }
}
