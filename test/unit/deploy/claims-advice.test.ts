/**
 * The claim store recommendation (core/deploy/claims-advice.ts): from the stated sustained rate,
 * Bigtable where its nodes cost less than Firestore's writes, Firestore back where they do not,
 * nothing where the chosen store is already the cheaper or no rate is stated; the break-even
 * is where the two months cross, and the one line that switches is the settings' own key.
 */
import assert from 'node:assert/strict';
import { claimsRecommendation } from '../../../core/deploy/claims-advice.ts';
import { plan } from '../../../core/plan.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { ClaimsSettings } from '../../../schemas/settings-claims.ts';

const settingsAt = (rate: number | undefined, claims?: ClaimsSettings) => {
  const checked = checkSettings({
    name: 'house',
    project: 'house-project',
    region: 'europe-west1',
    ...(rate === undefined ? {} : { cost: { sustained_events_per_second: rate } }),
    ...(claims ? { claims } : {}),
  });
  assert.ok(checked.ok, JSON.stringify(checked));
  return checked.settings;
};
const advise = (rate: number | undefined, claims?: ClaimsSettings) => {
  const s = settingsAt(rate, claims);
  return claimsRecommendation(s, plan(s));
};

describe('deploy: the claim store recommendation', () => {
  it('says nothing without a stated rate', () => {
    assert.equal(advise(undefined), undefined);
    assert.equal(advise(undefined, { store: 'bigtable' }), undefined);
  });

  it('recommends Bigtable at a busy stated rate, with the line that switches', () => {
    const r = advise(1000);
    assert.ok(r);
    assert.equal(r.current, 'firestore');
    assert.equal(r.recommended, 'bigtable');
    assert.ok(r.monthly.bigtable < r.monthly.firestore, JSON.stringify(r.monthly));
    assert.equal(r.settingsLine, 'claims: { store: bigtable }');
    assert.match(r.message, /claims: \{ store: bigtable \}/);
    assert.match(r.message, /Nothing switches by itself/);
    // One node around the clock: about $470 a month idle at $0.65 a node-hour.
    assert.ok(r.bigtableIdle > 400 && r.bigtableIdle < 550, String(r.bigtableIdle));
    assert.ok(r.breakEven !== undefined && r.breakEven > 1 && r.breakEven < 1000, String(r.breakEven));
  });

  it('puts the break-even where the two months cross', () => {
    const r = advise(1000);
    assert.ok(r?.breakEven !== undefined);
    const at = advise(r.breakEven);
    const below = advise(r.breakEven - 1);
    assert.equal(at?.recommended ?? 'firestore', at ? 'bigtable' : 'firestore');
    assert.ok(at === undefined || at.monthly.bigtable <= at.monthly.firestore);
    // One event a second below, Firestore is still the cheaper: nothing to recommend.
    assert.equal(below, undefined);
  });

  it('recommends Firestore back for a Bigtable stack at a low rate, and nothing at a busy one', () => {
    const low = advise(5, { store: 'bigtable' });
    assert.ok(low);
    assert.equal(low.recommended, 'firestore');
    assert.equal(low.settingsLine, 'claims: { store: firestore }');
    assert.ok(low.monthly.firestore < low.monthly.bigtable);
    assert.equal(advise(1000, { store: 'bigtable' }), undefined);
    assert.equal(advise(5), undefined);
  });

  it('prices the nodes the settings provision, not fewer', () => {
    const one = advise(5, { store: 'bigtable' });
    const three = advise(5, { store: 'bigtable', bigtable: { nodes: 3 } });
    assert.ok(one && three);
    assert.ok(
      three.monthly.bigtable > 2.5 * one.monthly.bigtable,
      `${three.monthly.bigtable} vs ${one.monthly.bigtable}`,
    );
  });
});
