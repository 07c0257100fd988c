/**
 * One service account per workload (store, forward, gateway, studio; forward-catalog only with a
 * catalogue destination, issue #65), the push identity Pub/Sub signs
 * its OIDC tokens as, and a dedicated build account for the functions (new projects' default
 * build account lacks the roles a gen2 build needs, docs/google-wire.md §7). Each gets its grants next
 * to the resource it touches; only the build account has project-level roles, the builder's.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';

export type Workload =
  | 'store'
  | 'forward'
  | 'schedule'
  | 'gateway'
  | 'studio'
  | 'push'
  | 'build'
  | 'forward-catalog';

/** Per workload: every one, forward-catalog only where it runs. */
type PerWorkload<T> = Readonly<Record<Exclude<Workload, 'forward-catalog'>, T>> &
  Readonly<Partial<Record<'forward-catalog', T>>>;

const PURPOSE: Readonly<Record<Workload, string>> = {
  store: 'Runs the store function: writes events to BigQuery, publishes deliveries',
  forward: 'Runs the forward function: reads destination secrets, writes the delivery ledger',
  schedule:
    'Runs the scheduler: dispatches ticks, holds run locks in the registry bucket, re-drives dead letters',
  gateway: 'Runs the gateway: publishes producers’ events, reads the token store secret',
  studio: 'Runs the studio: writes the registry bucket, creates views in the events dataset',
  push: 'Signs Pub/Sub push requests (OIDC); may invoke the functions and nothing else',
  build: 'Builds the functions (Cloud Build)',
  'forward-catalog':
    'Runs the forward-catalog function: reads catalogue destinations’ secrets, writes the delivery ledger',
};

/** Roles the functions' build account needs on the project (Cloud Build, image push, logs). */
export const BUILD_ROLES = Object.freeze([
  'roles/cloudbuild.builds.builder',
  'roles/artifactregistry.writer',
  'roles/logging.logWriter',
]);

/**
 * The workloads that export spans (docs/observability.md) and the role that lets them write to
 * Cloud Trace (its OTLP endpoint included); project-level, as Cloud Trace has no finer resource.
 */
export const TRACING_WORKLOADS: readonly Workload[] = Object.freeze([
  'gateway',
  'store',
  'forward',
  'forward-catalog',
]);
export const TRACE_ROLE = 'roles/cloudtrace.agent';

/**
 * The workloads that export delivery metrics (docs/observability.md#metrics) and the role that
 * lets them write time series to Cloud Monitoring (monitoring.timeSeries.create, which the
 * Telemetry API's /v1/metrics checks); project-level, Cloud Monitoring's only resource.
 */
export const METRICS_WORKLOADS: readonly Workload[] = Object.freeze(['forward', 'forward-catalog']);
export const METRICS_ROLE = 'roles/monitoring.metricWriter';

export class Identities extends pulumi.ComponentResource {
  readonly accounts: PerWorkload<gcp.serviceaccount.Account>;
  /** `serviceAccount:<email>` per workload, for IAM members. */
  readonly members: PerWorkload<pulumi.Output<string>>;
  /** The build account's project roles: a gen2 build started before they exist fails. */
  readonly buildGrants: readonly gcp.projects.IAMMember[];

  constructor(
    name: string,
    /** `catalog`: a catalogue destination exists, so forward-catalog runs as its own account. */
    args: {
      readonly project: string;
      readonly catalog?: boolean;
      /** `false`: the settings turn the delivery metrics off, and no workload is granted to write them. */
      readonly metrics?: boolean;
    },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super('eventbus:infra:Identities', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const accounts: Partial<Record<Workload, gcp.serviceaccount.Account>> = {};
    const members: Partial<Record<Workload, pulumi.Output<string>>> = {};
    for (const workload of Object.keys(PURPOSE) as Workload[]) {
      if (workload === 'forward-catalog' && !args.catalog) continue;
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
          { project: args.project, role, member: members.build as pulumi.Output<string> },
          child,
        ),
    );
    // Project-level grants to the workloads that export telemetry: spans, and delivery metrics.
    const telemetry: [string, string, readonly Workload[]][] = [
      ['trace', TRACE_ROLE, TRACING_WORKLOADS],
      ['metrics', METRICS_ROLE, args.metrics === false ? [] : METRICS_WORKLOADS],
    ];
    for (const [tag, role, workloads] of telemetry)
      for (const w of workloads) {
        const member = members[w];
        if (member)
          new gcp.projects.IAMMember(`${name}-${tag}-${w}`, { project: args.project, role, member }, child);
      }
    this.accounts = accounts as PerWorkload<gcp.serviceaccount.Account>;
    this.members = members as PerWorkload<pulumi.Output<string>>;
    this.registerOutputs({});
  }
}
