/**
 * Names in a sample (core/samples/names.ts): the words of a name (camelCase, accents, ß, digits
 * after letters, separators), the definition field name a column becomes, and column names made
 * unique without taking a name the sample already has.
 */
import assert from 'node:assert/strict';
import { fieldName, nameWords, uniqueNames } from '../../../core/samples/names.ts';

describe("the sample's names", () => {
  it('splits a name into its comparable words', () => {
    assert.deepEqual(
      ['eventType', 'Währung', 'Straße', 'value12', '2nd_item', '_a--b', 'E-Mail Adresse'].map(nameWords),
      [
        ['event', 'type'],
        ['wahrung'],
        ['strasse'],
        ['value', '12'],
        ['2nd', 'item'],
        ['a', 'b'],
        ['e', 'mail', 'adresse'],
      ],
    );
  });

  it('makes a definition field name: snake_case, a letter first, at most 64 characters', () => {
    assert.deepEqual(['E-Mail Adresse', '1st', '', '---', `${'a'.repeat(63)} b`].map(fieldName), [
      'e_mail_adresse',
      'f_1st',
      'field',
      'field',
      'a'.repeat(63),
    ]);
  });

  it('names empty columns by position and repeats with a suffix, never one the sample has', () => {
    assert.deepEqual(uniqueNames(['', 'column_1']), ['column_1_2', 'column_1']);
    assert.deepEqual(uniqueNames(['a', 'a', 'a_2']), ['a', 'a_3', 'a_2']);
    assert.deepEqual(
      uniqueNames(['Id', 'id'], (n) => n.toLowerCase()),
      ['Id', 'id_2'],
    );
  });
});
