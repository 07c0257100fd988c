/**
 * What each workload's code calls, as IAM sees it: one row per (workload, permission, resource)
 * a feature needs, derived from the plan and the settings, each naming the code that makes the
 * call. The program's grants (infra/) are checked against this table under Pulumi's mocks
 * (test/infra/access-needs.test.ts): a need no declared binding allows is a feature that cannot
 * work after `pulumi up`, and `npm run access:mutations` removes each binding in turn to show
 * that every one is needed by some row. Rows marked `denied` are what a workload must NOT be
 * able to do. docs/permissions.md explains the table and how to debug a refused call.
 */

import type { Destination, Settings } from '../../schemas/settings.ts';
import { modelPlan } from '../models/models.ts';
import { ACTIONS_TOPIC, type Plan, publishedDeliveriesTopics, RUNS_TOPIC } from '../plan.ts';
import { countedDestinations } from '../platforms/counted.ts';
import type { ErasedPerson } from '../platforms/erasure.ts';
import { GOOGLE_ADS_BASE_URL } from '../platforms/google-ads/driver.ts';
import { GOOGLE_ADS_PLATFORM } from '../platforms/google-ads/index.ts';
import type { Platform } from '../platforms/platform.ts';
import { PLATFORMS } from '../platforms/platforms.ts';
import { rotatedRefreshTokenSecrets } from '../platforms/segment-action/oauth.ts';
import { ERASURE_REQUESTS_PREFIX, SUPPRESSION_OBJECT } from '../privacy/erasure.ts';
import { indexPath } from '../registry/registry.ts';
import { REPLAYS_PREFIX } from '../scheduler/replays.ts';
import { SECRET_ACCESS, TRANSLATOR_SECRET_PREFIX } from '../translate/translator-secrets.ts';
import { PLATFORM_DIAGNOSTICS_TABLE } from '../warehouse/platform-diagnostics.ts';
import { PRIVACY_TABLES } from '../warehouse/privacy-audit.ts';
import { PLATFORM_COUNTS_TABLE } from '../warehouse/reconciliation.ts';
import { OPS_TABLES, TABLES, VIEWS } from '../warehouse/warehouse.ts';
import { gatewaySecrets, SESSION_SALT } from './gateway-secrets.ts';

export type Workload = 'gateway' | 'store' | 'forward' | 'schedule' | 'studio' | 'forward-catalog';
/** `forward-catalog` runs only where a catalogue destination exists (core/deploy/catalog-function.ts). */
export const WORKLOADS: readonly Workload[] = [
  'gateway',
  'store',
  'forward',
  'schedule',
  'studio',
  'forward-catalog',
];

/** The delivering workloads: `forward`, and `forward-catalog` for catalogue destinations. */
type Deliverer = 'forward' | 'forward-catalog';

export interface AccessNeed {
  readonly who: Workload;
  readonly permission: string;
  /** The resource's full name, as IAM checks it (for a Cloud Storage list: the bucket's). */
  readonly resource: string;
  /** A Cloud Storage list: the prefix asked for. */
  readonly listPrefix?: string;
  /** What breaks without it. */
  readonly feature: string;
  /** The file that makes the call. */
  readonly code: string;
  /** True for what the workload must not be allowed. */
  readonly denied?: true;
}

/** The secret every workload mounts its settings from (infra/runtime-env.ts). */
export const SETTINGS_SECRET = 'eventbus-settings';

/**
 * Column security's resources, named symbolically (their real names exist only once created):
 * the `pii` policy tag, its taxonomy and the masking rule (infra/column-security.ts).
 */
export const PII_RESOURCES = Object.freeze({
  tag: 'datacatalog:policyTags/pii',
  taxonomy: 'datacatalog:taxonomies/pii',
  maskingRule: 'bigquerydatapolicy:dataPolicies/pii',
});

/** `serviceAccount:eventbus-<workload>@<project>.iam.gserviceaccount.com` */
export const workloadMember = (who: Workload, project: string): string =>
  `serviceAccount:eventbus-${who}@${project}.iam.gserviceaccount.com`;

