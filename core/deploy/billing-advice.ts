/**
 * The cost model's recommendation on the billing of `store`, `forward` and the gateway (docs/scale.md): from the
 * steady rate settings state (`cost.sustained_events_per_second`), what a month at that rate
 * costs each of them request-based and instance-based, and a line saying so where the other
 * billing is the cheaper one. `settings check` and `pulumi up` print it; nothing switches by
 * itself (`cost.billing` does). The peak rate only sizes, never advises.
 */
import type { Settings } from '../../schemas/settings.ts';
import { MONTH_SECONDS, type Plan, trafficShape, type Workload, workloadCost, workloadsOf } from './bill.ts';
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
