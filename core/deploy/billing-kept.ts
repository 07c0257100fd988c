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

/** What decided a function's billing: its setting, the state's one shape, the `billing` output (both shapes), the default. */
export type BillingSource = 'settings' | 'state' | 'output' | 'default';

/**
 * The program's decision for one function, stamped on its deployable as labels (billingLabels)
 * so that a policy, which cannot read the previous state, can check the deployable against it.
 */
export interface BillingStamp {
  readonly billing: Billing;
  /** What the stack's state showed before this run (`new`: a stack never deployed). */
  readonly deployed: DeployedShape | 'new';
  readonly by: BillingSource;
}

export interface KeptBilling {
  readonly billing: DeployedBilling;
  /** What decided each function's billing, in words, for `pulumi up` to say. */
  readonly reasons: Readonly<Record<KeptFunction, string>>;
  /** The same decisions as values, for the deployables' labels. */
  readonly stamps: Readonly<Record<KeptFunction, BillingStamp>>;
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
  const by: Record<KeptFunction, BillingSource> = { store: 'default', forward: 'default' };
  for (const f of KEPT) {
    const set = settings.cost?.billing?.[f];
    const shape = shapes?.[f];
    const meant = exported?.[f];
    if (set) {
      billing[f] = set;
      by[f] = 'settings';
      reasons[f] = `cost.billing.${f}: ${set}`;
    } else if (shape === 'request' || shape === 'instance') {
      billing[f] = shape;
      by[f] = 'state';
      reasons[f] = `kept: the stack's state shows ${f} running as ${KIND[shape]} (cost.billing.${f} unset)`;
    } else if (shape === 'both' && isBilling(meant)) {
      billing[f] = meant;
      by[f] = 'output';
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
  const stampOf = (f: KeptFunction): BillingStamp => ({
    billing: billing[f],
    deployed: shapes?.[f] ?? 'new',
    by: by[f],
  });
  return { billing, reasons, stamps: { store: stampOf('store'), forward: stampOf('forward') } };
}

/** The labels a store or forward deployable carries its BillingStamp in (values Google's label syntax takes). */
export const BILLING_LABELS = Object.freeze({
  billing: 'eventbus-billing',
  deployed: 'eventbus-billing-deployed',
  by: 'eventbus-billing-by',
});

export function billingLabels(stamp: BillingStamp): Record<string, string> {
  return {
    [BILLING_LABELS.billing]: stamp.billing,
    [BILLING_LABELS.deployed]: stamp.deployed,
    [BILLING_LABELS.by]: stamp.by,
  };
}

/** The function a deployable runs, by its logical name (`<env>-function-store`, `<env>-service-forward`). */
export function keptFunctionOf(type: string, name: string): KeptFunction | undefined {
  const kind = type === FUNCTION_TYPE ? 'function' : type === SERVICE_TYPE ? 'service' : undefined;
  return kind ? KEPT.find((f) => name.endsWith(`-${kind}-${f}`)) : undefined;
}

/**
 * What is wrong with a store or forward deployable against the decision stamped on it (the
 * policy `eventbus-billing-kept`, infra/policy/rules.ts): no stamp; a kind that is not the
 * stamped billing's (a Cloud Function is request-billed, a Cloud Run service instance-billed);
 * a billing other than the one the state showed deployed though no setting asked for it.
 * Empty for any other resource.
 */
export function billingStampProblems(
  type: string,
  name: string,
  labels: Readonly<Record<string, unknown>> | undefined,
): string[] {
  const f = keptFunctionOf(type, name);
  if (!f) return [];
  const billing = labels?.[BILLING_LABELS.billing];
  const deployed = labels?.[BILLING_LABELS.deployed];
  const by = labels?.[BILLING_LABELS.by];
  if (!isBilling(billing) || typeof deployed !== 'string' || typeof by !== 'string')
    return [
      `${f} carries no record of the billing the program decided (labels ${Object.values(BILLING_LABELS).join(', ')})`,
    ];
  const problems: string[] = [];
  const kind: Billing = type === FUNCTION_TYPE ? 'request' : 'instance';
  if (kind !== billing)
    problems.push(`${f} is declared as ${KIND[kind]}, but the program decided ${billing}-billed (${by})`);
  if (by !== 'settings' && isBilling(deployed) && deployed !== billing)
    problems.push(
      `${f} runs ${deployed}-billed in the stack's state and is switched to ${billing}-billed though cost.billing.${f} is unset: an upgrade keeps what is deployed`,
    );
  if (by === 'state' && !isBilling(deployed))
    problems.push(`${f} is said kept from the state, which shows ${deployed}, not ${billing}`);
  return problems;
}

/** The settings with the kept billing stated, so plan() declares what the stack keeps. */
export function withBilling(settings: Readonly<Settings>, billing: DeployedBilling): Settings {
  return {
    ...settings,
    cost: { ...settings.cost, billing: { ...settings.cost?.billing, ...billing } },
  };
}
