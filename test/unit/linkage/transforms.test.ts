import assert from 'node:assert/strict';
import * as t from '../../../core/linkage/transforms.ts';

// Meta's own documented examples (customer-information parameters).
const JOHN_SMITH = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';
const PHONE_16505551212 = 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176';

describe('linkage transforms', () => {
  it('hashes a normalised e-mail to Meta’s documented digest', () => {
    assert.equal(t.sha256('John_Smith@gmail.com'.trim().toLowerCase()), JOHN_SMITH);
  });

  it('normalises (650)555-1212 in the US to 16505551212 and its documented digest', () => {
    const digits = t.phone('(650)555-1212', 'digits', 'US');
    assert.equal(digits, '16505551212');
    assert.equal(t.sha256(digits as string), PHONE_16505551212);
  });

  it('does not hash a value twice', () => {
    assert.equal(t.sha256(JOHN_SMITH), JOHN_SMITH);
    assert.equal(t.sha256(JOHN_SMITH.toUpperCase()), JOHN_SMITH);
    assert.ok(t.isSha256(JOHN_SMITH));
    assert.ok(!t.isSha256('abc'));
  });

  const phones: [string, 'e164' | 'digits', string | undefined, string | undefined][] = [
    ['+1 650 555 1212', 'e164', undefined, '+16505551212'],
    ['001 650 555 1212', 'digits', 'de', '16505551212'],
    ['1-650-555-1212', 'digits', 'us', '16505551212'],
    ['07700 900123', 'e164', 'GB', '+447700900123'],
    ['030 1234567', 'digits', 'de', '49301234567'],
    ['555-1212', 'digits', undefined, undefined],
    ['12', 'digits', 'us', undefined],
    ['+1234567890123456789', 'digits', undefined, undefined],
    // National numbers as each country writes them (E.164 per the ITU; Italy keeps its 0).
    ['06 6988 4000', 'e164', 'it', '+390669884000'],
    ['+44 (0)20 7946 0958', 'e164', undefined, '+442079460958'],
    ['020 7946 0958', 'digits', 'United Kingdom', '442079460958'],
  ];
  for (const [input, format, country, expected] of phones) {
    it(`phone ${JSON.stringify(input)} (${country ?? 'no country'}, ${format}) → ${expected}`, () => {
      assert.equal(t.phone(input, format, country), expected);
    });
  }

  it('normalises names, cities, states, zips, countries, genders, dates of birth as Meta documents', () => {
    assert.equal(t.personName('Valéry'), 'valéry');
    assert.equal(t.personName("O'Brien-Smith"), 'obriensmith');
    assert.equal(t.personName('정'), '정');
    assert.equal(t.city('Menlo Park'), 'menlopark');
    assert.equal(t.city('St. Louis 2'), 'stlouis');
    assert.equal(t.state('CA'), 'ca');
    assert.equal(t.state('California'), 'ca');
    assert.equal(t.zip('94025-1234', 'us'), '94025');
    assert.equal(t.zip('SW1A 1AA', 'gb'), 'sw1a1aa');
    assert.equal(t.zip('abc', 'us'), undefined);
    assert.equal(t.zip('100-0001', 'jp'), '1000001');
    assert.equal(t.zip('94025-1234', 'United States'), '94025');
    assert.equal(t.country(' US '), 'us');
    assert.equal(t.country('United States'), 'us');
    assert.equal(t.country('Germany'), 'de');
    assert.equal(t.country('Deutschland'), 'de');
    assert.equal(t.country('Royaume-Uni'), 'gb');
    assert.equal(t.country('UK'), 'gb');
    assert.equal(t.country('Atlantis'), undefined);
    assert.equal(t.gender('Female'), 'f');
    assert.equal(t.gender('M'), 'm');
    assert.equal(t.gender('x'), undefined);
    assert.equal(t.dateOfBirth('1990-02-28'), '19900228');
    assert.equal(t.dateOfBirth('28/02/1990'), undefined);
  });

  it('converts times to unix seconds and microseconds', () => {
    assert.equal(t.unixSeconds('2024-11-16T07:17:34.567Z'), 1731741454);
    assert.equal(t.unixSeconds(1731741454567), 1731741454);
    assert.equal(t.unixMicros('2024-11-16T07:17:34.567Z'), 1731741454567000);
    assert.equal(t.unixSeconds('not a time'), undefined);
  });

  it('converts numbers and strings, dropping what does not convert', () => {
    assert.equal(t.toNumber('49.90'), 49.9);
    assert.equal(t.toNumber(3), 3);
    assert.equal(t.toNumber('x'), undefined);
    assert.equal(t.toNumber(Number.NaN), undefined);
    assert.equal(t.toText(12), '12');
    assert.equal(t.toText({}), undefined);
  });
});
