/**
 * The predefined IAM roles this project grants (and the two admin roles the fidelity runs grant
 * their member), and the permissions of each that its workloads call: a hand-kept snapshot of Google's role reference, not the roles' whole contents (a role's
 * other permissions are left out, so a check against this table can refuse what Google would
 * allow, never allow what Google would refuse). Each role names its reference page; `verified`
 * says whether its list was checked against that page's current text on the date given. None is
 * yet: these were written from our reading of the pages, on a machine that cannot reach them, and
 * docs/permissions.md says so. Custom roles the program defines are listed with the permissions
 * it gives them.
 */

export interface RoleSnapshot {
  readonly permissions: readonly string[];
  /** The reference page the permissions were read from. */
  readonly source: string;
  /** When it was read (YYYY-MM-DD). */
  readonly read: string;
  readonly verified: boolean;
}

const PAGE = 'https://cloud.google.com/iam/docs/roles-permissions';
const READ = '2026-11-25';

const role = (service: string, permissions: readonly string[], verified = false, read = READ): RoleSnapshot =>
  Object.freeze({
    permissions: Object.freeze([...permissions]),
    source: `${PAGE}/${service}`,
    read,
    verified,
  });

/** Permissions shared by the BigQuery data roles on a table. */
const TABLE_READ = [
  'bigquery.tables.get',
  'bigquery.tables.getData',
  'bigquery.tables.list',
  'bigquery.datasets.get',
];
const TABLE_WRITE = [
  ...TABLE_READ,
  'bigquery.tables.create',
  'bigquery.tables.delete',
  'bigquery.tables.update',
  'bigquery.tables.updateData',
];
const OBJECT_READ = ['storage.objects.get', 'storage.objects.list'];
/** Firestore (and Datastore): read-only access to a database's documents. */
const DATASTORE_READ = [
  'datastore.databases.get',
  'datastore.databases.getMetadata',
  'datastore.databases.list',
  'datastore.entities.get',
  'datastore.entities.list',
  'datastore.indexes.get',
  'datastore.indexes.list',
  'datastore.namespaces.get',
  'datastore.namespaces.list',
  'datastore.statistics.get',
  'datastore.statistics.list',
];

/**
 * Bigtable: what the Bigtable emulator checks (emulators/bigtable/access.ts) of the four predefined
 * roles. Which permission each method needs is Google's "Cloud Bigtable API audit logging" and
 * "Cloud Bigtable Admin API audit logging" pages (docs.cloud.google.com/bigtable/docs/audit-logging
 * and …/audit-logging-bigtableadmin, updated 2026-04-08); the roles' contents are the roles page
 * below. Viewer reads tables' metadata only; Reader adds the rows; User adds writing them (and
 * DropRowRange, which needs `mutateRows`); none of the three creates, changes or deletes a table.
 */
const BIGTABLE_METADATA = [
  'bigtable.instances.get',
  'bigtable.instances.list',
  'bigtable.tables.get',
  'bigtable.tables.list',
];
const BIGTABLE_READ = [
  ...BIGTABLE_METADATA,
  'bigtable.instances.ping',
  'bigtable.tables.readRows',
  'bigtable.tables.sampleRowKeys',
];
const BIGTABLE_READ_WRITE = [...BIGTABLE_READ, 'bigtable.tables.mutateRows'];
const BIGTABLE_READ_DATE = '2026-11-28';

/** Secret Manager: reading secrets' and versions' metadata (never a payload). */
const SECRET_METADATA = [
  'secretmanager.secrets.get',
  'secretmanager.secrets.getIamPolicy',
  'secretmanager.secrets.list',
  'secretmanager.versions.get',
  'secretmanager.versions.list',
];

