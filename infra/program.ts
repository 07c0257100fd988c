/**
 * The program `pulumi up` runs (infra/index.ts): the stack config, the billing the stack keeps
 * (core/deploy/billing-kept.ts, read back from the stack's own last outputs), the environment,
 * and the outputs, `billing` among them so the next `pulumi up` keeps it.
 */
import * as pulumi from '@pulumi/pulumi';
import {
  BILLING_OUTPUT,
  DEPLOYED_MARKER_OUTPUT,
  type DeployedBilling,
  keptBilling,
  withBilling,
} from '../core/deploy/billing-kept.ts';
import { plan } from '../core/plan.ts';
import type { BundleManifest } from '../scripts/build-functions.ts';
import type { StackConfig } from './config.ts';
import { declareEnvironment, type EnvironmentOutputs } from './environment.ts';

/**
 * The outputs of this stack's last `pulumi up`, as far as the billing needs them, read through a
 * StackReference to the stack itself (its last checkpoint; nothing for a stack never deployed).
 */
export async function previousStackOutputs(): Promise<Record<string, unknown>> {
  const self = new pulumi.StackReference(
    `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`,
  );
  const out: Record<string, unknown> = {};
  for (const name of [BILLING_OUTPUT, DEPLOYED_MARKER_OUTPUT]) {
    const details = await self.getOutputDetails(name);
    const value = details.value ?? details.secretValue;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The stack config with the plan declaring the billing the stack keeps, said in the log. */
export function keepBilling(
  config: StackConfig,
  previous: Readonly<Record<string, unknown>>,
): { readonly config: StackConfig; readonly billing: DeployedBilling } {
  const kept = keptBilling(config.settings, config.plan, previous);
  for (const [f, reason] of Object.entries(kept.reasons)) pulumi.log.info(`${f} billing: ${reason}`);
  return {
    config: { ...config, plan: plan(withBilling(config.settings, kept.billing)) },
    billing: kept.billing,
  };
}

export interface ProgramOutputs extends EnvironmentOutputs {
  /** What store and forward run as, read back by the next `pulumi up`. */
  readonly billing: DeployedBilling;
}

export async function program(config: StackConfig, bundles: BundleManifest): Promise<ProgramOutputs> {
  const { config: kept, billing } = keepBilling(config, await previousStackOutputs());
  return { ...declareEnvironment(kept, bundles), billing };
}
