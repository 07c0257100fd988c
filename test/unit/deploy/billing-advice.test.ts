/**
 * core/deploy/billing-advice.ts: the recommendation `settings check` and `pulumi up` print from
 * `cost.sustained_events_per_second`, with the monthly figures both ways; never a switch.
 */
import assert from 'node:assert/strict';
import { billingAdvice } from '../../../core/deploy/billing-advice.ts';
import { plan } from '../../../core/plan.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = {
  name: 'shop',
  project: 'acme-shop-project',
  region: 'europe-west1',
  destinations: [
    { id: 'hook', type: 'webhook', base_url: 'https://crm.example', config: { path: '/e' } },
    { id: 'meta', type: 'meta_capi', config: { pixel_id: '123456789012345' } },
  ],
};
const at = (cost: NonNullable<Settings['cost']>) => {
  const s: Settings = { ...base, cost };
  return billingAdvice(s, plan(s));
};

describe('billing advice (core/deploy/billing-advice.ts)', () => {
  it('says nothing without a stated sustained rate, whatever the peak', () => {
    assert.deepEqual(at({}), []);
    assert.deepEqual(at({ peak_events_per_second: 100_000 }), []);
  });

  it('says nothing below the break-even, where request-based billing is the cheaper', () => {
    assert.deepEqual(at({ sustained_events_per_second: 0.5 }), []);
  });

  it('recommends instance-based billing past the break-even, with the monthly figures both ways', () => {
    const advice = at({ sustained_events_per_second: 100 });
    assert.deepEqual(
      advice.map((a) => [a.function, a.current, a.recommended]),
      [
        ['gateway', 'request', 'instance'],
        ['store', 'request', 'instance'],
        ['forward', 'request', 'instance'],
      ],
    );
    for (const a of advice) {
      assert.ok(a.monthly.instance < a.monthly.request);
      assert.ok(a.pushesPerSecond > a.breakEven);
      assert.match(a.message, new RegExp(`set cost\\.billing\\.${a.function}: instance`));
      assert.match(a.message, /\$[\d,]+ a month against \$[\d,]+ request-based/);
      assert.match(a.message, /nothing switches by itself/);
    }
    // The advice changes nothing: plan() still deploys Cloud Functions.
    const p = plan({ ...base, cost: { sustained_events_per_second: 100 } });
    assert.deepEqual(
      p.functions.map((f) => f.billing),
      ['request', 'request', 'request'],
    );
  });

  it('recommends going back to request-based billing where a set instance billing costs more', () => {
    const advice = at({ sustained_events_per_second: 0.1, billing: { store: 'instance' } });
    assert.deepEqual(
      advice.map((a) => [a.function, a.recommended]),
      [['store', 'request']],
    );
    assert.equal(at({ sustained_events_per_second: 100, billing: { store: 'instance' } }).length, 2);
  });
});
