/**
 * A Cloud Run revision run straight from a bundle, as the gateway and the studio are: Cloud Run's
 * source deploy without build (container `sourceCode` from Cloud Storage on Google's Node 24 base
 * image, `image: scratch`; a Beta field, so their services say launchStage BETA).
 */
import type * as gcp from '@pulumi/gcp';
import type * as pulumi from '@pulumi/pulumi';
import type { FunctionPlan, Plan } from '../core/plan.ts';
import { type SettingsDelivery, serviceSettingsVolume } from './runtime-env.ts';
import type { SecretEnv } from './secrets.ts';

/** Google's Node 24 runtime image for Cloud Run, in the service's region. */
export const baseImage = (region: string) =>
  `${region}-docker.pkg.dev/serverless-runtimes/google-24-full/runtimes/nodejs24`;

export interface BundleRevision {
  readonly plan: Plan;
  /** The service's name; its description says which environment it belongs to. */
  readonly name: string;
  readonly sizing: FunctionPlan['sizing'];
  readonly serviceAccountEmail: pulumi.Input<string>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObject: gcp.storage.BucketObject;
  readonly env: Record<string, pulumi.Input<string>>;
  /** Variables whose value Cloud Run reads from a Secret Manager version when a revision starts. */
  readonly secretEnv?: Readonly<Record<string, SecretEnv>>;
  /** The settings secret's version, mounted as the settings file. */
  readonly settingsFile: SettingsDelivery;
  /** false: keep CPU between requests (background work); instance-based billing. */
  readonly cpuIdle?: boolean;
  /**
   * How Cloud Run knows an instance started: `health`, an HTTP GET of /health (the gateway, the
   * studio); `tcp`, its port accepting connections (a function served by the framework, which
   * hands every path to the function).
   */
  readonly startupProbe?: 'health' | 'tcp';
  /** Labels besides `environment` (store's and forward's billing stamp). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** A service in the plan's project and region running `node main.js` from the bundle's archive. */
export function bundleService(r: BundleRevision): gcp.cloudrunv2.ServiceArgs {
  return {
    project: r.plan.project,
    location: r.plan.region,
    name: r.name,
    description: `eventbus ${r.name} (${r.plan.environment})`,
    labels: { environment: r.plan.environment, ...r.labels },
    launchStage: 'BETA',
    ingress: 'INGRESS_TRAFFIC_ALL',
    deletionProtection: false,
    template: bundleTemplate(r),
  };
}

function bundleTemplate(r: BundleRevision): gcp.types.input.cloudrunv2.ServiceTemplate {
  const { sizing } = r;
  const settings = serviceSettingsVolume(r.settingsFile);
  return {
    volumes: [settings.volume],
    serviceAccount: r.serviceAccountEmail,
    maxInstanceRequestConcurrency: sizing.concurrency,
    timeout: `${sizing.timeout_seconds}s`,
    scaling: { minInstanceCount: sizing.min_instances, maxInstanceCount: sizing.max_instances },
    containers: [
      {
        image: 'scratch',
        baseImageUri: baseImage(r.plan.region),
        commands: ['node'],
        args: ['main.js'],
        sourceCode: {
          cloudStorageSource: {
            bucket: r.sourceBucket,
            object: r.sourceObject.name,
            generation: r.sourceObject.generation.apply((g) => String(g)),
          },
        },
        envs: [
          ...Object.entries(r.env).map(([name, value]) => ({ name, value })),
          ...Object.entries(r.secretEnv ?? {}).map(([name, ref]) => ({
            name,
            valueSource: { secretKeyRef: { secret: ref.secret, version: ref.version } },
          })),
        ],
        volumeMounts: [settings.mount],
        resources: {
          limits: { cpu: String(sizing.cpu), memory: sizing.memory },
          ...(r.cpuIdle === undefined ? {} : { cpuIdle: r.cpuIdle }),
        },
        startupProbe: {
          ...(r.startupProbe === 'tcp' ? { tcpSocket: {} } : { httpGet: { path: '/health' } }),
          periodSeconds: 2,
          failureThreshold: 15,
        },
      },
    ],
  };
}
