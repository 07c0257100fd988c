/**
 * An environment's monthly bill in three scenarios (docs/scale.md): `idle` (no events), `workday`
 * (8 h × 22 days at a stated rate) and `busy` (the stated rate all month), line by line, from
 * plan() and Google's list prices. Every deployed workload is a line (workloadsOf: the functions,
 * the gateway, the studio), beside what runs whether or not anyone sends: the scheduler's ticks
 * and runs, their lock objects, secrets, alert conditions, function images. Free tiers are one
 * line of their own (they are per billing account: the total assumes this environment is the
 * only user of them). Pure arithmetic.
 */
import type { Settings } from '../../schemas/settings.ts';
import { MODELS, modelsEnabled } from '../models/models.ts';
import { CATALOG_CPU_SECONDS, isCatalogDestination } from './catalog-function.ts';
import {
  CLAIM_DOCUMENT_BYTES,
  CLAIM_RETRY_SHARE,
  type ClaimDesign,
  claimCost,
  claimCounts,
  claimStorageCost,
  EVENTS_PER_BATCH,
  MONTHLY_PRICES,
} from './claim-prices.ts';
import { type ClaimStore, capacityMonth } from './claim-stores.ts';
import {
  type Billing,
  CONCURRENCY_TARGET,
  LEDGER_ROW_BYTES,
  MEASURED_CPU,
  memoryGib,
  PLATFORM_LATENCY_SECONDS,
  PRICES,
  REQUEST_LOG_BYTES,
  STORE_LATENCY_SECONDS,
  UTILISATION,
} from './cost.ts';
import { CLOUD_MONITORING_PRICE, samplesPerExport } from './metrics-cost.ts';
import { CLOUD_TRACE_PRICE, spansPerEvent } from './trace-cost.ts';

export {
  CLAIM_DOCUMENT_BYTES,
  CLAIM_RETRY_SHARE,
  type ClaimCounts,
  type ClaimDesign,
  claimCost,
  claimCounts,
  claimStorageCost,
  EVENTS_PER_BATCH,
  MONTHLY_PRICES,
} from './claim-prices.ts';

/** Seconds in the 30-day month. */
export const MONTH_SECONDS = 30 * 24 * 3600;
/** A workday month: 8 hours on 22 days. */
export const WORKDAY_HOURS = 8 * 22;
/** How long Cloud Run keeps an instance-billed instance after the last request (about 15 minutes). */
const SCALE_DOWN_SECONDS = 15 * 60;
/** Cloud Run's request-based billing rounds an instance's billed time up to 100 ms. */
const MINIMUM_BILLED_SECONDS = 0.1;
/** A gateway request's wall time: the publish to Pub/Sub it waits for (estimate). */
const GATEWAY_LATENCY_SECONDS = 0.03;
/** A scheduler request's wall time (a tick's dispatch, a run's lock writes and calls; estimate). */
const SCHEDULE_LATENCY_SECONDS = 0.3;
/** Bytes an incremental model's run bills at least: four tables at BigQuery's 10 MB minimum (estimate). */
const MODEL_RUN_MINIMUM_BYTES = 4 * 10 * 2 ** 20;
/** A function's image in Artifact Registry (estimate). */
const FUNCTION_IMAGE_BYTES = 0.3 * 2 ** 30;
/** A log line the scheduler writes per run (estimate). */
const RUN_LOG_BYTES = 300;
/** A gateway request's headers and its answer, beyond the events it carries (estimate). */
const REQUEST_OVERHEAD_BYTES = 1000;
/** The tag as the CDN serves it: `npm run bench tag`'s gate on its gzipped size, 8 KiB. */
export const TAG_BYTES = 8 * 1024;
/** Events a page sends per load of the tag: a page view and a few clicks (estimate). */
export const EVENTS_PER_TAG_LOAD = 5;

export type ScenarioName = 'idle' | 'workday' | 'busy';
export const SCENARIO_NAMES: readonly ScenarioName[] = ['idle', 'workday', 'busy'];

/** A service's sizing as plan() gives it. */
interface Sizing {
  readonly memory: string;
  readonly cpu: number;
  readonly concurrency: number;
  readonly min_instances: number;
}

/**
 * What the bill reads of plan()'s Plan (core/plan.ts), which satisfies it; not imported, since
 * plan.ts builds on this folder.
 */
