/** The Google APIs an environment uses, enabled before anything else is declared. */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';

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
  'secretmanager.googleapis.com',
  'cloudscheduler.googleapis.com',
  'monitoring.googleapis.com',
  'logging.googleapis.com',
]);

/** The APIs column-level security needs besides (policy tags, data masking rules). */
export const COLUMN_SECURITY_APIS = Object.freeze([
  'datacatalog.googleapis.com',
  'bigquerydatapolicy.googleapis.com',
]);

export class Apis extends pulumi.ComponentResource {
  readonly services: readonly gcp.projects.Service[];

  constructor(
    name: string,
    args: { readonly project: string; readonly extra?: readonly string[] },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super('eventbus:infra:Apis', name, {}, opts);
    this.services = [...REQUIRED_APIS, ...(args.extra ?? [])].map(
      (api) =>
        new gcp.projects.Service(
          `${name}-api-${api.split('.')[0]}`,
          // Other workloads of the project may use these APIs too: never disable them on destroy.
          { project: args.project, service: api, disableOnDestroy: false, disableDependentServices: false },
          { parent: this },
        ),
    );
    this.registerOutputs({});
  }
}
