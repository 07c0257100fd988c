/**
 * The functions plan() lists, sized from settings, each running as its own service account; the
 * push identity may invoke them, nobody else. A request-billed function, the default, is a Cloud
 * Function (gen2): an `http` function on nodejs24 built from its bundle by the dedicated build
 * account. An instance-billed one (`cost.billing`, store and forward) is a Cloud Run service
 * with CPU always allocated, run from its `-service` bundle with no build (infra/cloud-run.ts):
 * the Cloud Functions API has no billing setting, and a Cloud Run service's `buildConfig` starts
 * no build (docs/deploy.md). Each shape has its own Cloud Run name (plan()'s `service`:
 * `store-function`, `store-service`), so a switch either way in one `pulumi up`, which creates
 * the new shape before it deletes the old, never asks for a name the old one still holds; the
 * request logs and alerts find the service by that name. `forward-catalog` (issue #65) is only ever
 * a Cloud Function, and only declared when plan() lists it (a catalogue destination exists).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import {
  type BillingStamp,
  billingLabels,
  type KeptFunction,
  keptBilling,
} from '../core/deploy/billing-kept.ts';
import type { FunctionName, FunctionPlan, Plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { bundleService } from './cloud-run.ts';
import { TRACING_WORKLOADS } from './identities.ts';
import {
  functionSettingsVolume,
  runtimeEnvironment,
  type SettingsDelivery,
  traceFlushFor,
} from './runtime-env.ts';

/** The functions that may run as an instance-billed Cloud Run service, and their bundles. */
export type ServedFunction = 'store' | 'forward';

export const FUNCTION_RUNTIME = 'nodejs24';

/** One value per function: every one plan() may list, forward-catalog only when it does. */
export type PerFunction<T> = Readonly<Record<Exclude<FunctionName, 'forward-catalog'>, T>> &
  Readonly<Partial<Record<'forward-catalog', T>>>;

export interface FunctionsArgs {
  readonly plan: Plan;
  readonly settings: Readonly<Settings>;
  readonly sourceBucket: pulumi.Input<string>;
  readonly sourceObjects: PerFunction<pulumi.Input<string>>;
  /** The runtime account of each function (email). */
  readonly serviceAccounts: PerFunction<pulumi.Input<string>>;
  /** Full resource name of the build account (`projects/<p>/serviceAccounts/<email>`). */
  readonly buildServiceAccount: pulumi.Input<string>;
  /** The Pub/Sub push identity, granted run.invoker on each function's service. */
  readonly invoker: pulumi.Input<string>;
  /** The settings secret's version, mounted as the settings file. */
  readonly settingsFile: SettingsDelivery;
  /** The `<name>-service` archives, for the functions whose plan says instance-based billing. */
  readonly serviceObjects?: Readonly<Partial<Record<ServedFunction, gcp.storage.BucketObject>>>;
  /**
   * The billing the program decided for store and forward, and why: labels on their deployables.
   * Absent: a stack declared without the program's reading of its state, a new one.
   */
  readonly billingStamps?: Readonly<Record<KeptFunction, BillingStamp>>;
}

/** The billing stamp's labels of store and forward (core/deploy/billing-kept.ts); none for the others. */
const stampOf = (args: FunctionsArgs, f: FunctionName): Record<string, string> =>
  f === 'store' || f === 'forward'
    ? billingLabels((args.billingStamps ?? keptBilling(args.settings, undefined).stamps)[f])
    : {};

/** When a function's spans leave, if it traces (the scheduler does not). */
const tracesOf = (f: FunctionName, cpuAlwaysAllocated: boolean) =>
  TRACING_WORKLOADS.includes(f) ? traceFlushFor(cpuAlwaysAllocated) : undefined;

export class Functions extends pulumi.ComponentResource {
  /** The request-billed functions (Cloud Functions gen2). */
  readonly functions: Readonly<Partial<Record<FunctionName, gcp.cloudfunctionsv2.Function>>>;
  /** The instance-billed ones (Cloud Run services). */
  readonly services: Readonly<Partial<Record<FunctionName, gcp.cloudrunv2.Service>>>;
  /** The run.app URI of each function: push endpoint and OIDC audience. */
  readonly endpoints: PerFunction<pulumi.Output<string>>;

