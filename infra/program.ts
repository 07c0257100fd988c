/**
 * The program `pulumi up` runs (infra/index.ts): the stack config, the billing the stack keeps
 * (core/deploy/billing-kept.ts, read back from the stack's own state), the environment,
 * and the outputs, `billing` among them so the next `pulumi up` keeps it.
 */
import * as pulumi from '@pulumi/pulumi';
import {
  BILLING_OUTPUT,
  DEPLOYED_MARKER_OUTPUT,
  type DeployedBilling,
  keptBilling,
  type StateResource,
  withBilling,
} from '../core/deploy/billing-kept.ts';
import { keptTopology, withTopology } from '../core/deploy/topology-kept.ts';
import { plan } from '../core/plan.ts';
import type { BundleManifest } from './bundle-manifest.ts';
import type { StackConfig } from './config.ts';
import { declareEnvironment, type EnvironmentOutputs } from './environment.ts';
import { IMPORTED_MAP_SUFFIX, URL_MAP_TYPE } from './gateway-origin-path.ts';

/** The stack's own name as the engine's built-in reads take it (organization/project/stack). */
const selfName = () => `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;

/**
 * The outputs of this stack's last `pulumi up` the upgrade reads, through a StackReference to
 * the stack itself (its last checkpoint; nothing for a stack never deployed).
 */
export async function previousStackOutputs(): Promise<Record<string, unknown>> {
  const self = new pulumi.StackReference(selfName());
  const out: Record<string, unknown> = {};
  for (const name of [BILLING_OUTPUT, DEPLOYED_MARKER_OUTPUT]) {
    const details = await self.getOutputDetails(name);
    const value = details.value ?? details.secretValue;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** What `pulumi:pulumi:readStackResourceOutputs` answers: each live resource by URN. */
interface StackResourceOutputs {
  readonly outputs?: Readonly<Record<string, { readonly type?: unknown }>>;
}

/**
 * The resources of this stack's last checkpoint (URN and type), read with the engine's built-in
 * `pulumi:pulumi:readStackResourceOutputs`, the read `pulumi query` used; undefined for a stack
 * never deployed (no `gatewayUrl` output, which every release has exported), which is not asked:
 * a stack with no checkpoint has no state to read.
 */
export async function deployedState(
  outputs: Readonly<Record<string, unknown>>,
): Promise<readonly StateResource[] | undefined> {
  if (outputs[DEPLOYED_MARKER_OUTPUT] === undefined) return undefined;
  const read = (await pulumi.runtime.invoke('pulumi:pulumi:readStackResourceOutputs', {
    stackName: selfName(),
  })) as StackResourceOutputs;
  return Object.entries(read.outputs ?? {}).map(([urn, r]) => ({
    urn,
    type: typeof r.type === 'string' ? r.type : '',
  }));
}

/**
 * The stack config with the plan declaring the billing and the deliveries topology the stack
 * keeps, said in the log. The kept topology is also written into the settings every workload
 * reads (infra/runtime-env.ts), so store and the scheduler publish where the plan subscribes.
 */
export function keepBilling(
  config: StackConfig,
  state: readonly StateResource[] | undefined,
  outputs: Readonly<Record<string, unknown>>,
): { readonly config: StackConfig; readonly billing: DeployedBilling } {
  const kept = keptBilling(config.settings, state, outputs);
  for (const [f, reason] of Object.entries(kept.reasons)) pulumi.log.info(`${f} billing: ${reason}`);
  const topology = keptTopology(config.settings, state);
  pulumi.log.info(`deliveries topology: ${topology.reason}`);
  const settings = withTopology(config.settings, topology.topology);
  return {
    config: {
      ...config,
      settings,
      plan: plan(withBilling(settings, kept.billing), { draining: topology.draining }),
      billingKept: kept.stamps,
    },
    billing: kept.billing,
  };
}

export interface ProgramOutputs extends EnvironmentOutputs {
  /** What store and forward run as, read back by the next `pulumi up`. */
  readonly billing: DeployedBilling;
}

/** Whether the stack's state already holds the site's imported URL map (infra/gateway-origin-path.ts). */
export const siteMapImported = (state: readonly StateResource[] | undefined): boolean =>
  state?.some((r) => r.type === URL_MAP_TYPE && r.urn.endsWith(`-${IMPORTED_MAP_SUFFIX}`)) === true;

export async function program(config: StackConfig, bundles: BundleManifest): Promise<ProgramOutputs> {
  const outputs = await previousStackOutputs();
  const state = await deployedState(outputs);
  const { config: kept, billing } = keepBilling(config, state, outputs);
  const withMap: StackConfig = kept.siteUrlMap
    ? { ...kept, siteUrlMap: { ...kept.siteUrlMap, imported: siteMapImported(state) } }
    : kept;
  return { ...declareEnvironment(withMap, bundles), billing };
}
