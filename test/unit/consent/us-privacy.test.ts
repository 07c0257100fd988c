/** core/consent/us-privacy.ts: US Privacy strings and GPP strings (built with @iabgpp/cmpapi's encoder). */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import { readTcf } from '../../../core/consent/tcf.ts';
import { GPP_MAX_LENGTH, gppSectionIds, readGpp, uspOptedOut } from '../../../core/consent/us-privacy.ts';
import { bitsToBase64 as base64, worstTcString } from '../../support/tc-strings.ts';

/** A positive integer in Fibonacci coding (Zeckendorf's sum, smallest term first, ended by an extra 1). */
const fibonacci = (n: number): string => {
  const terms = [1, 2];
  while ((terms.at(-1) as number) <= n) terms.push((terms.at(-1) as number) + (terms.at(-2) as number));
  const bits = terms.map(() => '0');
  let rest = n;
  for (let i = terms.length - 1; i >= 0; i--)
    if ((terms[i] as number) <= rest) {
      bits[i] = '1';
      rest -= terms[i] as number;
    }
  return `${bits.join('').replace(/0+$/, '')}1`;
};

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

  it("GPP: the uspv1 section's OptOutSale N opts out of nothing", () => {
    const m = new GppModel();
    m.setFieldValue('uspv1', 'Notice', 'Y');
    m.setFieldValue('uspv1', 'OptOutSale', 'N');
    assert.deepEqual(readGpp(m.encode(), '6'), { ok: true });
  });

  it('GPP: the first opt-out decides; a later section without one does not undo it', () => {
    const m = new GppModel();
    m.setFieldValue('usca', 'SharingOptOutNotice', 1);
    m.setFieldValue('usca', 'SharingOptOut', 1);
    m.setFieldValue('usva', 'SaleOptOutNotice', 1);
    m.setFieldValue('usva', 'SaleOptOut', 2);
    assert.deepEqual(readGpp(m.encode(), undefined), { ok: true, optOut: 'usca SharingOptOut' });
  });

  it("GPP: a later section's opt-out decides when an earlier one states none", () => {
    const m = new GppModel();
    m.setFieldValue('usca', 'SharingOptOutNotice', 1);
    m.setFieldValue('usca', 'SharingOptOut', 2);
    m.setFieldValue('usva', 'SaleOptOutNotice', 1);
    m.setFieldValue('usva', 'SaleOptOut', 1);
    assert.deepEqual(readGpp(m.encode(), undefined), { ok: true, optOut: 'usva SaleOptOut' });
  });

  it('GPP: a string read again gives the reading kept from the first time', () => {
    const m = new GppModel();
    m.setFieldValue('usca', 'SharingOptOut', 1);
    const gpp = m.encode();
    assert.equal(readGpp(gpp, '8'), readGpp(gpp, '8'));
    assert.notEqual(readGpp(gpp, '8'), readGpp(gpp, undefined), 'another gpp_sid is another reading');
  });

  it('GPP: a string whose header and sections disagree in number, or of too many sections, is malformed', () => {
    const m = new GppModel();
    m.setFieldValue('usca', 'SharingOptOut', 1);
    const gpp = m.encode();
    assert.deepEqual(readGpp(`${gpp}~BAAAAAA`, undefined), {
      ok: false,
      why: 'the header and the sections disagree on how many there are',
    });
    assert.deepEqual(readGpp(gpp.split('~')[0] as string, undefined), {
      ok: false,
      why: 'the header names more sections than the 0 the string carries',
    });
    const many = `${gpp.split('~')[0]}${'~x'.repeat(65)}`;
    assert.deepEqual(readGpp(many, undefined), { ok: false, why: 'more than 64 sections' });
    const most = `${gpp.split('~')[0]}${'~x'.repeat(64)}`;
    assert.notEqual((readGpp(most, undefined) as { why?: string }).why, 'more than 64 sections');
  });

  it('a GPP header of another type or version says which', () => {
    const header = (type: number, version: number) =>
      base64(`${type.toString(2).padStart(6, '0')}${version.toString(2).padStart(6, '0')}${'0'.repeat(12)}`);
    assert.throws(() => gppSectionIds(header(4, 1), 10), /^.*not a GPP header \(type is not 3\)$/);
    assert.throws(() => gppSectionIds(header(3, 2), 10), /GPP header version is not 1$/);
    assert.deepEqual(gppSectionIds(header(3, 1), 10), []);
  });

  it('an undecodable GPP string is a reading that says why', () => {
    const r = readGpp('garbage', undefined);
    assert.equal(r.ok, false);
  });

  it("reads the header's section ids as IAB Tech Lab's encoder writes them", () => {
    const m = new GppModel();
    m.setFieldValue('uspv1', 'OptOutSale', 'N');
    m.setFieldValue('usnat', 'SaleOptOut', 2);
    m.setFieldValue('usca', 'SaleOptOut', 2);
    m.setFieldValue('usco', 'SaleOptOut', 2);
    assert.deepEqual(gppSectionIds(m.encode().split('~')[0] as string, 10), m.getSectionIds());
  });

  it('a header naming a million sections is malformed, never expanded', () => {
    // Type 3, version 1, one entry: a range from 1 to 1,000,000.
    const header = base64(`000011000001${'000000000001'}1${fibonacci(1)}${fibonacci(999_999)}`);
    assert.ok(header.length < 20, header);
    const r = readGpp(`${header}~BVVVVVVVVWA.YA`, undefined);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.why, /names more sections than the 1 the string carries/);
  });

  it('the TCF EU section of the costliest size is handed back as it is, for the bounded TCF reader', () => {
    const m = new GppModel();
    m.setFieldValue('tcfeuv2', 'PurposeConsents', [false]);
    const header = m.encode().split('~')[0] as string;
    const worst = worstTcString(GPP_MAX_LENGTH - header.length - 1);
    const r = readGpp(`${header}~${worst}`, '2');
    assert.ok(r.ok && r.tcf === worst);
    const tcf = readTcf(worst);
    assert.ok(tcf.ok && tcf.purpose(1) && tcf.vendor(755));
    assert.ok(tcf.work() <= worst.length * 1.2, String(tcf.work()));
  });

  it('every US section a CMP writes still reads, opted out or not (the checks refuse noise only)', () => {
    const sections = ['usnat', 'usca', 'usva', 'usco', 'usut', 'usct'];
    for (const name of sections) {
      const m = new GppModel();
      m.setFieldValue(name, 'SaleOptOutNotice', 1);
      m.setFieldValue(name, 'SaleOptOut', 2);
      assert.deepEqual(readGpp(m.encode(), undefined), { ok: true }, `${name} not opted out`);
      m.setFieldValue(name, 'SaleOptOut', 1);
      assert.deepEqual(readGpp(m.encode(), undefined), { ok: true, optOut: `${name} SaleOptOut` }, name);
    }
  });

  describe('hostile GPP strings, each with its verdict', () => {
    // usnat's header (section 7); noise from a fixed generator, so each run reads the same strings.
    const header = 'DBABLA';
    let seed = 98;
    const noise = (length: number) =>
      Array.from({ length }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[seed % 64];
      }).join('');
    const cases: [string, string, RegExp][] = [
      [
        'a 16 KB usnat section',
        `${header}~${noise(GPP_MAX_LENGTH - header.length - 1)}`,
        /usnat section is \d+ characters/,
      ],
      ['a 257-character usnat section', `${header}~${noise(257)}`, /usnat section is 257 characters/],
      ...Array.from({ length: 200 }, (_, i): [string, string, RegExp] => [
        `base64 noise #${i + 1} as a usnat section`,
        `${header}~${noise(12 + (i % 40))}`,
        /usnat section's (version|\w+ holds a value)/,
      ]),
    ];
    it(`${cases.length} strings: malformed, never "no opt-out"`, () => {
      for (const [name, gpp, why] of cases) {
        const r = readGpp(gpp, undefined);
        assert.equal(r.ok, false, `${name}: ${JSON.stringify(r)}`);
        assert.match(r.ok ? '' : r.why, why, name);
      }
    });
  });

  it('a GPP string longer than the schema allows is malformed without being decoded', () => {
    const r = readGpp(`DBABMA~${'A'.repeat(GPP_MAX_LENGTH)}`, undefined);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.why, /^longer than 16384 characters/);
  });
});
