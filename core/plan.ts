/**
 * `plan(settings)`: what an environment consists of, as data. The local environment
 * provisions the emulators from it and the Pulumi program declares cloud resources from
 * it, so what runs locally is what deploys. Pure.
 */

import type { Destination, Settings } from '../schemas/settings.ts';
import type { FunctionSizing } from '../schemas/settings-cost.ts';
import { type ClaimsPlan, claimsPlan } from './claims/claims-plan.ts';
import { SEND_ONCE_DAYS } from './claims/send-once.ts';
import { destinationHealthViews } from './console/destination-health.ts';
import {
  CATALOG_CPU_SECONDS,
  CATALOG_DEFAULT_MEMORY,
  CATALOG_ENTRY_POINT,
  CATALOG_FUNCTION,
  isCatalogDestination,
} from './deploy/catalog-function.ts';
import { type Billing, DEFAULT_PEAK_EVENTS_PER_SECOND, forwardSizing } from './deploy/cost.ts';
import * as names from './deploy/deliveries-topology.ts';
import { deployedServiceName } from './deploy/service-names.ts';
import { type SiteMapPlan, siteMapPlan } from './deploy/site-url-map.ts';
import { modelPlan } from './models/models.ts';
import { countsSecretRoles } from './platforms/counts.ts';
import { diagnosticsSecretRoles } from './platforms/meta/dataset-quality.ts';
import { PLATFORMS } from './platforms/platforms.ts';
import { DEFAULT_CONSENT } from './platforms/requirements.ts';
import { OAUTH_CONNECTION, withOAuthConnection } from './platforms/segment-action/oauth.ts';
import { protoDuration, seconds } from './settings.ts';
import { opsTablePlans } from './warehouse/ops-tables.ts';
import { platformCountsTable, reconciliationViews } from './warehouse/reconciliation.ts';
import { baseWarehousePlan, type TablePlan, tableRef, type ViewPlan } from './warehouse/warehouse.ts';

export { deployedServiceName } from './deploy/service-names.ts';
export type { TablePlan, ViewPlan } from './warehouse/warehouse.ts';

/** `forward-catalog` only when a catalogue destination exists (core/deploy/catalog-function.ts). */
/** What sends `gateway.origin_path` to the gateway (`gateway.origin_via`). */
export type OriginVia = NonNullable<NonNullable<Settings['gateway']>['origin_via']>;

export type FunctionName = 'store' | 'forward' | 'schedule' | typeof CATALOG_FUNCTION;

/** Dead-letter backlogs are kept for Pub/Sub's maximum, 31 days. */
export const DEAD_LETTER_RETENTION = '2678400s';
/** Ordinary subscriptions keep unacknowledged messages for Pub/Sub's default, 7 days. */
export const DEFAULT_RETENTION = '604800s';

export interface TopicPlan {
  readonly name: string;
  readonly kind: 'events' | 'deliveries' | 'dead_letter' | 'ticks' | 'runs' | 'actions' | 'poison';
  /** Events topics are what producers publish to (gateway and the native path). */
  readonly producers: boolean;
  /** A deliveries topic of one destination (the per-destination topology); absent on the shared one. */
  readonly destination?: string;
  /** Kept after a switch of topology while its subscriptions' backlog drains; nothing publishes. */
  readonly draining?: true;
}

export interface SubscriptionPlan {
  readonly name: string;
  readonly topic: string;
  readonly kind:
    | 'store'
    | 'forward'
    | 'backlog'
    | 'dead_letter_ledger'
    | 'tick'
    | 'run'
    | 'action'
    | 'poison';
  /** Push subscriptions name the function they push to; backlogs are pull. */
  readonly push?: { readonly function: FunctionName };
  /** Only ever on `attributes.destination` (filters are immutable, docs/google-wire.md §7). */
  readonly filter?: string;
  readonly ackDeadlineSeconds: number;
  readonly retryPolicy?: { readonly minimumBackoff: string; readonly maximumBackoff: string };
  readonly deadLetterPolicy?: { readonly deadLetterTopic: string; readonly maxDeliveryAttempts: number };
  readonly messageRetentionDuration: string;
  /** The destination a forward subscription serves, or the events topic a store subscription reads. */
  readonly destination?: string;
  /** A forward subscription of the topology switched from, kept until its backlog is delivered. */
  readonly draining?: true;
}

