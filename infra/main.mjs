// The entry `pulumi up` runs (Pulumi.yaml `main`): it names the Node it needs (node-check.mjs),
// then hands over to infra/index.ts, whose exports become the stack outputs (a default export
// is what Pulumi reads then).
import { requireNode } from './node-check.mjs';

requireNode('infra', 'pulumi up');
export default await import('./index.ts');