export const ROLES: Readonly<Record<string, RoleSnapshot>> = Object.freeze({
  'roles/pubsub.publisher': role('pubsub', ['pubsub.topics.publish']),
  // Google's Cloud Storage test grants it on its notifications' topic (scripts/fidelity-storage.ts):
  // the permissions the Pub/Sub emulator checks but the IAM-policy ones.
  'roles/pubsub.editor': role('pubsub', [
    'pubsub.topics.create',
    'pubsub.topics.delete',
    'pubsub.topics.get',
    'pubsub.topics.list',
    'pubsub.topics.publish',
    'pubsub.topics.update',
    'pubsub.topics.attachSubscription',
    'pubsub.topics.detachSubscription',
    'pubsub.subscriptions.create',
    'pubsub.subscriptions.delete',
    'pubsub.subscriptions.get',
    'pubsub.subscriptions.list',
    'pubsub.subscriptions.update',
    'pubsub.subscriptions.consume',
    'pubsub.snapshots.create',
    'pubsub.snapshots.delete',
    'pubsub.snapshots.get',
    'pubsub.snapshots.list',
    'pubsub.snapshots.seek',
    'pubsub.snapshots.update',
    'pubsub.schemas.attach',
    'pubsub.schemas.commit',
    'pubsub.schemas.create',
    'pubsub.schemas.delete',
    'pubsub.schemas.get',
    'pubsub.schemas.list',
    'pubsub.schemas.listRevisions',
    'pubsub.schemas.rollback',
    'pubsub.schemas.validate',
  ]),
  'roles/pubsub.subscriber': role('pubsub', [
    'pubsub.subscriptions.consume',
    'pubsub.topics.attachSubscription',
    'pubsub.snapshots.seek',
  ]),
  'roles/bigquery.dataViewer': role('bigquery', TABLE_READ),
  'roles/bigquery.dataEditor': role('bigquery', TABLE_WRITE),
  'roles/bigquery.jobUser': role('bigquery', ['bigquery.jobs.create']),
  // The admin roles: only what the emulators check (the fidelity runs' credentialed member holds
  // them, scripts/fidelity-harness.ts); the project's workloads are granted none.
  'roles/bigquery.admin': role('bigquery', [
    ...TABLE_WRITE,
    'bigquery.datasets.create',
    'bigquery.datasets.delete',
    'bigquery.datasets.update',
    'bigquery.jobs.create',
    'bigquery.jobs.delete',
    'bigquery.jobs.get',
    'bigquery.jobs.listAll',
    'bigquery.jobs.update',
    'bigquery.tables.setCategory',
  ]),
  'roles/storage.objectViewer': role('storage', OBJECT_READ),
  'roles/storage.admin': role('storage', [
    ...OBJECT_READ,
    'storage.buckets.create',
    'storage.buckets.delete',
    'storage.buckets.get',
    'storage.buckets.getIamPolicy',
    'storage.buckets.list',
    'storage.buckets.restore',
    'storage.buckets.setIamPolicy',
    'storage.buckets.update',
    'storage.objects.create',
    'storage.objects.delete',
    'storage.objects.getIamPolicy',
    'storage.objects.move',
    'storage.objects.restore',
    'storage.objects.setIamPolicy',
    'storage.objects.update',
  ]),
  'roles/storage.objectCreator': role('storage', ['storage.objects.create']),
  'roles/storage.objectUser': role('storage', [
    ...OBJECT_READ,
    'storage.objects.create',
    'storage.objects.delete',
    'storage.objects.update',
  ]),
  'roles/storage.objectAdmin': role('storage', [
    ...OBJECT_READ,
    'storage.objects.create',
    'storage.objects.delete',
    'storage.objects.update',
    'storage.objects.restore',
    'storage.objects.getIamPolicy',
    'storage.objects.setIamPolicy',
  ]),
  'roles/datastore.viewer': role('datastore', DATASTORE_READ),
  'roles/datastore.user': role('datastore', [
    'datastore.databases.get',
    'datastore.databases.getMetadata',
    'datastore.entities.allocateIds',
    'datastore.entities.create',
    'datastore.entities.delete',
    'datastore.entities.get',
    'datastore.entities.list',
    'datastore.entities.update',
    'datastore.indexes.list',
    'datastore.namespaces.get',
    'datastore.namespaces.list',
    'datastore.statistics.get',
    'datastore.statistics.list',
  ]),
  'roles/secretmanager.secretAccessor': role('secretmanager', ['secretmanager.versions.access']),
  'roles/secretmanager.secretVersionAdder': role('secretmanager', ['secretmanager.versions.add']),
  'roles/secretmanager.viewer': role('secretmanager', SECRET_METADATA),
  'roles/secretmanager.admin': role('secretmanager', [
    ...SECRET_METADATA,
    'secretmanager.secrets.create',
    'secretmanager.secrets.delete',
    'secretmanager.secrets.setIamPolicy',
    'secretmanager.secrets.update',
    'secretmanager.versions.access',
    'secretmanager.versions.add',
    'secretmanager.versions.destroy',
    'secretmanager.versions.disable',
    'secretmanager.versions.enable',
  ]),
  'roles/secretmanager.secretVersionManager': role('secretmanager', [
    'secretmanager.versions.add',
    'secretmanager.versions.destroy',
    'secretmanager.versions.disable',
    'secretmanager.versions.enable',
    'secretmanager.versions.get',
    'secretmanager.versions.list',
  ]),
  'roles/bigtable.viewer': role('bigtable', BIGTABLE_METADATA, false, BIGTABLE_READ_DATE),
  'roles/bigtable.reader': role('bigtable', BIGTABLE_READ, false, BIGTABLE_READ_DATE),
  'roles/bigtable.user': role('bigtable', BIGTABLE_READ_WRITE, false, BIGTABLE_READ_DATE),
  // bigtable.* on the page; here the table admin methods the emulator serves.
  'roles/bigtable.admin': role(
    'bigtable',
    [...BIGTABLE_READ_WRITE, 'bigtable.tables.create', 'bigtable.tables.delete', 'bigtable.tables.update'],
    false,
    BIGTABLE_READ_DATE,
  ),
  'roles/datacatalog.categoryFineGrainedReader': role('datacatalog', [
    'datacatalog.categories.fineGrainedGet',
  ]),
  'roles/bigquerydatapolicy.maskedReader': role('bigquerydatapolicy', ['bigquery.dataPolicies.maskedGet']),
  // Spans to Cloud Trace (adapters/tracing.ts): granted on the project, its only resource.
  'roles/cloudtrace.agent': role('cloudtrace', ['cloudtrace.traces.patch', 'telemetry.traces.write']),
  // Reading traces (the studio's waterfall, adapters/trace-reader.ts): also granted on the project.
  'roles/cloudtrace.user': role('cloudtrace', [
    'cloudtrace.insights.get',
    'cloudtrace.insights.list',
    'cloudtrace.stats.get',
    'cloudtrace.tasks.create',
    'cloudtrace.tasks.delete',
    'cloudtrace.tasks.get',
    'cloudtrace.tasks.list',
    'cloudtrace.traces.get',
    'cloudtrace.traces.list',
  ]),
  // Delivery metrics to Cloud Monitoring (adapters/metrics.ts, the Telemetry API's /v1/metrics).
  'roles/monitoring.metricWriter': role('monitoring', [
    'monitoring.metricDescriptors.create',
    'monitoring.metricDescriptors.get',
    'monitoring.metricDescriptors.list',
    'monitoring.monitoredResourceDescriptors.get',
    'monitoring.monitoredResourceDescriptors.list',
    'monitoring.timeSeries.create',
  ]),
  'roles/run.invoker': role('run', ['run.routes.invoke']),
  'roles/iap.httpsResourceAccessor': role('iap', ['iap.webServiceVersions.accessViaIAP']),
  'roles/iam.serviceAccountTokenCreator': role('iam', [
    'iam.serviceAccounts.getAccessToken',
    'iam.serviceAccounts.getOpenIdToken',
    'iam.serviceAccounts.signBlob',
    'iam.serviceAccounts.signJwt',
  ]),
});

/**
 * Custom roles the program defines where no predefined role is narrow enough, by the last
 * segment of the role id it gives them (`projects/<project>/roles/eventbus.<environment>.<name>`).
 */
export const CUSTOM_ROLES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // A slice replay's table carries the events table's policy tags (core/delivery/replay.ts):
  // setting a column's tag is bigquery.tables.setCategory (Data Owner and Admin have it, Data
  // Editor does not), and naming the tag reads its taxonomy.
  policyTaggedTables: Object.freeze(['bigquery.tables.setCategory']),
  taxonomyReader: Object.freeze(['datacatalog.taxonomies.get']),
});

/** The permissions of a role (predefined or `projects/<p>/roles/<id>`), or undefined when unknown. */
export function permissionsOf(roleName: string): readonly string[] | undefined {
  const custom = /^projects\/[^/]+\/roles\/(?:[A-Za-z0-9_.]+\.)?([A-Za-z0-9_]+)$/.exec(roleName)?.[1];
  if (custom !== undefined) return CUSTOM_ROLES[custom];
  return ROLES[roleName]?.permissions;
}