export interface FunctionPlan {
  readonly name: FunctionName;
  /** The functions-framework target registered by the function's module. */
  readonly entryPoint: string;
  readonly sizing: Required<Omit<FunctionSizing, 'max_instances'>> & { readonly max_instances: number };
  /** Secret names the function reads at run time. */
  readonly secrets: readonly string[];
  /** Subscriptions that push to it. */
  readonly triggers: readonly string[];
  /**
   * `request`: a Cloud Function (gen2), the design and the default; `instance`: a Cloud Run service
   * with CPU always allocated, only where `cost.billing` says so (docs/deploy.md).
   */
  readonly billing: Billing;
  /** The Cloud Run service it runs as, one name per shape (core/deploy/service-names.ts). */
  readonly service: string;
}

export interface DestinationPlan {
  readonly id: string;
  readonly type: Destination['type'];
  /** The topic its delivery messages are published on (deliveriesTopicName). */
  readonly topic: string;
  /** The subscription that pushes them to its function. */
  readonly subscription: string;
  /** After a switch of topology: the previous topology's subscription, kept until drained. */
  readonly draining?: { readonly topic: string; readonly subscription: string };
  readonly deadLetterTopic: string;
  readonly consent: readonly string[];
  readonly secrets: readonly string[];
  readonly maxDeliveryAttempts: number;
}

/**
 * A Cloud Storage bucket of the environment. The registry holds runtime resources (event
 * definitions, translators, syncs, rules, saved queries): one immutable object per version and
 * one index object per kind, so history comes from objects, not from bucket versioning.
 */
export interface BucketPlan {
  readonly name: string;
  readonly purpose: 'registry';
  /** The environment's data location (the warehouse's), so runtime resources stay with the data. */
  readonly location: string;
  readonly versioning: boolean;
  /** Objects deleted by the bucket's lifecycle: those under `prefix`, `ageDays` after creation. */
  readonly expire?: readonly { readonly prefix: string; readonly ageDays: number }[];
}

/**
 * Where releases before the claims database kept first sightings (in the registry bucket): its
 * lifecycle rule still deletes what they left there. IDENTITY_CLAIM_DAYS is the window in which a
 * producer's retry folds into the first copy (docs/storage.md, "One event, one row").
 */
export const IDENTITY_CLAIMS_PREFIX = 'identities/';
export const IDENTITY_CLAIM_DAYS = SEND_ONCE_DAYS;

/** The collections of claims, one per key space (core/claims/claim-store.ts, ClaimSpace). */
export const CLAIM_COLLECTIONS = ['identities', 'sends', 'pending'] as const;
/** The timestamp field of every claim that the TTL policy deletes it by. */
export const CLAIM_EXPIRE_FIELD = 'expire_at';
/**
 * Every other field a claim document carries, per collection (core/claims/send-once.ts,
 * adapters/identity-claims.ts). Claims are read by id only, so none is indexed: each is exempt
 * from single-field indexing (infra/claims.ts), which keeps a claim write one document write and
 * its rising times (`claimed_at`, `lease_until`) clear of Firestore's 500 writes a second limit on
 * a sequentially indexed field (test/infra/claims.test.ts checks the code writes no other field).
 */
export const CLAIM_FIELDS = Object.freeze({
  identities: ['event_time', 'message_id', 'claimed_at'],
  sends: ['holder', 'attempt', 'claimed_at', 'lease_until', 'status', 'outcome'],
  pending: ['entries'],
} as const satisfies Record<(typeof CLAIM_COLLECTIONS)[number], readonly string[]>);

/**
 * The claims database's id for an environment, within Firestore's rules for a database id (4–63
 * characters of lowercase letters, digits and hyphens, starting with a letter, ending with a
 * letter or digit): `<environment>-claims`, underscores as hyphens (an environment's name starts
 * with a lowercase letter); a name too long is cut, and a digest of the whole keeps it unique.
 */
export function claimsDatabaseId(environment: string): string {
  const base = environment.replaceAll('_', '-');
  const full = `${base}-claims`;
  if (full.length <= 63) return full;
  const digest = shortDigest(full);
  return `${base.slice(0, 63 - '-claims'.length - digest.length - 1)}-${digest}-claims`.replace(/-+/g, '-');
}

export type { ClaimsPlan } from './claims/claims-plan.ts';

