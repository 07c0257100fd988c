/**
 * One environment, composed from its concerns in dependency order. Everything declared comes
 * from the stack config's plan(settings) and the bundle manifest; nothing is listed here.
 */

import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { gatewaySecrets } from '../core/access/gateway-secrets.ts';
import { billingAdvice, billingRecommendation } from '../core/deploy/billing-advice.ts';
import { CATALOG_FUNCTION, catalogSlugs } from '../core/deploy/catalog-function.ts';
import { claimsRecommendation } from '../core/deploy/claims-advice.ts';
import { studioIapWarnings } from '../core/deploy/studio-iap.ts';
import { modelPlan } from '../core/models/models.ts';
import { ACTIONS_TOPIC, publishedDeliveriesTopics, RUNS_TOPIC } from '../core/plan.ts';
import { buildRegionWarnings } from '../core/plan-warnings/build-regions.ts';
import { minInstancesWarnings } from '../core/plan-warnings/min-instances.ts';
import { retentionWarnings } from '../core/plan-warnings/retention.ts';
import { rotatedRefreshTokenSecrets } from '../core/platforms/segment-action/oauth.ts';
import { ERASURE_REQUESTS_PREFIX } from '../core/privacy/erasure.ts';
import { addressWarnings } from '../core/settings.ts';
import { PLATFORM_COUNTS_TABLE } from '../core/warehouse/reconciliation.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import { Alerts } from './alerts.ts';
import { Apis, COLUMN_SECURITY_APIS, calledApis } from './apis.ts';
import type { BundleManifest } from './bundle-manifest.ts';
import { Claims } from './claims.ts';
import { BIGTABLE_APIS, BigtableClaims } from './claims-bigtable.ts';
import { ColumnSecurity } from './column-security.ts';
import type { StackConfig } from './config.ts';
import { Functions } from './functions.ts';
import { Gateway } from './gateway.ts';
import { domainRefusal, GatewayDomain, LOAD_BALANCER_APIS } from './gateway-domain.ts';
import { GatewayOriginPath, originPathRefusal } from './gateway-origin-path.ts';
import { Identities } from './identities.ts';
import { Messaging } from './messaging.ts';
import { Ops } from './ops.ts';
import { Buckets } from './registry.ts';
import { RequestLogs } from './request-logs.ts';
import { Scheduler } from './scheduler.ts';
import { Secrets } from './secrets.ts';
import { Sources } from './sources.ts';
import { STUDIO_APIS, Studio } from './studio.ts';
import { Warehouse } from './warehouse.ts';

export interface EnvironmentOutputs {
  readonly gatewayUrl: pulumi.Output<string>;
  /** Pub/Sub's own REST publish URL for the `events` topic (the native path, IAM-guarded). */
  readonly publishUrl: string;
  readonly dataset: pulumi.Output<string>;
  readonly topics: pulumi.Output<string[]>;
  readonly subscriptions: pulumi.Output<string[]>;
  /** The registry bucket of runtime resources. */
  readonly registryBucket: pulumi.Output<string>;
  /** The studio's URL, behind IAP (EVENTBUS_STUDIO_URL for the CLI). */
  readonly studioUrl: pulumi.Output<string>;
  /** With `gateway.domain`: `https://<domain>`, and the DNS record to create for it. */
  readonly gatewayDomainUrl?: string;
  readonly gatewayDnsRecord?: pulumi.Output<string>;
  /**
   * With `gateway.origin_path` through the site's load balancer: the command that adds the path
   * rule to the site's URL map (or, the previous release's form, points its proxy at ours).
   */
  readonly gatewayOriginUrlMap?: pulumi.Output<string>;
  /** With `gateway.site_url_map`: the same path rule as a Pulumi snippet for the site's own program. */
  readonly gatewayOriginPulumi?: pulumi.Output<string>;
}

