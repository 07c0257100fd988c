import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEND_ONCE_DAYS } from '../core/claims/send-once.ts';
import {
  CLAIM_RETRY_SHARE,
  type ClaimDesign,
  claimCost,
  claimCounts,
  claimStorageCost,
  DEFAULT_STATED_EVENTS_PER_SECOND,
  EVENTS_PER_BATCH,
  EVENTS_PER_TAG_LOAD,
  MONTH_SECONDS,
  MONTHLY_PRICES,
  type PubSubTopology,
  pubsubBytesPerEvent,
  pubsubTopologyOf,
  TAG_BYTES,
} from '../core/deploy/bill.ts';
import { billingRecommendation } from '../core/deploy/billing-advice.ts';
import { CATALOG_CPU_SECONDS, CATALOG_FUNCTION } from '../core/deploy/catalog-function.ts';
import {
  bigtableMonth,
  breakEvenEventsPerSecond,
  CAPACITY_PRICES,
  type ClaimRates,
  capacityMonth,
  memorystoreMonth,
} from '../core/deploy/claim-stores.ts';
import { claimsRecommendation } from '../core/deploy/claims-advice.ts';
import {
  type Billing,
  billingBreakEvenRequestsPerSecond,
  ceiling,
  costPerMillion,
  type Deployment,
  GOOGLE_LIMITS,
  idleInstanceMonthly,
  LEDGER_ROW_BYTES,
  type Limit,
  MEASURED_CPU,
  type MeasuredCpu,
  memoryGib,
  modelInputFor,
  monthlyAt,
  PLATFORM_LATENCY_SECONDS,
  PRICES,
  STORE_LATENCY_SECONDS,
  scaleAt,
  WRITE_API_TABLES,
} from '../core/deploy/cost.ts';
import { CLOUD_MONITORING_PRICE, monthlyMetricsCost, samplesPerExport } from '../core/deploy/metrics-cost.ts';
import { CLOUD_TRACE_PRICE, monthlyTraceCost, spansPerEvent } from '../core/deploy/trace-cost.ts';
import { plan } from '../core/plan.ts';
import { checkSettings, parseSettings } from '../core/settings.ts';
import type { Destination, Settings } from '../schemas/settings.ts';
import { argOf, billsOf, billText, type MonthColumn, monthCells, perMillionBill, usd } from './scale-bill.ts';
import { BILL_COLUMNS, floorTable } from './scale-floor.ts';

/** `tracing.sample_ratio` unset (core/deploy/bill.ts, trafficShape). */
const DEFAULT_TRACE_RATIO = 0.01;

/** The CPU per request the tables use (core/deploy/cost.ts, from `npm run bench`). */
export const MEASURED: MeasuredCpu = MEASURED_CPU;

const ROOT = join(import.meta.dirname, '..');

/** A settings file, parsed and checked. */
export function settingsFile(path: string): Settings {
  const loaded = parseSettings(readFileSync(path, 'utf8'));
  if (!loaded.ok) throw new Error(`${path} does not load: ${JSON.stringify(loaded.errors)}`);
  return loaded.settings;
}

function exampleSettings() {
  return settingsFile(join(ROOT, 'environments/example.yaml'));
}

/** The least a settings file holds: a name, a project and a region (a development environment). */
export function minimalSettings(): Settings {
  const checked = checkSettings({ name: 'dev', project: 'acme-dev-project', region: 'europe-west1' });
  if (!checked.ok) throw new Error('the minimal settings do not check');
  return checked.settings;
}

function examplePlan() {
  const p = plan(exampleSettings());
  const fn = (name: 'store' | 'forward') => {
    const f = p.functions.find((x) => x.name === name);
    if (!f) throw new Error(`plan has no ${name}`);
    return f;
  };
  return {
    gateway: p.gateway.sizing,
    store: fn('store').sizing,
    forward: fn('forward').sizing,
    /** The billing plan() chose (cost.billing; unset, request-based). */
    billing: {
      gateway: (p.gateway.cpuIdle ? 'request' : 'instance') as Billing,
      store: fn('store').billing,
      forward: fn('forward').billing,
    },
    destinations: p.destinations.length,
    /** Subscriptions billing each delivery message, from the topology plan() declares. */
    subscriptionsPerDelivery: pubsubTopologyOf(p) === 'filtered' ? p.destinations.length : 1,
  };
}