export interface Plan {
  readonly environment: string;
  /** `production: true`; without it every service defaults to scaling to zero (docs/scale.md). */
  readonly production: boolean;
  readonly project: string;
  readonly region: string;
  readonly dataset: string;
  readonly location: string;
  /** Both datasets' time-travel window in hours (`warehouse.time_travel_hours`); absent: BigQuery's 7 days. */
  readonly timeTravelHours?: number;
  readonly topics: readonly TopicPlan[];
  readonly subscriptions: readonly SubscriptionPlan[];
  readonly tables: readonly TablePlan[];
  readonly views: readonly ViewPlan[];
  readonly buckets: readonly BucketPlan[];
  /** The send-once claims: the store, its Firestore database, and the Bigtable instance if chosen. */
  readonly claims: ClaimsPlan;
  /**
   * The ops dataset (`eventbus_ops`): what the service does on its own behalf — sync runs, and
   * each sync's state table (primary key → row hash), which runs create and MERGE into.
   */
  readonly ops: { readonly dataset: string; readonly tables: readonly TablePlan[] };
  readonly functions: readonly FunctionPlan[];
  readonly destinations: readonly DestinationPlan[];
  readonly gateway: {
    readonly sizing: FunctionPlan['sizing'];
    /** Cloud Run's `cpuIdle`, unless `cost.billing.gateway: instance` (tokens re-read on demand, gateway/auth.ts). */
    readonly cpuIdle: boolean;
    readonly tokenSecret: string;
    readonly topics: readonly string[];
    /**
     * The site's subdomain it is also served on (`gateway.domain`), and how: a global external
     * load balancer or a Cloud Run domain mapping (infra/gateway-domain.ts).
     */
    readonly domain?: { readonly name: string; readonly via: 'load_balancer' | 'mapping' };
    /**
     * The path of the site's own origin it is served under (`gateway.origin_path`), and the site's
     * backend service everything else goes to (infra/gateway-origin-path.ts).
     */
    readonly originPath?: {
      readonly path: string;
      readonly siteBackend: string | undefined;
      /** What routes the path to the gateway (`gateway.origin_via`; default the site's load balancer). */
      readonly via: OriginVia;
      /**
       * The site's own URL map the path rule is added to (core/deploy/site-url-map.ts); none with
       * the previous release's form (`site_backend` alone), whose whole map is kept.
       */
      readonly siteMap?: SiteMapPlan;
    };
  };
  /** The studio service (the admin API of runtime resources, the registry's only writer). */
  readonly studio: { readonly name: 'studio'; readonly sizing: FunctionPlan['sizing'] };
  /** Every secret name the environment refers to (values are set out of band). */
  readonly secrets: readonly string[];
  /**
   * Cloud Run's automatic request logs (docs/scale.md): whether those of successful requests to
   * these services (publishes, pushes) are excluded from Cloud Logging; errors and refusals stay.
   */
  readonly requestLogs: { readonly excludeSuccessful: boolean; readonly services: readonly string[] };
}

const DEFAULT_SIZING: FunctionPlan['sizing'] = {
  memory: '512Mi',
  cpu: 1,
  concurrency: 80,
  min_instances: 0,
  max_instances: 100,
  timeout_seconds: 60,
};

/** The peak rate `forward` is sized for when settings do not say (core/deploy/cost.ts). */
export { DEFAULT_PEAK_EVENTS_PER_SECOND } from './deploy/cost.ts';
/** The gateway's minimum instances in production unless settings say (a publish never waits a cold start). */
export const PRODUCTION_GATEWAY_MIN_INSTANCES = 1;

/** The gateway's Cloud Run service name (infra/gateway.ts), as its request logs carry it. */
const GATEWAY_SERVICE_NAME = 'gateway';

/** Default delivery attempts: storage tries long (the warehouse may be down), deliveries less. */
export const DEFAULT_MAX_ATTEMPTS = { store: 50, forward: 10 } as const;
const DEFAULT_BACKOFF = { minimumBackoff: '10s', maximumBackoff: '600s' } as const;

/** The ops dataset's name (DESIGN: state and run tables live apart from the events). */
export const OPS_DATASET = 'eventbus_ops';

/** The scheduler's topics: the minute tick (Cloud Scheduler publishes it) and the run messages. */
export const TICKS_TOPIC = 'ticks';
export const RUNS_TOPIC = 'runs';
/** Rules' firings (experimental): store publishes, the schedule function acts. */
export const ACTIONS_TOPIC = 'actions';

/** Name of the subscription that pushes an events topic to `store`. */
export const storeSubscriptionName = (topic: string) => `${topic}-store`;
export * from './deploy/deliveries-topology.ts';
/** Name of the dead-letter topic of a subscription. */
export const deadLetterTopicName = (subscription: string) => `${subscription}-dead-letter`;
/** Name of the pull subscription that keeps a dead-letter topic's backlog. */
export const backlogSubscriptionName = (deadLetterTopic: string) => `${deadLetterTopic}-backlog`;
/** Name of the push subscription that records each dead letter of a destination in the ledger. */
export const deadLetterLedgerSubscriptionName = (deadLetterTopic: string) => `${deadLetterTopic}-ledger`;