export function accessNeeds(plan: Plan, settings: Readonly<Settings>): AccessNeed[] {
  const p = `projects/${plan.project}`;
  const topic = (t: string) => `${p}/topics/${t}`;
  const table = (dataset: string, t: string) => `${p}/datasets/${dataset}/tables/${t}`;
  const registry = plan.buckets.find((b) => b.purpose === 'registry')?.name;
  const object = (name: string) => `projects/_/buckets/${registry}/objects/${name}`;
  const rules = settings.experimental?.rules === true;
  const columnSecurity = settings.pii?.column_security === true;
  const geo = settings.enrichment?.geo === 'country';
  const rows: AccessNeed[] = [];
  const need = (
    who: Workload,
    permission: string,
    resource: string,
    feature: string,
    code: string,
    extra: Partial<AccessNeed> = {},
  ) => rows.push({ who, permission, resource, feature, code, ...extra });

  // The delivering functions the plan deploys (forward always; forward-catalog with a catalogue destination).
  const deliverers = plan.functions
    .map((f) => f.name)
    .filter((n): n is Deliverer => n === 'forward' || n === 'forward-catalog');
  const deployed = WORKLOADS.filter((w) => w !== 'forward-catalog' || deliverers.includes(w));

  // Every workload: its settings, mounted from a secret when a revision starts.
  for (const who of deployed)
    need(
      who,
      'secretmanager.versions.access',
      `${p}/secrets/${SETTINGS_SECRET}`,
      'settings',
      'infra/runtime-env.ts',
    );

  // gateway: publishes producers' events; reads definitions and translators; its token store.
  for (const t of plan.gateway.topics)
    need('gateway', 'pubsub.topics.publish', topic(t), `publishing to ${t}`, 'adapters/publisher.ts');
  need(
    'gateway',
    'storage.objects.get',
    object(indexPath('EventDefinition')),
    'defined events',
    'adapters/registry.ts',
  );
  need(
    'gateway',
    'storage.objects.get',
    object(indexPath('Translator')),
    'translators',
    'adapters/registry.ts',
  );
  need(
    'gateway',
    'secretmanager.versions.access',
    `${p}/secrets/${plan.gateway.tokenSecret}`,
    'tokens',
    'gateway/token-store.ts',
  );
  // The edge secret and the session salt, when the settings need them: Cloud Run reads each into
  // the gateway's environment as a revision starts, as the gateway's account.
  for (const g of gatewaySecrets(settings))
    need(
      'gateway',
      'secretmanager.versions.access',
      `${p}/secrets/${g.secretId}`,
      `${g.env} (${g.configKey})`,
      'infra/cloud-run.ts',
    );
  // Translators' signing secrets: any name under the prefix (core/translate/translator-secrets.ts).
  need(
    'gateway',
    SECRET_ACCESS,
    `${p}/secrets/${TRANSLATOR_SECRET_PREFIX}stripe`,
    'signed webhooks (translator signing secrets)',
    'gateway/translate.ts',
  );
  need(
    'gateway',
    'bigquery.tables.updateData',
    table(plan.ops.dataset, OPS_TABLES.gatewayRefusals),
    'live events: refused requests',
    'adapters/refusal-recorder.ts',
  );

  // store: the warehouse first, then the fan-out.
  for (const t of [TABLES.events, TABLES.invalidEvents, TABLES.deliveries])
    need(
      'store',
      'bigquery.tables.updateData',
      table(plan.dataset, t),
      `rows in ${t} (Storage Write API, default stream)`,
      'adapters/bigquery-write-api.ts',
    );
  need(
    'store',
    'bigquery.tables.updateData',
    table(plan.dataset, TABLES.hookFailures),
    'recording a hook that failed for good (else Pub/Sub redelivers and runs it again)',
    'functions/store/handler.ts',
  );
  need('store', 'bigquery.jobs.create', p, 'the late-copy check (a query job)', 'adapters/stored-check.ts');
  need(
    'store',
    'bigquery.tables.getData',
    table(plan.dataset, TABLES.events),
    'the late-copy check reads events',
    'adapters/stored-check.ts',
  );
  for (const t of publishedDeliveriesTopics(plan))
    need('store', 'pubsub.topics.publish', topic(t), 'fan-out', 'adapters/store-fan-out.ts');
  need(
    'store',
    'storage.objects.get',
    object(indexPath('EventDefinition')),
    'defined events',
    'adapters/registry.ts',
  );
  if (rules) need('store', 'storage.objects.get', object(indexPath('Rule')), 'rules', 'adapters/registry.ts');
  if (geo)
    need(
      'store',
      'storage.objects.get',
      object('geo/country.mmdb'),
      'a newer country database',
      'adapters/geo-database.ts',
    );

  // Send once (issue #73): store's first sighting of an identity, the deliverers' claim on a
  // delivery, in the claims database (adapters/firestore-claims.ts). A deliverer releases a claim
  // after a refusal that is not a delivery; store never releases one.
  const claims = `${p}/databases/${plan.claims.database}`;
  for (const permission of [
    'datastore.entities.create',
    'datastore.entities.get',
    'datastore.entities.update',
  ])
    need('store', permission, claims, 'identity claims (send once)', 'adapters/firestore-claims.ts');
  for (const who of deliverers)
    for (const permission of [
      'datastore.entities.create',
      'datastore.entities.get',
      'datastore.entities.update',
      'datastore.entities.delete',
    ])
      need(who, permission, claims, 'delivery claims (send once)', 'adapters/firestore-claims.ts');
  // claims.store: bigtable (#97): the claims table (adapters/bigtable-claims.ts). CheckAndMutateRow
  // is checked as mutateRows, ReadRows as readRows (emulators/bigtable/README.md).
  const bt = plan.claims.bigtable;
  if (bt)
    for (const who of ['store', ...deliverers] as const)
      for (const permission of ['bigtable.tables.mutateRows', 'bigtable.tables.readRows'])
        need(
          who,
          permission,
          `${p}/instances/${bt.instance}/tables/${bt.table}`,
          'claims in Bigtable (send once)',
          'adapters/bigtable-claims.ts',
        );

  for (const who of ['store', ...deliverers] as const)
    need(
      who,
      'storage.objects.get',
      object(SUPPRESSION_OBJECT),
      'the erased list',
      'adapters/suppression-list.ts',
    );

  // forward and forward-catalog (the same delivery core, issue #65): the ledger (written, never
  // queried), the secrets of the destinations each delivers to, and no other's.
  // Defined events' mappings are forward's platforms' (a Segment action maps with its own).
  need(
    'forward',
    'storage.objects.get',
    object(indexPath('EventDefinition')),
    'defined events’ mappings',
    'adapters/registry.ts',
  );
  for (const who of deliverers) {
    need(
      who,
      'bigquery.tables.updateData',
      table(plan.dataset, TABLES.deliveries),
      'the delivery ledger (Storage Write API, default stream)',
      'adapters/bigquery-write-api.ts',
    );
    for (const s of plan.functions.find((f) => f.name === who)?.secrets ?? [])
      need(
        who,
        'secretmanager.versions.access',
        `${p}/secrets/${s}`,
        'destination credentials',
        'adapters/secrets.ts',
      );
  }
  // An OAuth connection's rotated refresh token, written back; a refresh claimed by disabling the
  // newest version with its etag (core/platforms/segment-action/refresh-rotation.ts, issue #100).
  if (deliverers.includes('forward-catalog'))
    for (const s of rotatedRefreshTokenSecrets(settings))
      for (const verb of ['get', 'disable', 'enable', 'add'])
        need(
          'forward-catalog',
          `secretmanager.versions.${verb}`,
          `${p}/secrets/${s}`,
          'OAuth refresh tokens that survive the instance (rotation written back)',
          'adapters/secret-versions.ts',
        );

  // schedule: re-drive, alerts, syncs, replays, locks, ledger reads; the secrets connections name
  // (none for a google_ads_audience connection without `credentials`: its own account calls).
  for (const s of plan.functions.find((f) => f.name === 'schedule')?.secrets ?? [])
    need(
      'schedule',
      'secretmanager.versions.access',
      `${p}/secrets/${s}`,
      'connection secrets (signing keys, tokens, credentials)',
      'adapters/secrets.ts',
    );
  for (const s of plan.subscriptions.filter((x) => x.kind === 'backlog'))
    need(
      'schedule',
      'pubsub.subscriptions.consume',
      `${p}/subscriptions/${s.name}`,
      're-drive and dead-letter replays',
      'adapters/backlog.ts',
    );
  for (const t of [RUNS_TOPIC, ...publishedDeliveriesTopics(plan)])
    need('schedule', 'pubsub.topics.publish', topic(t), `publishing to ${t}`, 'functions/schedule/index.ts');
  if (rules)
    need(
      'schedule',
      'pubsub.topics.publish',
      topic(ACTIONS_TOPIC),
      "a scheduled rule's firings",
      'functions/schedule/index.ts',
    );
  // Re-driven events and what syncs and rules send back into the bus.
  for (const t of plan.gateway.topics)
    need(
      'schedule',
      'pubsub.topics.publish',
      topic(t),
      `events back into ${t}`,
      'functions/schedule/sync-destinations.ts',
    );
  need(
    'schedule',
    'storage.objects.get',
    object(indexPath('EventDefinition')),
    'a replayed slice’s mappings',
    'adapters/registry.ts',
  );
  need(
    'schedule',
    'bigquery.tables.getData',
    table(plan.dataset, TABLES.events),
    'models, syncs and slices read events',
    'functions/schedule/models.ts',
  );
  need(
    'schedule',
    'bigquery.tables.updateData',
    table(plan.dataset, PLATFORM_COUNTS_TABLE),
    'what the platforms counted',
    'functions/schedule/platform-counts.ts',
  );
  for (const t of modelPlan(settings).tables)
    need(
      'schedule',
      'bigquery.tables.updateData',
      table(plan.dataset, t.name),
      `the ${t.name} model`,
      'functions/schedule/models.ts',
    );
  need(
    'schedule',
    'storage.objects.get',
    object(indexPath('Alert')),
    'alerts',
    'functions/schedule/alerts.ts',
  );
  need('schedule', 'storage.objects.get', object(indexPath('Sync')), 'syncs', 'functions/schedule/syncs.ts');
  for (const permission of ['storage.objects.create', 'storage.objects.get', 'storage.objects.delete'])
    need('schedule', permission, object('locks/x'), 'run locks', 'adapters/locks.ts');
  for (const permission of ['storage.objects.create', 'storage.objects.get', 'storage.objects.delete'])
    need('schedule', permission, object(`${REPLAYS_PREFIX}x.json`), 'console replays', 'adapters/replays.ts');
  need(
    'schedule',
    'storage.objects.list',
    `projects/_/buckets/${registry}`,
    'resuming a replay whose chunk crashed',
    'adapters/replays.ts',
    {
      listPrefix: REPLAYS_PREFIX,
    },
  );
  // Erasures (docs/privacy.md#erasure): pending requests, the erased list, the DELETEs.
  for (const permission of ['storage.objects.create', 'storage.objects.get', 'storage.objects.delete'])
    need(
      'schedule',
      permission,
      object(`${ERASURE_REQUESTS_PREFIX}x.json`),
      'erasure requests',
      'functions/schedule/erasure-runtime.ts',
    );
  need(
    'schedule',
    'storage.objects.list',
    `projects/_/buckets/${registry}`,
    'finding pending erasure requests',
    'functions/schedule/erasure-runtime.ts',
    { listPrefix: ERASURE_REQUESTS_PREFIX },
  );
  for (const permission of ['storage.objects.create', 'storage.objects.delete'])
    need(
      'schedule',
      permission,
      object(SUPPRESSION_OBJECT),
      'publishing the erased list (an overwrite)',
      'functions/schedule/erasure-runtime.ts',
    );
  for (const t of [TABLES.events, TABLES.invalidEvents, TABLES.hookFailures])
    need(
      'schedule',
      'bigquery.tables.updateData',
      table(plan.dataset, t),
      `erasing a person from ${t}`,
      'functions/schedule/erasures.ts',
    );
  need(
    'schedule',
    'bigquery.tables.getData',
    table(plan.dataset, VIEWS.eventsDedup),
    'syncs and scheduled rules read the views',
    'functions/schedule/sync-steps.ts',
  );
  need(
    'schedule',
    'bigquery.jobs.create',
    p,
    'ledger queries, models, syncs',
    'functions/schedule/redrive.ts',
  );
  need(
    'schedule',
    'bigquery.tables.getData',
    table(plan.dataset, TABLES.deliveries),
    'a destination healthy again',
    'functions/schedule/redrive.ts',
  );
  need(
    'schedule',
    'bigquery.tables.updateData',
    table(plan.dataset, TABLES.deliveries),
    'ledger rows of slice replays and Google Ads diagnostics (Storage Write API, default stream)',
    WRITE_API_CODE,
  );
  need(
    'schedule',
    'bigquery.tables.updateData',
    table(plan.ops.dataset, OPS_TABLES.alertStates),
    'alert states',
    'functions/schedule/alerts.ts',
  );
  for (const permission of ['bigquery.tables.getData', 'bigquery.tables.updateData'])
    need(
      'schedule',
      permission,
      table(plan.ops.dataset, PLATFORM_DIAGNOSTICS_TABLE),
      "what platforms report per dataset (the day's rows, then the new ones)",
      'functions/schedule/platform-diagnostics.ts',
    );
  need(
    'schedule',
    'bigquery.tables.create',
    table(plan.ops.dataset, 'slice_x'),
    'a slice replay’s table',
    'adapters/slice-table.ts',
  );
  if (columnSecurity) {
    need(
      'schedule',
      'bigquery.tables.setCategory',
      table(plan.ops.dataset, 'slice_x'),
      'a slice replay’s table keeps the events table’s policy tags',
      'adapters/slice-table.ts',
    );
    need(
      'schedule',
      'datacatalog.taxonomies.get',
      PII_RESOURCES.taxonomy,
      'naming the pii tag on a slice table',
      'adapters/slice-table.ts',
    );
    need(
      'schedule',
      'datacatalog.categories.fineGrainedGet',
      PII_RESOURCES.tag,
      'syncs and rules send raw personal data on',
      'functions/schedule/syncs.ts',
    );
    need(
      'studio',
      'bigquery.dataPolicies.maskedGet',
      PII_RESOURCES.maskingRule,
      'previews and dry runs see masked values',
      'studio/server.ts',
    );
  }

  // studio: the registry's only writer; starts console replays.
  for (const permission of ['storage.objects.create', 'storage.objects.get', 'storage.objects.delete'])
    need('studio', permission, object('Rule/x/1.0.json'), 'applying resources', 'adapters/registry.ts');
  need(
    'studio',
    'storage.objects.list',
    `projects/_/buckets/${registry}`,
    'a resource’s history',
    'adapters/registry.ts',
    {
      listPrefix: 'Rule/x/',
    },
  );
  need(
    'studio',
    'pubsub.topics.publish',
    topic(RUNS_TOPIC),
    'starting a console replay',
    'studio/replays-api.ts',
  );
  need('studio', 'bigquery.jobs.create', p, 'the console’s SQL and previews', 'studio/server.ts');
  need(
    'studio',
    'bigquery.tables.create',
    table(plan.dataset, 'a_view'),
    'views of defined events',
    'adapters/views.ts',
  );
  need(
    'studio',
    'bigquery.tables.getData',
    table(plan.ops.dataset, OPS_TABLES.syncRuns),
    'the console reads the ops tables',
    'studio/console-api.ts',
  );
  // Privacy (docs/privacy.md): an admin's erasure request, and the audit row of an access request.
  need(
    'studio',
    'storage.objects.create',
    object(`${ERASURE_REQUESTS_PREFIX}x.json`),
    'erasure requests from the studio',
    'studio/privacy-api.ts',
  );
  need(
    'studio',
    'bigquery.tables.updateData',
    table(plan.ops.dataset, PRIVACY_TABLES.exports),
    'recording who exported a person',
    'studio/privacy-api.ts',
  );
  for (const permission of [
    'secretmanager.versions.access',
    'secretmanager.versions.add',
    'secretmanager.versions.destroy',
  ])
    need(
      'studio',
      permission,
      `${p}/secrets/${plan.gateway.tokenSecret}`,
      'the creator issues translator tokens',
      'gateway/token-store.ts',
    );

  // Spans to Cloud Trace's OTLP endpoint (the Telemetry API): every workload that traces
  // (docs/observability.md), authorised by roles/cloudtrace.agent on the project
  // (infra/identities.ts; Cloud Trace has no finer resource).
  if (settings.tracing?.enabled !== false)
    for (const who of ['gateway', 'store', 'forward', 'forward-catalog'] as const)
      if (deployed.includes(who))
        need(who, 'telemetry.traces.write', p, 'spans to Cloud Trace (OTLP)', 'adapters/tracing.ts');

  // Delivery metrics to Cloud Monitoring through the same OTLP endpoint (the Telemetry API's
  // /v1/metrics): the delivery functions (docs/observability.md#metrics), authorised by
  // roles/monitoring.metricWriter on the project (infra/identities.ts).
  if (settings.metrics?.enabled !== false)
    for (const who of deliverers)
      need(
        who,
        'monitoring.timeSeries.create',
        p,
        'delivery metrics to Cloud Monitoring (OTLP)',
        'adapters/metrics.ts',
      );

  // The debugger's waterfall reads a trace through Cloud Trace API v1 (roles/cloudtrace.user on the
  // project: infra/studio.ts).
  need('studio', 'cloudtrace.traces.get', p, 'the debugger’s trace waterfall', 'adapters/trace-reader.ts');

  // What must be refused.
  const deny = (who: Workload, permission: string, resource: string, feature: string) =>
    rows.push({ who, permission, resource, feature, code: '-', denied: true });
  deny('studio', 'pubsub.topics.publish', topic('events'), 'the studio is not a producer');
  for (const who of deliverers)
    deny(who, 'bigquery.tables.updateData', table(plan.dataset, TABLES.events), 'only store writes events');
  // Deliveries reach the delivering functions by push (each subscription to its own function):
  // they neither publish a delivery nor pull a destination's subscription.
  for (const who of deliverers) {
    for (const t of publishedDeliveriesTopics(plan).slice(0, 1))
      deny(who, 'pubsub.topics.publish', topic(t), 'only store and the scheduler publish deliveries');
    for (const sub of plan.subscriptions.filter((x) => x.kind === 'forward').slice(0, 1))
      deny(who, 'pubsub.subscriptions.consume', `${p}/subscriptions/${sub.name}`, 'deliveries are pushed');
  }
  // Neither delivering function reads the other's destination credentials.
  for (const [who, other] of [
    ['forward', 'forward-catalog'],
    ['forward-catalog', 'forward'],
  ] as const) {
    if (!deliverers.includes(who)) continue;
    const own = new Set(plan.functions.find((f) => f.name === who)?.secrets ?? []);
    for (const s of (plan.functions.find((f) => f.name === other)?.secrets ?? []).filter((x) => !own.has(x)))
      deny(who, 'secretmanager.versions.access', `${p}/secrets/${s}`, `${other}'s destination credentials`);
  }
  for (const s of plan.subscriptions.filter((x) => x.kind === 'backlog').slice(0, 1))
    deny(
      'studio',
      'pubsub.subscriptions.consume',
      `${p}/subscriptions/${s.name}`,
      'only the scheduler re-drives',
    );
  // The session salt rebuilds past days' session keys: the gateway's alone.
  if (gatewaySecrets(settings).includes(SESSION_SALT))
    deny(
      'studio',
      'secretmanager.versions.access',
      `${p}/secrets/${SESSION_SALT.secretId}`,
      'the session salt is the gateway’s',
    );
  // The translator grant's condition stops at its prefix: no destination's credentials.
  for (const s of plan.destinations.flatMap((d) => d.secrets).slice(0, 1))
    deny('gateway', SECRET_ACCESS, `${p}/secrets/${s}`, 'destination credentials are forward’s');
  deny(
    'gateway',
    'storage.objects.create',
    object(indexPath('EventDefinition')),
    'only the studio writes the registry',
  );
  for (const who of ['gateway', 'studio'] as const)
    deny(
      who,
      'datastore.entities.create',
      `${p}/databases/${plan.claims.database}`,
      'only the workloads that store or deliver claim',
    );
  if (bt)
    for (const who of ['gateway', 'studio'] as const)
      deny(
        who,
        'bigtable.tables.mutateRows',
        `${p}/instances/${bt.instance}/tables/${bt.table}`,
        'only the workloads that store or deliver claim',
      );
  return rows;
}