const BEFORE: Deployment = {
  eventBytes: 1000,
  eventsPerRequest: 1,
  destinationsPerEvent: 2,
  platformLatencySeconds: PLATFORM_LATENCY_SECONDS,
  excludeSuccessLogs: false,
  billing: { gateway: 'request', store: 'request', forward: 'request' },
  // One `deliveries` topic, a filtered subscription for each of the example's 4 destinations.
  subscriptionsPerDelivery: 4,
};

/** Request logs of successes excluded, store and forward still Cloud Functions (request-based). */
const LOGS_EXCLUDED: Deployment = { ...BEFORE, excludeSuccessLogs: true };

/** A topic per destination: each delivery message billed by its destination's one subscription. */
const TOPIC_PER_DESTINATION: Deployment = { ...LOGS_EXCLUDED, subscriptionsPerDelivery: 1 };

/** What plan() ships for the example: logs excluded, and the billing it chose for store and forward. */
const shipped = (): Deployment => ({
  ...LOGS_EXCLUDED,
  billing: examplePlan().billing,
  subscriptionsPerDelivery: examplePlan().subscriptionsPerDelivery,
});

/** forward's sizing before issue #42: a fixed 80 concurrent requests and 50 instances. */
const FIXED_FORWARD = { concurrency: 80, max_instances: 50 } as const;

/** The deployments the cost table compares, each one change from the line above. */
export const SCENARIOS: readonly {
  readonly name: string;
  readonly deployment: Deployment;
  readonly fixedForward: boolean;
  /** The line of what plan() ships: its billing must be the one plan() chose (checked). */
  readonly shipped?: boolean;
}[] = [
  {
    name: 'Before (request logs kept, request-based billing, forward at 80 concurrent)',
    deployment: BEFORE,
    fixedForward: true,
  },
  {
    name: '+ successful request logs excluded (errors and refusals kept)',
    deployment: LOGS_EXCLUDED,
    fixedForward: true,
  },
  {
    name: "+ forward's concurrency sized by the model",
    deployment: LOGS_EXCLUDED,
    fixedForward: false,
  },
  {
    name: '+ a topic per destination (`deliveries-<id>`): each delivery message billed by one subscription, not 4',
    deployment: TOPIC_PER_DESTINATION,
    fixedForward: false,
  },
  {
    name: '**Shipped defaults**: Cloud Functions (request-based billing), the gateway without CPU between requests',
    deployment: TOPIC_PER_DESTINATION,
    fixedForward: false,
    shipped: true,
  },
  {
    name: '+ instance-based billing for store, forward and the gateway (`cost.billing`; recommended above the break-even)',
    deployment: {
      ...TOPIC_PER_DESTINATION,
      billing: { gateway: 'instance', store: 'instance', forward: 'instance' },
    },
    fixedForward: false,
  },
];

/** What a million events cost with the shipped defaults and the given CPU per request (`npm run bench`). */
export function shippedCost(cpu: MeasuredCpu) {
  return costPerMillion(modelInputFor(examplePlan(), cpu, shipped()));
}

/**
 * Money cells rounded to `step` (0.01: cents; 1: whole dollars) and their total as the sum of the
 * cells as printed, so a table's row adds up to the total it shows.
 */
function addedUp(values: readonly number[], step: 0.01 | 1): { cells: string[]; total: string } {
  const steps = values.map((v) => Math.round(v / step));
  const text = (n: number) => (step === 1 ? `$${n.toLocaleString('en-US')}` : usd(n / 100));
  return { cells: steps.map(text), total: text(steps.reduce((a, b) => a + b, 0)) };
}

