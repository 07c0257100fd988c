/**
 * The TC string's layout read bit by bit (core/consent/tcf.ts; IAB Tech Lab's "TCF v2 Consent
 * string and vendor list formats"): strings written here from their bits, not by an encoder, so
 * each section's form is chosen — a vendor bitfield and ranges at their bounds, a range that
 * claims more than MaxVendorId, a version other than 2, the segments looked at, the length limit
 * with whitespace around — and the work counted, and what is kept per string.
 */
import assert from 'node:assert/strict';
import { decodeTcf, readTcf, TCF_MAX_LENGTH } from '../../../core/consent/tcf.ts';
import { bitsToBase64 } from '../../support/tc-strings.ts';

const int = (value: number, width: number) => value.toString(2).padStart(width, '0');
/** A core segment: its version, 24 purpose bits, then a vendor section at bit 213. */
const core = (vendorSection: string, version = 2, purposes = '1'.repeat(24)) =>
  bitsToBase64(int(version, 6) + '0'.repeat(146) + purposes + '0'.repeat(37) + vendorSection);
/** A vendor bitfield over 1..maxId, then what follows it. */
const bitfield = (maxId: number, bits: string, after = '') => `${int(maxId, 16)}0${bits}${after}`;
/** A range section: each entry a vendor or an inclusive range. */
const ranges = (maxId: number, entries: ([number] | [number, number])[]) =>
  int(maxId, 16) +
  '1' +
  int(entries.length, 12) +
  entries.map((e) => (e.length === 1 ? `0${int(e[0], 16)}` : `1${int(e[0], 16)}${int(e[1], 16)}`)).join('');
/** A disclosed-vendors segment (type 1) over a bitfield. */
const disclosedSegment = (maxId: number, bits: string) => bitsToBase64(`001${bitfield(maxId, bits)}`);

const ok = (raw: string) => {
  const r = decodeTcf(raw);
  assert.ok(r.ok, r.ok ? '' : r.why);
  return r;
};

describe('consent: TC string sections read from their bits', () => {
  it('a vendor bitfield answers for 1..MaxVendorId only, whatever bits follow it', () => {
    const r = ok(core(bitfield(5, '10101', '111111')));
    assert.deepEqual(
      [-1, 0, 1, 2, 3, 4, 5, 6, 7].map((id) => r.vendor(id)),
      [false, false, true, false, true, false, true, false, false],
    );
  });

  it('a bitfield longer than the string is malformed', () => {
    assert.deepEqual(decodeTcf(core(bitfield(300, '1'))), { ok: false, why: 'ends too early' });
  });

  it('ranges hold both ends, single vendors, and nothing past MaxVendorId or below 1', () => {
    const r = ok(core(ranges(8, [[2, 4], [6], [0, 1], [7, 12]])));
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12].map((id) => r.vendor(id)),
      [false, true, true, true, true, false, true, true, true, false, false],
    );
  });

  it('counts its work: the characters read, the range entries, and each entry a lookup visits', () => {
    const first = core(ranges(8, [[2, 4], [6]]));
    const second = bitsToBase64('000');
    const r = ok(`${first}.${second}`);
    assert.equal(r.work(), first.length + 2 + second.length);
    r.vendor(6);
    assert.equal(r.work(), first.length + 2 + second.length + 2);
    r.vendor(99);
    assert.equal(r.work(), first.length + 2 + second.length + 2);
  });

  it('a version other than 2 is named', () => {
    assert.deepEqual(decodeTcf(core(bitfield(1, '1'), 1)), { ok: false, why: 'TC string version 1, not 2' });
  });

  it('purposes are read from bit 152, the first of them most significant', () => {
    const r = ok(core(bitfield(1, '1'), 2, `101${'0'.repeat(20)}1`));
    assert.deepEqual(
      [1, 2, 3, 4, 24].map((id) => r.purpose(id)),
      [true, false, true, false, true],
    );
  });

  it('the disclosed vendors are read from any of the four segments after the core one, not a fifth', () => {
    const base = core(bitfield(1, '1'));
    const other = bitsToBase64('000000');
    const disclosed = disclosedSegment(3, '011');
    const fourth = ok([base, other, other, other, disclosed].join('.'));
    assert.deepEqual(
      [1, 2, 3].map((id) => fourth.disclosed(id)),
      [false, true, true],
    );
    const fifth = ok([base, other, other, other, other, disclosed].join('.'));
    assert.equal(fifth.disclosed(2), undefined);
  });

  it('the longest string allowed is read, whitespace around it included; one more character is not', () => {
    const base = core(bitfield(1, '1'));
    const padded = `${base}${' '.repeat(TCF_MAX_LENGTH - base.length)}`;
    assert.equal(padded.length, TCF_MAX_LENGTH);
    assert.ok(ok(padded).vendor(1));
    assert.deepEqual(decodeTcf(`${padded} `), {
      ok: false,
      why: `longer than ${TCF_MAX_LENGTH} characters (${TCF_MAX_LENGTH + 1})`,
    });
  });
});

describe('consent: TC string readings kept per string', () => {
  it('the same string gives the same reading until 256 others have been read', () => {
    const s = core(bitfield(2, '11'));
    const first = readTcf(s);
    assert.equal(readTcf(s), first);
    for (let i = 1; i <= 256; i++) readTcf(core(bitfield(i + 2, '1'.repeat(i + 2))));
    const again = readTcf(s);
    assert.notEqual(again, first);
    assert.deepEqual([again.ok && again.vendor(2)], [true]);
  });
});