  constructor(name: string, args: FunctionsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Functions', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const functions: Partial<Record<FunctionName, gcp.cloudfunctionsv2.Function>> = {};
    const services: Partial<Record<FunctionName, gcp.cloudrunv2.Service>> = {};
    const endpoints: Partial<Record<FunctionName, pulumi.Output<string>>> = {};
    const invoker = (f: FunctionPlan, service: pulumi.Input<string>) =>
      new gcp.cloudrunv2.ServiceIamMember(
        `${name}-invoker-${f.name}`,
        {
          project: plan.project,
          location: plan.region,
          name: service,
          role: 'roles/run.invoker',
          member: args.invoker,
        },
        { parent: this },
      );
    for (const f of plan.functions) {
      if (f.billing === 'instance') {
        const service = this.service(name, f, args, child);
        invoker(f, service.name);
        services[f.name] = service;
        endpoints[f.name] = service.uri;
        continue;
      }
      const source = args.sourceObjects[f.name];
      const account = args.serviceAccounts[f.name];
      if (!source || !account)
        throw new Error(
          `${f.name}: no ${source ? 'service account' : 'bundle'} given (npm run build:functions -- --settings <file>)`,
        );
      const fn = new gcp.cloudfunctionsv2.Function(
        `${name}-function-${f.name}`,
        {
          project: plan.project,
          location: plan.region,
          name: f.service,
          description: `eventbus ${f.name} (${plan.environment})`,
          labels: { environment: plan.environment, ...stampOf(args, f.name) },
          buildConfig: {
            runtime: FUNCTION_RUNTIME,
            entryPoint: f.entryPoint,
            serviceAccount: args.buildServiceAccount,
            source: { storageSource: { bucket: args.sourceBucket, object: source } },
          },
          serviceConfig: {
            availableMemory: f.sizing.memory,
            availableCpu: String(f.sizing.cpu),
            maxInstanceRequestConcurrency: f.sizing.concurrency,
            minInstanceCount: f.sizing.min_instances,
            maxInstanceCount: f.sizing.max_instances,
            timeoutSeconds: f.sizing.timeout_seconds,
            serviceAccountEmail: account,
            environmentVariables: runtimeEnvironment(plan.project, tracesOf(f.name, false)),
            secretVolumes: [functionSettingsVolume(plan.project, args.settingsFile)],
            // Pub/Sub push comes from Google's front ends, not from a VPC: ingress must allow
            // all, and IAM (run.invoker, held by the push identity only) is the guard.
            ingressSettings: 'ALLOW_ALL',
            allTrafficOnLatestRevision: true,
          },
        },
        child,
      );
      invoker(
        f,
        fn.serviceConfig.apply((s) => s?.service ?? f.service),
      );
      functions[f.name] = fn;
      endpoints[f.name] = fn.serviceConfig.apply((s) => s?.uri ?? '');
    }
    this.functions = functions;
    this.services = services;
    this.endpoints = endpoints as PerFunction<pulumi.Output<string>>;
    this.registerOutputs({ endpoints });
  }

  /**
   * An instance-billed function: a Cloud Run service under its own name, CPU always allocated
   * (`cpuIdle: false`, which is instance-based billing), the same sizing, account, settings file
   * and environment, requiring IAM like the function's service (no invokerIamDisabled).
   */
  private service(
    name: string,
    f: FunctionPlan,
    args: FunctionsArgs,
    opts: pulumi.CustomResourceOptions,
  ): gcp.cloudrunv2.Service {
    const object = f.name === 'store' || f.name === 'forward' ? args.serviceObjects?.[f.name] : undefined;
    const account = args.serviceAccounts[f.name];
    if (!object || !account) {
      throw new Error(
        `${f.name}: instance-based billing runs its "${f.name}-service" bundle, and none was given (npm run build:functions)`,
      );
    }
    return new gcp.cloudrunv2.Service(
      `${name}-service-${f.name}`,
      bundleService({
        plan: args.plan,
        name: f.service,
        sizing: f.sizing,
        serviceAccountEmail: account,
        sourceBucket: args.sourceBucket,
        sourceObject: object,
        // functions/serve.ts listens on loopback unless told otherwise.
        env: { ...runtimeEnvironment(args.plan.project, tracesOf(f.name, true)), HOST: '0.0.0.0' },
        settingsFile: args.settingsFile,
        cpuIdle: false,
        startupProbe: 'tcp',
        labels: stampOf(args, f.name),
      }),
      opts,
    );
  }
}
