/**
 * The cost and scale model of a deployed environment (docs/scale.md): from measured CPU per event
 * at each hop, the configured sizing and Google's list prices, what a million events cost per
 * hop and how many instances each hop needs at a given rate. Pure arithmetic, so `npm run bench`
 * can print a cost line from the CPU it measured, and docs/scale.md's table is reproducible.
 *
 * The prices are Google's published list prices as last known (2025, us-central1 tier 1); no
 * machine here reaches Google, so they are unverified: recheck them before quoting a figure.
 */

/** List prices in USD, dated. */
export const PRICES = Object.freeze({
  asOf: '2025 list prices (unverified offline; recheck before quoting)',
  /** Cloud Run, request-based billing: CPU allocated only while a request is handled. */
  requestBased: { vcpuSecond: 0.000024, gibSecond: 0.0000025, perMillionRequests: 0.4 },
  /** Cloud Run, instance-based billing: CPU always allocated, no per-request fee. */
  instanceBased: { vcpuSecond: 0.000018, gibSecond: 0.000002, perMillionRequests: 0 },
  /** Pub/Sub throughput: publish and each subscription's delivery, at least 1000 bytes a message. */
  pubsubPerTib: 40,
  pubsubMinimumBytes: 1000,
  /**
   * BigQuery Storage Write API ingestion (how `store` and the ledger write, docs/storage.md): the
   * bytes sent, the rows as serialized, with no per-row minimum (the 1 KB a row is insertAll's);
   * the first 2 TiB a month are free, per billing account (the monthly bill takes them off).
   */
  writeApiPerGib: 0.025,
  writeApiFreeBytesPerMonth: 2 * 2 ** 40,
  /** Cloud Logging ingestion after the first 50 GiB of a month. */
  loggingPerGib: 0.5,
});

export type Billing = 'request' | 'instance';

/** One Cloud Run hop (the gateway or a function) as the model sees it. */
export interface HopInput {
  readonly name: 'gateway' | 'store' | 'forward' | 'forward-catalog';
  /** Requests this hop serves per event (forward: one per permitted destination). */
  readonly requestsPerEvent: number;
  /** Measured CPU seconds per request (`npm run bench`). */
  readonly cpuSecondsPerRequest: number;
  /** Wall time of a request, for the instance count (forward: the platform's answer time). */
  readonly latencySeconds: number;
  readonly concurrency: number;
  readonly vcpu: number;
  readonly memoryGib: number;
  readonly billing: Billing;
  readonly maxInstances: number;
}

export interface ModelInput {
  readonly hops: readonly HopInput[];
  /** Bytes of one event as published (the 1 KB of the example). */
  readonly eventBytes: number;
  /**
   * Bytes written to BigQuery per event, as the rows hold them: the event's row and the ledger
   * rows of its deliveries (modelInputFor: `eventBytes` and LEDGER_ROW_BYTES each).
   */
  readonly rowBytesPerEvent: number;
  /** Cloud Run's automatic request log, bytes per request, when it is not excluded. */
  readonly requestLogBytes: number;
  /** Whether the successful-request log exclusion is on (errors and refusals are always kept). */
  readonly excludeSuccessLogs: boolean;
  /**
   * Messages per event through Pub/Sub: publishes (the event, its delivery messages) and
   * deliveries (the store push, each forward push). Each is billed at least 1000 bytes.
   */
  readonly pubsubMessagesPerEvent: number;
  /** CPU a busy instance really uses before the autoscaler adds one (Cloud Run aims at ~60 %). */
  readonly utilisation: number;
}

export interface HopCost {
  readonly name: string;
  readonly compute: number;
  readonly requests: number;
  readonly logging: number;
}

