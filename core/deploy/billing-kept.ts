/**
 * The billing of `store` and `forward` across an upgrade (issues #76, #100): what a stack runs
 * stays what it runs unless the settings say otherwise. `cost.billing.<fn>` decides when set.
 * Unset, the stack keeps the shape its last `pulumi up` deployed, read from the stack's own state
 * (the checkpoint's resources, which infra/program.ts reads with the engine's
 * `pulumi:pulumi:readStackResourceOutputs`): a Cloud Function (`gcp:cloudfunctionsv2/function:Function`,
 * request-billed) or a Cloud Run service with CPU always allocated
 * (`gcp:cloudrunv2/service:Service`, instance-billed). Every release has declared them under the
 * same logical names (`<env>-function-store`, `<env>-service-store`), so the state says what runs
 * whichever release deployed it; no output is needed, and none is guessed from. A stack never
 * deployed gets the design's default, request-based (Cloud Functions). Pure: the state comes in
 * as values.
 */
import type { Settings } from '../../schemas/settings.ts';
import type { Billing } from './cost.ts';

export type KeptFunction = 'store' | 'forward';
export type DeployedBilling = Readonly<Record<KeptFunction, Billing>>;
const KEPT: readonly KeptFunction[] = ['store', 'forward'];

/** The stack output the program exports its billing in (read by people and dashboards; not decisive). */
export const BILLING_OUTPUT = 'billing';
/** An output every release has exported: present, the stack was deployed before. */
export const DEPLOYED_MARKER_OUTPUT = 'gatewayUrl';

export const FUNCTION_TYPE = 'gcp:cloudfunctionsv2/function:Function';
export const SERVICE_TYPE = 'gcp:cloudrunv2/service:Service';

/** One resource of the stack's checkpoint, as the engine lists it. */
export interface StateResource {
  readonly urn: string;
  readonly type: string;
}

/** What the state holds for one function: its kind, both (a switch cut short), or nothing. */
export type DeployedShape = Billing | 'both' | 'none';

const logicalName = (urn: string): string => urn.slice(urn.lastIndexOf('::') + 2);

/** How `store` and `forward` run in a stack, from its checkpoint's resources. */
export function deployedShapes(resources: readonly StateResource[]): Record<KeptFunction, DeployedShape> {
  const shape = (f: KeptFunction): DeployedShape => {
    const has = (type: string, kind: string) =>
      resources.some((r) => r.type === type && logicalName(r.urn).endsWith(`-${kind}-${f}`));
    const request = has(FUNCTION_TYPE, 'function');
    const instance = has(SERVICE_TYPE, 'service');
    return request && instance ? 'both' : request ? 'request' : instance ? 'instance' : 'none';
  };
  return { store: shape('store'), forward: shape('forward') };
}

const KIND: Readonly<Record<Billing, string>> = {
  request: 'a Cloud Function (request-billed)',
  instance: 'a Cloud Run service with CPU always allocated (instance-billed)',
};

export interface KeptBilling {
  readonly billing: DeployedBilling;
  /** What decided each function's billing, in words, for `pulumi up` to say. */
  readonly reasons: Readonly<Record<KeptFunction, string>>;
}

const isBilling = (v: unknown): v is Billing => v === 'request' || v === 'instance';

/**
 * Each function's billing: the settings', else the shape the stack's state shows it runs, else
 * request-based. `state` is undefined for a stack never deployed. A state holding both shapes (a
 * switch whose `pulumi up` stopped between creating the new one and deleting the old) keeps the
 * one the stack's `billing` output names, the shape that last `pulumi up` meant, else the
 * default.
 */
export function keptBilling(
  settings: Readonly<Settings>,
  state: readonly StateResource[] | undefined,
  outputs: Readonly<Record<string, unknown>> = {},
): KeptBilling {
  const shapes = state ? deployedShapes(state) : undefined;
  const exported = outputs[BILLING_OUTPUT] as Partial<Record<KeptFunction, unknown>> | undefined;
  const billing: Record<KeptFunction, Billing> = { store: 'request', forward: 'request' };
  const reasons: Record<KeptFunction, string> = { store: '', forward: '' };
  for (const f of KEPT) {
    const set = settings.cost?.billing?.[f];
    const shape = shapes?.[f];
    const meant = exported?.[f];
    if (set) {
      billing[f] = set;
      reasons[f] = `cost.billing.${f}: ${set}`;
    } else if (shape === 'request' || shape === 'instance') {
      billing[f] = shape;
      reasons[f] = `kept: the stack's state shows ${f} running as ${KIND[shape]} (cost.billing.${f} unset)`;
    } else if (shape === 'both' && isBilling(meant)) {
      billing[f] = meant;
      reasons[f] =
        `kept: the stack's state holds both shapes of ${f} (a switch cut short); its last pulumi up meant ${meant}-billed (cost.billing.${f} unset)`;
    } else if (shape === 'both') {
      reasons[f] =
        `the stack's state holds both shapes of ${f} and no record of which was meant: request-based, the default; set cost.billing.${f} to choose`;
    } else if (state) {
      reasons[f] = `the stack's state has no ${f}: request-based, the default (cost.billing.${f} unset)`;
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
