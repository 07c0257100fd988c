/**
 * The organisation policy pack, run by the Pulumi CLI:
 * `pulumi preview --policy-pack infra/policy --policy-pack-config policy-config.json`
 * (docs/deploy.md, "Policy as code"). The rules are in rules.ts; the configuration (allowed
 * locations and ingress) comes from the pack config the CLI passes.
 */
import { PolicyPack } from '@pulumi/policy';
import { organisationPolicies } from './rules.ts';

new PolicyPack('eventbus-organisation', {
  description: 'Organisation rules an eventbus environment must satisfy before it is deployed',
  policies: organisationPolicies(),
});
