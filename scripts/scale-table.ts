/**
 * docs/scale.md's tables, from core/cost.ts: the example environment's sizing (environments/
 * example.yaml through plan()), the CPU per request `npm run bench` measured, and Google's list
 * prices. `npm run scale` prints them; test/unit/cost.test.ts checks that docs/scale.md holds
 * exactly this output, so the page cannot drift from the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Billing,
  ceiling,
  costPerMillion,
  type Deployment,
  type MeasuredCpu,
  modelInputFor,
  PRICES,
  scaleAt,
} from '../core/cost.ts';
import { plan } from '../core/plan.ts';
import { parseSettings } from '../core/settings.ts';

/**
 * CPU seconds per request, measured on the 2-core machine (`npm run bench`, 2026-11-23): the
 * gateway's own CPU per single-event publish, store's per event and forward's per delivery under
 * the real functions framework. Update them with the bench's figures.
 */
export const MEASURED: MeasuredCpu = { gateway: 97e-6, store: 300e-6, forward: 450e-6 };

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

const BASE: Deployment = {
  eventBytes: 1000,
  eventsPerRequest: 1,
  destinationsPerEvent: 2,
  platformLatencySeconds: 0.35,
  excludeSuccessLogs: false,
  billing: { store: 'request', forward: 'request' },
};

/** The deployments the cost table compares, each one change from the line above. */
export const SCENARIOS: readonly { readonly name: string; readonly deployment: Deployment }[] = [
  { name: 'As deployed before (request logs kept, request-based billing)', deployment: BASE },
  {
    name: '+ successful request logs excluded (errors and refusals kept)',
    deployment: { ...BASE, excludeSuccessLogs: true },
  },
  {
    name: '+ instance-based billing for store and forward (no per-request fee)',
    deployment: {
      ...BASE,
      excludeSuccessLogs: true,
      billing: { store: 'instance' as Billing, forward: 'instance' as Billing },
    },
  },
];

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
    const c = costPerMillion(modelInputFor(sizing, MEASURED, s.deployment));
    const hop = (n: string) => {
      const h = c.hops.find((x) => x.name === n);
      return h ? usd(h.compute + h.requests + h.logging) : '';
    };
    lines.push(
      `| ${s.name} | ${hop('gateway')} | ${hop('store')} | ${hop('forward')} | ${usd(c.pubsub)} | ${usd(c.bigquery)} | **${usd(c.total)}** |`,
    );
  }
  lines.push('');
  const input = modelInputFor(sizing, MEASURED, BASE);
  lines.push('| Events/s | gateway instances | store instances | forward instances |');
  lines.push('| ---: | ---: | ---: | ---: |');
  for (const rate of [100, 1000, 10_000, 100_000]) {
    const cells = scaleAt(input, rate).map((h) => `${h.instances} (${h.boundBy.replace('_', ' ')})`);
    lines.push(`| ${rate.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
  }
  const top = ceiling(input);
  lines.push('');
  lines.push(
    `Ceiling as configured: about ${top.eventsPerSecond.toLocaleString('en-US')} events/s, set by \`${top.hop}\`'s max_instances.`,
  );
  return lines.join('\n');
}

if (import.meta.main) console.log(scaleTables());
