/**
 * docs/scale.md's tables, from core/deploy/cost.ts: the example environment's sizing (environments/
 * example.yaml through plan()), the CPU per request `npm run bench` measured, and Google's list
 * prices. `npm run scale` prints them; test/unit/deploy/cost.test.ts checks that docs/scale.md holds
 * exactly this output, so the page cannot drift from the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Billing,
  ceiling,
  costPerMillion,
  type Deployment,
  MEASURED_CPU,
  type MeasuredCpu,
  modelInputFor,
  PLATFORM_LATENCY_SECONDS,
  PRICES,
  scaleAt,
} from '../core/deploy/cost.ts';
import { plan } from '../core/plan.ts';
import { parseSettings } from '../core/settings.ts';

/** The CPU per request the tables use (core/deploy/cost.ts, from `npm run bench`). */
export const MEASURED: MeasuredCpu = MEASURED_CPU;

const ROOT = join(import.meta.dirname, '..');

function examplePlan() {
  const loaded = parseSettings(readFileSync(join(ROOT, 'environments/example.yaml'), 'utf8'));
  if (!loaded.ok) throw new Error('environments/example.yaml does not load');
  const p = plan(loaded.settings);
  const sizing = (name: 'store' | 'forward') => {
    const f = p.functions.find((x) => x.name === name);
    if (!f) throw new Error(`plan has no ${name}`);
    return f.sizing;
  };
  return { gateway: p.gateway.sizing, store: sizing('store'), forward: sizing('forward') };
}

const BEFORE: Deployment = {
  eventBytes: 1000,
  eventsPerRequest: 1,
  destinationsPerEvent: 2,
  platformLatencySeconds: PLATFORM_LATENCY_SECONDS,
  excludeSuccessLogs: false,
  billing: { store: 'request', forward: 'request' },
};

/** What plan() ships: request logs of successes excluded, Cloud Functions' request-based billing. */
const SHIPPED: Deployment = { ...BEFORE, excludeSuccessLogs: true };

/** forward's sizing before issue #42: a fixed 80 concurrent requests and 50 instances. */
const FIXED_FORWARD = { concurrency: 80, max_instances: 50 } as const;

/** The deployments the cost table compares, each one change from the line above. */
export const SCENARIOS: readonly {
  readonly name: string;
  readonly deployment: Deployment;
  readonly fixedForward: boolean;
}[] = [
  {
    name: 'Before (request logs kept, request-based billing, forward at 80 concurrent)',
    deployment: BEFORE,
    fixedForward: true,
  },
  {
    name: '+ successful request logs excluded (errors and refusals kept)',
    deployment: SHIPPED,
    fixedForward: true,
  },
  {
    name: "**Shipped defaults**: + forward's concurrency sized by the model",
    deployment: SHIPPED,
    fixedForward: false,
  },
  {
    name: '+ instance-based billing for store and forward (not deployable as gen2 functions)',
    deployment: { ...SHIPPED, billing: { store: 'instance' as Billing, forward: 'instance' as Billing } },
    fixedForward: false,
  },
];

/** What a million events cost with the shipped defaults and the given CPU per request (`npm run bench`). */
export function shippedCost(cpu: MeasuredCpu) {
  return costPerMillion(modelInputFor(examplePlan(), cpu, SHIPPED));
}

const usd = (x: number) => `$${x.toFixed(2)}`;

/** The markdown tables of docs/scale.md. */
export function scaleTables(): string {
  const sizing = examplePlan();
  const lines: string[] = [];
  lines.push(
    `CPU per request used: gateway ${MEASURED.gateway * 1e6} µs, store ${MEASURED.store * 1e6} µs, forward ${MEASURED.forward * 1e6} µs. Prices: ${PRICES.asOf}.`,
  );
  lines.push('');
  lines.push(
    '| Busy, per million 1 KB events, 2 destinations | gateway | store | forward | Pub/Sub | BigQuery | total |',
  );
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of SCENARIOS) {
    const hops = s.fixedForward ? { ...sizing, forward: { ...sizing.forward, ...FIXED_FORWARD } } : sizing;
    const c = costPerMillion(modelInputFor(hops, MEASURED, s.deployment));
    const hop = (n: string) => {
      const h = c.hops.find((x) => x.name === n);
      return h ? usd(h.compute + h.requests + h.logging) : '';
    };
    lines.push(
      `| ${s.name} | ${hop('gateway')} | ${hop('store')} | ${hop('forward')} | ${usd(c.pubsub)} | ${usd(c.bigquery)} | **${usd(c.total)}** |`,
    );
  }
  lines.push('');
  const input = modelInputFor(sizing, MEASURED, SHIPPED);
  lines.push('| Events/s | gateway instances | store instances | forward instances |');
  lines.push('| ---: | ---: | ---: | ---: |');
  for (const rate of [100, 1000, 10_000, 100_000]) {
    const cells = scaleAt(input, rate).map((h) => `${h.instances} (${h.boundBy.replace('_', ' ')})`);
    lines.push(`| ${rate.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
  }
  const top = ceiling(input);
  lines.push('');
  lines.push(
    `Ceiling with the shipped defaults: about ${top.eventsPerSecond.toLocaleString('en-US')} events/s, set by \`${top.hop}\`'s max_instances.`,
  );
  return lines.join('\n');
}

if (import.meta.main) console.log(scaleTables());