/** The markdown tables of docs/scale.md. */
export function scaleTables(): string {
  const sizing = examplePlan();
  const lines: string[] = [];
  lines.push(
    `CPU per request used: gateway ${MEASURED.gateway * 1e6} µs, store ${MEASURED.store * 1e6} µs, forward ${MEASURED.forward * 1e6} µs. Prices: ${PRICES.asOf}.`,
  );
  lines.push('');
  lines.push(
    '| Busy, per million 1 KB events, 2 destinations an event of 4: the pipeline alone (the claims, Cloud Trace and the rest are the bill’s, below) | gateway | store | forward | Pub/Sub | BigQuery | total |',
  );
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of SCENARIOS) {
    if (
      s.shipped &&
      (JSON.stringify(s.deployment.billing) !== JSON.stringify(sizing.billing) ||
        s.deployment.subscriptionsPerDelivery !== sizing.subscriptionsPerDelivery)
    ) {
      // The page's shipped line must be what plan() deploys for the example.
      throw new Error(
        `the shipped line says ${JSON.stringify(s.deployment.billing)} and ${s.deployment.subscriptionsPerDelivery} subscriptions a delivery, plan() chose ${JSON.stringify(sizing.billing)} and ${sizing.subscriptionsPerDelivery}`,
      );
    }
    const hops = s.fixedForward ? { ...sizing, forward: { ...sizing.forward, ...FIXED_FORWARD } } : sizing;
    const c = costPerMillion(modelInputFor(hops, MEASURED, s.deployment));
    const hop = (n: string) => {
      const h = c.hops.find((x) => x.name === n);
      return h ? h.compute + h.requests + h.logging : 0;
    };
    const row = addedUp([hop('gateway'), hop('store'), hop('forward'), c.pubsub, c.bigquery], 0.01);
    lines.push(`| ${s.name} | ${row.cells.join(' | ')} | **${row.total}** |`);
  }
  lines.push('');
  const input = modelInputFor(sizing, MEASURED, shipped());
  lines.push('| Events/s | gateway instances | store instances | forward instances |');
  lines.push('| ---: | ---: | ---: | ---: |');
  for (const rate of [100, 1000, 10_000, 100_000]) {
    const cells = scaleAt(input, rate).map((h) => `${h.instances} (${h.boundBy.replace('_', ' ')})`);
    lines.push(`| ${rate.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
  }
  lines.push('');
  lines.push(monthlyTable(input));
  lines.push('');
  lines.push(traceTable());
  lines.push('');
  lines.push(metricsTable());
  lines.push('');
  lines.push(claimsTable());
  lines.push('');
  lines.push(pubsubTable());
  lines.push('');
  lines.push(floorTable(exampleSettings()));
  const top = ceiling(input);
  lines.push('');
  lines.push(
    `Ceiling with the shipped defaults: about ${top.eventsPerSecond.toLocaleString('en-US')} events/s, set by \`${top.hop}\`'s max_instances.`,
  );
  // Where instance-based billing stops paying: the model's break-even, and what it costs below.
  const shape = (s: { cpu: number; memory: string }, latencySeconds: number) => ({
    vcpu: s.cpu,
    memoryGib: memoryGib(s.memory),
    latencySeconds,
  });
  const even = (s: { cpu: number; memory: string }, latency: number) =>
    billingBreakEvenRequestsPerSecond(shape(s, latency)).toFixed(1);
  lines.push('');
  lines.push(
    `Instance-based billing costs less than request-based above about ${even(sizing.store, STORE_LATENCY_SECONDS)} pushes/s to \`store\`, ${even(sizing.forward, PLATFORM_LATENCY_SECONDS)} to \`forward\` and ${even(sizing.gateway, 0)} requests/s to the gateway (sustained); below that, an instance kept up by a trickle costs about ${usd(idleInstanceMonthly(shape(sizing.store, 0)))} a month per service (store: ${sizing.store.cpu} vCPU, ${sizing.store.memory}; forward: ${sizing.forward.cpu} vCPU, ${sizing.forward.memory}).`,
  );
  // The recommendation settings check and pulumi up print, for the example's stated rate.
  const example = exampleSettings();
  const recommended = billingRecommendation(example, plan(example));
  lines.push('');
  lines.push(
    recommended
      ? `**environments/example.yaml**: ${recommended.message}.`
      : 'environments/example.yaml: its billing is already the cheaper at its stated rate.',
  );
  const claimStore = claimsRecommendation(example, plan(example));
  lines.push('');
  lines.push(
    claimStore
      ? `**environments/example.yaml**, claims: ${claimStore.message}.`
      : 'environments/example.yaml: its claim store is already the cheaper at its stated rate.',
  );
  lines.push('');
  lines.push(billTables());
  lines.push('');
  lines.push(originPathTable());
  lines.push('');
  lines.push(catalogTables());
  return lines.join('\n');
}

/**
 * The example served under a path of the site's origin (`gateway.origin_path`): the site's load
 * balancer and Cloud CDN in front of the gateway, a line of the bill (core/deploy/bill.ts).
 */