/**
 * A Google API a workload calls, by the host the request goes to: the access table's API rows
 * (issue #76). Each must be served by a service the program enables for the same settings
 * (infra/apis.ts; test/infra/variants.test.ts): a host whose service is off answers 403
 * `SERVICE_DISABLED` whatever the grants say.
 */
export interface ApiCall {
  readonly who: Workload;
  /** `pubsub.googleapis.com`, `analyticsadmin.googleapis.com`, … */
  readonly host: string;
  readonly feature: string;
  /** The file that makes the call. */
  readonly code: string;
}

/** The host that serves each IAM permission's service (its first dotted part). */
const PERMISSION_HOSTS: Readonly<Record<string, string>> = {
  pubsub: 'pubsub.googleapis.com',
  bigquery: 'bigquery.googleapis.com',
  storage: 'storage.googleapis.com',
  // Firestore's IAM permissions keep Datastore's name.
  datastore: 'firestore.googleapis.com',
  // The claims in Bigtable: the data API (adapters/bigtable-claims.ts).
  bigtable: 'bigtable.googleapis.com',
  secretmanager: 'secretmanager.googleapis.com',
  datacatalog: 'datacatalog.googleapis.com',
  // Spans go to Cloud Trace's OTLP endpoint, the Telemetry API (adapters/tracing.ts), which checks
  // telemetry.traces.write.
  telemetry: 'telemetry.googleapis.com',
  // Cloud Trace's own API (reading traces: v1 traces.get, the studio's waterfall).
  cloudtrace: 'cloudtrace.googleapis.com',
  // Delivery metrics go to the same endpoint's /v1/metrics, into Cloud Monitoring (adapters/metrics.ts).
  monitoring: 'telemetry.googleapis.com',
};