export interface Plan {
  readonly gateway: {
    readonly sizing: Sizing;
    readonly cpuIdle: boolean;
    /** `gateway.domain`: through a load balancer, a line of its own. */
    readonly domain?: { readonly via: 'load_balancer' | 'mapping' };
    /** `gateway.origin_path`: through the site's load balancer and Cloud CDN (`via`), a line of its own. */
    readonly originPath?: { readonly path: string; readonly via: string };
  };
  readonly studio: { readonly name: string; readonly sizing: Sizing };
  readonly functions: readonly {
    readonly name: 'store' | 'forward' | 'schedule' | 'forward-catalog';
    readonly service: string;
    readonly billing: Billing;
    readonly sizing: Sizing;
  }[];
  /** Catalogue destinations (`segment_action`) are delivered by forward-catalog, the others by forward. */
  readonly destinations: readonly { readonly type: string; readonly topic: string }[];
  readonly subscriptions: readonly { readonly kind: string; readonly topic: string }[];
  readonly secrets: readonly string[];
  readonly requestLogs: { readonly excludeSuccessful: boolean; readonly services: readonly string[] };
  /** The registry bucket (the scheduler's locks, replays and erasure requests) and its location. */
  readonly buckets: readonly { readonly purpose: string; readonly location: string }[];
  /** The claim store the settings choose (`claims.store`); absent: Firestore. */
  readonly claims?: { readonly store: ClaimStore; readonly bigtable?: { readonly nodes: number } };
}

/** A bucket location that is one region (`europe-west1`), not a multi- or dual-region (`EU`, `NAM4`). */
export const isRegionLocation = (location: string): boolean => /^[a-z]+-[a-z]+\d+$/i.test(location);

/** What traffic the bill assumes: the shape of an event and the rate while active. */
export interface TrafficShape {
  /** The stated rate, events a second (workday and busy). */
  readonly eventsPerSecond: number;
  readonly eventBytes: number;
  /** Destinations an event is delivered to (of the plan's destinations). */
  readonly destinationsPerEvent: number;
  /** Events per gateway request (1: single events; batches up to 1000). */
  readonly eventsPerRequest: number;
  /** Incremental models kept (sessions, identity_map) and how often they run, in minutes. */
  readonly models: number;
  readonly modelEveryMinutes: number;
  /** Share of traces exported to Cloud Trace (`tracing.sample_ratio`; 0 with tracing off). */
  readonly traceSampleRatio: number;
  /** Seconds between two delivery-metrics exports of a forward instance (`metrics`); 0: none exported. */
  readonly metricsIntervalSeconds: number;
}

/** A deployed workload as the bill prices it: one Cloud Run service or gen2 function. */
export interface Workload {
  /** Its Cloud Run service name (what the Pulumi program declares). */
  readonly service: string;
  readonly role: 'gateway' | 'store' | 'forward' | 'schedule' | 'studio' | 'forward-catalog';
  readonly billing: Billing;
  readonly vcpu: number;
  readonly memoryGib: number;
  readonly concurrency: number;
  readonly minInstances: number;
  /** Requests per event (0: the workload serves no event traffic). */
  readonly requestsPerEvent: number;
  readonly cpuSecondsPerRequest: number;
  readonly latencySeconds: number;
}

/** The workloads plan() deploys, each with the traffic an event brings it. */
export function workloadsOf(
  plan: Plan,
  shape: Pick<TrafficShape, 'destinationsPerEvent' | 'eventsPerRequest'>,
): Workload[] {
  const sized = (s: Sizing) => ({
    vcpu: s.cpu,
    memoryGib: memoryGib(s.memory),
    concurrency: s.concurrency,
    minInstances: s.min_instances,
  });
  // An event's deliveries split between forward and forward-catalog as the destinations do.
  const all = plan.destinations.length;
  const catalogShare = all > 0 ? plan.destinations.filter(isCatalogDestination).length / all : 0;
  // Each delivery is a push, and a stated share of them (CLAIM_RETRY_SHARE) is pushed again: a
  // retry after a 5xx or a timeout, a producer's copy, a re-drive, a replay.
  const pushes = shape.destinationsPerEvent * (1 + CLAIM_RETRY_SHARE);
  const perEvent = {
    store: 1,
    forward: pushes * (1 - catalogShare),
    schedule: 0,
    'forward-catalog': pushes * catalogShare,
  } as const;
  const cpu = {
    store: MEASURED_CPU.store,
    forward: MEASURED_CPU.forward,
    schedule: 0.05,
    'forward-catalog': CATALOG_CPU_SECONDS,
  } as const;
  const latency = {
    store: STORE_LATENCY_SECONDS,
    forward: PLATFORM_LATENCY_SECONDS,
    schedule: SCHEDULE_LATENCY_SECONDS,
    'forward-catalog': PLATFORM_LATENCY_SECONDS,
  } as const;
  return [
    {
      service: 'gateway',
      role: 'gateway',
      billing: plan.gateway.cpuIdle ? 'request' : 'instance',
      ...sized(plan.gateway.sizing),
      requestsPerEvent: 1 / shape.eventsPerRequest,
      cpuSecondsPerRequest: MEASURED_CPU.gateway,
      latencySeconds: GATEWAY_LATENCY_SECONDS,
    },
    ...plan.functions.map(
      (f): Workload => ({
        service: f.service,
        role: f.name,
        billing: f.billing,
        ...sized(f.sizing),
        requestsPerEvent: perEvent[f.name],
        cpuSecondsPerRequest: cpu[f.name],
        latencySeconds: latency[f.name],
      }),
    ),
    // People use the studio now and then; it idles at zero (no CPU between requests, no minimum).
    {
      service: plan.studio.name,
      role: 'studio',
      billing: 'request',
      ...sized(plan.studio.sizing),
      requestsPerEvent: 0,
      cpuSecondsPerRequest: 0,
      latencySeconds: 0,
    },
  ];
}