function originPathTable(): string {
  const example = exampleSettings();
  const settings: Settings = {
    ...example,
    gateway: { ...example.gateway, origin_path: '/_eb', site_backend: 'shop-web' },
  };
  const columns: readonly MonthColumn[] = [
    { title: 'load balancer + Cloud CDN', groups: ['load-balancer'] },
    { title: 'the rest of the bill', groups: 'rest' },
  ];
  const lines = [
    `| A 30-day month, example with \`gateway.origin_path: /_eb\` | scenario | total | ${columns.map((c) => c.title).join(' | ')} | what the load balancer and CDN bill |`,
    '| --- | --- | ---: | ---: | ---: | --- |',
  ];
  for (const b of billsOf(settings).bills) {
    const line = b.items.find((i) => i.item.startsWith('Load balancer + Cloud CDN'));
    lines.push(
      `| example | ${b.scenario} | **${usd(b.total)}** | ${monthCells(b, columns).join(' | ')} | ${line?.detail ?? ''} |`,
    );
  }
  const { processedPerGib } = MONTHLY_PRICES.loadBalancer;
  const { cacheEgressPerGib, lookupsPer10k } = MONTHLY_PRICES.cdn;
  lines.push('');
  lines.push(
    `Prices: data processed $${processedPerGib} per GiB, cache egress $${cacheEgressPerGib} per GiB (Europe and North America, the first 10 TiB), cache lookups $${lookupsPer10k} per 10,000. A load of the tag (${TAG_BYTES / 1024} KiB, a cache hit) per ${EVENTS_PER_TAG_LOAD} events, every batch a lookup too (an upper bound). No forwarding rule: the program creates none, the URL map goes behind the site's own rule, which the site pays anyway (\`gateway.domain\`'s load balancer, which the program does create, bills its rule).`,
  );
  return lines.join('\n');
}

/** A catalogue destination as the tables add it to the example (Klaviyo's trackEvent, its presets). */
const CATALOG_EXAMPLE: Destination = {
  id: 'klaviyo',
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'klaviyo-private-key' },
  actions: [{ action: 'trackEvent', mapping: { profile: { email: { '@path': '$.context.traits.email' } } } }],
};

/**
 * forward-catalog's price (issue #65): per million deliveries beside forward's, from each
 * function's plan() sizing and CPU per delivery, and the example's month with one catalogue
 * destination added (its deliveries go to forward-catalog, the others' to forward, as before).
 */
function catalogTables(): string {
  const example = exampleSettings();
  const withCatalog: Settings = {
    ...example,
    destinations: [...(example.destinations ?? []), CATALOG_EXAMPLE],
  };
  const p = plan(withCatalog);
  const hopOf = (name: 'forward' | typeof CATALOG_FUNCTION, cpu: number) => {
    const f = p.functions.find((x) => x.name === name);
    if (!f) throw new Error(`plan has no ${name}`);
    return {
      sizing: f.sizing,
      cpu,
      cost: costPerMillion({
        hops: [
          {
            name,
            requestsPerEvent: 1,
            cpuSecondsPerRequest: cpu,
            latencySeconds: PLATFORM_LATENCY_SECONDS,
            concurrency: f.sizing.concurrency,
            vcpu: f.sizing.cpu,
            memoryGib: memoryGib(f.sizing.memory),
            billing: f.billing,
            maxInstances: f.sizing.max_instances,
          },
        ],
        eventBytes: 1000,
        rowBytesPerEvent: 0,
        requestLogBytes: 0,
        excludeSuccessLogs: true,
        pubsubMessagesPerEvent: 0,
        utilisation: 0.6,
      }).hops[0],
    };
  };
  const rows = [hopOf('forward', MEASURED.forward), hopOf(CATALOG_FUNCTION, CATALOG_CPU_SECONDS)];
  const catalog = rows[1]?.sizing;
  const lines = [
    `forward-catalog, deployed only with a catalogue destination (\`type: segment_action\`): a Cloud Function, request-billed, ${catalog?.cpu} vCPU, ${catalog?.memory}, concurrency ${catalog?.concurrency}, max_instances ${catalog?.max_instances}, no minimum instance (idle: $0.00). CPU per delivery used: ${CATALOG_CPU_SECONDS * 1e6} µs, forward's figure times the ratio \`npm run bench forward-catalog\` measured between them (core/deploy/catalog-function.ts).`,
    '',
    '| Busy, per million deliveries (a 0.35 s platform answer each) | CPU per delivery | vCPU, memory, concurrency | compute | requests | total |',
    '| --- | ---: | --- | ---: | ---: | ---: |',
  ];
  for (const [i, r] of rows.entries()) {
    const c = r.cost;
    lines.push(
      `| ${i === 0 ? '`forward`' : '`forward-catalog`'} | ${Math.round(r.cpu * 1e6)} µs | ${r.sizing.cpu}, ${r.sizing.memory}, ${r.sizing.concurrency} | ${addedUp([c?.compute ?? 0, c?.requests ?? 0], 0.01).cells.join(' | ')} | **${addedUp([c?.compute ?? 0, c?.requests ?? 0], 0.01).total}** |`,
    );
  }
  lines.push('');
  const columns: readonly MonthColumn[] = [
    { title: 'forward', groups: ['forward'] },
    { title: 'forward-catalog', groups: [CATALOG_FUNCTION] },
    { title: 'Pub/Sub', groups: ['pubsub'] },
    { title: 'the rest of the bill', groups: 'rest' },
  ];
  lines.push(`| A 30-day month | scenario | total | ${columns.map((c) => c.title).join(' | ')} |`);
  lines.push(`| --- | --- | ---: | ${columns.map(() => '---:').join(' | ')} |`);
  for (const [name, settings] of [
    ['example, as shipped', example],
    ['example with a Klaviyo destination added (5 destinations)', withCatalog],
  ] as const) {
    for (const b of billsOf(settings).bills)
      lines.push(`| ${name} | ${b.scenario} | **${usd(b.total)}** | ${monthCells(b, columns).join(' | ')} |`);
  }
  lines.push('');
  lines.push(
    'The 2 deliveries an event split as the destinations do: with Klaviyo, 1 in 5 goes to forward-catalog. Pub/Sub grows only with the deliveries an event makes: each destination has its own topic, so a delivery message is billed by one subscription however many destinations there are.',
  );
  return lines.join('\n');
}

