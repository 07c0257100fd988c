// The entry the Pulumi CLI runs for the policy pack (PulumiPolicy.yaml `main`): it names the
// Node it needs (../node-check.mjs), then hands over to index.ts.
import { requireNode } from '../node-check.mjs';

requireNode('policy pack', 'pulumi preview --policy-pack infra/policy');
await import('./index.ts');
