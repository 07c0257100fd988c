/**
 * The gateway: a public Cloud Run service (allUsers may invoke; it authenticates every request
 * itself, GCP-WIRE.md §7) run straight from its bundle, with no container build: Cloud Run's
 * source deploy without build (container `sourceCode` from Cloud Storage on a Google-managed
 * Node 24 base image, `image: scratch`; a Beta field, hence launchStage BETA). Its own account
 * may publish to the events topics and read the token store secret, granted where those live.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { ENV } from '../functions/config.ts';
import type { Plan } from '../functions/core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { runtimeEnvironment } from './runtime-env.ts';

/** Google's Node 24 runtime image for Cloud Run, in the service's region. */
export const baseImage = (region: string) =>
  `${region}-docker.pkg.dev/serverless-runtimes/google-24-full/runtimes/nodejs24`;

export interface GatewayArgs {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly serviceAccountEmail: pulumi.Input<string>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObject: gcp.storage.BucketObject;
}

export class Gateway extends pulumi.ComponentResource {
  readonly service: gcp.cloudrunv2.Service;
  readonly url: pulumi.Output<string>;

  constructor(name: string, args: GatewayArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Gateway', name, {}, opts);
    const { plan } = args;
    const sizing = plan.gateway.sizing;
    const env = {
      ...runtimeEnvironment(args.settings, plan.project),
      [ENV.tokenStore]: `secret:${plan.gateway.tokenSecret}`,
      // gateway/main.ts binds 127.0.0.1 unless told otherwise; Cloud Run sends traffic to all
      // interfaces (PORT is set by Cloud Run itself).
      HOST: '0.0.0.0',
    };
    this.service = new gcp.cloudrunv2.Service(
      `${name}-service`,
      {
        project: plan.project,
        location: plan.region,
        name: 'gateway',
        description: `eventbus gateway (${plan.environment})`,
        labels: { environment: plan.environment },
        launchStage: 'BETA',
        ingress: 'INGRESS_TRAFFIC_ALL',
        deletionProtection: false,
        template: {
          serviceAccount: args.serviceAccountEmail,
          maxInstanceRequestConcurrency: sizing.concurrency,
          timeout: `${sizing.timeout_seconds}s`,
          scaling: { minInstanceCount: sizing.min_instances, maxInstanceCount: sizing.max_instances },
          containers: [
            {
              image: 'scratch',
              baseImageUri: baseImage(plan.region),
              commands: ['node'],
              args: ['main.js'],
              sourceCode: {
                cloudStorageSource: {
                  bucket: args.sourceBucket,
                  object: args.sourceObject.name,
                  generation: args.sourceObject.generation.apply((g) => String(g)),
                },
              },
              envs: Object.entries(env).map(([envName, value]) => ({ name: envName, value })),
              resources: {
                limits: { cpu: String(sizing.cpu), memory: sizing.memory },
                // Tokens are refreshed in the background (every minute): keep CPU between requests.
                cpuIdle: false,
              },
              startupProbe: { httpGet: { path: '/health' }, periodSeconds: 2, failureThreshold: 15 },
            },
          ],
        },
      },
      { parent: this, dependsOn: opts?.dependsOn ?? [] },
    );
    new gcp.cloudrunv2.ServiceIamMember(
      `${name}-public`,
      {
        project: plan.project,
        location: plan.region,
        name: this.service.name,
        role: 'roles/run.invoker',
        member: 'allUsers',
      },
      { parent: this },
    );
    this.url = this.service.uri;
    this.registerOutputs({ url: this.url });
  }
}