/** The monthly bills of the example (as shipped, and with instance-billed store and forward) and of minimal settings. */
function billTables(): string {
  const example = exampleSettings();
  const rows: [string, Settings][] = [
    ['example (`production: true`), as shipped', example],
    [
      'example with `cost.billing: { store: instance, forward: instance, gateway: instance }`',
      {
        ...example,
        cost: { ...example.cost, billing: { store: 'instance', forward: 'instance', gateway: 'instance' } },
      },
    ],
    ['minimal settings (name, project, region: development)', minimalSettings()],
  ];
  const lines = [
    `| A 30-day month | scenario | total | per million events | ${BILL_COLUMNS.map((c) => c.title).join(' | ')} |`,
    `| --- | --- | ---: | ---: | ${BILL_COLUMNS.map(() => '---:').join(' | ')} |`,
  ];
  let shape = '';
  for (const [name, settings] of rows) {
    const billed = billsOf(settings);
    shape ||= `${billed.shape.eventsPerSecond.toLocaleString('en-US')} events/s when sending (workday: 8 h on 22 days; busy: all month), ${billed.shape.eventBytes}-byte events, ${billed.shape.destinationsPerEvent} destinations an event`;
    for (const b of billed.bills) {
      const perMillion = b.events > 0 ? usd(perMillionBill(b).total) : '';
      lines.push(
        `| ${name} | ${b.scenario} | **${usd(b.total)}** | ${perMillion} | ${monthCells(b, BILL_COLUMNS).join(' | ')} |`,
      );
    }
  }
  lines.push('');
  lines.push(
    `Traffic: ${shape}; the example has 4 destinations, the minimal settings none. Every line of the bill is in one column, so each row's columns add up to its total (\`npm run scale -- --env <file>\` lists the lines): claims are the send-once and identity claims' Firestore writes, deletes, reads and storage; delivery metrics, forward's samples in Cloud Monitoring; other, Cloud Logging, the scheduler's Cloud Storage operations, Cloud Scheduler, Secret Manager, alert conditions and Artifact Registry. Prices: ${MONTHLY_PRICES.asOf}.`,
  );
  return lines.join('\n');
}

const share = (used: number, limit: number) => `${Math.round((100 * used) / limit)} %`;
/** A limit and the share of it used: instances and vCPU counted, bytes in MB/s. */
const limitText = (l: Limit) =>
  l.unit === 'count'
    ? `${l.name}: ${l.used} of ${l.limit} (${share(l.used, l.limit)})`
    : `${l.name}: ${(l.used / 1e6).toFixed(l.used < 1e7 ? 1 : 0)} of ${l.limit / 1e6} MB/s (${share(l.used, l.limit)})`;

