/** core/consent/tcf.ts: TC strings (built with @iabtcf/core's encoder) read into purposes and vendors. */
import assert from 'node:assert/strict';
import { readTcf } from '../../../core/consent/tcf.ts';
import { tcString } from '../../support/tc-strings.ts';

describe('consent: readTcf', () => {
  it('reads purpose and vendor consents', () => {
    const r = readTcf(tcString({ purposes: [1, 7], vendors: [755] }));
    assert.ok(r.ok);
    assert.deepEqual([r.purpose(1), r.purpose(3), r.purpose(7)], [true, false, true]);
    assert.deepEqual([r.vendor(755), r.vendor(1126)], [true, false]);
  });

  it('reads the disclosed-vendors segment when present, undefined when the string has none', () => {
    const full = tcString({ purposes: [1], vendors: [1126], disclosed: [1126] });
    const r = readTcf(full);
    assert.ok(r.ok);
    assert.deepEqual([r.disclosed(1126), r.disclosed(755)], [true, false]);
    const coreOnly = readTcf(full.split('.')[0] as string);
    assert.ok(coreOnly.ok);
    assert.equal(coreOnly.disclosed(1126), undefined);
  });

  it('a malformed string, or a TCF v1 one, is a reading that says why', () => {
    for (const bad of ['not-a-tc-string', '', 'BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA']) {
      const r = readTcf(bad);
      assert.equal(r.ok, false, bad);
      assert.ok(!r.ok && r.why.length > 0);
    }
  });
});
