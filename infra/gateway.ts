/**
 * The gateway: a public Cloud Run service (it authenticates every request itself,
 * docs/google-wire.md §7) run straight from its bundle, with no container build: Cloud Run's
 * source deploy without build (container `sourceCode` from Cloud Storage on a Google-managed
 * Node 24 base image, `image: scratch`; a Beta field, hence launchStage BETA). Public by turning
 * off Cloud Run's invoker IAM check (`invokerIamDisabled`), not by an `allUsers` run.invoker
 * binding: Domain Restricted Sharing, common in companies, refuses `allUsers` in any IAM
 * policy, and Google documents this switch for exactly that case. Its own account may publish
 * to the events topics and read the token store secret, granted where those live.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import { ENV } from '../core/runtime-config.ts';
import type { Settings } from '../schemas/settings.ts';
import { bundleService } from './cloud-run.ts';
import { runtimeEnvironment, type SettingsDelivery, traceFlushFor } from './runtime-env.ts';
import type { SecretEnv } from './secrets.ts';

/** The Cloud Run service's name: also the first label of its deterministic URL. */
export const GATEWAY_SERVICE = 'gateway';

/**
 * The gateway's deterministic URL, `https://SERVICE-PROJECT_NUMBER.REGION.run.app`
 * (https://cloud.google.com/run/docs/triggering/https-request#deterministic): known before
 * the service exists, so the service can be told its own URL without depending on itself.
 */
export const deterministicUrl = (projectNumber: string, region: string) =>
  `https://${GATEWAY_SERVICE}-${projectNumber}.${region}.run.app`;

export interface GatewayArgs {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly serviceAccountEmail: pulumi.Input<string>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObject: gcp.storage.BucketObject;
  /** The settings secret's version, mounted as the settings file. */
  readonly settingsFile: SettingsDelivery;
  /** Variables read from Secret Manager (the edge secret, the session salt), never plaintext. */
  readonly secretEnv?: Readonly<Record<string, SecretEnv>>;
}

export class Gateway extends pulumi.ComponentResource {
  readonly service: gcp.cloudrunv2.Service;
  /** The deterministic URL: the one ID tokens name as audience, exported as `gatewayUrl`. */
  readonly url: pulumi.Output<string>;

  constructor(name: string, args: GatewayArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Gateway', name, {}, opts);
    const { plan } = args;
    const sizing = plan.gateway.sizing;
    const project = gcp.organizations.getProjectOutput(
      { projectId: plan.project },
      // After the APIs are enabled (opts.dependsOn): a new project refuses the lookup before.
      { parent: this, dependsOn: opts?.dependsOn ?? [] },
    );
    this.url = project.number.apply((n) => deterministicUrl(n, plan.region));
    const env: Record<string, pulumi.Input<string>> = {
      ...runtimeEnvironment(plan.project, traceFlushFor(!plan.gateway.cpuIdle)),
      [ENV.tokenStore]: `secret:${plan.gateway.tokenSecret}`,
      // gateway/main.ts binds 127.0.0.1 unless told otherwise; Cloud Run sends traffic to all
      // interfaces (PORT is set by Cloud Run itself).
      HOST: '0.0.0.0',
      // The `aud` Google ID tokens must carry (gateway/main.ts refuses ID tokens without it).
      EVENTBUS_GATEWAY_AUDIENCE: this.url,
    };
    this.service = new gcp.cloudrunv2.Service(
      `${name}-service`,
      {
        ...bundleService({
          plan,
          name: GATEWAY_SERVICE,
          sizing,
          serviceAccountEmail: args.serviceAccountEmail,
          sourceBucket: args.sourceBucket,
          sourceObject: args.sourceObject,
          settingsFile: args.settingsFile,
          env,
          secretEnv: args.secretEnv ?? {},
          // CPU only while a request is handled (request-based billing) unless cost.billing.gateway
          // says instance: the token store is re-read on demand (gateway/auth.ts), and a minimum
          // instance (production) idles at Cloud Run's idle rate (docs/scale.md).
          cpuIdle: plan.gateway.cpuIdle,
        }),
        invokerIamDisabled: true,
      },
      { parent: this, dependsOn: opts?.dependsOn ?? [] },
    );
    this.registerOutputs({ url: this.url });
  }
}