/** The host a permission's calls go to; an error for a permission of a service not listed. */
export function hostOfPermission(permission: string): string {
  const host = PERMISSION_HOSTS[permission.split('.')[0] ?? ''];
  if (!host) throw new Error(`no API host known for the permission ${permission}`);
  return host;
}

/**
 * The service Service Usage enables for a Google API host (the name `gcloud services enable`
 * takes): the host itself, without a regional endpoint's location (`us-east1-pubsub.googleapis.com`
 * and `pubsub.us-east1.rep.googleapis.com` are `pubsub.googleapis.com`); undefined for a host
 * that is not a Google API (a platform's own, or an override pointing at a stand-in).
 */
export function serviceOfHost(host: string): string | undefined {
  const h = host.toLowerCase().replace(/:\d+$/, '');
  const regional = /^([a-z0-9]+)\.[a-z]+-[a-z]+\d+\.rep\.googleapis\.com$/.exec(h);
  if (regional) return `${regional[1]}.googleapis.com`;
  const m = /^(?:[a-z]+-[a-z]+\d+-)?([a-z0-9]+)\.googleapis\.com$/.exec(h);
  return m ? `${m[1]}.googleapis.com` : undefined;
}

/** The Storage Write API's writer: its needs' calls go to bigquerystorage.googleapis.com. */
const WRITE_API_CODE = 'adapters/bigquery-write-api.ts';

