/**
 * The code lists (core/samples/codes.ts): exactly the 249 assigned ISO 3166-1 countries and the
 * 156 currencies in circulation, each a code of its length in capitals, and never a blank code,
 * which would make an empty cell a country or an empty fixed currency on the creator's page valid.
 */
import assert from 'node:assert/strict';
import { COUNTRY_CODES, CURRENCY_CODES } from '../../../core/samples/codes.ts';

const LISTS = [
  { name: 'countries', codes: COUNTRY_CODES, size: 249, form: /^[A-Z]{2}$/, some: ['AD', 'DE', 'US', 'ZW'] },
  { name: 'currencies', codes: CURRENCY_CODES, size: 156, form: /^[A-Z]{3}$/, some: ['AED', 'EUR', 'ZWG'] },
];

describe("the creator's code lists", () => {
  for (const list of LISTS)
    it(`holds the ${list.size} ${list.name}, each in capitals, and no blank code`, () => {
      assert.equal(list.codes.size, list.size);
      assert.equal(list.codes.has(''), false);
      assert.deepEqual(
        [...list.codes].filter((c) => !list.form.test(c)),
        [],
      );
      assert.deepEqual(
        list.some.filter((c) => !list.codes.has(c)),
        [],
      );
    });

  it('leaves out metals and test codes', () => {
    assert.deepEqual(
      ['XAU', 'XTS', 'XXX'].filter((c) => CURRENCY_CODES.has(c)),
      [],
    );
  });
});
