/** core/consent/us-privacy.ts: US Privacy strings and GPP strings (built with @iabgpp/cmpapi's encoder). */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import { readGpp, uspOptedOut } from '../../../core/consent/us-privacy.ts';

describe('consent: US Privacy and GPP', () => {
  it('a US Privacy string opts out of sale when its third character is Y', () => {
    assert.deepEqual(['1YYN', '1yyn', '1YNN', '1---'].map(uspOptedOut), [true, true, false, false]);
  });

  it("GPP: a state section's opt-out decides, named by section and field", () => {
    const m = new GppModel();
    m.setFieldValue('usca', 'SharingOptOutNotice', 1);
    m.setFieldValue('usca', 'SharingOptOut', 1);
    assert.deepEqual(readGpp(m.encode(), undefined), { ok: true, optOut: 'usca SharingOptOut' });
  });

  it("GPP: the uspv1 section's OptOutSale Y decides; sections outside gpp_sid are not read", () => {
    const m = new GppModel();
    m.setFieldValue('uspv1', 'Notice', 'Y');
    m.setFieldValue('uspv1', 'OptOutSale', 'Y');
    m.setFieldValue('uspv1', 'LspaCovered', 'N');
    const gpp = m.encode();
    assert.deepEqual(readGpp(gpp, '6'), { ok: true, optOut: 'uspv1 OptOutSale' });
    assert.deepEqual(readGpp(gpp, '7'), { ok: true });
  });

  it('an undecodable GPP string is a reading that says why', () => {
    const r = readGpp('garbage', undefined);
    assert.equal(r.ok, false);
  });
});