/**
 * The last stop (docs/delivery.md, "Poison messages"): a dead letter that its `-ledger`
 * subscription could not record after POISON_ATTEMPTS pushes is dead-lettered once more, here.
 * `store` keeps each one as an `invalid_events` row (reason `poison`) without reading it as an
 * event, a pull backlog keeps a copy for 31 days, and an alert opens. Nothing loops.
 */
export const POISON_TOPIC = 'poison';
/**
 * Pushes of one dead letter to its `-ledger` subscription before it is poison: with its backoff
 * (10 s to 600 s) about 2 h 20 min, so a warehouse outage that outlasted the source's own retries
 * still ends with the dead letter recorded where it belongs.
 */
export const POISON_ATTEMPTS = 20;
/** The push subscription that keeps each poison message in `invalid_events`. */
export const POISON_STORE_SUBSCRIPTION = `${POISON_TOPIC}-store`;

/** Seven base-36 characters of a 32-bit FNV-1a digest: what keeps a shortened name unique. */
function shortDigest(text: string): string {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return h.toString(36).padStart(7, '0');
}

/**
 * The registry bucket's name: bucket names are global, so it starts with the (globally unique)
 * project id; over Cloud Storage's 63 characters the environment's part is shortened and a
 * digest of the whole keeps it unique.
 */
export function registryBucketName(project: string, environment: string): string {
  const full = `${project}-${environment}-registry`.replaceAll('_', '-');
  if (full.length <= 63) return full;
  const digest = shortDigest(full);
  const room = 63 - project.length - '-registry'.length - digest.length - 2;
  return `${project}-${environment.replaceAll('_', '-').slice(0, room)}-${digest}-registry`.replace(
    /-+/g,
    '-',
  );
}

/**
 * The tables and views of an environment's dataset: the warehouse's own (core/warehouse/), the
 * console's destination-health views of the ledger, which anyone can query
 * (docs/console.md#destination-health), and the incremental models (docs/sessions.md), last, so
 * their views can read the tables before them.
 */
export function warehousePlan(settings: Readonly<Settings>): { tables: TablePlan[]; views: ViewPlan[] } {
  const base = baseWarehousePlan(settings);
  const ref = (name: string) => tableRef(settings.project, settings.dataset ?? 'events', name);
  const models = modelPlan(settings);
  return {
    tables: [...base.tables, platformCountsTable(settings), ...models.tables],
    views: [
      ...base.views,
      ...destinationHealthViews(ref),
      ...reconciliationViews(settings, ref),
      ...models.views,
    ],
  };
}

/** What the Pulumi program read from a deployed stack's state that plan() keeps (infra/program.ts). */
export interface PlanOptions {
  /**
   * Destinations whose subscription of the other topology (deliveriesTopology) the stack still
   * has: kept, with its topic, until `deliveries_drained` says its backlog is delivered
   * (core/deploy/topology-kept.ts).
   */
  readonly draining?: readonly string[];
}

