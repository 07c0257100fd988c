/**
 * core/deploy/billing-kept.ts: the settings decide; unset, the shape the stack's state shows
 * (a Cloud Function is request-billed, a Cloud Run service instance-billed); a new stack,
 * request-based. No output decides, and no earlier release's rule is guessed (issue #100).
 */
import assert from 'node:assert/strict';
import {
  type BillingStamp,
  billingLabels,
  billingStampProblems,
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

  it('stamps each decision: what decided it and what the state showed', () => {
    assert.deepEqual(keptBilling(base, services).stamps.store, {
      billing: 'instance',
      deployed: 'instance',
      by: 'state',
    });
    assert.deepEqual(keptBilling(base, undefined).stamps.forward, {
      billing: 'request',
      deployed: 'new',
      by: 'default',
    });
    const set = { ...base, cost: { billing: { store: 'instance' as const } } };
    assert.deepEqual(keptBilling(set, functions).stamps.store, {
      billing: 'instance',
      deployed: 'request',
      by: 'settings',
    });
    const both = [...functions, ...services];
    assert.equal(keptBilling(base, both, { billing: { store: 'instance' } }).stamps.store.by, 'output');
  });

  it('finds a deployable that is not what its stamp says, or switched without a setting', () => {
    const labels = (billing: string, deployed: string, by: string) =>
      billingLabels({ billing, deployed, by } as BillingStamp);
    assert.deepEqual(
      billingStampProblems(FUNCTION_TYPE, 'dev-function-store', labels('request', 'request', 'state')),
      [],
    );
    assert.deepEqual(
      billingStampProblems(SERVICE_TYPE, 'dev-service-forward', labels('instance', 'request', 'settings')),
      [],
    );
    // Not store or forward: the gateway's service, a topic.
    assert.deepEqual(billingStampProblems(SERVICE_TYPE, 'dev-service', undefined), []);
    assert.match(
      billingStampProblems(FUNCTION_TYPE, 'dev-function-store', { environment: 'dev' }).join(),
      /store carries no record/,
    );
    assert.match(
      billingStampProblems(
        FUNCTION_TYPE,
        'dev-function-store',
        labels('instance', 'instance', 'state'),
      ).join(),
      /declared as a Cloud Function .* decided instance-billed/,
    );
    assert.match(
      billingStampProblems(SERVICE_TYPE, 'dev-service-store', labels('instance', 'request', 'output')).join(),
      /runs request-billed .* switched to instance-billed though cost\.billing\.store is unset/,
    );
    assert.match(
      billingStampProblems(FUNCTION_TYPE, 'dev-function-store', labels('request', 'both', 'state')).join(),
      /said kept from the state, which shows both/,
    );
  });
});
