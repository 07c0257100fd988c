/**
 * The Google APIs an environment uses, enabled before anything else is declared, and the wait
 * after enabling them that everything else depends on.
 *
 * On a new project the first calls to a just-enabled API are refused for a few minutes ("If you
 * enabled this API recently, wait a few minutes for the action to propagate"), and the Google
 * provider does not retry a creation refused that way (terraform-provider-google #11023, #3151;
 * its own guide recommends a sleep). Enabling returns before the API serves, so nothing in the
 * provider can tell when it is ready: a fixed wait (`time.Sleep`, from the `time` provider) is
 * the documented remedy. It runs once, when the environment is created or its API list grows,
 * and never on an unchanged `pulumi up`.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import * as time from '@pulumiverse/time';
import { apiCalls, serviceOfHost } from '../core/access/needs.ts';
import type { Plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';

export const REQUIRED_APIS = Object.freeze([
  'cloudresourcemanager.googleapis.com',
  'iam.googleapis.com',
  'pubsub.googleapis.com',
  'cloudfunctions.googleapis.com',
  'run.googleapis.com',
  'cloudbuild.googleapis.com',
  'artifactregistry.googleapis.com',
  'storage.googleapis.com',
  'bigquery.googleapis.com',
  // The send-once claims' database (infra/claims.ts).
  'firestore.googleapis.com',
  'secretmanager.googleapis.com',
  'cloudscheduler.googleapis.com',
  'monitoring.googleapis.com',
  'logging.googleapis.com',
  // Spans land in Cloud Trace (docs/observability.md); its OTLP endpoint, the Telemetry API, is
  // enabled from the access table's calls (calledApis).
  'cloudtrace.googleapis.com',
]);

/**
 * The APIs the workloads call at run time, derived from the access table's API rows
 * (core/access/needs.ts, apiCalls): Data Manager with Google Ads, the Analytics Admin API with a
 * GA4 user deletion, and whatever a new call adds; never listed by hand, so a host the code
 * calls is enabled for exactly the settings that make it call (test/infra/variants.test.ts).
 */
export function calledApis(plan: Plan, settings: Readonly<Settings>): string[] {
  return [...new Set(apiCalls(plan, settings).flatMap((c) => serviceOfHost(c.host) ?? []))].sort();
}

/** The APIs column-level security needs besides (policy tags, data masking rules). */
export const COLUMN_SECURITY_APIS = Object.freeze([
  'datacatalog.googleapis.com',
  'bigquerydatapolicy.googleapis.com',
]);

/**
 * How long to wait after enabling: Google's message says "a few minutes"; two covers what public
 * reports of the refusal describe, and costs nothing after the first deploy.
 */
export const API_SETTLE = '120s';

export class Apis extends pulumi.ComponentResource {
  readonly services: readonly gcp.projects.Service[];
  /**
   * Done when every API is enabled and has had time to serve: every other resource of the
   * environment depends on it (`dependsOn: [apis.ready]`).
   */
  readonly ready: time.Sleep;

  constructor(
    name: string,
    args: { readonly project: string; readonly extra?: readonly string[] },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super('eventbus:infra:Apis', name, {}, opts);
    // Each once: the derived APIs overlap the required ones.
    const apis = [...new Set([...REQUIRED_APIS, ...(args.extra ?? [])])];
    this.services = apis.map(
      (api) =>
        new gcp.projects.Service(
          `${name}-api-${api.split('.')[0]}`,
          // Other workloads of the project may use these APIs too: never disable them on destroy.
          { project: args.project, service: api, disableOnDestroy: false, disableDependentServices: false },
          { parent: this },
        ),
    );
    this.ready = new time.Sleep(
      `${name}-apis-settle`,
      // A new API in the list (column security turned on) replaces the sleep: it waits again.
      { createDuration: API_SETTLE, triggers: { apis: [...apis].sort().join(',') } },
      { parent: this, dependsOn: [...this.services] },
    );
    this.registerOutputs({});
  }
}