/** A month at each sustained rate with the shipped defaults, and the limit it runs nearest. */
function monthlyTable(input: ReturnType<typeof modelInputFor>): string {
  const { region, location = 'US' } = exampleSettings(); // BigQuery's default location (schemas/settings.ts)
  const lines = [
    `| Events/s, a 30-day month | gateway | store | forward | Pub/Sub | BigQuery | claims | Cloud Trace | total | nearest of our limits | nearest Google quota (${region}, BigQuery in ${location}) |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ];
  for (const rate of [100, 1000, 10_000, 100_000]) {
    const m = monthlyAt(input, { eventsPerSecond: rate, destinationsPerEvent: 2 }, { region, location });
    const hop = (n: string) => m.hops.find((h) => h.name === n)?.monthly ?? 0;
    const ours = m.limits.find((l) => l.owner === 'ours');
    const google = m.limits.find((l) => l.owner === 'google');
    // The claims (Firestore, as built) and Cloud Trace at the default ratio, list prices as the rest.
    const spans = rate * MONTH_SECONDS * DEFAULT_TRACE_RATIO * spansPerEvent(2);
    const trace = (spans / 1e6) * CLOUD_TRACE_PRICE.perMillionSpans;
    const row = addedUp(
      [hop('gateway'), hop('store'), hop('forward'), m.pubsub, m.bigquery, firestoreClaimsMonth(rate), trace],
      1,
    );
    lines.push(
      `| ${rate.toLocaleString('en-US')} | ${row.cells.join(' | ')} | **${row.total}** | ${ours ? limitText(ours) : ''} | ${google ? limitText(google) : ''} |`,
    );
  }
  lines.push('');
  lines.push(
    `List prices, no free tier taken off (the monthly bills below take them off); the claims are Firestore's as built (the table "Send-once claims"), Cloud Trace at the default sample_ratio ${DEFAULT_TRACE_RATIO}; what runs whether or not anyone sends (about $10 a month) and the delivery metrics are the bills'. Google's limits: ${GOOGLE_LIMITS.asOf}. Pub/Sub bytes count the event and one delivery message per destination at the event's size; the Storage Write API's the event's row and a ${LEDGER_ROW_BYTES}-byte ledger row per destination, and its connections one per table an instance writes (store ${WRITE_API_TABLES.store}, forward ${WRITE_API_TABLES.forward}).`,
  );
  return lines.join('\n');
}

/** Cloud Trace's monthly bill at each rate and sampling ratio (core/deploy/trace-cost.ts). */
function traceTable(): string {
  const ratios = [0.01, 0.1, 1];
  const lines = [
    `| Events/s, a 30-day month, ${spansPerEvent(2)} spans an event (2 destinations) | ${ratios.map((r) => `sample_ratio ${r}`).join(' | ')} |`,
    `| ---: | ${ratios.map(() => '---:').join(' | ')} |`,
  ];
  for (const rate of [100, 1000, 10_000, 100_000])
    lines.push(
      `| ${rate.toLocaleString('en-US')} | ${ratios.map((r) => `$${Math.round(monthlyTraceCost(rate, 2, r)).toLocaleString('en-US')}`).join(' | ')} |`,
    );
  lines.push('');
  lines.push(
    `Cloud Trace: ${CLOUD_TRACE_PRICE.asOf}; refused and failed hops are exported at every ratio and not counted.`,
  );
  return lines.join('\n');
}

/** Cloud Monitoring's monthly bill for forward's delivery metrics (core/deploy/metrics-cost.ts). */
function metricsTable(): string {
  const destinations = [2, 10, 50];
  const lines = [
    `| forward instances alive all month, an export a minute | ${destinations.map((d) => `${d} destinations`).join(' | ')} |`,
    `| ---: | ${destinations.map(() => '---:').join(' | ')} |`,
  ];
  for (const instances of [1, 5, 30])
    lines.push(
      `| ${instances} | ${destinations.map((d) => `$${monthlyMetricsCost(instances, d).toFixed(2)}`).join(' | ')} |`,
    );
  lines.push('');
  lines.push(
    `Delivery metrics: ${samplesPerExport()} samples a destination per export (3 statuses); the event rate does not change it. ${CLOUD_MONITORING_PRICE.asOf}.`,
  );
  return lines.join('\n');
}

/** Claim rates a second at a sustained rate (claimCounts per event, 2 deliveries an event). */
function claimRates(eventsPerSecond: number, design: ClaimDesign = 'per-delivery'): ClaimRates {
  const c = claimCounts(eventsPerSecond, 2, design);
  return { writesPerSecond: c.writes, readsPerSecond: c.reads, claimsPerSecond: c.documents };
}

/** Firestore's month of claims at a sustained rate (operations and storage, list prices). */
function firestoreClaimsMonth(eventsPerSecond: number, design: ClaimDesign = 'per-delivery'): number {
  const c = claimCounts(eventsPerSecond * MONTH_SECONDS, 2, design);
  return claimCost(c) + claimStorageCost(c.documents);
}

/**
 * The send-once claims per million events (2 deliveries an event) by store and design: what ships
 * (Firestore, a settled record per delivery, docs/delivery.md), the per-batch design (modelled,
 * not built), and the stores priced by capacity (core/deploy/claim-stores.ts): Bigtable, built and
 * chosen by `claims.store: bigtable`, and Memorystore, modelled and rejected.
 */
function claimsTable(): string {
  const rate = DEFAULT_STATED_EVENTS_PER_SECOND;
  const millions = (rate * MONTH_SECONDS) / 1e6;
  const counts = (design: ClaimDesign) => claimCounts(1e6, 2, design);
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const row = (name: string, design: ClaimDesign, month: number, idle: number, guarantee: string) => {
    const c = counts(design);
    return `| ${name} | ${n(c.writes)} | ${n(c.reads)} | $${(month / millions).toFixed(2)} | $${idle.toFixed(2)} | ${guarantee} |`;
  };
  const bigtable = bigtableMonth(claimRates(rate));
  const memorystore = memorystoreMonth(claimRates(rate));
  const idle = (store: 'bigtable' | 'memorystore') => capacityMonth(store, claimRates(0)).monthly;
  const even = (store: 'bigtable' | 'memorystore') =>
    breakEvenEventsPerSecond(firestoreClaimsMonth, (r) => capacityMonth(store, claimRates(r)).monthly);
  const f = MONTHLY_PRICES.firestore;
  const bt = CAPACITY_PRICES.bigtable;
  const ms = CAPACITY_PRICES.memorystore;
  const storeEven = even('bigtable');
  const memoryEven = even('memorystore');
  const fitsUpTo = Math.floor(
    (ms.maxGib * 2 ** 30) / (ms.bytesPerClaim * SEND_ONCE_DAYS * 86_400 * claimRates(1).claimsPerSecond),
  );
  return [
    `| Send-once claims, per million events (2 deliveries an event) | writes | reads | cost at ${rate.toLocaleString('en-US')} events/s all month | idle month | what it guarantees |`,
    '| --- | ---: | ---: | ---: | ---: | --- |',
    row(
      '**Shipped**: Firestore, an identity claim an event, a settled record a delivery',
      'per-delivery',
      firestoreClaimsMonth(rate),
      0,
      'one row and one delivery on every path; a create-if-absent in a transaction, regional (replicated across zones); no warehouse query on the delivery path',
    ),
    row(
      `Modelled, not built: Firestore, one claim document per producer batch or push (${EVENTS_PER_BATCH} events) and destination`,
      'per-batch',
      firestoreClaimsMonth(rate, 'per-batch'),
      0,
      'the same, once a copy carries its first batch’s key and reads that document',
    ),
    row(
      `Built, chosen by the settings (claims.store: bigtable): Cloud Bigtable, a row a claim (${bigtable.detail})`,
      'per-delivery',
      bigtable.monthly,
      idle('bigtable'),
      'the same promise: CheckAndMutateRow is atomic on its row; GC by age (7 days) instead of TTL deletes; one cluster is one zone (a zone outage holds deliveries, loses no claim); a second cluster doubles the nodes, and a conditional write must then go to one cluster (single-cluster routing, failover by hand)',
    ),
    row(
      `Modelled, rejected: Memorystore for Redis, Basic (${memorystore.detail})`,
      'per-delivery',
      memorystore.monthly,
      idle('memorystore'),
      'weaker: SET NX is atomic, but Basic keeps one copy in memory (a restart forgets every claim and copies are sent again), Standard replicates asynchronously (a failover can lose the last claims); a VPC connector on every function',
    ),
    '| Before #97: an identity claim an event; redeliveries asked the ledger in BigQuery | 1,000,000 | 0 | $1.20 + queries | $0.00 | the ledger check: ~46 GB billed a check at 1,000 events/s |',
    '',
    `Firestore Standard, regional, as last known (unverified offline): $${f.writePer100k} per 100,000 writes, $${f.deletePer100k} per 100,000 deletes (a TTL deletion is one), $${f.readPer100k} per 100,000 reads, $${f.storagePerGibMonth} per GiB-month stored; ${CLAIM_RETRY_SHARE * 100} % of deliveries retried, copied or replayed (a claim, a read, a settlement each). No field is indexed. Bigtable: $${bt.nodeHourly} a node-hour, $${bt.ssdPerGibMonth} per GiB-month of SSD, ${bt.rowsPerSecondPerNode.toLocaleString('en-US')} rows written a second per node, kept under ${bt.utilisation * 100} % (a conditional write counted as a read and a write); ${bt.source}. Memorystore: $${ms.gibHourly} per GB-hour, ${ms.bytesPerClaim} bytes a claim; ${ms.source}.`,
    '',
    `Break-even against Firestore (2 deliveries an event, sustained): Bigtable from ${storeEven?.toLocaleString('en-US') ?? 'no rate'} events/s (below, its node costs more than Firestore's writes; at the example's ${rate.toLocaleString('en-US')} events/s the one node it must keep is at ${Math.round((100 * 2 * claimRates(rate).writesPerSecond) / CAPACITY_PRICES.bigtable.rowsPerSecondPerNode)} % of its writes); Memorystore from ${memoryEven?.toLocaleString('en-US') ?? 'no rate'} events/s, but 7 days of claims fit one instance only up to about ${fitsUpTo.toLocaleString('en-US')} events/s, so at the example's rate it does not fit and needs a cluster: not a candidate.`,
  ].join('\n');
}

