/**
 * core/deploy/billing-kept.ts: the settings decide; unset, the stack's own `billing` output;
 * without it but deployed, the previous release's rule (instance-based from the break-even at the
 * peak rate); a new stack, request-based.
 */
import assert from 'node:assert/strict';
import { keptBilling, previousReleaseBilling, withBilling } from '../../../core/deploy/billing-kept.ts';
import { plan } from '../../../core/plan.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'dev', project: 'acme-dev-project', region: 'europe-west1' };
const deployed = { gatewayUrl: 'https://gateway.example' };

describe('deploy: the billing kept across an upgrade', () => {
  it('reproduces the previous release: instance at its default peak, request for a trickle', () => {
    assert.deepEqual(previousReleaseBilling(base, plan(base)), { store: 'instance', forward: 'instance' });
    const trickle = { ...base, cost: { peak_events_per_second: 1 } };
    assert.deepEqual(previousReleaseBilling(trickle, plan(trickle)), {
      store: 'request',
      forward: 'request',
    });
  });

  it('lets the settings decide, then the stack’s output, then the previous release, then the default', () => {
    const set = { ...base, cost: { billing: { forward: 'request' as const } } };
    const kept = keptBilling(set, plan(set), deployed);
    assert.deepEqual(kept.billing, { store: 'instance', forward: 'request' });
    assert.match(kept.reasons.forward, /cost\.billing\.forward: request/);
    assert.match(kept.reasons.store, /previous release deployed it instance-billed/);
    const own = keptBilling(base, plan(base), {
      ...deployed,
      billing: { store: 'request', forward: 'instance' },
    });
    assert.deepEqual(own.billing, { store: 'request', forward: 'instance' });
    assert.deepEqual(keptBilling(base, plan(base), {}).billing, { store: 'request', forward: 'request' });
    // A malformed output is no billing: the previous release's rule applies.
    assert.deepEqual(keptBilling(base, plan(base), { ...deployed, billing: { store: 'x' } }).billing, {
      store: 'instance',
      forward: 'instance',
    });
  });

  it('states the kept billing in the settings plan() reads, keeping the rest of cost', () => {
    const s = withBilling(
      { ...base, cost: { peak_events_per_second: 10 } },
      { store: 'instance', forward: 'request' },
    );
    assert.deepEqual(s.cost, {
      peak_events_per_second: 10,
      billing: { store: 'instance', forward: 'request' },
    });
    assert.equal(plan(s).functions.find((f) => f.name === 'store')?.billing, 'instance');
  });
});
