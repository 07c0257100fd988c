/**
 * `npm run scale`'s floor table (docs/scale.md, "The floor, and whether $0.50 is reachable"): the
 * example's busy month per million events at its stated rate, per billing, as shipped, with every
 * built option, and with the designs modelled; then #97's goal and the line that stops it. And the
 * bill's columns, which the monthly bills' table shares.
 */
import assert from 'node:assert/strict';
import {
  BUILT,
  type Design,
  EVENTS_PER_BATCH,
  type MonthlyBill,
  monthlyBill,
  trafficShape,
} from '../core/deploy/bill.ts';
import { billingRecommendation } from '../core/deploy/billing-advice.ts';
import { claimsRecommendation } from '../core/deploy/claims-advice.ts';
import type { Billing } from '../core/deploy/cost.ts';
import { plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { type MonthColumn, monthCells, perMillionBill, usd } from './scale-bill.ts';

/** The columns of the monthly bills' table: every group of lines the bill has, each its own. */
export const BILL_COLUMNS: readonly MonthColumn[] = [
  { title: 'gateway', groups: ['gateway'] },
  { title: 'store', groups: ['store'] },
  { title: 'forward', groups: ['forward', 'forward-catalog'] },
  { title: 'schedule', groups: ['schedule'] },
  { title: 'studio', groups: ['studio'] },
  { title: 'Pub/Sub', groups: ['pubsub'] },
  { title: 'BigQuery', groups: ['bigquery'] },
  { title: 'claims', groups: ['claims'] },
  { title: 'Cloud Trace', groups: ['trace'] },
  { title: 'delivery metrics', groups: ['metrics'] },
  { title: 'load balancer', groups: ['load-balancer'] },
  { title: 'other', groups: ['other'] },
  { title: 'free tiers', groups: ['free'] },
];

/**
 * Every built option that lowers the bill without dropping an event or a delivery: a topic per
 * destination, successful request logs excluded, Cloud Trace and delivery metrics off, no models,
 * and the claim store that costs less at the stated rate (`claims.store`: Bigtable above its
 * break-even, core/deploy/claims-advice.ts), unless `store` names one.
 */
function floorSettings(example: Settings, store?: 'firestore' | 'bigtable'): Settings {
  const floor: Settings = {
    ...example,
    deliveries_topology: 'per_destination',
    cost: { ...example.cost, exclude_success_logs: true },
    tracing: { ...example.tracing, enabled: false },
    metrics: { ...example.metrics, enabled: false },
    warehouse: { ...example.warehouse, models: { ...example.warehouse?.models, enabled: false } },
  };
  const cheaper = store ?? claimsRecommendation(floor, plan(floor))?.recommended ?? floor.claims?.store;
  return cheaper === undefined ? floor : { ...floor, claims: { ...floor.claims, store: cheaper } };
}

const storeName = (s: Settings) => (s.claims?.store === 'bigtable' ? 'Bigtable' : 'Firestore');

const withAllBilled = (s: Settings, billing: Billing): Settings => ({
  ...s,
  cost: { ...s.cost, billing: { store: billing, forward: billing, gateway: billing } },
});

/**
 * The busy month per million events of the example at its stated rate, per billing, line group by
 * line group: as shipped, the floor with every built option (its claim store the cheaper at the
 * stated rate), the floor with the claims in Firestore (the default store), and the designs
 * modelled (claims per batch, in either store); then #97's goal at the recommended billing and the
 * line that stops it.
 */
export function floorTable(example: Settings): string {
  const busy = (settings: Settings, design: Design) => {
    const p = plan(settings);
    return perMillionBill(monthlyBill(p, 'busy', trafficShape(settings, p.destinations.length), design));
  };
  const rows: readonly [string, Settings, Design][] = [
    ['As shipped (the example’s settings)', example, BUILT],
    [
      `**The floor, every built option** (claims in ${storeName(floorSettings(example))})`,
      floorSettings(example),
      BUILT,
    ],
    ['Built: the floor, claims in Firestore (the default store)', floorSettings(example, 'firestore'), BUILT],
    [
      `Modelled: the floor, claims per batch (${EVENTS_PER_BATCH} events) in Firestore`,
      floorSettings(example, 'firestore'),
      { claims: 'per-batch' },
    ],
    [
      'Modelled: the floor, claims per batch in Bigtable',
      floorSettings(example, 'bigtable'),
      { claims: 'per-batch' },
    ],
  ];
  const recommended: Billing = billingRecommendation(example, plan(example)) ? 'instance' : 'request';
  const rate = trafficShape(example, 4).eventsPerSecond.toLocaleString('en-US');
  const lines = [
    `| Busy per million events, the example at its stated ${rate} events/s (the bill, free tiers off) | billing | total | ${BILL_COLUMNS.map((c) => c.title).join(' | ')} |`,
    `| --- | --- | ---: | ${BILL_COLUMNS.map(() => '---:').join(' | ')} |`,
  ];
  const totals = new Map<string, MonthlyBill>();
  for (const [name, settings, design] of rows)
    for (const billing of ['request', 'instance'] as const) {
      const b = busy(withAllBilled(settings, billing), design);
      totals.set(`${name}/${billing}`, b);
      const mark = billing === recommended ? ' (recommended)' : '';
      lines.push(
        `| ${name} | ${billing}-based${mark} | **${usd(b.total)}** | ${monthCells(b, BILL_COLUMNS).join(' | ')} |`,
      );
    }
  const at = (row: number, billing: Billing) =>
    totals.get(`${rows[row]?.[0]}/${billing}`) ?? assert.fail('no such row');
  const biggest = (b: MonthlyBill) => {
    const byColumn = BILL_COLUMNS.filter((c) => c.groups !== 'rest' && !c.groups.includes('free')).map(
      (c) => ({
        title: c.title,
        usd: b.items
          .filter((i) => (c.groups as readonly string[]).includes(i.group))
          .reduce((n, i) => n + i.monthly, 0),
      }),
    );
    return byColumn.reduce((x, y) => (y.usd > x.usd ? y : x));
  };
  const GOAL = 0.5;
  const verdict = (b: MonthlyBill) => {
    const top = biggest(b);
    return b.total <= GOAL
      ? `met ($${b.total.toFixed(2)})`
      : `not met: $${b.total.toFixed(2)}, $${(b.total - GOAL).toFixed(2)} over; the line that stops it is ${top.title}, $${top.usd.toFixed(2)} a million (without it, $${(b.total - top.usd).toFixed(2)})`;
  };
  const best = rows.length - 1;
  // The lowest rate (to 100 events/s, up to 20,000) at which a row's design meets the goal. Every
  // rate is tried: a capacity store's nodes come in steps, so the cost a million is not monotone.
  const metFrom = (row: number): number => {
    const [, settings, design] = rows[row] ?? assert.fail('no such row');
    const s = withAllBilled(settings, recommended);
    const p = plan(s);
    for (let eventsPerSecond = 100; eventsPerSecond <= 20_000; eventsPerSecond += 100) {
      const shape = trafficShape(s, p.destinations.length, { eventsPerSecond });
      if (perMillionBill(monthlyBill(p, 'busy', shape, design)).total <= GOAL) return eventsPerSecond;
    }
    return Number.POSITIVE_INFINITY;
  };
  const from = (row: number) => {
    const high = metFrom(row);
    return Number.isFinite(high)
      ? `it is met from about ${high.toLocaleString('en-US')} events/s, where what is billed whole (the node, the instances) is shared by more events`
      : 'no rate up to 20,000 events/s meets it';
  };
  lines.push('');
  lines.push(
    `The floor per billing, every built option: request-based $${at(1, 'request').total.toFixed(2)}, instance-based $${at(1, 'instance').total.toFixed(2)} per million; with every design modelled here (claims per batch in Bigtable), $${at(best, 'request').total.toFixed(2)} and $${at(best, 'instance').total.toFixed(2)}. The built options: a topic per destination, successful request logs excluded, Cloud Trace, delivery metrics and the models off, the claims in the store that costs less at this rate (${storeName(rows[1]?.[1] ?? example)}); nothing an event or a delivery needs.`,
  );
  lines.push('');
  lines.push(
    `#97's goal, busy ≤ $${GOAL.toFixed(2)} per million at the recommended billing (${recommended}-based at ${rate} events/s). With every built option: ${verdict(at(1, recommended))}; ${from(1)}. With every design modelled: ${verdict(at(best, recommended))}; ${from(best)}.`,
  );
  return lines.join('\n');
}