/** Turns validated settings into the environment's resources, as data. */
export function plan(settings: Readonly<Settings>, options: PlanOptions = {}): Plan {
  const dataset = settings.dataset ?? 'events';
  const eventTopics = ['events', ...(settings.topics ?? [])];
  const destinations = (settings.destinations ?? []).filter((d) => d.enabled !== false);
  const topics: TopicPlan[] = [];
  const subscriptions: SubscriptionPlan[] = [];

  // A dead-letter topic is named after its subscription, or after the destination (a
  // destination's subscriptions of both topologies share one while a switch drains).
  const withDeadLetter = (
    sub: Omit<SubscriptionPlan, 'deadLetterPolicy'>,
    maxDeliveryAttempts: number,
    dlTopic = deadLetterTopicName(sub.name),
  ) => {
    subscriptions.push({ ...sub, deadLetterPolicy: { deadLetterTopic: dlTopic, maxDeliveryAttempts } });
    if (topics.some((t) => t.name === dlTopic)) return;
    topics.push({ name: dlTopic, kind: 'dead_letter', producers: false });
    subscriptions.push({
      name: backlogSubscriptionName(dlTopic),
      topic: dlTopic,
      kind: 'backlog',
      ackDeadlineSeconds: 60,
      messageRetentionDuration: DEAD_LETTER_RETENTION,
    });
    // Every dead letter is recorded, also when no push ever reached the function (a refused
    // connection, a push deadline): Pub/Sub counts those attempts too. A destination's and a
    // rule's in their ledgers; an event's by storing it after all (store's retries outlasted,
    // e.g. a long warehouse outage): the row keeps Pub/Sub's dead-letter attributes.
    // A dead letter its function cannot record (a bug, a poison payload) must not be pushed for
    // 31 days: after a few attempts it moves on to the poison topic (POISON_TOPIC).
    subscriptions.push({
      name: deadLetterLedgerSubscriptionName(dlTopic),
      topic: dlTopic,
      kind: 'dead_letter_ledger',
      push: { function: sub.push?.function ?? 'forward' },
      ackDeadlineSeconds: 60,
      retryPolicy: { ...DEFAULT_BACKOFF },
      deadLetterPolicy: { deadLetterTopic: POISON_TOPIC, maxDeliveryAttempts: POISON_ATTEMPTS },
      messageRetentionDuration: DEAD_LETTER_RETENTION,
      ...(sub.destination ? { destination: sub.destination } : {}),
    });
  };

  const storeRetry = settings.retry ?? {};
  for (const topic of eventTopics) {
    topics.push({ name: topic, kind: 'events', producers: true });
    withDeadLetter(
      {
        name: storeSubscriptionName(topic),
        topic,
        kind: 'store',
        push: { function: 'store' },
        ackDeadlineSeconds: 60,
        retryPolicy: {
          minimumBackoff: protoDuration(storeRetry.minimum_backoff ?? DEFAULT_BACKOFF.minimumBackoff),
          maximumBackoff: protoDuration(storeRetry.maximum_backoff ?? DEFAULT_BACKOFF.maximumBackoff),
        },
        messageRetentionDuration: DEFAULT_RETENTION,
      },
      storeRetry.max_attempts ?? DEFAULT_MAX_ATTEMPTS.store,
    );
  }

  // The poison topic: kept by `store` in invalid_events (no dead letter of its own: writing a raw
  // row cannot fail for a message's content, only while the warehouse is down, which retries
  // fix) and in a pull backlog for 31 days, which the dead-letter alert watches.
  topics.push({ name: POISON_TOPIC, kind: 'poison', producers: false });
  subscriptions.push(
    {
      name: POISON_STORE_SUBSCRIPTION,
      topic: POISON_TOPIC,
      kind: 'poison',
      push: { function: 'store' },
      ackDeadlineSeconds: 60,
      retryPolicy: { ...DEFAULT_BACKOFF },
      messageRetentionDuration: DEAD_LETTER_RETENTION,
    },
    {
      name: backlogSubscriptionName(POISON_TOPIC),
      topic: POISON_TOPIC,
      kind: 'backlog',
      ackDeadlineSeconds: 60,
      messageRetentionDuration: DEAD_LETTER_RETENTION,
    },
  );

  const topology = names.deliveriesTopology(settings);
  const draining = new Set(options.draining ?? []);
  const destinationPlans: DestinationPlan[] = [];
  const deliveriesTopic = (id: string, t: names.DeliveriesTopology, drains: boolean) => {
    const name = names.deliveriesTopicName(id, t);
    if (topics.some((x) => x.name === name)) return name;
    topics.push({
      name,
      kind: 'deliveries',
      producers: false,
      ...(t === 'per_destination' ? { destination: id } : {}),
      ...(drains ? { draining: true as const } : {}),
    });
    return name;
  };
  // The shared topic stays declared whenever the shared topology is in use or draining, even
  // with no destination, as every release before per-destination topics declared it.
  if (topology === 'shared') deliveriesTopic('', 'shared', false);
  for (const d of destinations) {
    // A catalogue destination's deliveries go to forward-catalog, which carries Segment's runtime.
    const pushedTo: FunctionName = isCatalogDestination(d) ? CATALOG_FUNCTION : 'forward';
    const maxDeliveryAttempts = d.retry?.max_attempts ?? DEFAULT_MAX_ATTEMPTS.forward;
    // The push must outlive the platform call: ack deadline covers the send timeout with room to spare.
    const ackDeadlineSeconds = Math.min(600, Math.max(30, Math.ceil((d.timeout_ms ?? 10000) / 1000) * 3));
    // Both topologies' subscriptions of a destination dead-letter to the same topic, so its
    // backlog, ledger subscription and replays never depend on the topology.
    const deadLetterTopic = deadLetterTopicName(names.forwardSubscriptionName(d.id));
    const subscribe = (t: names.DeliveriesTopology, drains: boolean) => {
      const name = names.destinationSubscriptionName(d.id, t);
      const topic = deliveriesTopic(d.id, t, drains);
      withDeadLetter(
        {
          name,
          topic,
          kind: 'forward',
          push: { function: pushedTo },
          // Only the shared topic carries every destination's messages.
          ...(t === 'shared' ? { filter: `attributes.destination = "${d.id}"` } : {}),
          ackDeadlineSeconds,
          retryPolicy: {
            minimumBackoff: protoDuration(d.retry?.minimum_backoff ?? DEFAULT_BACKOFF.minimumBackoff),
            maximumBackoff: protoDuration(d.retry?.maximum_backoff ?? DEFAULT_BACKOFF.maximumBackoff),
          },
          messageRetentionDuration: DEFAULT_RETENTION,
          destination: d.id,
          ...(drains ? { draining: true as const } : {}),
        },
        maxDeliveryAttempts,
        deadLetterTopic,
      );
      return { topic, subscription: name };
    };
    const live = subscribe(topology, false);
    const previous = draining.has(d.id) ? subscribe(names.otherTopology(topology), true) : undefined;
    const name = live.subscription;
    destinationPlans.push({
      id: d.id,
      type: d.type,
      topic: live.topic,
      subscription: name,
      ...(previous ? { draining: previous } : {}),
      deadLetterTopic,
      consent: d.consent ?? DEFAULT_CONSENT[d.type],
      // A catalogue destination's OAuth connection's secrets are read by its deliveries too.
      secrets: Object.values(withOAuthConnection(d, settings.connections).secrets ?? {}),
      maxDeliveryAttempts,
    });
  }

  // The scheduler (docs/scheduler.md): a tick a minute, and the run messages it dispatches. A
  // failed chunk is acknowledged and retried by the next tick, so neither needs a dead letter;
  // a tick older than a few minutes is worthless, a run message is kept a day.
  const scheduleSizing = {
    ...DEFAULT_SIZING,
    timeout_seconds: 300,
    concurrency: 10,
    ...settings.functions?.schedule,
  };
  topics.push({ name: TICKS_TOPIC, kind: 'ticks', producers: false });
  topics.push({ name: RUNS_TOPIC, kind: 'runs', producers: false });
  subscriptions.push({
    name: `${TICKS_TOPIC}-schedule`,
    topic: TICKS_TOPIC,
    kind: 'tick',
    push: { function: 'schedule' },
    ackDeadlineSeconds: 60,
    retryPolicy: { minimumBackoff: '10s', maximumBackoff: '60s' },
    messageRetentionDuration: '600s',
  });
  subscriptions.push({
    name: `${RUNS_TOPIC}-schedule`,
    topic: RUNS_TOPIC,
    kind: 'run',
    push: { function: 'schedule' },
    ackDeadlineSeconds: Math.min(600, scheduleSizing.timeout_seconds + 30),
    retryPolicy: { ...DEFAULT_BACKOFF },
    messageRetentionDuration: '86400s',
  });

  // Rules (experimental): store publishes firings on `actions`; the schedule function acts, with
  // retries and dead letters like deliveries (every dead letter recorded in action_runs).
  const actionsRetry = settings.experimental?.rules_retry;
  if (settings.experimental?.rules) {
    topics.push({ name: ACTIONS_TOPIC, kind: 'actions', producers: false });
    withDeadLetter(
      {
        name: `${ACTIONS_TOPIC}-schedule`,
        topic: ACTIONS_TOPIC,
        kind: 'action',
        push: { function: 'schedule' },
        ackDeadlineSeconds: 60,
        retryPolicy: {
          minimumBackoff: protoDuration(actionsRetry?.minimum_backoff ?? DEFAULT_BACKOFF.minimumBackoff),
          maximumBackoff: protoDuration(actionsRetry?.maximum_backoff ?? DEFAULT_BACKOFF.maximumBackoff),
        },
        messageRetentionDuration: DEFAULT_RETENTION,
      },
      actionsRetry?.max_attempts ?? DEFAULT_MAX_ATTEMPTS.forward,
    );
  }

  const tokenSecret = settings.tokens?.secret ?? 'eventbus-tokens';
  // Each function reads the secrets of the destinations it delivers to, no other.
  const catalogPlans = destinationPlans.filter(isCatalogDestination);
  const forwardPlans = destinationPlans.filter((d) => !isCatalogDestination(d));
  const secretsOf = (ds: readonly DestinationPlan[]) => [...new Set(ds.flatMap((d) => d.secrets))].sort();
  const destinationSecrets = secretsOf(destinationPlans);
  // An oauth2 connection's secrets are its destinations' (above), never the scheduler's.
  const connectionSecrets = [
    ...new Set(
      (settings.connections ?? []).flatMap((c) =>
        c.type === OAUTH_CONNECTION
          ? []
          : [...Object.values(c.secrets ?? {}), ...(c.url_secret ? [c.url_secret] : [])],
      ),
    ),
  ].sort();
  // What the scheduler reads of destinations' secrets for work after delivery (Google Ads'
  // diagnostics; Meta's dataset quality, for a destination with `config.diagnostics: true`; the
  // platforms' counts, for one with `config.counts: true`).
  const scheduledSecrets = (settings.destinations ?? [])
    .filter((d) => d.enabled !== false)
    .flatMap((d) =>
      [
        ...(PLATFORMS[d.type].scheduledSecrets ?? []),
        ...diagnosticsSecretRoles(d),
        ...countsSecretRoles(d, PLATFORMS[d.type].countReads),
      ].map((role) => d.secrets?.[role]),
    )
    .filter((name): name is string => typeof name === 'string');
  const scheduleSecrets = [...new Set([...connectionSecrets, ...scheduledSecrets])].sort();
  const production = settings.production === true;
  // Development (no `production: true`) scales every service to zero, whatever min_instances the
  // settings ask for (settings check and pulumi up say so: core/plan-warnings/min-instances.ts).
  const sizing = (s: FunctionSizing | undefined) => ({
    ...DEFAULT_SIZING,
    ...s,
    ...(production ? {} : { min_instances: 0 }),
  });
  // forward's concurrency and max_instances come from the cost model (core/deploy/cost.ts) unless set.
  const forwardSettings = settings.functions?.forward;
  const forwardSized = sizing({
    ...forwardSizing({
      vcpu: forwardSettings?.cpu ?? DEFAULT_SIZING.cpu,
      peakEventsPerSecond: settings.cost?.peak_events_per_second ?? DEFAULT_PEAK_EVENTS_PER_SECOND,
      destinations: forwardPlans.length,
    }),
    ...forwardSettings,
  });
  // forward-catalog: sized by the same model from its own CPU per delivery; a Cloud Function.
  const catalogSized = sizing({
    memory: CATALOG_DEFAULT_MEMORY,
    ...forwardSizing({
      vcpu: DEFAULT_SIZING.cpu,
      peakEventsPerSecond: settings.cost?.peak_events_per_second ?? DEFAULT_PEAK_EVENTS_PER_SECOND,
      destinations: catalogPlans.length,
      cpuSecondsPerRequest: CATALOG_CPU_SECONDS,
    }),
  });
  // Cloud Functions unless settings say instance: the peak only sizes, the sustained rate advises.
  const storeBilling: Billing = settings.cost?.billing?.store ?? 'request';
  const forwardBilling: Billing = settings.cost?.billing?.forward ?? 'request';
  const warehouse = warehousePlan(settings);
  // A push must outlive the function's run, or Pub/Sub redelivers a message that is still being
  // handled (a duplicate, and an attempt burnt toward the dead-letter limit). settings.ts refuses
  // a pushed function's timeout above Pub/Sub's 600 s maximum, so the raise always covers it.
  const timeouts: Record<FunctionName, number> = {
    store: sizing(settings.functions?.store).timeout_seconds,
    forward: forwardSized.timeout_seconds,
    schedule: scheduleSizing.timeout_seconds,
    [CATALOG_FUNCTION]: catalogSized.timeout_seconds,
  };
  const outlivingRuns = subscriptions.map((s) =>
    s.push
      ? { ...s, ackDeadlineSeconds: Math.min(600, Math.max(s.ackDeadlineSeconds, timeouts[s.push.function])) }
      : s,
  );

  return deepFreeze({
    environment: settings.name,
    production,
    project: settings.project,
    region: settings.region,
    dataset,
    location: settings.location ?? 'US',
    ...(settings.warehouse?.time_travel_hours !== undefined
      ? { timeTravelHours: settings.warehouse.time_travel_hours }
      : {}),
    topics,
    subscriptions: outlivingRuns,
    tables: warehouse.tables,
    views: warehouse.views,
    ops: {
      dataset: OPS_DATASET,
      tables: opsTablePlans(settings),
    },
    buckets: [
      {
        name: registryBucketName(settings.project, settings.name),
        purpose: 'registry',
        location: settings.location ?? 'US',
        versioning: false,
        expire: [{ prefix: IDENTITY_CLAIMS_PREFIX, ageDays: IDENTITY_CLAIM_DAYS }],
      },
    ],
    claims: claimsPlan(settings, claimsDatabaseId(settings.name)),
    functions: [
      {
        name: 'store',
        entryPoint: 'store',
        sizing: sizing(settings.functions?.store),
        secrets: [],
        triggers: subscriptions.filter((s) => s.push?.function === 'store').map((s) => s.name),
        billing: storeBilling,
        service: deployedServiceName('store', storeBilling),
      },
      {
        name: 'forward',
        entryPoint: 'forward',
        sizing: forwardSized,
        secrets: secretsOf(forwardPlans),
        triggers: subscriptions.filter((s) => s.push?.function === 'forward').map((s) => s.name),
        billing: forwardBilling,
        service: deployedServiceName('forward', forwardBilling),
      },
      {
        name: 'schedule',
        entryPoint: 'schedule',
        sizing: scheduleSizing,
        secrets: scheduleSecrets,
        triggers: subscriptions.filter((s) => s.push?.function === 'schedule').map((s) => s.name),
        billing: 'request',
        service: deployedServiceName('schedule', 'request'),
      },
      // Deployed only when a catalogue destination exists (docs/deploy.md, "Catalogue destinations").
      ...(catalogPlans.length > 0
        ? [
            {
              name: CATALOG_FUNCTION,
              entryPoint: CATALOG_ENTRY_POINT,
              sizing: catalogSized,
              secrets: secretsOf(catalogPlans),
              triggers: subscriptions.filter((s) => s.push?.function === CATALOG_FUNCTION).map((s) => s.name),
              billing: 'request',
              service: deployedServiceName(CATALOG_FUNCTION, 'request'),
            } satisfies FunctionPlan,
          ]
        : []),
    ],
    destinations: destinationPlans,
    gateway: {
      sizing: sizing({
        ...(production ? { min_instances: PRODUCTION_GATEWAY_MIN_INSTANCES } : {}),
        ...settings.functions?.gateway,
      }),
      cpuIdle: settings.cost?.billing?.gateway !== 'instance',
      tokenSecret,
      topics: eventTopics,
      ...(settings.gateway?.domain
        ? { domain: { name: settings.gateway.domain, via: settings.gateway.domain_via ?? 'load_balancer' } }
        : {}),
      ...(settings.gateway?.origin_path
        ? {
            originPath: {
              path: settings.gateway.origin_path,
              siteBackend: settings.gateway.site_backend,
              via: settings.gateway.origin_via ?? 'load_balancer',
              ...(settings.gateway.site_url_map
                ? {
                    siteMap: siteMapPlan(settings.project, {
                      ...settings.gateway,
                      site_url_map: settings.gateway.site_url_map,
                    }),
                  }
                : {}),
            },
          }
        : {}),
    },
    studio: { name: 'studio', sizing: sizing(settings.functions?.studio) },
    secrets: [...new Set([tokenSecret, ...destinationSecrets, ...connectionSecrets])],
    requestLogs: {
      excludeSuccessful: settings.cost?.exclude_success_logs ?? true,
      services: [
        GATEWAY_SERVICE_NAME,
        deployedServiceName('store', storeBilling),
        deployedServiceName('forward', forwardBilling),
        ...(catalogPlans.length > 0 ? [deployedServiceName(CATALOG_FUNCTION, 'request')] : []),
      ],
    },
  });
}

