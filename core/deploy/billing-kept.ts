/**
 * The billing of `store` and `forward` across an upgrade (issue #76): what a stack runs stays
 * what it runs unless the settings say otherwise. `cost.billing.<fn>` decides when set. Unset, a
 * stack keeps the billing its last `pulumi up` deployed, which the program exports as the stack
 * output `billing` and reads back from its own stack (infra/program.ts). A stack whose outputs
 * have no `billing` was deployed by the release before it (turn 4 of this project), which chose
 * by the cost model at the peak rate (instance-based from the hop's break-even up,
 * `defaultBilling` then): the same rule gives what it runs. A new stack (no outputs) gets the
 * design's default, request-based (Cloud Functions). Pure: the outputs come in as values.
 */
import type { Settings } from '../../schemas/settings.ts';
import {
  type Billing,
  billingBreakEvenRequestsPerSecond,
  DEFAULT_PEAK_EVENTS_PER_SECOND,
  memoryGib,
  PLATFORM_LATENCY_SECONDS,
  STORE_LATENCY_SECONDS,
} from './cost.ts';

export type KeptFunction = 'store' | 'forward';
export type DeployedBilling = Readonly<Record<KeptFunction, Billing>>;
const KEPT: readonly KeptFunction[] = ['store', 'forward'];

/** What the rule reads of plan()'s Plan (core/plan.ts satisfies it; not imported: plan.ts builds on this folder). */
export interface Plan {
  readonly functions: readonly {
    readonly name: string;
    readonly sizing: { readonly cpu: number; readonly memory: string };
  }[];
  readonly destinations: readonly unknown[];
}

/** The stack output the program exports its billing in. */
export const BILLING_OUTPUT = 'billing';
/** An output every release has exported: present, the stack was deployed before. */
export const DEPLOYED_MARKER_OUTPUT = 'gatewayUrl';

const isBilling = (v: unknown): v is Billing => v === 'request' || v === 'instance';

/**
 * What the release before `billing` was exported chose with these settings: `cost.billing`, else
 * instance-based where the peak rate (`cost.peak_events_per_second`, 5,000 events a second
 * unset) reached the hop's break-even, with the sizing the plan gives it.
 */
export function previousReleaseBilling(settings: Readonly<Settings>, plan: Plan): DeployedBilling {
  const peak = settings.cost?.peak_events_per_second ?? DEFAULT_PEAK_EVENTS_PER_SECOND;
  const of = (name: KeptFunction): Billing => {
    const set = settings.cost?.billing?.[name];
    if (set) return set;
    const f = plan.functions.find((x) => x.name === name);
    if (!f) return 'request';
    const requestsPerEvent = name === 'store' ? 1 : Math.max(1, plan.destinations.length);
    const breakEven = billingBreakEvenRequestsPerSecond({
      vcpu: f.sizing.cpu,
      memoryGib: memoryGib(f.sizing.memory),
      latencySeconds: name === 'store' ? STORE_LATENCY_SECONDS : PLATFORM_LATENCY_SECONDS,
    });
    return peak * requestsPerEvent >= breakEven ? 'instance' : 'request';
  };
  return { store: of('store'), forward: of('forward') };
}

export interface KeptBilling {
  readonly billing: DeployedBilling;
  /** What decided each function's billing, in words, for `pulumi up` to say. */
  readonly reasons: Readonly<Record<KeptFunction, string>>;
}

/**
 * Each function's billing: the settings', else the one the stack's outputs say it runs (its
 * own `billing` output, or the previous release's rule when the stack has outputs but not that
 * one), else request-based.
 */
export function keptBilling(
  settings: Readonly<Settings>,
  plan: Plan,
  previousOutputs: Readonly<Record<string, unknown>> | undefined,
): KeptBilling {
  const outputs = previousOutputs ?? {};
  const exported = outputs[BILLING_OUTPUT] as Partial<Record<KeptFunction, unknown>> | undefined;
  const deployedBefore = outputs[DEPLOYED_MARKER_OUTPUT] !== undefined;
  const previous = previousReleaseBilling(settings, plan);
  const billing: Record<KeptFunction, Billing> = { store: 'request', forward: 'request' };
  const reasons: Record<KeptFunction, string> = { store: '', forward: '' };
  for (const f of KEPT) {
    const set = settings.cost?.billing?.[f];
    const was = exported?.[f];
    if (set) {
      billing[f] = set;
      reasons[f] = `cost.billing.${f}: ${set}`;
    } else if (isBilling(was)) {
      billing[f] = was;
      reasons[f] = `kept: the stack runs it ${was}-billed (cost.billing.${f} unset)`;
    } else if (deployedBefore) {
      billing[f] = previous[f];
      reasons[f] = `kept: the previous release deployed it ${previous[f]}-billed (cost.billing.${f} unset)`;
    } else {
      reasons[f] = `a new stack: request-based, the default (cost.billing.${f} unset)`;
    }
  }
  return { billing, reasons };
}

/** The settings with the kept billing stated, so plan() declares what the stack keeps. */
export function withBilling(settings: Readonly<Settings>, billing: DeployedBilling): Settings {
  return {
    ...settings,
    cost: { ...settings.cost, billing: { ...settings.cost?.billing, ...billing } },
  };
}