/** A stand-in person with one identifier of each kind: what an erasure slot asks for is the same. */
const ANY_PERSON: ErasedPerson = {
  emails: ['a@example.com'],
  phones: ['+10000000000'],
  userIds: ['u'],
  anonymousIds: ['a'],
};

/** The URLs a destination's erasure slot sends a person's deletion to (none without a slot, or for a gap). */
function erasureUrls(p: Platform, d: Readonly<Destination>): string[] {
  const requests = p.erasure?.requests(d, ANY_PERSON);
  return Array.isArray(requests) ? [...new Set(requests.map((r) => r.request.url))] : [];
}

/**
 * Every Google API host each workload calls with these settings: the hosts of the access table's
 * permissions (accessNeeds), and the calls authorised outside the project's IAM — a platform's
 * deletion API its erasure slot calls (GA4's Admin API, under the property's own Editor role) and
 * Google Ads' Data Manager API
 * (the Google Ads account's access) — which still need their service enabled in the project the
 * caller's token belongs to.
 */
export function apiCalls(plan: Plan, settings: Readonly<Settings>): ApiCall[] {
  const rows = new Map<string, ApiCall>();
  const call = (who: Workload, url: string, feature: string, code: string) => {
    const host = new URL(url).host;
    if (serviceOfHost(host)) rows.set(`${who} ${host}`, { who, host, feature, code });
  };
  for (const n of accessNeeds(plan, settings))
    if (!n.denied && !rows.has(`${n.who} ${hostOfPermission(n.permission)}`))
      call(n.who, `https://${hostOfPermission(n.permission)}`, n.feature, n.code);
  // The Storage Write API's appends (adapters/bigquery-write-api.ts, @google-cloud/bigquery-storage)
  // go to its own host; IAM still checks bigquery.tables.updateData on the table.
  for (const n of accessNeeds(plan, settings))
    if (!n.denied && n.code === WRITE_API_CODE)
      call(n.who, 'https://bigquerystorage.googleapis.com', n.feature, n.code);
  // Spans to Cloud Trace's OTLP endpoint come from the table's telemetry.traces.write rows.
  for (const d of settings.destinations ?? []) {
    // Disabled destinations included: an erasure asks every platform that may hold the person.
    // Where its erasure slot would send a person's deletion, as the slot itself builds it.
    const p = PLATFORMS[d.type];
    for (const url of erasureUrls(p, d))
      call(
        'schedule',
        url,
        `an erasure’s ${p.names.short} deletion`,
        'functions/schedule/erasure-platforms.ts',
      );
    if (d.type === GOOGLE_ADS_PLATFORM.type && d.enabled !== false) {
      const url = d.base_url ?? GOOGLE_ADS_BASE_URL;
      call('forward', url, 'Google Ads conversions (events:ingest)', 'core/platforms/google-ads/driver.ts');
      call(
        'schedule',
        url,
        'Google Ads request diagnostics (requestStatus)',
        'functions/schedule/google-ads-diagnostics.ts',
      );
    }
  }
  // A platform's own count (GA4's Data API), read with the destination's or the scheduler's token.
  for (const { destination, reads } of countedDestinations(settings))
    call(
      'schedule',
      reads.request(destination, '2026-01-01', 'token').url,
      `${PLATFORMS[destination.type].names.short}'s own count of what it received`,
      'functions/schedule/platform-counts.ts',
    );
  for (const c of settings.connections ?? [])
    if (c.type === 'google_ads_audience')
      call(
        'schedule',
        c.url ?? GOOGLE_ADS_BASE_URL,
        'Customer Match syncs and their erasures',
        'core/platforms/google-ads/audience.ts',
      );
  return [...rows.values()];
}
