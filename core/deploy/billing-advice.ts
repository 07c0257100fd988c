/**
 * The cost model's recommendation on the billing of `store`, `forward` and the gateway (docs/scale.md): from the
 * steady rate settings state (`cost.sustained_events_per_second`), what a month at that rate
 * costs each of them request-based and instance-based, and a line saying so where the other
 * billing is the cheaper one. `settings check` and `pulumi up` print it; nothing switches by
 * itself (`cost.billing` does). The peak rate only sizes, never advises.
 */
import type { Settings } from '../../schemas/settings.ts';
import {
  MONTH_SECONDS,
  monthlyBill,
  type Plan,
  trafficShape,
  type Workload,
  workloadCost,
  workloadsOf,
} from './bill.ts';
import { type Billing, billingBreakEvenRequestsPerSecond } from './cost.ts';

export interface BillingAdvice {
  readonly function: 'store' | 'forward' | 'gateway';
  readonly current: Billing;
  readonly recommended: Billing;
  /** A month at the stated rate, each way (list prices, no free tier), USD. */
  readonly monthly: Readonly<Record<Billing, number>>;
  /** Pushes a second to this function at the stated rate, and where the billings break even. */
  readonly pushesPerSecond: number;
  readonly breakEven: number;
  readonly message: string;
}

const usd = (x: number) => `$${Math.round(x).toLocaleString('en-US')}`;

/** The functions whose cheaper billing at the stated sustained rate is not the one deployed. */
export function billingAdvice(settings: Readonly<Settings>, plan: Plan): BillingAdvice[] {
  const rate = settings.cost?.sustained_events_per_second;
  if (rate === undefined) return [];
  const shape = trafficShape(settings, plan.destinations.length);
  const advice: BillingAdvice[] = [];
  for (const w of workloadsOf(plan, shape)) {
    if (w.role !== 'store' && w.role !== 'forward' && w.role !== 'gateway') continue;
    const monthOf = (billing: Billing) => {
      const usage = {
        requestVcpuSeconds: 0,
        requestGibSeconds: 0,
        requests: 0,
        instanceVcpuSeconds: 0,
        instanceGibSeconds: 0,
      };
      const shaped: Workload = { ...w, billing };
      return workloadCost(shaped, rate * w.requestsPerEvent, MONTH_SECONDS, 0, 0, usage).cost;
    };
    const monthly = { request: monthOf('request'), instance: monthOf('instance') };
    const recommended: Billing = monthly.instance < monthly.request ? 'instance' : 'request';
    if (recommended === w.billing) continue;
    const pushesPerSecond = rate * w.requestsPerEvent;
    const breakEven = billingBreakEvenRequestsPerSecond({
      vcpu: w.vcpu,
      memoryGib: w.memoryGib,
      latencySeconds: w.latencySeconds,
    });
    advice.push({
      function: w.role,
      current: w.billing,
      recommended,
      monthly,
      pushesPerSecond,
      breakEven,
      message:
        `${w.role}: at the stated ${rate.toLocaleString('en-US')} events/s sustained (${pushesPerSecond.toLocaleString('en-US')} requests/s; ` +
        `the billings break even near ${breakEven.toFixed(1)}/s), ${recommended}-based billing would cost about ` +
        `${usd(monthly[recommended])} a month against ${usd(monthly[w.billing])} ${w.billing}-based: ` +
        `set cost.billing.${w.role}: ${recommended} to switch (docs/deploy.md); nothing switches by itself`,
    });
  }
  return advice;
}

/** The three workloads whose billing `cost.billing` chooses, in the order a settings line names them. */
const ADVISED = ['gateway', 'store', 'forward'] as const;
type Advised = (typeof ADVISED)[number];

/** The one recommendation for the whole environment: what to switch, what it saves a month, the line. */
export interface BillingRecommendation {
  /** The billing recommended for each of the three, switched or not. */
  readonly billing: Readonly<Record<Advised, Billing>>;
  /** Those whose recommended billing is not the one deployed. */
  readonly switched: readonly Advised[];
  /** The busy month's bill at the stated rate (after free tiers, as `npm run scale` prints it), each way. */
  readonly monthly: { readonly current: number; readonly recommended: number };
  /** The settings line, under `cost:`, that switches. */
  readonly settingsLine: string;
  readonly message: string;
}

/** The billing each of the three runs in a plan. */
function billingOf(plan: Plan): Record<Advised, Billing> {
  const fn = (name: 'store' | 'forward') => plan.functions.find((f) => f.name === name)?.billing ?? 'request';
  return {
    gateway: plan.gateway.cpuIdle ? 'request' : 'instance',
    store: fn('store'),
    forward: fn('forward'),
  };
}

/** The plan with the three billed as given (plan() changes nothing else with `cost.billing`). */
function withBillings(plan: Plan, billing: Readonly<Record<Advised, Billing>>): Plan {
  return {
    ...plan,
    gateway: { ...plan.gateway, cpuIdle: billing.gateway === 'request' },
    functions: plan.functions.map((f) =>
      f.name === 'store' || f.name === 'forward' ? { ...f, billing: billing[f.name] } : f,
    ),
  };
}

/**
 * One recommendation for the rate the settings state (`cost.sustained_events_per_second`): each
 * of the gateway, `store` and `forward` billed the way that costs it less at that rate, the busy
 * month's whole bill both ways, and the one settings line that switches. Undefined without a
 * stated rate, or when what is deployed is already the cheaper. Said, never applied: a stack keeps
 * what it runs until its settings say otherwise (core/deploy/billing-kept.ts).
 */
export function billingRecommendation(
  settings: Readonly<Settings>,
  plan: Plan,
): BillingRecommendation | undefined {
  const rate = settings.cost?.sustained_events_per_second;
  if (rate === undefined) return undefined;
  const current = billingOf(plan);
  const billing = { ...current };
  for (const a of billingAdvice(settings, plan)) billing[a.function] = a.recommended;
  const switched = ADVISED.filter((f) => billing[f] !== current[f]);
  if (switched.length === 0) return undefined;
  const shape = trafficShape(settings, plan.destinations.length);
  const monthly = {
    current: monthlyBill(plan, 'busy', shape).total,
    recommended: monthlyBill(withBillings(plan, billing), 'busy', shape).total,
  };
  const settingsLine = `billing: { ${ADVISED.map((f) => `${f}: ${billing[f]}`).join(', ')} }`;
  const saved = monthly.current - monthly.recommended;
  const names = switched.map((f) => `${f} to ${billing[f]}-based`).join(', ');
  const message =
    `RECOMMENDED BILLING: at the stated ${rate.toLocaleString('en-US')} events/s sustained, switch ${names}: ` +
    `the month at that rate would cost ${usd(monthly.recommended)} instead of ${usd(monthly.current)}, ` +
    `${saved >= 0 ? `${usd(saved)} a month less` : `${usd(-saved)} a month more`}. ` +
    `Switch with one line under cost: in the settings: ${settingsLine} (docs/scale.md). Nothing switches by itself: ` +
    'a deployed stack keeps what it runs until its settings say so';
  return { billing, switched, monthly, settingsLine, message };
}
