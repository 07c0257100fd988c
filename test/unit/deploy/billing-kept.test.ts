/**
 * core/deploy/billing-kept.ts: the settings decide; unset, the shape the stack's state shows
 * (a Cloud Function is request-billed, a Cloud Run service instance-billed); a new stack,
 * request-based. No output decides, and no earlier release's rule is guessed (issue #100).
 */
import assert from 'node:assert/strict';
import {
  deployedShapes,
  FUNCTION_TYPE,
  keptBilling,
  SERVICE_TYPE,
  withBilling,
} from '../../../core/deploy/billing-kept.ts';
import { plan } from '../../../core/plan.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'dev', project: 'acme-dev-project', region: 'europe-west1' };
const urn = (type: string, name: string) => ({ urn: `urn:pulumi:prod::eventbus::${type}::${name}`, type });
const functions = [urn(FUNCTION_TYPE, 'dev-function-store'), urn(FUNCTION_TYPE, 'dev-function-forward')];
const services = [urn(SERVICE_TYPE, 'dev-service-store'), urn(SERVICE_TYPE, 'dev-service-forward')];
const others = [urn(SERVICE_TYPE, 'dev-service'), urn('gcp:pubsub/topic:Topic', 'dev-topic-events')];

describe('deploy: the billing kept across an upgrade', () => {
  it('reads each function’s shape from the state, by type and logical name', () => {
    assert.deepEqual(deployedShapes([...others, ...functions]), { store: 'request', forward: 'request' });
    assert.deepEqual(deployedShapes([...others, ...services]), { store: 'instance', forward: 'instance' });
    assert.deepEqual(deployedShapes([functions[0], services[1]].filter((r) => r !== undefined)), {
      store: 'request',
      forward: 'instance',
    });
    assert.deepEqual(deployedShapes([...functions, ...services]), { store: 'both', forward: 'both' });
    // The gateway's service (`dev-service`) and a topic are neither function.
    assert.deepEqual(deployedShapes(others), { store: 'none', forward: 'none' });
  });

  it('keeps what the state shows, whatever outputs the stack has', () => {
    for (const outputs of [
      {},
      { gatewayUrl: 'https://gateway.example' },
      { billing: { store: 'instance' } },
    ]) {
      const kept = keptBilling(base, [...others, ...functions], outputs);
      assert.deepEqual(kept.billing, { store: 'request', forward: 'request' });
      assert.match(kept.reasons.store, /state shows store running as a Cloud Function/);
    }
    assert.deepEqual(keptBilling(base, [...others, ...services]).billing, {
      store: 'instance',
      forward: 'instance',
    });
  });

  it('lets the settings decide over the state', () => {
    const set = { ...base, cost: { billing: { forward: 'instance' as const } } };
    const kept = keptBilling(set, functions);
    assert.deepEqual(kept.billing, { store: 'request', forward: 'instance' });
    assert.match(kept.reasons.forward, /cost\.billing\.forward: instance/);
  });

  it('gives a new stack the default, and a switch cut short the shape its last up meant', () => {
    const fresh = keptBilling(base, undefined);
    assert.deepEqual(fresh.billing, { store: 'request', forward: 'request' });
    assert.match(fresh.reasons.store, /a new stack/);
    const both = [...functions, ...services];
    assert.deepEqual(keptBilling(base, both, { billing: { store: 'instance', forward: 'x' } }).billing, {
      store: 'instance',
      forward: 'request',
    });
    assert.match(keptBilling(base, both).reasons.forward, /both shapes .* set cost\.billing\.forward/);
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