/** The retry policy's minimum backoff in seconds (used by tests and the local supervisor). */
export function minimumBackoffSeconds(sub: SubscriptionPlan): number {
  return sub.retryPolicy ? seconds(sub.retryPolicy.minimumBackoff) : 0;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * What the environment names itself, whatever its settings (docs/security.md#reserved-names):
 * the topics only the service publishes to (every topic but the producers' events topics and
 * the dead-letter topics), the suffix of every dead-letter topic, and the tables and views of
 * its datasets (the views include one per catalogue event). Read off plan() itself with every
 * optional part on, so a topic or table added there is reserved without a second list.
 */
export function builtInNames(): {
  readonly internalTopics: readonly string[];
  readonly deadLetterSuffix: string;
  /** Every destination's deliveries topic starts with it. */
  readonly deliveriesPrefix: string;
  readonly warehouse: readonly string[];
} {
  const p = plan({
    name: 'reserved',
    project: 'reserved-names',
    region: 'europe-west1',
    experimental: { rules: true },
    // The shared topic too, which stacks deployed before per-destination topics keep.
    deliveries_topology: 'shared',
  } as Settings);
  return {
    internalTopics: p.topics
      .filter((t) => t.kind !== 'events' && t.kind !== 'dead_letter')
      .map((t) => t.name),
    deadLetterSuffix: deadLetterTopicName(''),
    deliveriesPrefix: names.DELIVERIES_TOPIC_PREFIX,
    warehouse: [...p.tables, ...p.views, ...p.ops.tables].map((t) => t.name),
  };
}
