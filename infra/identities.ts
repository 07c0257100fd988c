/**
 * One service account per workload (store, forward, gateway, studio), the push identity Pub/Sub signs
 * its OIDC tokens as, and a dedicated build account for the functions (new projects' default
 * build account lacks the roles a gen2 build needs, docs/google-wire.md §7). Each gets its grants next
 * to the resource it touches; only the build account has project-level roles, the builder's.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';

export type Workload = 'store' | 'forward' | 'schedule' | 'gateway' | 'studio' | 'push' | 'build';

const PURPOSE: Readonly<Record<Workload, string>> = {
  store: 'Runs the store function: writes events to BigQuery, publishes deliveries',
  forward: 'Runs the forward function: reads destination secrets, writes the delivery ledger',
  schedule:
    'Runs the scheduler: dispatches ticks, holds run locks in the registry bucket, re-drives dead letters',
  gateway: 'Runs the gateway: publishes producers’ events, reads the token store secret',
  studio: 'Runs the studio: writes the registry bucket, creates views in the events dataset',
  push: 'Signs Pub/Sub push requests (OIDC); may invoke the functions and nothing else',
  build: 'Builds the functions (Cloud Build)',
};

/** Roles the functions' build account needs on the project (Cloud Build, image push, logs). */
export const BUILD_ROLES = Object.freeze([
  'roles/cloudbuild.builds.builder',
  'roles/artifactregistry.writer',
  'roles/logging.logWriter',
]);

export class Identities extends pulumi.ComponentResource {
  readonly accounts: Readonly<Record<Workload, gcp.serviceaccount.Account>>;
  /** `serviceAccount:<email>` per workload, for IAM members. */
  readonly members: Readonly<Record<Workload, pulumi.Output<string>>>;
  /** The build account's project roles: a gen2 build started before they exist fails. */
  readonly buildGrants: readonly gcp.projects.IAMMember[];

  constructor(name: string, args: { readonly project: string }, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Identities', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const accounts = {} as Record<Workload, gcp.serviceaccount.Account>;
    const members = {} as Record<Workload, pulumi.Output<string>>;
    for (const workload of Object.keys(PURPOSE) as Workload[]) {
      const account = new gcp.serviceaccount.Account(
        `${name}-sa-${workload}`,
        {
          project: args.project,
          accountId: `eventbus-${workload}`,
          displayName: `eventbus ${workload}`,
          description: PURPOSE[workload],
        },
        child,
      );
      accounts[workload] = account;
      members[workload] = pulumi.interpolate`serviceAccount:${account.email}`;
    }
    this.buildGrants = BUILD_ROLES.map(
      (role) =>
        new gcp.projects.IAMMember(
          `${name}-build-${role.split('/')[1]}`,
          { project: args.project, role, member: members.build },
          child,
        ),
    );
    this.accounts = accounts;
    this.members = members;
    this.registerOutputs({});
  }
}
