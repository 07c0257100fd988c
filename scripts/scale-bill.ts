/**
 * The monthly bill of one settings file (core/deploy/bill.ts) as text: `npm run scale -- --env
 * <file>` prints it. One summary line per scenario starts with `idle`, `workday` or `busy`, its
 * first dollar amount that scenario's monthly total; the line items under it are indented, and
 * no other line starts with those words. Options: `--rate <events/s>` (else the settings'
 * `cost.sustained_events_per_second`, else 1,000), `--destinations-per-event <n>`.
 */
import {
  type Plan as BilledPlan,
  type BillGroup,
  MONTHLY_PRICES,
  type MonthlyBill,
  monthlyBill,
  SCENARIO_NAMES,
  type TrafficShape,
  trafficShape,
} from '../core/deploy/bill.ts';
import { billingAdvice, billingRecommendation } from '../core/deploy/billing-advice.ts';
import { claimsRecommendation } from '../core/deploy/claims-advice.ts';
import { plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';

export const usd = (x: number) =>
  `${x < 0 ? '-' : ''}$${Math.abs(x).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The three scenarios' bills for settings, with the traffic shape they assume. */
export function billsOf(
  settings: Readonly<Settings>,
  over: Partial<TrafficShape> = {},
): { shape: TrafficShape; plan: BilledPlan; bills: MonthlyBill[] } {
  const p = plan(settings);
  const shape = trafficShape(settings, p.destinations.length, over);
  return { shape, plan: p, bills: SCENARIO_NAMES.map((s) => monthlyBill(p, s, shape)) };
}

/** A bill per million of its events: each line divided, rounded to the cent; the totals their sums. */
export function perMillionBill(b: MonthlyBill): MonthlyBill {
  const millions = b.events / 1e6;
  const items = b.items.map((i) => ({ ...i, monthly: Math.round((i.monthly / millions) * 100) / 100 }));
  const sum = (lines: typeof items) => Math.round(lines.reduce((n, i) => n + i.monthly * 100, 0)) / 100;
  return { ...b, items, listTotal: sum(items.filter((i) => i.group !== 'free')), total: sum(items) };
}

/** What a scenario line says after its total. */
function scenarioText(b: MonthlyBill): string {
  if (b.scenario === 'idle') return 'no events';
  const millions = b.events / 1e6;
  const when = b.scenario === 'workday' ? 'for 8 h on 22 days' : 'all month';
  const perMillion = millions > 0 ? `, ${usd(perMillionBill(b).total)} per million` : '';
  return `${b.eventsPerSecond.toLocaleString('en-US')} events/s ${when}: ${millions.toLocaleString('en-US', { maximumFractionDigits: 1 })} million events${perMillion}`;
}

/** The printed bill of a settings file. */
export function billText(settings: Readonly<Settings>, over: Partial<TrafficShape> = {}): string {
  const { shape, plan: p, bills } = billsOf(settings, over);
  const stated = settings.cost?.sustained_events_per_second === undefined ? 'assumed' : 'stated';
  const lines = [
    `Monthly bill of ${settings.name} (${settings.production ? 'production' : 'development'}): ` +
      `${shape.eventsPerSecond.toLocaleString('en-US')} events/s ${stated} when sending, ${shape.eventBytes}-byte events, ` +
      `${shape.destinationsPerEvent} destinations an event of ${p.destinations.length}. Prices: ${MONTHLY_PRICES.asOf}.`,
  ];
  const width = Math.max(...bills.flatMap((b) => b.items.map((i) => i.item.length)));
  for (const b of bills) {
    lines.push(
      `${b.scenario.padEnd(8)} ${usd(b.total)} a month (${usd(b.listTotal)} before free tiers): ${scenarioText(b)}`,
    );
    for (const i of b.items)
      lines.push(`  ${i.item.padEnd(width)}  ${usd(i.monthly).padStart(11)}  ${i.detail}`);
  }
  const recommended = billingRecommendation(settings, p);
  if (recommended) lines.push(recommended.message);
  for (const a of billingAdvice(settings, p)) lines.push(`Recommendation: ${a.message}`);
  const claims = claimsRecommendation(settings, p);
  if (claims) lines.push(claims.message);
  return lines.join('\n');
}

/**
 * A money column of a month table: the bill's lines of some groups (core/deploy/bill.ts,
 * `BillGroup`), or `rest`, every line no other column of the table takes.
 */
export interface MonthColumn {
  readonly title: string;
  readonly groups: readonly BillGroup[] | 'rest';
}

/**
 * A bill's cells under a table's columns. A line whose group no column takes throws, so a month
 * table always shows every line in its total and its cells add up to it, to the cent.
 */
export function monthCells(b: MonthlyBill, columns: readonly MonthColumn[]): string[] {
  const named = new Set(columns.flatMap((c) => (c.groups === 'rest' ? [] : c.groups)));
  const rest = columns.some((c) => c.groups === 'rest');
  const lost = b.items.filter((i) => !named.has(i.group) && !rest);
  if (lost.length > 0)
    throw new Error(`a month table leaves out lines of its total: ${lost.map((i) => i.item).join(', ')}`);
  return columns.map((c) => {
    const taken = (g: BillGroup) => (c.groups === 'rest' ? !named.has(g) : c.groups.includes(g));
    const cents = b.items.filter((i) => taken(i.group)).reduce((n, i) => n + Math.round(i.monthly * 100), 0);
    return usd(cents / 100);
  });
}

/** `--name value` from argv. */
export function argOf(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}