/**
 * The column of a month table a line belongs to: a workload's role, or the service it bills. Every
 * line has exactly one, so a table with a column per group adds up to the bill's total.
 */
export type BillGroup =
  | Workload['role']
  | 'pubsub'
  | 'bigquery'
  | 'claims'
  | 'trace'
  | 'metrics'
  | 'load-balancer'
  | 'other'
  | 'free';

/** One line of a bill. */
export interface LineItem {
  readonly item: string;
  readonly monthly: number;
  readonly detail: string;
  readonly group: BillGroup;
}

export interface MonthlyBill {
  readonly scenario: ScenarioName;
  readonly eventsPerSecond: number;
  readonly activeHours: number;
  readonly events: number;
  /** Every line, the free tiers last (negative). */
  readonly items: readonly LineItem[];
  /** Before the free tiers: the sum of the lines above them, each rounded to the cent. */
  readonly listTotal: number;
  /** The sum of every line as printed (each rounded to the cent), the free tiers included. */
  readonly total: number;
}

/** Cloud Run usage, kept apart by billing so the free tiers apply where they belong. */
interface RunUsage {
  requestVcpuSeconds: number;
  requestGibSeconds: number;
  requests: number;
  instanceVcpuSeconds: number;
  instanceGibSeconds: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The scheduler's background a month: ticks, runs by kind, and those that query BigQuery. */
export function schedulerBackground(plan: Plan, shape: TrafficShape) {
  const minutes = MONTH_SECONDS / 60;
  // Redrive: one run per destination a minute; it pulls the backlog (twice when empty) and
  // queries the ledger only when dead letters wait (functions/schedule/redrive.ts).
  const redriveRuns = plan.destinations.length * minutes;
  const modelRuns = shape.models * (minutes / shape.modelEveryMinutes);
  const runs = redriveRuns + modelRuns;
  return {
    ticks: minutes,
    redriveRuns,
    modelRuns,
    runs,
    backlogPulls: 2 * redriveRuns,
    // In the registry bucket: each tick lists the pending console replays (`replays/`) and erasure
    // requests (`erasure-requests/`), two class A listings, and reads the lock of each resource it
    // schedules (a Redrive per destination, each model); each run reads its lock again and writes
    // it twice (the lease, then the cursor).
    storageWrites: 2 * minutes + 2 * runs,
    storageReads: minutes * (plan.destinations.length + shape.models) + runs,
  };
}

/**
 * How delivery messages reach each destination's `forward` push (docs/scale.md, "A fan-out billed
 * once"): `topic-per-destination` is what new stacks get, each delivery on its destination's own
 * topic with one subscription (`deliveries_topology: per_destination`); `filtered`, one
 * `deliveries` topic with a filtered subscription per destination (`shared`, which stacks
 * deployed before keep); `batched` also publishes a producer's batch (`eventsPerRequest` events)
 * as one message on the events topic and one per destination, modelled, not built.
 */
export type PubSubTopology = 'filtered' | 'topic-per-destination' | 'batched';

/**
 * The topology a plan declares, read off its subscriptions: `filtered` when a destination's
 * deliveries topic has more than one subscription (each bills every message), else one each.
 */
export function pubsubTopologyOf(plan: Pick<Plan, 'destinations' | 'subscriptions'>): PubSubTopology {
  const shared = plan.destinations.some(
    (d) => plan.subscriptions.filter((s) => s.kind === 'forward' && s.topic === d.topic).length > 1,
  );
  return shared ? 'filtered' : 'topic-per-destination';
}

/**
 * Pub/Sub bytes billed per event (publish and delivery alike, at least 1000 bytes a message): the
 * event published and pushed to `store`; each delivery message published and pushed, plus a
 * stated share pushed again (CLAIM_RETRY_SHARE). With `filtered`, every destination's subscription
 * bills each delivery message, the ones its filter drops too (Pub/Sub bills a filtered-out
 * message as a delivery without egress).
 */
export function pubsubBytesPerEvent(
  topology: PubSubTopology,
  shape: Pick<TrafficShape, 'eventBytes' | 'destinationsPerEvent' | 'eventsPerRequest'>,
  subscriptions: number,
): number {
  const perMessage = topology === 'batched' ? Math.max(1, shape.eventsPerRequest) : 1;
  // A message's billed bytes shared among the events it carries.
  const each = Math.max(PRICES.pubsubMinimumBytes, shape.eventBytes * perMessage) / perMessage;
  const billedBy = topology === 'filtered' ? subscriptions : 1;
  return (2 + shape.destinationsPerEvent * (1 + billedBy + CLAIM_RETRY_SHARE)) * each;
}

/**
 * What the bill prices: the fan-out's topology (absent: the plan's own, pubsubTopologyOf) and the
 * claims' design (BUILT: what ships).
 */
export interface Design {
  readonly topology?: PubSubTopology;
  readonly claims: ClaimDesign;
  /** Where the claims are kept (absent: the plan's `claims.store`; Memorystore modelled, claim-stores.ts). */
  readonly store?: ClaimStore;
}
export const BUILT: Design = Object.freeze({ claims: 'per-delivery' });

/** The bill of one scenario for a plan and traffic shape (and a design modelled, not built). */
export function monthlyBill(
  plan: Plan,
  scenario: ScenarioName,
  shape: TrafficShape,
  design: Design = BUILT,
): MonthlyBill {
  const hours = scenario === 'idle' ? 0 : scenario === 'workday' ? WORKDAY_HOURS : MONTH_SECONDS / 3600;
  const rate = scenario === 'idle' ? 0 : shape.eventsPerSecond;
  const activeSeconds = hours * 3600;
  const events = rate * activeSeconds;
  // Active periods that end (and leave instance-billed instances up for a while): one a workday.
  const endings = scenario === 'workday' ? 22 : 0;
  const usage: RunUsage = {
    requestVcpuSeconds: 0,
    requestGibSeconds: 0,
    requests: 0,
    instanceVcpuSeconds: 0,
    instanceGibSeconds: 0,
  };
  const background = schedulerBackground(plan, shape);
  const items: LineItem[] = [];
  let loggedBytes = 0;
  const excluded = new Set(plan.requestLogs.excludeSuccessful ? plan.requestLogs.services : []);
  for (const w of workloadsOf(plan, shape)) {
    const backgroundRequests = w.role === 'schedule' ? background.ticks + background.runs : 0;
    const c = workloadCost(w, rate * w.requestsPerEvent, activeSeconds, endings, backgroundRequests, usage);
    if (!excluded.has(w.service)) loggedBytes += c.requests * REQUEST_LOG_BYTES;
    items.push({
      item: `${w.service} (${w.role}, ${w.billing}-based${w.minInstances ? `, min ${w.minInstances}` : ''})`,
      group: w.role,
      monthly: c.cost,
      detail: `${Math.round(c.requests).toLocaleString('en-US')} requests`,
    });
  }
  loggedBytes += background.runs * RUN_LOG_BYTES;
  const subscriptions = plan.destinations.length;
  const topology = design.topology ?? pubsubTopologyOf(plan);
  const pubsubPerEvent = pubsubBytesPerEvent(topology, shape, subscriptions);
  const pubsubBackground =
    (2 * (background.ticks + background.runs) + background.backlogPulls) * PRICES.pubsubMinimumBytes;
  const pubsubBytes = events * pubsubPerEvent + pubsubBackground;
  items.push({
    item: 'Pub/Sub',
    group: 'pubsub',
    monthly: (pubsubBytes / 2 ** 40) * PRICES.pubsubPerTib,
    detail: `${gib(pubsubBytes)} GiB: events, deliveries (${shape.destinationsPerEvent} an event, billed by ${topology === 'filtered' ? `all ${subscriptions} filtered subscriptions` : "its destination's one subscription"}, ${CLAIM_RETRY_SHARE * 100} % pushed again), scheduler`,
  });
  // The Write API bills the rows as sent: the event's row and a ledger row per delivery, each
  // its own size (no per-row minimum), the same bytes as they are stored.
  // A pushed-again delivery writes a ledger row of its own (a `failed` or `folded` row, or `replay`).
  const rowBytes =
    events * (shape.eventBytes + shape.destinationsPerEvent * (1 + CLAIM_RETRY_SHARE) * LEDGER_ROW_BYTES);
  items.push({
    item: 'BigQuery Storage Write API',
    group: 'bigquery',
    monthly: (rowBytes / 2 ** 30) * PRICES.writeApiPerGib,
    detail: `${gib(rowBytes)} GiB: the event's row (${shape.eventBytes} bytes) and a ledger row (${LEDGER_ROW_BYTES} bytes) per delivery and per push again`,
  });
  // Stored: this month's rows only, held half the month on average (older months add theirs).
  const storageGibMonths = rowBytes / 2 / 2 ** 30;
  items.push({
    item: 'BigQuery storage',
    group: 'bigquery',
    monthly: storageGibMonths * MONTHLY_PRICES.storagePerGibMonth,
    detail: `this month's ${gib(rowBytes)} GiB, half the month on average`,
  });
  const queryBytes =
    background.modelRuns * MODEL_RUN_MINIMUM_BYTES + shape.models * events * shape.eventBytes;
  items.push({
    item: 'BigQuery queries',
    group: 'bigquery',
    monthly: (queryBytes / 2 ** 40) * MONTHLY_PRICES.queryPerTib,
    detail: `${Math.round(background.modelRuns).toLocaleString('en-US')} model runs; Redrive's ledger query only while dead letters wait`,
  });
  items.push({
    item: 'Cloud Logging',
    group: 'other',
    monthly: (loggedBytes / 2 ** 30) * PRICES.loggingPerGib,
    detail: `${gib(loggedBytes)} GiB of request logs not excluded and the scheduler's lines`,
  });
  const registry = plan.buckets.find((b) => b.purpose === 'registry');
  const regional = registry === undefined || isRegionLocation(registry.location);
  const classAPrice = MONTHLY_PRICES.storageClassAPer1000[regional ? 'region' : 'multiRegion'];
  items.push({
    item: 'Cloud Storage operations',
    group: 'other',
    monthly:
      (background.storageWrites / 1000) * classAPrice +
      (background.storageReads / 1000) * MONTHLY_PRICES.storageClassBPer1000,
    detail:
      `the scheduler in the registry bucket (${registry?.location ?? 'a region'}, ${regional ? 'regional' : 'multi-region'} prices): ` +
      `${Math.round(background.storageWrites).toLocaleString('en-US')} lock writes and listings, ` +
      `${Math.round(background.storageReads).toLocaleString('en-US')} lock reads`,
  });
  // The claims (docs/delivery.md, "One event, one delivery"): each event's first sighting in
  // store and each delivery's settled record, one document written and one TTL deletion each;
  // retries, copies and replays (CLAIM_RETRY_SHARE of deliveries) take, read and settle a claim.
  const counted = claimCounts(events, shape.destinationsPerEvent, design.claims);
  const store = design.store ?? plan.claims?.store ?? 'firestore';
  if (store !== 'firestore')
    items.push(capacityClaimsLine(store, counted, activeSeconds, plan.claims?.bigtable?.nodes ?? 1));
  else items.push(...firestoreClaimsLines(counted, events, shape, design.claims));
  // Cloud Trace: the sampled share of events, each its spans (core/deploy/trace-cost.ts).
  const spans = events * shape.traceSampleRatio * spansPerEvent(shape.destinationsPerEvent);
  items.push({
    item: 'Cloud Trace',
    group: 'trace',
    monthly: (spans / 1e6) * CLOUD_TRACE_PRICE.perMillionSpans,
    detail: `${Math.round(spans).toLocaleString('en-US')} spans (tracing.sample_ratio ${shape.traceSampleRatio}, ${spansPerEvent(shape.destinationsPerEvent)} spans a sampled event); ${CLOUD_TRACE_PRICE.asOf}`,
  });
  const samples = metricsSamples(plan, shape, rate, activeSeconds);
  items.push({
    item: 'Cloud Monitoring (delivery metrics)',
    group: 'metrics',
    monthly: (samples / 1e6) * CLOUD_MONITORING_PRICE.perMillionSamples,
    detail:
      shape.metricsIntervalSeconds > 0
        ? `${Math.round(samples).toLocaleString('en-US')} samples: ${samplesPerExport()} a destination per forward instance and export, every ${shape.metricsIntervalSeconds} s while instances are up; ${CLOUD_MONITORING_PRICE.asOf}`
        : 'metrics.enabled: false',
  });
  items.push({
    item: 'Cloud Scheduler',
    group: 'other',
    monthly: MONTHLY_PRICES.schedulerJobMonthly,
    detail: 'one tick job',
  });
  const versions = plan.secrets.length + 1;
  // The gateway re-reads its token store at most once a minute while it serves; cold starts read too.
  const accesses = Math.min(activeSeconds / 60, MONTH_SECONDS / 60) + 1000;
  items.push({
    item: 'Secret Manager',
    group: 'other',
    monthly:
      versions * MONTHLY_PRICES.secretVersionMonthly +
      (accesses / 10_000) * MONTHLY_PRICES.secretPer10kAccesses,
    detail: `${versions} secret versions`,
  });
  // The policies infra/alerts.ts declares, one condition each: a dead-letter backlog's, a function's
  // errors, and the platform API sunset the scheduler warns of (declared with `schedule`).
  const backlogs = plan.subscriptions.filter((s) => s.kind === 'backlog').length;
  const sunset = plan.functions.some((f) => f.name === 'schedule') ? 1 : 0;
  const conditions = backlogs + plan.functions.length + sunset;
  items.push({
    item: 'Cloud Monitoring alerts',
    group: 'other',
    monthly: conditions * MONTHLY_PRICES.alertConditionMonthly,
    detail: `${conditions} alert conditions: ${backlogs} dead-letter backlogs, ${plan.functions.length} functions' errors${sunset ? ', the API sunset' : ''}`,
  });
  const images = plan.functions.filter((f) => f.billing === 'request').length * FUNCTION_IMAGE_BYTES;
  items.push({
    item: 'Artifact Registry',
    group: 'other',
    monthly: (images / 2 ** 30) * MONTHLY_PRICES.registryPerGibMonth,
    detail: `the functions' images, about ${gib(images)} GiB`,
  });
  if (plan.gateway.domain?.via === 'load_balancer') {
    // Every event assumed to come through the domain (servers may keep the run.app URL).
    const processed = events * shape.eventBytes + (events / shape.eventsPerRequest) * REQUEST_OVERHEAD_BYTES;
    const lb = MONTHLY_PRICES.loadBalancer;
    items.push({
      item: 'Load balancer (gateway.domain)',
      group: 'load-balancer',
      monthly: (MONTH_SECONDS / 3600) * lb.forwardingRuleHourly + (processed / 2 ** 30) * lb.processedPerGib,
      detail: `a forwarding rule all month, ${gib(processed)} GiB processed`,
    });
  }
  // A Worker or an Akamai rule is billed by its vendor, not on this bill.
  if (plan.gateway.originPath?.via === 'load_balancer')
    items.push(originPathLine(plan.gateway.originPath.path, events, shape));
  const free = freeTierCredit(usage, {
    pubsubBytes,
    rowBytes,
    queryBytes,
    storageBytes: storageGibMonths * 2 ** 30,
    loggedBytes,
    versions,
    accesses,
    images,
    spans,
  });
  items.push({
    item: 'Free tiers',
    group: 'free',
    monthly: -free,
    detail: 'per billing account: assumes this environment alone uses them',
  });
  // The totals are the sums of the lines as printed, so a table of the lines adds up to the cent.
  const printed = items.map((i) => ({ ...i, monthly: round2(i.monthly) }));
  const sum = (lines: readonly LineItem[]) => round2(lines.reduce((n, i) => n + i.monthly, 0));
  return {
    scenario,
    eventsPerSecond: rate,
    activeHours: hours,
    events,
    items: printed,
    listTotal: sum(printed.filter((i) => i.group !== 'free')),
    total: sum(printed),
  };
}

/** The claims' lines in Firestore (built): per operation, and the documents' storage. */
function firestoreClaimsLines(
  counted: ReturnType<typeof claimCounts>,
  events: number,
  shape: TrafficShape,
  design: ClaimDesign,
): LineItem[] {
  const kind =
    design === 'per-delivery'
      ? 'an identity claim each and a settled record per delivery'
      : `a claim per batch of ${EVENTS_PER_BATCH} and per batch and destination`;
  return [
    {
      item: 'Send-once claims (Firestore)',
      group: 'claims',
      monthly: claimCost(counted),
      detail: `${Math.round(events).toLocaleString('en-US')} events, ${kind} (${shape.destinationsPerEvent} deliveries an event), ${CLAIM_RETRY_SHARE * 100} % of deliveries retried or copied: ${Math.round(counted.writes).toLocaleString('en-US')} writes, ${Math.round(counted.deletes).toLocaleString('en-US')} TTL deletions, ${Math.round(counted.reads).toLocaleString('en-US')} reads`,
    },
    {
      item: 'Firestore storage (claims)',
      group: 'claims',
      monthly: claimStorageCost(counted.documents),
      detail: `${CLAIM_DOCUMENT_BYTES}-byte claim documents kept 7 days and about a day until TTL, no index entries (every field exempt)`,
    },
  ];
}

/**
 * The claims in a capacity-priced store (core/deploy/claim-stores.ts; Bigtable built, at least its planned nodes): provisioned for
 * the rate while events come, kept all month whatever the traffic; storage for the month's claims
 * on average.
 */
function capacityClaimsLine(
  store: Exclude<ClaimStore, 'firestore'>,
  counted: ReturnType<typeof claimCounts>,
  activeSeconds: number,
  minNodes: number,
): LineItem {
  const active = Math.max(1, activeSeconds);
  const rates = {
    writesPerSecond: counted.writes / active,
    readsPerSecond: counted.reads / active,
    claimsPerSecond: counted.documents / MONTH_SECONDS,
  };
  const month = capacityMonth(store, rates, minNodes);
  return {
    item: `Send-once claims (${store === 'bigtable' ? 'Bigtable' : 'Memorystore, modelled'})`,
    group: 'claims',
    monthly: month.monthly,
    detail: `${month.detail}, all month`,
  };
}

/**
 * `gateway.origin_path` (infra/gateway-origin-path.ts): the site's load balancer and Cloud CDN in
 * front of the gateway. Every event assumed to come through the path, a load of the tag per
 * EVENTS_PER_TAG_LOAD events (the browser's own cache of it left out). The tag is a cache hit
 * (lookup and cache egress; its fills, one per edge cache every 5 minutes, left out); a batch is a
 * POST the CDN never caches, so its bytes are the load balancer's data processed, and it is
 * counted as a lookup too (Google's pricing page lists a lookup for non-cacheable content; an
 * older version said a POST makes none: an upper bound). No forwarding rule: the program declares
 * none (the URL map goes behind the site's own HTTPS proxy and rule, which the site pays anyway);
 * `gateway.domain`'s load balancer, which the program does create, bills its rule.
 */
export function originPathLine(path: string, events: number, shape: TrafficShape): LineItem {
  const batches = events / shape.eventsPerRequest;
  const processed = events * shape.eventBytes + batches * REQUEST_OVERHEAD_BYTES;
  const tagLoads = events / EVENTS_PER_TAG_LOAD;
  const cached = tagLoads * TAG_BYTES;
  const lookups = tagLoads + batches;
  const lb = MONTHLY_PRICES.loadBalancer;
  const cdn = MONTHLY_PRICES.cdn;
  return {
    item: `Load balancer + Cloud CDN (gateway.origin_path ${path})`,
    group: 'load-balancer',
    monthly:
      (processed / 2 ** 30) * lb.processedPerGib +
      (cached / 2 ** 30) * cdn.cacheEgressPerGib +
      (lookups / 10_000) * cdn.lookupsPer10k,
    detail:
      `${gib(processed)} GiB of batches processed, ` +
      `${gib(cached)} GiB of the tag from the cache, ${Math.round(lookups).toLocaleString('en-US')} cache lookups`,
  };
}

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(bytes < 2 ** 30 ? 2 : 0);

/**
 * Samples forward's delivery metrics write in a month (core/deploy/metrics-cost.ts): each forward
 * instance up exports every destination's series once an interval, whatever the traffic. While
 * events flow, the instances the load needs (at least one); otherwise its minimum instances.
 */
function metricsSamples(plan: Plan, shape: TrafficShape, rate: number, activeSeconds: number): number {
  if (shape.metricsIntervalSeconds <= 0) return 0;
  const forward = workloadsOf(plan, shape).find((w) => w.role === 'forward');
  const destinations = plan.destinations.filter((d) => !isCatalogDestination(d)).length;
  if (forward === undefined || destinations === 0) return 0;
  const busy = Math.max(
    forward.minInstances,
    Math.ceil(rate * forward.requestsPerEvent * billedPerRequest(forward)),
  );
  const instanceSeconds =
    (activeSeconds > 0 ? busy : 0) * activeSeconds + forward.minInstances * (MONTH_SECONDS - activeSeconds);
  return (instanceSeconds / shape.metricsIntervalSeconds) * destinations * samplesPerExport();
}

/** Instance-seconds one request occupies under load: its CPU over the 60 % target, or its wall time over 60 % of the concurrency. */
function billedPerRequest(w: Workload): number {
  return Math.max(
    w.cpuSecondsPerRequest / (w.vcpu * UTILISATION),
    w.latencySeconds / (w.concurrency * CONCURRENCY_TARGET),
  );
}

/**
 * One workload's month: its event traffic while active (`rps` requests a second), its background
 * requests spread over the month, and its minimum instances the rest of the time.
 *
 * Request-based: while requests keep coming, the instance time billed per second is the larger of
 * what the load needs (CPU over the 60 % the autoscaler targets, or wall time over the 60 % of
 * the concurrency it keeps in flight)
 * and, for a trickle, each request's own wall time rounded up to 100 ms; a minimum instance
 * otherwise idles at Cloud Run's idle rate. Instance-based: whole instances while active, one for
 * about 15 minutes after each active period, the minimum at the full rate the rest of the month.
 */
export function workloadCost(
  w: Workload,
  rps: number,
  activeSeconds: number,
  endings: number,
  backgroundRequests: number,
  usage: RunUsage,
): { cost: number; requests: number } {
  const perRequest = billedPerRequest(w);
  const lone = Math.max(MINIMUM_BILLED_SECONDS, w.latencySeconds);
  const need = rps * perRequest;
  const requests = rps * activeSeconds + backgroundRequests;
  if (w.billing === 'request') {
    const busyPerSecond = Math.max(need, Math.min(1, rps * lone));
    const busy = busyPerSecond * activeSeconds + backgroundRequests * lone;
    const idleMinimum =
      Math.max(0, w.minInstances - busyPerSecond) * activeSeconds +
      w.minInstances * (MONTH_SECONDS - activeSeconds);
    const r = PRICES.requestBased;
    const i = MONTHLY_PRICES.idleMinimum;
    usage.requestVcpuSeconds += busy * w.vcpu;
    usage.requestGibSeconds += busy * w.memoryGib;
    usage.requests += requests;
    const cost =
      busy * (w.vcpu * r.vcpuSecond + w.memoryGib * r.gibSecond) +
      idleMinimum * (w.vcpu * i.vcpuSecond + w.memoryGib * i.gibSecond) +
      (requests / 1e6) * r.perMillionRequests;
    return { cost, requests };
  }
  const up = activeSeconds > 0 ? Math.max(w.minInstances, Math.ceil(need), 1) : 0;
  const tail = Math.min(endings * SCALE_DOWN_SECONDS, MONTH_SECONDS - activeSeconds);
  const instanceSeconds =
    up * activeSeconds +
    Math.max(1, w.minInstances) * tail +
    w.minInstances * (MONTH_SECONDS - activeSeconds - tail);
  usage.instanceVcpuSeconds += instanceSeconds * w.vcpu;
  usage.instanceGibSeconds += instanceSeconds * w.memoryGib;
  const p = PRICES.instanceBased;
  return { cost: instanceSeconds * (w.vcpu * p.vcpuSecond + w.memoryGib * p.gibSecond), requests };
}

/** What the free tiers take off: each usage up to its free amount, at its price. */
function freeTierCredit(
  u: RunUsage,
  o: {
    pubsubBytes: number;
    rowBytes: number;
    queryBytes: number;
    storageBytes: number;
    loggedBytes: number;
    versions: number;
    accesses: number;
    images: number;
    spans: number;
  },
): number {
  const f = MONTHLY_PRICES.free;
  const r = PRICES.requestBased;
  const i = PRICES.instanceBased;
  const m = MONTHLY_PRICES;
  const upTo = (used: number, free: number) => Math.min(used, free);
  return (
    upTo(u.requestVcpuSeconds, f.requestVcpuSeconds) * r.vcpuSecond +
    upTo(u.requestGibSeconds, f.requestGibSeconds) * r.gibSecond +
    (upTo(u.requests, f.requests) / 1e6) * r.perMillionRequests +
    upTo(u.instanceVcpuSeconds, f.instanceVcpuSeconds) * i.vcpuSecond +
    upTo(u.instanceGibSeconds, f.instanceGibSeconds) * i.gibSecond +
    (upTo(o.pubsubBytes, f.pubsubBytes) / 2 ** 40) * PRICES.pubsubPerTib +
    (upTo(o.rowBytes, f.writeApiBytes) / 2 ** 30) * PRICES.writeApiPerGib +
    (upTo(o.queryBytes, f.queryBytes) / 2 ** 40) * m.queryPerTib +
    (upTo(o.storageBytes, f.storageBytes) / 2 ** 30) * m.storagePerGibMonth +
    (upTo(o.loggedBytes, f.loggingBytes) / 2 ** 30) * PRICES.loggingPerGib +
    upTo(1, f.schedulerJobs) * m.schedulerJobMonthly +
    upTo(o.versions, f.secretVersions) * m.secretVersionMonthly +
    (upTo(o.accesses, f.secretAccesses) / 10_000) * m.secretPer10kAccesses +
    (upTo(o.images, f.registryBytes) / 2 ** 30) * m.registryPerGibMonth +
    (upTo(o.spans, CLOUD_TRACE_PRICE.freeSpansPerMonth) / 1e6) * CLOUD_TRACE_PRICE.perMillionSpans
  );
}

/** The rate the bill assumes when settings state none (`cost.sustained_events_per_second`). */
export const DEFAULT_STATED_EVENTS_PER_SECOND = 1000;
/** Destinations an event reaches when not said: two (issue #42's shape), at most the plan's. */
const DEFAULT_DESTINATIONS_PER_EVENT = 2;

/** The traffic shape from settings (their stated rate and models), with what a caller overrides. */
export function trafficShape(
  settings: Readonly<Settings>,
  destinations: number,
  over: Partial<TrafficShape> = {},
): TrafficShape {
  const every = /^(\d+)(m|h|d)$/.exec(settings.warehouse?.models?.every ?? '15m');
  const minutes = every ? Number(every[1]) * { m: 1, h: 60, d: 1440 }[every[2] as 'm' | 'h' | 'd'] : 15;
  return {
    eventsPerSecond: settings.cost?.sustained_events_per_second ?? DEFAULT_STATED_EVENTS_PER_SECOND,
    eventBytes: 1000,
    destinationsPerEvent: Math.min(DEFAULT_DESTINATIONS_PER_EVENT, destinations),
    eventsPerRequest: 1,
    models: modelsEnabled(settings) ? MODELS.length : 0,
    modelEveryMinutes: Math.max(1, minutes),
    traceSampleRatio: settings.tracing?.enabled === false ? 0 : (settings.tracing?.sample_ratio ?? 0.01),
    metricsIntervalSeconds:
      settings.metrics?.enabled === false ? 0 : (settings.metrics?.export_interval_seconds ?? 60),
    ...over,
  };
}
