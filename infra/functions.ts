/**
 * The Cloud Functions (gen2) plan() lists, as `http` functions on nodejs24 built from their
 * bundle by the dedicated build account, sized from settings, each running as its own
 * service account; the push identity may invoke them, nobody else.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { FunctionName, Plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { functionSettingsVolume, runtimeEnvironment, type SettingsDelivery } from './runtime-env.ts';

export const FUNCTION_RUNTIME = 'nodejs24';

export interface FunctionsArgs {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObjects: Readonly<Record<FunctionName, pulumi.Input<string>>>;
  /** The runtime account of each function (email). */
  readonly serviceAccounts: Readonly<Record<FunctionName, pulumi.Input<string>>>;
  /** Full resource name of the build account (`projects/<p>/serviceAccounts/<email>`). */
  readonly buildServiceAccount: pulumi.Input<string>;
  /** The Pub/Sub push identity, granted run.invoker on each function's service. */
  readonly invoker: pulumi.Input<string>;
  /** The settings secret's version, mounted as the settings file. */
  readonly settingsFile: SettingsDelivery;
}

export class Functions extends pulumi.ComponentResource {
  readonly functions: Readonly<Record<FunctionName, gcp.cloudfunctionsv2.Function>>;
  /** The run.app URI of each function: push endpoint and OIDC audience. */
  readonly endpoints: Readonly<Record<FunctionName, pulumi.Output<string>>>;

  constructor(name: string, args: FunctionsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Functions', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const functions = {} as Record<FunctionName, gcp.cloudfunctionsv2.Function>;
    const endpoints = {} as Record<FunctionName, pulumi.Output<string>>;
    for (const f of plan.functions) {
      const fn = new gcp.cloudfunctionsv2.Function(
        `${name}-function-${f.name}`,
        {
          project: plan.project,
          location: plan.region,
          name: f.name,
          description: `eventbus ${f.name} (${plan.environment})`,
          labels: { environment: plan.environment },
          buildConfig: {
            runtime: FUNCTION_RUNTIME,
            entryPoint: f.entryPoint,
            serviceAccount: args.buildServiceAccount,
            source: { storageSource: { bucket: args.sourceBucket, object: args.sourceObjects[f.name] } },
          },
          serviceConfig: {
            availableMemory: f.sizing.memory,
            availableCpu: String(f.sizing.cpu),
            maxInstanceRequestConcurrency: f.sizing.concurrency,
            minInstanceCount: f.sizing.min_instances,
            maxInstanceCount: f.sizing.max_instances,
            timeoutSeconds: f.sizing.timeout_seconds,
            serviceAccountEmail: args.serviceAccounts[f.name],
            environmentVariables: runtimeEnvironment(plan.project),
            secretVolumes: [functionSettingsVolume(plan.project, args.settingsFile)],
            // Pub/Sub push comes from Google's front ends, not from a VPC: ingress must allow
            // all, and IAM (run.invoker, held by the push identity only) is the guard.
            ingressSettings: 'ALLOW_ALL',
            allTrafficOnLatestRevision: true,
          },
        },
        child,
      );
      new gcp.cloudrunv2.ServiceIamMember(
        `${name}-invoker-${f.name}`,
        {
          project: plan.project,
          location: plan.region,
          name: fn.serviceConfig.apply((s) => s?.service ?? f.name),
          role: 'roles/run.invoker',
          member: args.invoker,
        },
        { parent: this },
      );
      functions[f.name] = fn;
      endpoints[f.name] = fn.serviceConfig.apply((s) => s?.uri ?? '');
    }
    this.functions = functions;
    this.endpoints = endpoints;
    this.registerOutputs({ endpoints });
  }
}
