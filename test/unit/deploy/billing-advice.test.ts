/**
 * core/deploy/billing-advice.ts: the recommendation `settings check` and `pulumi up` print from
 * `cost.sustained_events_per_second`, with the monthly figures both ways; never a switch.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { billingAdvice, billingRecommendation } from '../../../core/deploy/billing-advice.ts';
import { plan } from '../../../core/plan.ts';
import { parseSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';
import { billsOf } from '../../../scripts/scale-bill.ts';
import { settingsFile } from '../../../scripts/scale-table.ts';

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

  it('says once, for the whole environment, what to switch, the month both ways and the one line', () => {
    const example = settingsFile(join(import.meta.dirname, '../../../environments/example.yaml'));
    const r =
      billingRecommendation(example, plan(example)) ?? assert.fail('no recommendation at 1,000 events/s');
    assert.deepEqual(r.switched, ['gateway', 'store', 'forward']);
    assert.equal(r.settingsLine, 'billing: { gateway: instance, store: instance, forward: instance }');
    // The line, put under cost: in the settings, is what switches: plan() then deploys it, and
    // the month it costs is the recommendation's, to the cent (the busy month `npm run scale` prints).
    const yaml = `name: x\nproject: acme-x-project\nregion: europe-west1\ncost:\n  sustained_events_per_second: 1000\n  ${r.settingsLine}\n`;
    const parsed = parseSettings(yaml);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const switched: Settings = {
      ...example,
      cost: { ...example.cost, billing: parsed.settings.cost?.billing ?? assert.fail('no billing read') },
    };
    const busy = (s: Settings) => billsOf(s).bills.find((b) => b.scenario === 'busy')?.total;
    assert.equal(r.monthly.current, busy(example));
    assert.equal(r.monthly.recommended, busy(switched));
    assert.ok(r.monthly.recommended < r.monthly.current);
    const saved = Math.round(r.monthly.current - r.monthly.recommended).toLocaleString('en-US');
    assert.ok(r.message.includes(`$${saved} a month less`), r.message);
    assert.ok(r.message.includes(r.settingsLine));
    // Switched, nothing more to say; without a stated rate, nothing at all.
    assert.equal(billingRecommendation(switched, plan(switched)), undefined);
    const { sustained_events_per_second: _, ...unstated } = example.cost ?? {};
    const quiet: Settings = { ...example, cost: unstated };
    assert.equal(billingRecommendation(quiet, plan(quiet)), undefined);
  });

  it('recommends request-based billing back below the break-even, in the same one line', () => {
    const s: Settings = {
      ...base,
      cost: { sustained_events_per_second: 0.1, billing: { store: 'instance' } },
    };
    const r = billingRecommendation(s, plan(s)) ?? assert.fail('no recommendation');
    assert.deepEqual(r.switched, ['store']);
    assert.equal(r.settingsLine, 'billing: { gateway: request, store: request, forward: request }');
    assert.ok(r.monthly.recommended < r.monthly.current);
  });
});