/**
 * Pub/Sub per million events by topology (core/deploy/bill.ts, pubsubBytesPerEvent): what new
 * stacks get (a topic per destination), the shared topic stacks deployed before keep, and
 * producers' batches as one message, for the example's 4 destinations.
 */
function pubsubTable(): string {
  const example = exampleSettings();
  const p = plan(example);
  const subscriptions = p.destinations.length;
  const shapes = [
    { eventBytes: 1000, eventsPerRequest: 1, destinationsPerEvent: 2 },
    { eventBytes: 300, eventsPerRequest: 10, destinationsPerEvent: 2 },
  ];
  const first = shapes[0] as (typeof shapes)[number];
  const cell = (t: PubSubTopology, shape: (typeof shapes)[number]) =>
    `$${(((pubsubBytesPerEvent(t, shape, subscriptions) * 1e6) / 2 ** 40) * PRICES.pubsubPerTib).toFixed(2)}`;
  const row = (name: string, t: PubSubTopology, keeps: string) =>
    `| ${name} | ${shapes.map((shape) => cell(t, shape)).join(' | ')} | ${keeps} |`;
  const built = pubsubTopologyOf(p);
  return [
    `| Pub/Sub per million events, 2 deliveries an event of ${subscriptions} destinations | 1,000-byte events, one a request | 300-byte events, 10 a request | what it keeps, what it needs |`,
    '| --- | ---: | ---: | --- |',
    row(
      `${built === 'topic-per-destination' ? '**Built**, the default for a new stack' : 'Built'}: a topic per destination (\`deliveries-<id>\`), one subscription each (\`deliveries_topology: per_destination\`)`,
      'topic-per-destination',
      'per-destination retry, dead letters and alerts; each delivery message billed once',
    ),
    row(
      `${built === 'filtered' ? '**Built**' : 'Built'}, kept by stacks deployed before until they switch: one \`deliveries\` topic, a filtered subscription per destination (\`deliveries_topology: shared\`)`,
      'filtered',
      `the same; each delivery message billed by all ${subscriptions} subscriptions`,
    ),
    row(
      'Modelled, not built: a topic per destination, a producer’s batch one message (events and deliveries)',
      'batched',
      'the same; pays only under 1,000 bytes an event (Pub/Sub bills at least 1,000 bytes a message), and forward then sends a batch per push',
    ),
    '',
    `Pub/Sub at $${PRICES.pubsubPerTib}/TiB of messages published and delivered, at least 1,000 bytes a message (the model's reading; Google's page words the minimum per request, so a batched publish may bill less); ${CLAIM_RETRY_SHARE * 100} % of deliveries pushed again. A topic per destination takes ${cell('filtered', first)} to ${cell('topic-per-destination', first)} a million here; a stack deployed with the shared topic switches with \`deliveries_topology: per_destination\` (docs/deploy.md#deliveries-topology). Batching pays only for small events.`,
  ].join('\n');
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const env = argOf(argv, '--env');
  const rate = argOf(argv, '--rate');
  const perEvent = argOf(argv, '--destinations-per-event');
  console.log(
    env
      ? billText(settingsFile(env), {
          ...(rate ? { eventsPerSecond: Number(rate) } : {}),
          ...(perEvent ? { destinationsPerEvent: Number(perEvent) } : {}),
        })
      : scaleTables(),
  );
}