/** Declares every resource of the environment and returns the stack outputs. */
export function declareEnvironment(config: StackConfig, bundles: BundleManifest): EnvironmentOutputs {
  const { plan, settings, project, region } = config;
  const name = plan.environment;
  // Said before anything is created: a first build refused for the region fails halfway through.
  for (const w of buildRegionWarnings(plan)) pulumi.log.warn(w);
  // The cost model's recommendation from the stated sustained rate: said, never applied.
  const recommended = billingRecommendation(settings, plan);
  if (recommended) pulumi.log.warn(recommended.message);
  for (const a of billingAdvice(settings, plan)) pulumi.log.warn(a.message);
  const claimStore = claimsRecommendation(settings, plan);
  if (claimStore) pulumi.log.warn(claimStore.message);
  // Whom the studio's IAP can admit is checked against studio.organization when it is set (a
  // refusal at config load); unset, this says what is left unchecked.
  for (const w of studioIapWarnings(settings)) pulumi.log.warn(w);
  for (const w of retentionWarnings(settings)) pulumi.log.warn(w);
  for (const w of minInstancesWarnings(settings)) pulumi.log.warn(w);
  // URLs that point inside, and mappings that read a URL or header from the event (as settings check).
  for (const w of addressWarnings(settings)) pulumi.log.warn(w);
  // Before anything is created: a domain mapping in a region without them would fail at the end.
  const domainRefused = domainRefusal(plan) ?? originPathRefusal(plan);
  if (domainRefused) throw new Error(domainRefused);
  // Only the site's Google load balancer is declared; a Worker or an Akamai rule is the site's own.
  const originPath = plan.gateway.originPath?.via === 'load_balancer' ? plan.gateway.originPath : undefined;
  const domain = plan.gateway.domain;
  const columnSecurity = settings.pii?.column_security === true;
  const rules = settings.experimental?.rules === true;
  const apis = new Apis(name, {
    project,
    extra: [
      ...(columnSecurity ? COLUMN_SECURITY_APIS : []),
      // What the workloads call, from the access table (Data Manager, Analytics Admin, …).
      ...calledApis(plan, settings),
      ...(domain?.via === 'load_balancer' || originPath ? LOAD_BALANCER_APIS : []),
      ...STUDIO_APIS,
      ...(plan.claims.bigtable ? BIGTABLE_APIS : []),
    ],
  });
  const after = { dependsOn: [apis.ready] };
  // forward-catalog (issue #65): only with a catalogue destination; its own account, mirroring
  // forward's grants for the destinations it delivers to (docs/deploy.md, "Catalogue destinations").
  const catalog = plan.functions.some((f) => f.name === CATALOG_FUNCTION);

  const ids = new Identities(name, { project, catalog, metrics: settings.metrics?.enabled !== false }, after);
  const catalogMember = ids.members[CATALOG_FUNCTION];
  /** forward, and forward-catalog where it runs: the workloads that deliver. */
  const deliverers = [
    { who: 'forward' as const, member: ids.members.forward },
    ...(catalogMember ? [{ who: CATALOG_FUNCTION as typeof CATALOG_FUNCTION, member: catalogMember }] : []),
  ];
  const sources = new Sources(
    name,
    {
      project,
      region,
      bundles,
      readers: [ids.members.build, cloudRunAgent(project, apis.ready)],
      catalogDestinations: catalog ? catalogSlugs(settings) : [],
    },
    after,
  );
  const secrets = new Secrets(
    name,
    {
      plan,
      ...(settings.data_residency ? { replicaLocation: region } : {}),
      // The settings reach every workload as a mounted file (infra/runtime-env.ts).
      settings: {
        json: JSON.stringify(settings),
        readers: [
          ...(['store', 'forward', 'schedule', 'gateway', 'studio'] as const).map((who) => ({
            who,
            member: ids.members[who],
          })),
          ...(catalogMember ? [{ who: CATALOG_FUNCTION, member: catalogMember }] : []),
        ],
      },
      translatorReader: { who: 'gateway', member: ids.members.gateway },
      // The edge secret and session salt the settings need, valued from the stack's config.
      gateway: {
        secrets: gatewaySecrets(settings),
        values: config.gatewaySecretValues,
        member: ids.members.gateway,
      },
      access: [
        ...deliverers.map((d) => ({ ...d, secrets: secretsOf(plan, d.who) })),
        { who: 'gateway', member: ids.members.gateway, secrets: [plan.gateway.tokenSecret] },
        { who: 'schedule', member: ids.members.schedule, secrets: secretsOf(plan, 'schedule') },
        // The studio's creator issues translate:<name> tokens (a new version of the store).
        {
          who: 'studio',
          member: ids.members.studio,
          secrets: [plan.gateway.tokenSecret],
          // It adds a version per change and destroys the one it supersedes (gateway/token-store.ts):
          // Version Manager, since Version Adder cannot destroy.
          roles: ['roles/secretmanager.secretAccessor', 'roles/secretmanager.secretVersionManager'],
        },
        // forward-catalog writes a rotated OAuth refresh token back as a new version, and claims a
        // refresh by disabling the newest one (refresh-rotation.ts): Version Manager on those alone.
        ...deliverers
          .filter((d) => d.who === 'forward-catalog')
          .map((d) => ({
            ...d,
            secrets: rotatedRefreshTokenSecrets(settings),
            roles: ['roles/secretmanager.secretVersionManager'],
          }))
          .filter((d) => d.secrets.length > 0),
      ],
    },
    after,
  );
  const pii = columnSecurity
    ? new ColumnSecurity(
        name,
        {
          plan,
          analysts: settings.analysts ?? [],
          piiReaders: settings.pii_readers ?? [],
          // The scheduler sends what it reads to platforms (syncs, scheduled rules, slice
          // replays): raw. The studio previews and dry-runs those queries: masked is enough.
          rawWorkloads: [{ who: 'schedule', member: ids.members.schedule }],
          maskedWorkloads: [{ who: 'studio', member: ids.members.studio }],
          // Slice replays copy tagged columns into ops tables with the same tags.
          taggedTableMakers: [{ who: 'schedule', member: ids.members.schedule, dataset: plan.ops.dataset }],
        },
        after,
      )
    : undefined;
  const warehouse = new Warehouse(
    name,
    {
      plan,
      deletionProtection: settings.warehouse?.deletion_protection ?? true,
      // store: events, invalid events and the ledger's `skipped` rows; forward: the ledger.
      writers: [
        {
          who: 'store',
          member: ids.members.store,
          // hook_failures: a fan-out or rule hook that failed for good is recorded there and the
          // push acknowledged; refused, the push would come back and run the hook again.
          tables: [TABLES.events, TABLES.invalidEvents, TABLES.deliveries, TABLES.hookFailures],
        },
        ...deliverers.map((d) => ({ ...d, tables: [TABLES.deliveries] })),
        // schedule: the `skipped` rows of slice replays (and the rules' action runs), and the
        // incremental models' tables it keeps (docs/sessions.md).
        {
          who: 'schedule',
          member: ids.members.schedule,
          // …and the erasure job's DELETEs (docs/privacy.md#erasure) on the tables that keep people.
          tables: [
            TABLES.deliveries,
            TABLES.events,
            TABLES.invalidEvents,
            TABLES.hookFailures,
            ...(rules ? [TABLES.actionRuns] : []),
            // …and what the platforms counted (functions/schedule/platform-counts.ts).
            PLATFORM_COUNTS_TABLE,
            ...modelPlan(settings).tables.map((t) => t.name),
          ],
        },
      ],
      // Queries: the scheduler reads the ledger to tell whether a destination is healthy again.
      // The deliverers run none (whether a delivery happened is the send-once claim's word).
      readers: [
        // (its Data Viewer on the whole dataset, infra/ops.ts, covers the tables it reads)
        { who: 'schedule', member: ids.members.schedule, tables: [] },
        // store asks the same of events for a late copy (adapters/stored-check.ts): a query job.
        { who: 'store', member: ids.members.store, tables: [] },
      ],
      analysts: settings.analysts ?? [],
      piiTag: pii?.piiTag,
    },
    after,
  );
  new Ops(
    name,
    {
      plan,
      deletionProtection: settings.warehouse?.deletion_protection ?? true,
      runner: ids.members.schedule,
      eventsDataset: warehouse.dataset.datasetId,
      gateway: ids.members.gateway,
      studio: ids.members.studio,
    },
    after,
  );
  // Send-once claims (issue #73): store claims identities, the deliverers claim sends.
  const claimGrants = [{ who: 'store', member: ids.members.store }, ...deliverers];
  const claims = new Claims(name, { plan, grants: claimGrants }, after);
  // claims.store: bigtable (#97): the instance beside the database, which a switch keeps.
  const bigtableClaims = plan.claims.bigtable
    ? [new BigtableClaims(name, { project, bigtable: plan.claims.bigtable, grants: claimGrants }, after)]
    : [];
  const functions = new Functions(
    name,
    {
      plan,
      settings,
      // Said on store's and forward's deployables, for the policy eventbus-billing-kept.
      ...(config.billingKept ? { billingStamps: config.billingKept } : {}),
      sourceBucket: sources.bucket.name,
      sourceObjects: {
        store: sources.objects.store.name,
        forward: sources.objects.forward.name,
        schedule: sources.objects.schedule.name,
        ...(sources.objects[CATALOG_FUNCTION]
          ? { [CATALOG_FUNCTION]: sources.objects[CATALOG_FUNCTION].name }
          : {}),
      },
      serviceAccounts: {
        store: ids.accounts.store.email,
        forward: ids.accounts.forward.email,
        schedule: ids.accounts.schedule.email,
        ...(ids.accounts[CATALOG_FUNCTION]
          ? { [CATALOG_FUNCTION]: ids.accounts[CATALOG_FUNCTION].email }
          : {}),
      },
      buildServiceAccount: ids.accounts.build.name,
      invoker: ids.members.push,
      settingsFile: secrets.settingsFile,
      // Run instead of a Cloud Function when cost.billing makes store or forward instance-billed.
      serviceObjects: {
        store: sources.objects['store-service'],
        forward: sources.objects['forward-service'],
      },
    },
    // The build reads the archive with the build account's grant, and secrets must exist before
    // a function that reads them starts.
    // The first gen2 build also needs the build account's project roles in place.
    // The claims' database and grants before the code that claims runs.
    { dependsOn: [apis.ready, ...ids.buildGrants, sources, secrets, warehouse, claims, ...bigtableClaims] },
  );
  const producerTopics = plan.topics.filter((t) => t.producers).map((t) => t.name);
  // Each destination's deliveries topic (or the shared one): store fans out, schedule re-drives.
  const deliveriesTopics = publishedDeliveriesTopics(plan);
  const messaging = new Messaging(
    name,
    {
      plan,
      pushEndpoints: functions.endpoints,
      pushServiceAccountEmail: ids.accounts.push.email,
      publishers: [
        { who: 'gateway', member: ids.members.gateway, topics: plan.gateway.topics },
        {
          who: 'store',
          member: ids.members.store,
          topics: [...deliveriesTopics, ...(rules ? [ACTIONS_TOPIC] : [])],
        },
        // The scheduler publishes its own continuations, the re-driven dead letters, and the
        // events syncs and rules send back into the bus.
        {
          who: 'schedule',
          member: ids.members.schedule,
          // …and, with rules, what a scheduled rule's firings act on (functions/schedule/index.ts).
          topics: [
            RUNS_TOPIC,
            ...deliveriesTopics,
            ...plan.gateway.topics,
            ...(rules ? [ACTIONS_TOPIC] : []),
          ],
        },
        // The studio starts the console's replays with a run message.
        { who: 'studio', member: ids.members.studio, topics: [RUNS_TOPIC] },
        ...(settings.producers?.principals ?? []).map((member) => ({
          who: member,
          member,
          topics: producerTopics,
        })),
      ],
      // The scheduler pulls the dead-letter backlogs: automatic re-drive and the console's
      // dead-letter replays (adapters/backlog.ts).
      subscribers: [
        {
          who: 'schedule',
          member: ids.members.schedule,
          subscriptions: plan.subscriptions.filter((x) => x.kind === 'backlog').map((x) => x.name),
        },
      ],
    },
    after,
  );
  const gateway = new Gateway(
    name,
    {
      plan,
      settings,
      serviceAccountEmail: ids.accounts.gateway.email,
      sourceBucket: sources.bucket.name,
      sourceObject: sources.objects.gateway,
      settingsFile: secrets.settingsFile,
      secretEnv: secrets.gatewayEnv,
    },
    { dependsOn: [apis.ready, secrets, messaging] },
  );
  const gatewayDomain = domain
    ? new GatewayDomain(name, { plan, domain, service: gateway.service, apisReady: apis.ready }, after)
    : undefined;
  const gatewayOrigin = originPath
    ? new GatewayOriginPath(
        name,
        {
          plan,
          originPath,
          service: gateway.service,
          apisReady: apis.ready,
          siteUrlMap: config.siteUrlMap,
        },
        after,
      )
    : undefined;
  new Alerts(name, { plan }, { dependsOn: [apis.ready, messaging, functions] });
  new RequestLogs(name, { plan }, { dependsOn: [apis.ready] });
  const buckets = new Buckets(
    name,
    {
      plan,
      prefixGrants: [
        { who: 'schedule', member: ids.members.schedule, role: 'roles/storage.objectUser', prefix: 'locks/' },
        // Syncs are read from the registry; the console's replays are objects the studio creates
        // and the scheduler finishes.
        {
          who: 'schedule',
          member: ids.members.schedule,
          role: 'roles/storage.objectViewer',
          prefix: 'Sync/',
        },
        // Listed too: a replay whose chunk crashed is found again by listing replays/.
        {
          who: 'schedule',
          member: ids.members.schedule,
          role: 'roles/storage.objectUser',
          prefix: 'replays/',
          list: true,
        },
        // Erasure requests (docs/privacy.md#erasure): the erasure job lists, reads, rewrites and
        // deletes them; it publishes the erased persons' list, which store and forward read.
        {
          who: 'schedule',
          member: ids.members.schedule,
          role: 'roles/storage.objectUser',
          prefix: ERASURE_REQUESTS_PREFIX,
          list: true,
        },
        {
          who: 'schedule',
          member: ids.members.schedule,
          role: 'roles/storage.objectUser',
          prefix: 'privacy/',
        },
        ...[{ who: 'store' as const, member: ids.members.store }, ...deliverers].map((d) => ({
          ...d,
          role: 'roles/storage.objectViewer' as const,
          prefix: 'privacy/',
        })),
        // Alerts are read every minute (functions/schedule/alerts.ts).
        {
          who: 'schedule',
          member: ids.members.schedule,
          role: 'roles/storage.objectViewer',
          prefix: 'Alert/',
        },
        // Defined events: the gateway validates and stamps them, store re-validates against the
        // stamped version, forward reads its mappings; the gateway also serves translators.
        // (schedule: for the definitions' mappings of a replayed slice)
        // (forward-catalog: a Segment action maps with its own mapping, no definition's.)
        ...(['gateway', 'store', 'forward', 'schedule'] as const).map((who) => ({
          who,
          member: ids.members[who],
          role: 'roles/storage.objectViewer' as const,
          prefix: 'EventDefinition/',
        })),
        {
          who: 'gateway',
          member: ids.members.gateway,
          role: 'roles/storage.objectViewer',
          prefix: 'Translator/',
        },
        // A newer country database uploaded by `eventbus geo update` (docs/enrichment.md).
        ...(settings.enrichment?.geo === 'country'
          ? [
              {
                who: 'store',
                member: ids.members.store,
                role: 'roles/storage.objectViewer' as const,
                prefix: 'geo/',
              },
            ]
          : []),
        ...(rules
          ? ([
              // Rules: store matches events against them; schedule reads the version that fired
              // and claims the once-per markers.
              {
                who: 'store',
                member: ids.members.store,
                role: 'roles/storage.objectViewer',
                prefix: 'Rule/',
              },
              {
                who: 'schedule',
                member: ids.members.schedule,
                role: 'roles/storage.objectViewer',
                prefix: 'Rule/',
              },
              {
                who: 'schedule',
                member: ids.members.schedule,
                role: 'roles/storage.objectUser',
                prefix: 'once/',
              },
            ] as const)
          : []),
      ],
    },
    after,
  );
  // Syncs write files to the buckets of their storage connections (create only: parts are
  // written once, with ifGenerationMatch=0).
  for (const c of (settings.connections ?? []).filter((x) => x.type === 'storage' && x.bucket)) {
    new gcp.storage.BucketIAMMember(
      `${name}-sync-files-${c.id}`,
      { bucket: c.bucket as string, role: 'roles/storage.objectCreator', member: ids.members.schedule },
      after,
    );
  }
  new Scheduler(name, { plan, region }, { dependsOn: [apis.ready, messaging] });
  const studio = new Studio(
    name,
    {
      plan,
      settings,
      serviceAccountEmail: ids.accounts.studio.email,
      sourceBucket: sources.bucket.name,
      sourceObject: sources.objects.studio,
      settingsFile: secrets.settingsFile,
      registryBucket: (buckets.buckets.registry as gcp.storage.Bucket).name,
      dataset: warehouse.dataset.datasetId,
      gatewayUrl: gateway.url,
    },
    // Its account's read of the settings secret first: the revision mounts it at start.
    { dependsOn: [apis.ready, secrets] },
  );

  return {
    gatewayUrl: gateway.url,
    publishUrl: `https://pubsub.googleapis.com/v1/projects/${project}/topics/events:publish`,
    dataset: warehouse.dataset.datasetId,
    topics: messaging.topicNames,
    subscriptions: messaging.subscriptionNames,
    registryBucket: (buckets.buckets.registry as gcp.storage.Bucket).name,
    studioUrl: studio.url,
    ...(gatewayDomain
      ? { gatewayDomainUrl: gatewayDomain.url, gatewayDnsRecord: gatewayDomain.dnsRecord }
      : {}),
    ...(gatewayOrigin ? { gatewayOriginUrlMap: gatewayOrigin.instruction } : {}),
    ...(gatewayOrigin?.pulumiSnippet ? { gatewayOriginPulumi: gatewayOrigin.pulumiSnippet } : {}),
  };
}

/**
 * Cloud Run's service agent, which fetches a revision's source for the build-less deploy the
 * gateway uses (container `sourceCode`). Google documents the agent as the reader of images in
 * other projects; that it reads the Cloud Storage source with the same identity is our reading
 * of the source-deploy docs, not verified against a real project (docs/deploy.md says so). It
 * exists as soon as the Cloud Run API is enabled.
 */
function cloudRunAgent(project: string, apisReady: pulumi.Resource): pulumi.Output<string> {
  // After the APIs are enabled: on a new project the lookup itself is refused before then.
  const number = gcp.organizations.getProjectOutput(
    { projectId: project },
    { dependsOn: [apisReady] },
  ).number;
  return pulumi.interpolate`serviceAccount:service-${number}@serverless-robot-prod.iam.gserviceaccount.com`;
}

function secretsOf(
  plan: StackConfig['plan'],
  fn: StackConfig['plan']['functions'][number]['name'],
): readonly string[] {
  return plan.functions.find((f) => f.name === fn)?.secrets ?? [];
}