export interface CostPerMillion {
  readonly hops: readonly HopCost[];
  readonly pubsub: number;
  readonly bigquery: number;
  readonly total: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * What one million events cost when busy (instances kept full by the load), per hop, in USD, at
 * list prices: no free tier counted (Cloud Run's, Pub/Sub's 10 GiB, Logging's 50 GiB, the Write
 * API's 2 TiB are monthly; the monthly bill, core/deploy/bill.ts, takes them off).
 */
export function costPerMillion(input: ModelInput): CostPerMillion {
  const events = 1_000_000;
  const hops = input.hops.map((h): HopCost => {
    const price = h.billing === 'request' ? PRICES.requestBased : PRICES.instanceBased;
    const requests = events * h.requestsPerEvent;
    // Busy: an instance is billed while it holds a request, so its billed time is the larger of
    // the CPU it uses (over the utilisation the autoscaler keeps) and the wall time its requests
    // occupy at full concurrency (forward waits 0.2–0.5 s on each platform call).
    const instanceSeconds = requests * instanceSecondsPerRequest(h, input.utilisation);
    const vcpuSeconds = instanceSeconds * h.vcpu;
    const gibSeconds = instanceSeconds * h.memoryGib;
    const logBytes = input.excludeSuccessLogs ? 0 : requests * input.requestLogBytes;
    return {
      name: h.name,
      compute: round(vcpuSeconds * price.vcpuSecond + gibSeconds * price.gibSecond),
      requests: round((requests / 1e6) * price.perMillionRequests),
      logging: round((logBytes / 2 ** 30) * PRICES.loggingPerGib),
    };
  });
  const pubsubBytes =
    events * input.pubsubMessagesPerEvent * Math.max(PRICES.pubsubMinimumBytes, input.eventBytes);
  const pubsub = round((pubsubBytes / 2 ** 40) * PRICES.pubsubPerTib);
  const rowBytes = events * input.rowBytesPerEvent;
  const bigquery = round((rowBytes / 2 ** 30) * PRICES.writeApiPerGib);
  const total = round(hops.reduce((a, h) => a + h.compute + h.requests + h.logging, 0) + pubsub + bigquery);
  return { hops, pubsub, bigquery, total };
}

/** Instance time one request occupies on a busy instance: by CPU or by concurrency slot. */
function instanceSecondsPerRequest(h: HopInput, utilisation: number): number {
  return Math.max(
    h.cpuSecondsPerRequest / (h.vcpu * utilisation),
    h.latencySeconds / (h.concurrency * CONCURRENCY_TARGET),
  );
}

export interface HopScale {
  readonly name: string;
  /** Instances needed at this rate: by CPU, and by concurrency over the request's wall time. */
  readonly instances: number;
  /** What bounds it: `cpu`, `concurrency`, or `max_instances` when the cap is below the need. */
  readonly boundBy: 'cpu' | 'concurrency' | 'max_instances';
}

/** Instances each hop needs at `eventsPerSecond`, and which limit binds first. */
export function scaleAt(input: ModelInput, eventsPerSecond: number): HopScale[] {
  return input.hops.map((h) => {
    const rps = eventsPerSecond * h.requestsPerEvent;
    const byCpu = (rps * h.cpuSecondsPerRequest) / (h.vcpu * input.utilisation);
    const byConcurrency = (rps * h.latencySeconds) / (h.concurrency * CONCURRENCY_TARGET);
    // (instanceSecondsPerRequest is the larger of the two per request.)
    const need = Math.max(1, Math.ceil(Math.max(byCpu, byConcurrency)));
    const boundBy = need > h.maxInstances ? 'max_instances' : byCpu >= byConcurrency ? 'cpu' : 'concurrency';
    return { name: h.name, instances: need, boundBy };
  });
}

/** The highest event rate the configured max_instances allow, and the hop that sets it. */
export function ceiling(input: ModelInput): { eventsPerSecond: number; hop: string } {
  let best = { eventsPerSecond: Number.POSITIVE_INFINITY, hop: '' };
  for (const h of input.hops) {
    const perInstanceRps = Math.min(
      (h.vcpu * input.utilisation) / h.cpuSecondsPerRequest,
      (h.concurrency * CONCURRENCY_TARGET) / h.latencySeconds,
    );
    const eps = (perInstanceRps * h.maxInstances) / h.requestsPerEvent;
    if (eps < best.eventsPerSecond) best = { eventsPerSecond: Math.floor(eps), hop: h.name };
  }
  return best;
}

/** CPU seconds per request measured by `npm run bench` (the figures docs/scale.md uses). */
export interface MeasuredCpu {
  readonly gateway: number;
  readonly store: number;
  readonly forward: number;
}

/**
 * CPU seconds per request measured on the 2-core machine when quiet (`npm run bench`, 2026-11-24,
 * after issue #42's hot-path work; the highest of the day's quiet runs, the bare node:http server
 * at 19–21 µs a request in them): the gateway's own CPU per single-event publish, store's per
 * event (with enrichment) and forward's per delivery under the real functions framework. plan()
 * sizes `forward` from them and docs/scale.md's table uses them; update them with the bench's
 * figures from a quiet machine (a loaded one inflates CPU per request two to three times). Before
 * that work (2026-11-23): gateway 78 µs, store 360 µs, forward 490 µs.
 */
export const MEASURED_CPU: MeasuredCpu = Object.freeze({ gateway: 44e-6, store: 240e-6, forward: 450e-6 });

/** A platform call's typical wall time (Meta, GA4, TikTok answer in 0.2–0.5 s). */
export const PLATFORM_LATENCY_SECONDS = 0.35;
/** The peak rate `forward` is sized for when settings do not say (the ceiling before #42). */
export const DEFAULT_PEAK_EVENTS_PER_SECOND = 5000;
/** CPU a busy instance really uses before Cloud Run's autoscaler adds one (~60 %). */
export const UTILISATION = 0.6;
/**
 * The share of its maximum concurrency Cloud Run keeps an instance at before adding one: the
 * autoscaler aims at 60 % of max concurrency, as at 60 % CPU (cloud.google.com/run/docs/about-
 * instance-autoscaling). Instances by concurrency are in-flight requests over this share of it.
 */
export const CONCURRENCY_TARGET = 0.6;
/** Cloud Run's limits on a revision's concurrency and instance count. */
const MAX_CONCURRENCY = 1000;
const MAX_INSTANCES = 1000;

/**
 * `forward`'s concurrency and max_instances from the model, for a sustained peak rate.
 *
 * A delivery spends almost all its wall time waiting on the platform, so a fixed concurrency of
 * 80 leaves the CPU mostly idle while each instance is billed for the whole wait: the concurrency
 * at which the CPU, not the waiting, fills an instance is vCPU × utilisation × latency / CPU per
 * delivery, over the share of it Cloud Run keeps in flight (CONCURRENCY_TARGET). max_instances is twice what the peak needs (a platform slowing down doubles the
 * wall time), so the cap bounds a runaway without being the first limit a burst meets.
 */
export function forwardSizing(input: {
  readonly vcpu: number;
  readonly peakEventsPerSecond: number;
  readonly destinations: number;
  readonly cpuSecondsPerRequest?: number;
  readonly latencySeconds?: number;
}): { readonly concurrency: number; readonly max_instances: number } {
  const cpu = input.cpuSecondsPerRequest ?? MEASURED_CPU.forward;
  const latency = input.latencySeconds ?? PLATFORM_LATENCY_SECONDS;
  const capacity = input.vcpu * UTILISATION;
  // The autoscaler keeps CONCURRENCY_TARGET of the concurrency in flight: the concurrency at which
  // those requests fill the CPU to its own target (rounded up: the CPU, not the slots, binds).
  const concurrency = clamp(
    Math.ceil((capacity * latency) / (cpu * CONCURRENCY_TARGET) - 1e-9),
    1,
    MAX_CONCURRENCY,
  );
  const perInstance = Math.min(capacity / cpu, (concurrency * CONCURRENCY_TARGET) / latency);
  const need = (input.peakEventsPerSecond * Math.max(1, input.destinations)) / perInstance;
  return { concurrency, max_instances: clamp(Math.ceil(2 * need), 1, MAX_INSTANCES) };
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** What the model needs from a deployment beyond its plan: its traffic shape and choices. */
export interface Deployment {
  readonly eventBytes: number;
  /** Events per gateway request (1 for single events; up to 1000 for batches). */
  readonly eventsPerRequest: number;
  /** Destinations an event is sent to after the decision layer. */
  readonly destinationsPerEvent: number;
  /** A platform call's wall time, seconds. */
  readonly platformLatencySeconds: number;
  readonly excludeSuccessLogs: boolean;
  readonly billing: { readonly gateway: Billing; readonly store: Billing; readonly forward: Billing };
  /**
   * Subscriptions that bill each delivery message: one with a topic per destination (what plan()
   * declares for a new stack); every destination's on the shared `deliveries` topic, where each
   * filtered subscription is billed for every message, also the ones its filter drops.
   */
  readonly subscriptionsPerDelivery: number;
}

/** The model's input for a plan's sizing (core/plan.ts) and measured CPU. */
export function modelInputFor(
  sizing: {
    readonly gateway: PlanSizing;
    readonly store: PlanSizing;
    readonly forward: PlanSizing;
  },
  cpu: MeasuredCpu,
  d: Deployment,
): ModelInput {
  const hop = (
    name: HopInput['name'],
    s: PlanSizing,
    requestsPerEvent: number,
    cpuSecondsPerRequest: number,
    latencySeconds: number,
    billing: Billing,
  ): HopInput => ({
    name,
    requestsPerEvent,
    cpuSecondsPerRequest,
    latencySeconds,
    concurrency: s.concurrency,
    vcpu: s.cpu,
    memoryGib: gib(s.memory),
    billing,
    maxInstances: s.max_instances,
  });
  return {
    hops: [
      hop('gateway', sizing.gateway, 1 / d.eventsPerRequest, cpu.gateway, 0.005, d.billing.gateway),
      hop('store', sizing.store, 1, cpu.store, STORE_LATENCY_SECONDS, d.billing.store),
      hop(
        'forward',
        sizing.forward,
        d.destinationsPerEvent,
        cpu.forward,
        d.platformLatencySeconds,
        d.billing.forward,
      ),
    ],
    eventBytes: d.eventBytes,
    // The event's row and one ledger row per destination, each its own size.
    rowBytesPerEvent: d.eventBytes + d.destinationsPerEvent * LEDGER_ROW_BYTES,
    requestLogBytes: REQUEST_LOG_BYTES,
    excludeSuccessLogs: d.excludeSuccessLogs,
    // Published: the event, its delivery messages; delivered: the store push, and each delivery
    // message to each subscription that bills it (its destination's own; on a shared topic every
    // destination's, the others filtering it out: Pub/Sub bills those as deliveries too).
    pubsubMessagesPerEvent: 2 + d.destinationsPerEvent * (1 + d.subscriptionsPerDelivery),
    utilisation: UTILISATION,
  };
}

/** A function's sizing as plan() gives it. */
export interface PlanSizing {
  readonly memory: string;
  readonly cpu: number;
  readonly concurrency: number;
  readonly max_instances: number;
}

/**
 * Bytes of a ledger row (`deliveries`) as stored and as sent to the Write API: its ids, name,
 * destination, status, times, the payload digest, trace id and, on an attempt, the platform's
 * bounded answer (core/delivery/ledger.ts). An estimate, like REQUEST_LOG_BYTES.
 */
export const LEDGER_ROW_BYTES = 300;

/**
 * Bytes of one Cloud Run request log entry (an HTTP request record with its resource labels,
 * trace and latency): about 1.2 KB as Cloud Logging bills it, an estimate to recheck.
 */
export const REQUEST_LOG_BYTES = 1200;

function gib(memory: string): number {
  const m = /^(\d+(?:\.\d+)?)(Mi|Gi)$/.exec(memory);
  if (!m) return 0.5;
  const n = Number(m[1]);
  return m[2] === 'Gi' ? n : n / 1024;
}

/** Cloud Run's request-based billing rounds each instance's billed time up to 100 ms. */
const MINIMUM_BILLED_SECONDS = 0.1;

/**
 * The sustained request rate of a hop above which instance-based billing costs less than
 * request-based billing, from the prices above. Quiet traffic is where request-based billing
 * wins: each request is billed its own wall time (at least 100 ms) plus the request fee, while
 * instance-based billing keeps at least one instance billed for as long as requests keep coming
 * (and about 15 minutes after). So the break-even is one idle instance's price per second over
 * one lone request's price.
 */
export function billingBreakEvenRequestsPerSecond(h: {
  readonly vcpu: number;
  readonly memoryGib: number;
  readonly latencySeconds: number;
}): number {
  const r = PRICES.requestBased;
  const i = PRICES.instanceBased;
  const instancePerSecond = h.vcpu * i.vcpuSecond + h.memoryGib * i.gibSecond;
  const billed = Math.max(MINIMUM_BILLED_SECONDS, h.latencySeconds);
  const lonePerRequest =
    r.perMillionRequests / 1e6 + billed * (h.vcpu * r.vcpuSecond + h.memoryGib * r.gibSecond);
  return instancePerSecond / lonePerRequest;
}

/** What one instance kept up by a trickle of traffic costs a month under instance-based billing. */
export function idleInstanceMonthly(h: { readonly vcpu: number; readonly memoryGib: number }): number {
  const i = PRICES.instanceBased;
  return round((h.vcpu * i.vcpuSecond + h.memoryGib * i.gibSecond) * 30 * 24 * 3600);
}

/** A pushed hop's wall time per request as the model uses it (store: a BigQuery write). */
export const STORE_LATENCY_SECONDS = 0.05;

/** Memory in GiB from a sizing string (`512Mi`, `1Gi`). */
export const memoryGib = (memory: string): number => gib(memory);

/**
 * Google's documented quotas that bind an environment's rate before anything of ours, as last
 * known (unverified offline; recheck on the quotas pages): Pub/Sub's publisher throughput per
 * region (200 MB/s in the large regions europe-west1, us-central1 and us-east1, 50 MB/s in the
 * others: cloud.google.com/pubsub/quotas); the BigQuery Storage Write API's throughput per project
 * (3 GB/s in the US and EU multi-regions, 300 MB/s elsewhere) and its concurrent connections per
 * project, default streams' included (10,000 in the multi-regions, 1,000 elsewhere:
 * cloud.google.com/bigquery/quotas, "Storage Write API"); Cloud Run's baseline regional vCPU
 * quota, which caps every service's instances together (1,000 vCPU in the example of
 * cloud.google.com/run/docs/configuring/max-instances-limits; the console shows a project's
 * own). All can be raised on request.
 */
export const GOOGLE_LIMITS = Object.freeze({
  asOf: "Google's quotas pages as last known (2025–2026; unverified offline)",
  pubsubPublishBytesPerSecond: { large: 200e6, small: 50e6 },
  pubsubLargeRegions: ['europe-west1', 'us-central1', 'us-east1'] as readonly string[],
  writeApiBytesPerSecond: { multiRegion: 3e9, region: 300e6 },
  writeApiConnections: { multiRegion: 10_000, region: 1000 },
  runRegionalVcpu: 1000,
});

/**
 * Write API connections an instance of each hop keeps open: one per table it writes, opened on
 * its first row there (adapters/bigquery-write-api.ts). `store` writes `events`, `invalid_events`,
 * `hook_failures` and the decision layer's `skipped` ledger rows; forward and forward-catalog the
 * ledger; the gateway none (its refusals go through insertAll, docs/console.md).
 */
export const WRITE_API_TABLES: Readonly<Record<HopInput['name'], number>> = Object.freeze({
  gateway: 0,
  store: 4,
  forward: 1,
  'forward-catalog': 1,
});

/** Seconds in the 30-day month the monthly figures use. */
const MONTH_SECONDS = 30 * 24 * 3600;

export interface MonthlyAt {
  readonly eventsPerSecond: number;
  /** Per hop: the instances its need rounds up to (above its max_instances when that binds), and their month. */
  readonly hops: readonly {
    readonly name: string;
    readonly instances: number;
    readonly maxInstances: number;
    readonly monthly: number;
  }[];
  readonly pubsub: number;
  readonly bigquery: number;
  readonly total: number;
  /** Each limit's share used at this rate, the nearest first: ours (max_instances) and Google's. */
  readonly limits: readonly Limit[];
}

/** A limit at a rate: whose it is, what it counts (instances or vCPU; bytes a second), how much is used. */
export interface Limit {
  readonly name: string;
  readonly owner: 'ours' | 'google';
  readonly unit: 'count' | 'bytes/s';
  readonly used: number;
  readonly limit: number;
}

/**
 * What a month at a sustained `eventsPerSecond` costs per hop, and how near each limit it runs.
 * An instance-billed hop pays its instances around the clock (whole instances: the autoscaler
 * keeps the need rounded up, at least one); a request-billed one pays its busy cost per event.
 * Pub/Sub and BigQuery are per byte, at list prices (no free tier: the monthly bill has them).
 * Publishing counts the event and one delivery message per destination at the event's size; the
 * Write API the bytes of the event's row and one ledger row per destination (`rowBytesPerEvent`).
 */
export function monthlyAt(
  input: ModelInput,
  traffic: { readonly eventsPerSecond: number; readonly destinationsPerEvent: number },
  place: { readonly region: string; readonly location: string },
): MonthlyAt {
  const rate = traffic.eventsPerSecond;
  const millions = (rate * MONTH_SECONDS) / 1e6;
  const busy = costPerMillion(input);
  const scale = scaleAt(input, rate);
  const hops = input.hops.map((h, i) => {
    const need = scale[i]?.instances ?? 1;
    const cost = busy.hops[i];
    const monthly =
      h.billing === 'instance'
        ? need * idleInstanceMonthly(h)
        : millions * ((cost?.compute ?? 0) + (cost?.requests ?? 0) + (cost?.logging ?? 0));
    return { name: h.name, instances: need, maxInstances: h.maxInstances, monthly: round(monthly) };
  });
  const pubsub = round(busy.pubsub * millions);
  const bigquery = round(busy.bigquery * millions);
  const perEvent = (1 + traffic.destinationsPerEvent) * input.eventBytes;
  const large = GOOGLE_LIMITS.pubsubLargeRegions.includes(place.region);
  const multi = place.location === 'EU' || place.location === 'US';
  const vcpu = input.hops.reduce((n, h, i) => n + (scale[i]?.instances ?? 1) * h.vcpu, 0);
  const limits: Limit[] = [
    ...hops.map(
      (h): Limit => ({
        name: `${h.name} max_instances`,
        owner: 'ours',
        unit: 'count',
        used: h.instances,
        limit: h.maxInstances,
      }),
    ),
    {
      name: `Pub/Sub publish, ${place.region}`,
      owner: 'google',
      unit: 'bytes/s',
      used: rate * perEvent,
      limit: GOOGLE_LIMITS.pubsubPublishBytesPerSecond[large ? 'large' : 'small'],
    },
    {
      name: `BigQuery Storage Write API, ${place.location}`,
      owner: 'google',
      unit: 'bytes/s',
      used: rate * input.rowBytesPerEvent,
      limit: GOOGLE_LIMITS.writeApiBytesPerSecond[multi ? 'multiRegion' : 'region'],
    },
    {
      name: `BigQuery Storage Write API connections, ${place.location}`,
      owner: 'google',
      unit: 'count',
      used: input.hops.reduce((n, h, i) => n + (scale[i]?.instances ?? 1) * WRITE_API_TABLES[h.name], 0),
      limit: GOOGLE_LIMITS.writeApiConnections[multi ? 'multiRegion' : 'region'],
    },
    {
      name: 'Cloud Run regional vCPU',
      owner: 'google',
      unit: 'count',
      used: vcpu,
      limit: GOOGLE_LIMITS.runRegionalVcpu,
    },
  ];
  limits.sort((a, b) => b.used / b.limit - a.used / a.limit);
  const total = round(hops.reduce((n, h) => n + h.monthly, 0) + pubsub + bigquery);
  return { eventsPerSecond: rate, hops, pubsub, bigquery, total, limits };
}
