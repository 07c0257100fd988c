/**
 * The studio service on Google Cloud (docs/studio.md#on-google-cloud): a private Cloud Run
 * service run from its bundle the way the gateway is (source deploy without build, Google's
 * Node 24 base image), behind Cloud Run's built-in IAP (`iapEnabled`, a Beta field). Nobody holds
 * `run.invoker` but IAP's service agent, so the only way in is through IAP, which admits the
 * settings' `studio.viewers`, `.editors` and `.admins` (`roles/iap.httpsResourceAccessor` on the
 * service); the studio then checks IAP's signed header for the audience it is given and maps the
 * caller to a role (studio/auth.ts).
 *
 * Its account may: administer the registry bucket's objects (it is the only writer), edit the
 * events dataset (it creates views) and run query jobs in the project. It reads the settings'
 * connections from its settings like every workload; nothing secret.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { bundleService } from './cloud-run.ts';
import { runtimeEnvironment, type SettingsDelivery } from './runtime-env.ts';

/** APIs the studio's deployment needs besides the environment's own: IAP. */
export const STUDIO_APIS = Object.freeze(['iap.googleapis.com']);

/**
 * The audience of IAP's signed header for a Cloud Run service with IAP turned on directly (no
 * load balancer): `/projects/PROJECT_NUMBER/locations/REGION/services/SERVICE`, per Google's
 * "Securing your app with signed headers" (https://cloud.google.com/iap/docs/signed-headers-howto).
 * The studio is told it (EVENTBUS_IAP_AUDIENCE) and refuses assertions for any other.
 */
export const cloudRunIapAudience = (projectNumber: string, region: string, service: string) =>
  `/projects/${projectNumber}/locations/${region}/services/${service}`;

/** What IAP admits a principal with, on the service. */
export const IAP_ACCESSOR = 'roles/iap.httpsResourceAccessor';
/** Reading traces: `cloudtrace.traces.get` (and list), for the debugger's waterfall. */
export const TRACE_READER_ROLE = 'roles/cloudtrace.user';

export interface StudioArgs {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly serviceAccountEmail: pulumi.Input<string>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObject: gcp.storage.BucketObject;
  /** The settings secret's version, mounted as the settings file. */
  readonly settingsFile: SettingsDelivery;
  /** The registry bucket, which the studio alone writes. */
  readonly registryBucket: pulumi.Input<string>;
  /** The events dataset, where the studio creates views. */
  readonly dataset: pulumi.Input<string>;
  /** The gateway's URL, which the creator shows as translators' endpoints. */
  readonly gatewayUrl: pulumi.Input<string>;
}

/** Every member of the settings' studio lists, once. */
export const studioMembers = (settings: Readonly<Settings>): string[] => [
  ...new Set([
    ...(settings.studio?.viewers ?? []),
    ...(settings.studio?.editors ?? []),
    ...(settings.studio?.admins ?? []),
  ]),
];

export class Studio extends pulumi.ComponentResource {
  readonly service: gcp.cloudrunv2.Service;
  /** The service's URL, exported as `studioUrl` (EVENTBUS_STUDIO_URL for the CLI). */
  readonly url: pulumi.Output<string>;

  constructor(name: string, args: StudioArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Studio', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const sizing = plan.studio.sizing;
    const member = pulumi.interpolate`serviceAccount:${args.serviceAccountEmail}`;
    const project = gcp.organizations.getProjectOutput(
      { projectId: plan.project },
      // After the APIs are enabled (opts.dependsOn): a new project refuses the lookup before.
      { parent: this, dependsOn: opts?.dependsOn ?? [] },
    );
    const grants = [
      new gcp.storage.BucketIAMMember(
        `${name}-studio-registry`,
        { bucket: args.registryBucket, role: 'roles/storage.objectAdmin', member },
        child,
      ),
      new gcp.bigquery.DatasetIamMember(
        `${name}-studio-dataset`,
        { project: plan.project, datasetId: args.dataset, role: 'roles/bigquery.dataEditor', member },
        child,
      ),
      new gcp.projects.IAMMember(
        `${name}-studio-jobs`,
        { project: plan.project, role: 'roles/bigquery.jobUser', member },
        child,
      ),
      // The waterfall reads traces (Cloud Trace API v1 traces.get; the project is the only resource).
      new gcp.projects.IAMMember(
        `${name}-studio-trace-reader`,
        { project: plan.project, role: TRACE_READER_ROLE, member },
        child,
      ),
    ];
    const env: Record<string, pulumi.Input<string>> = {
      ...runtimeEnvironment(plan.project),
      HOST: '0.0.0.0',
      // Turns on IAP's signed header as the credential (studio/main.ts).
      EVENTBUS_IAP_AUDIENCE: project.number.apply((n) =>
        cloudRunIapAudience(n, plan.region, plan.studio.name),
      ),
      // The admin token is made at start in the instance's in-memory disk and never leaves it:
      // on Google Cloud every caller comes through IAP.
      EVENTBUS_ADMIN_TOKEN_FILE: '/tmp/eventbus-admin-token',
      EVENTBUS_GATEWAY_URL: args.gatewayUrl,
      // The creator issues translate:<name> tokens into the gateway's store.
      EVENTBUS_TOKEN_STORE: `secret:${plan.gateway.tokenSecret}`,
    };
    this.service = new gcp.cloudrunv2.Service(
      `${name}-studio`,
      {
        ...bundleService({
          plan,
          name: plan.studio.name,
          sizing,
          serviceAccountEmail: args.serviceAccountEmail,
          sourceBucket: args.sourceBucket,
          sourceObject: args.sourceObject,
          settingsFile: args.settingsFile,
          env,
          // CPU only while a request is served: the studio does no background work, so it is
          // request-billed and idles at zero. (Cloud Run bills `resources` without cpuIdle as
          // instance-based: CPU always allocated.)
          cpuIdle: true,
        }),
        iapEnabled: true,
      },
      // Its account's grants first: a revision that starts without them fails its first calls.
      { parent: this, dependsOn: [...(Array.isArray(opts?.dependsOn) ? opts.dependsOn : []), ...grants] },
    );
    const where = {
      project: plan.project,
      location: plan.region,
    };
    // IAP calls the service as its service agent, with an ID token: the one invoker.
    const iapAgent = new gcp.projects.ServiceIdentity(
      `${name}-iap-agent`,
      { project: plan.project, service: 'iap.googleapis.com' },
      child,
    );
    new gcp.cloudrunv2.ServiceIamMember(
      `${name}-studio-invoker-iap`,
      { ...where, name: this.service.name, role: 'roles/run.invoker', member: iapAgent.member },
      { parent: this },
    );
    studioMembers(args.settings).forEach((m) => {
      new gcp.iap.WebCloudRunServiceIamMember(
        `${name}-studio-iap-${m.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`,
        { ...where, cloudRunServiceName: this.service.name, role: IAP_ACCESSOR, member: m },
        { parent: this },
      );
    });
    this.url = this.service.uri;
    this.registerOutputs({ url: this.url });
  }
}
