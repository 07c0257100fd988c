/**
 * The cost model's recommendation on the claim store (`claims.store`, #97; docs/scale.md): from
 * the steady rate the settings state (`cost.sustained_events_per_second`), the month of claims in
 * Firestore (per write) and in Cloud Bigtable (per node, idle or not), the rate from which
 * Bigtable costs less, and the one settings line that switches. `settings check`, `pulumi up`
 * and `npm run scale` print it; nothing switches by itself.
 */
import type { Settings } from '../../schemas/settings.ts';
import {
  type Design,
  MONTH_SECONDS,
  type MonthlyBill,
  monthlyBill,
  type Plan,
  trafficShape,
} from './bill.ts';
import { breakEvenEventsPerSecond, type ClaimStore } from './claim-stores.ts';

type Built = Exclude<ClaimStore, 'memorystore'>;

export interface ClaimsRecommendation {
  readonly current: Built;
  readonly recommended: Built;
  /** The claims' month at the stated rate in each store (list prices), USD. */
  readonly monthly: Readonly<Record<Built, number>>;
  /** Events a second (sustained) from which Bigtable's month costs no more than Firestore's. */
  readonly breakEven: number | undefined;
  /** Bigtable's idle month (its nodes kept running), USD; Firestore's is $0. */
  readonly bigtableIdle: number;
  readonly settingsLine: string;
  readonly message: string;
}

const usd = (x: number) => `$${Math.round(x).toLocaleString('en-US')}`;
const claimsOf = (bill: MonthlyBill) =>
  bill.items.filter((i) => i.group === 'claims').reduce((sum, i) => sum + i.monthly, 0);

/** The highest rate searched for the break-even (Bigtable's is near 50 events/s). */
const SEARCH_UP_TO = 20_000;

/**
 * The claim store that costs less at the stated sustained rate, when it is not the one the
 * settings choose; undefined without a stated rate or when the chosen one is the cheaper.
 */
export function claimsRecommendation(
  settings: Readonly<Settings>,
  plan: Plan,
): ClaimsRecommendation | undefined {
  const rate = settings.cost?.sustained_events_per_second;
  if (rate === undefined) return undefined;
  const current: Built = plan.claims?.store === 'bigtable' ? 'bigtable' : 'firestore';
  const shape = trafficShape(settings, plan.destinations.length);
  const design = (store: Built): Design => ({ claims: 'per-delivery', store });
  const monthAt = (store: Built, eventsPerSecond: number) =>
    claimsOf(monthlyBill(plan, 'busy', { ...shape, eventsPerSecond }, design(store)));
  const monthly = { firestore: monthAt('firestore', rate), bigtable: monthAt('bigtable', rate) };
  const recommended: Built = monthly.bigtable < monthly.firestore ? 'bigtable' : 'firestore';
  if (recommended === current) return undefined;
  const breakEven = breakEvenEventsPerSecond(
    (r) => monthAt('firestore', r),
    (r) => monthAt('bigtable', r),
    SEARCH_UP_TO,
  );
  const bigtableIdle = claimsOf(monthlyBill(plan, 'idle', shape, design('bigtable')));
  const settingsLine = `claims: { store: ${recommended} }`;
  const perMillion = (x: number) => `$${((x / (rate * MONTH_SECONDS)) * 1e6).toFixed(2)}`;
  const even =
    breakEven === undefined
      ? `Bigtable costs more at every rate up to ${SEARCH_UP_TO.toLocaleString('en-US')}/s`
      : `Bigtable costs less from about ${breakEven.toLocaleString('en-US')} events/s`;
  const message =
    `RECOMMENDED CLAIM STORE: at the stated ${rate.toLocaleString('en-US')} events/s sustained, the send-once claims ` +
    `would cost ${usd(monthly[recommended])} a month in ${recommended === 'bigtable' ? 'Bigtable' : 'Firestore'} ` +
    `against ${usd(monthly[current])} in ${current === 'bigtable' ? 'Bigtable' : 'Firestore'} ` +
    `(${perMillion(monthly.bigtable)} and ${perMillion(monthly.firestore)} a million events in Bigtable and Firestore), ` +
    `${usd(Math.abs(monthly[current] - monthly[recommended]))} a month less; ${even}, and an idle month of Bigtable ` +
    `costs ${usd(bigtableIdle)}, of Firestore $0. Switch with one line in the settings: ${settingsLine} ` +
    '(docs/scale.md; copies within 7 days of a switch may not fold, docs/delivery.md). Nothing switches by itself';
  return { current, recommended, monthly, breakEven, bigtableIdle, settingsLine, message };
}
