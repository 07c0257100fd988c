/**
 * The environment variables a deployed function or service starts with, and how its settings
 * reach it: the validated settings as JSON in a Secret Manager secret (infra/secrets.ts), mounted
 * as a file that core/runtime-config.ts reads once at cold start, the way `npm start` hands them
 * over in a file. One environment variable would not do: Cloud Run caps a value at 32 KiB, and
 * settings with many destinations or connections outgrow it. Never an emulator host, never a
 * secret value.
 */

import type * as pulumi from '@pulumi/pulumi';
import { ENV, type TraceFlush } from '../core/runtime-config.ts';

/** Variables Google's clients would read as emulator hosts; a deployed workload must never get one. */
export const EMULATOR_VARIABLES = Object.freeze(['PUBSUB_EMULATOR_HOST', 'BIGQUERY_EMULATOR_HOST']);

/** The settings secret's id in the project (its payload: the settings as JSON), named with the access table. */
export { SETTINGS_SECRET } from '../core/access/needs.ts';
/** Where the settings secret is mounted in every workload, and the file's name there. */
export const SETTINGS_MOUNT = '/eventbus-settings';
export const SETTINGS_FILE = 'settings.json';
/**
 * Secret Manager's limit on one version's payload (64 KiB): settings larger than this cannot be
 * delivered, and `pulumi up` says so before anything is created.
 */
export const SETTINGS_MAX_BYTES = 64 * 1024;

/** Google's OTLP/HTTP endpoint (the Telemetry API): spans to Cloud Trace, metrics to Cloud Monitoring. */
export const CLOUD_TRACE_ENDPOINT = 'https://telemetry.googleapis.com';

/**
 * When a tracing deployable's spans leave (EVENTBUS_TRACE_FLUSH, core/runtime-config.ts): with
 * each answer where the CPU is throttled once it has answered (a Cloud Function; a Cloud Run
 * service with `cpuIdle`), on the queue's timer where it is always allocated.
 */
export const traceFlushFor = (cpuAlwaysAllocated: boolean): TraceFlush =>
  cpuAlwaysAllocated ? 'timer' : 'answer';

/**
 * The runtime environment of a deployed workload; `traces`, for the workloads that trace (the
 * gateway, store, forward, forward-catalog: TRACING_WORKLOADS), when their spans leave.
 */
export function runtimeEnvironment(project: string, traces?: TraceFlush): Record<string, string> {
  return {
    [ENV.settingsFile]: `${SETTINGS_MOUNT}/${SETTINGS_FILE}`,
    [ENV.project]: project,
    // Spans go to Cloud Trace's OTLP endpoint (docs/observability.md; the workloads that trace
    // hold roles/cloudtrace.agent: infra/identities.ts), and the delivery functions' metrics to its
    // /v1/metrics, into Cloud Monitoring (roles/monitoring.metricWriter). When they leave is said
    // with it, for the policy eventbus-trace-flush to see.
    ...(traces ? { [ENV.traceEndpoint]: CLOUD_TRACE_ENDPOINT, [ENV.traceFlush]: traces } : {}),
    // The functions framework prints stack traces in its error pages unless production.
    NODE_ENV: 'production',
  };
}

/** The settings secret's version every workload mounts (a new version is a new revision). */
export interface SettingsDelivery {
  readonly secretId: pulumi.Input<string>;
  readonly version: pulumi.Input<string>;
}

/** A function's (gen2) `serviceConfig.secretVolumes` entry mounting the settings file. */
export const functionSettingsVolume = (project: string, d: SettingsDelivery) => ({
  mountPath: SETTINGS_MOUNT,
  projectId: project,
  secret: d.secretId,
  versions: [{ version: d.version, path: SETTINGS_FILE }],
});

/** A Cloud Run template's volume holding the settings file, and the container's mount of it. */
export const serviceSettingsVolume = (d: SettingsDelivery) => ({
  volume: {
    name: 'settings',
    secret: { secret: d.secretId, items: [{ version: d.version, path: SETTINGS_FILE }] },
  },
  mount: { name: 'settings', mountPath: SETTINGS_MOUNT },
});
