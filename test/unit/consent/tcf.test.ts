/** core/consent/tcf.ts: TC strings (built with @iabtcf/core's encoder) read into purposes and vendors. */
import assert from 'node:assert/strict';
import { TCString } from '@iabtcf/core';
import { readTcf, TCF_MAX_LENGTH } from '../../../core/consent/tcf.ts';
import { tcString, worstTcString } from '../../support/tc-strings.ts';

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

  it("agrees with IAB Tech Lab's decoder on the purposes, vendors and disclosed vendors of its strings", () => {
    const cases = [
      { purposes: [], vendors: [] },
      { purposes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], vendors: [32, 755, 1126] },
      { purposes: [2, 10], vendors: [1126], disclosed: [1126, 3000] },
      // A long run of consecutive vendors: the encoder writes it as ranges.
      { purposes: [1], vendors: Array.from({ length: 400 }, (_, i) => i + 100), disclosed: [755] },
    ];
    for (const choices of cases) {
      const s = tcString(choices);
      const ours = readTcf(s);
      const theirs = TCString.decode(s);
      assert.ok(ours.ok, s);
      for (let id = 1; id <= 11; id++)
        assert.equal(ours.purpose(id), theirs.purposeConsents.has(id), `${s} p${id}`);
      for (const id of [1, 32, 99, 100, 250, 499, 500, 755, 1126, 3000, 65535]) {
        assert.equal(ours.vendor(id), theirs.vendorConsents.has(id), `${s} v${id}`);
        assert.equal(ours.disclosed(id), theirs.vendorsDisclosed.has(id), `${s} d${id}`);
      }
    }
  });

  it('the costliest string the schema allows is read with work linear in its length, ranges never expanded', () => {
    const worst = worstTcString(TCF_MAX_LENGTH);
    assert.ok(worst.length > TCF_MAX_LENGTH - 10 && worst.length <= TCF_MAX_LENGTH, String(worst.length));
    const r = readTcf(worst);
    assert.ok(r.ok, r.ok ? '' : r.why);
    // The ranges cover 1..65535: every vendor consented and disclosed, each found in the first entry.
    assert.deepEqual(
      [r.purpose(1), r.vendor(755), r.vendor(65535), r.disclosed(1126)],
      [true, true, true, true],
    );
    // A character is read once and each range entry (33 bits, at least 5.5 characters) once:
    // expanding the ranges would be ~2,900 entries × 65,535 ids per section.
    assert.ok(r.work() <= worst.length * 1.2, `${r.work()} steps for ${worst.length} characters`);
    const small = readTcf(worstTcString(TCF_MAX_LENGTH / 8));
    assert.ok(small.ok);
    assert.ok(
      r.work() >= small.work() * 6 && r.work() <= small.work() * 10,
      `${small.work()} -> ${r.work()}`,
    );
  });

  it('a lookup visits at most the entries of its section', () => {
    const r = readTcf(tcString({ purposes: [1], vendors: [3, 5, 7, 9, 11, 13] }));
    assert.ok(r.ok);
    const before = r.work();
    assert.equal(r.vendor(8), false);
    assert.ok(r.work() - before <= 6, String(r.work() - before));
  });

  it('a string longer than the schema allows is malformed without being decoded', () => {
    const r = readTcf(`${worstTcString()}${'A'.repeat(100)}`);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.why, /^longer than 16384 characters/);
  });

  it('a range section claiming more entries than the string holds is malformed, not read past its end', () => {
    const cut = worstTcString(TCF_MAX_LENGTH).split('.')[0]?.slice(0, 300) as string;
    const r = readTcf(cut);
    assert.deepEqual(r, { ok: false, why: 'ends too early' });
  });
});
