/**
 * The rules of core/samples/suggest.ts that suggest.test.ts's name cases do not hold: what the
 * values alone suggest when the name says nothing, a column always empty taking no target, the
 * tie of two equally sure columns, the numbering of columns kept under one own name, and a name
 * of no letters or digits matching nothing.
 */
import assert from 'node:assert/strict';
import { type SuggestColumn, suggestMappings } from '../../../core/samples/suggest.ts';

const brief = (columns: readonly (string | SuggestColumn)[]) =>
  suggestMappings(columns).map((s) => [
    s.column,
    s.target === 'event_data' ? `event_data ${s.field}` : s.target,
    s.confidence,
    s.reason,
  ]);

describe('the creator: the rules of a column’s suggestion', () => {
  it('what the values alone suggest, each with its confidence, when the name says nothing', () => {
    assert.deepEqual(
      brief([
        { name: 'x1', type: 'string', format: 'email' },
        { name: 'x2', type: 'string', format: 'phone' },
        { name: 'x3', type: 'string', format: 'country' },
        { name: 'x4', type: 'string', format: 'currency' },
        { name: 'x5', type: 'string', format: 'url' },
        { name: 'x6', type: 'timestamp' },
        { name: 'x7', type: 'string', format: 'uuid' },
      ]),
      [
        ['x1', 'user.email', 0.6, 'the values are email'],
        ['x2', 'user.phone', 0.5, 'the values are phone'],
        ['x3', 'user.country', 0.45, 'the values are country'],
        ['x4', 'event_data currency', 0.45, 'the values are currency'],
        ['x5', 'page.url', 0.4, 'the values are url'],
        ['x6', 'event_time', 0.4, 'the values are timestamp'],
        ['x7', 'event_data x_7', 0.5, 'no context field matches'],
      ],
    );
  });

  it('a column always empty takes no target, and leaves it to a column with values', () => {
    assert.deepEqual(
      brief([
        { name: 'email', empty: true },
        { name: 'contact', type: 'string', format: 'email' },
      ]),
      [
        ['email', 'event_data email', 0.5, 'no context field matches'],
        ['contact', 'user.email', 0.6, 'the values are email'],
      ],
    );
  });

  it('two columns equally sure of a target: the first in the sample takes it', () => {
    assert.deepEqual(brief(['email', 'Email', 'E-mail']), [
      ['email', 'user.email', 0.9, '"email" names user.email'],
      ['Email', 'event_data email', 0.5, 'user.email ("Email" names user.email) went to email'],
      ['E-mail', 'event_data e_mail', 0.5, 'user.email ("E-mail" names user.email) went to email'],
    ]);
  });

  it('columns kept under the same own name are numbered from 2, after a catalogue name given out', () => {
    assert.deepEqual(
      brief([
        { name: 'value', type: 'number' },
        { name: 'Value', type: 'number' },
        { name: 'VALUE', type: 'number' },
      ]).map(([column, to]) => [column, to]),
      [
        ['value', 'event_data value'],
        ['Value', 'event_data value_2'],
        ['VALUE', 'event_data value_3'],
      ],
    );
  });

  it('a name with no letter or digit matches no target', () => {
    assert.deepEqual(brief(['---', '_', ' ']), [
      ['---', 'event_data field', 0.5, 'no context field matches'],
      ['_', 'event_data field_2', 0.5, 'no context field matches'],
      [' ', 'event_data field_3', 0.5, 'no context field matches'],
    ]);
  });

  it('a word in a longer name says which word matched', () => {
    assert.deepEqual(
      brief(['billing_city', { name: 'shipping_country_code', type: 'string', format: 'country' }]),
      [
        ['billing_city', 'user.city', 0.6, '"city" in the name'],
        ['shipping_country_code', 'user.country', 0.68, '"countrycode" in the name and country values'],
      ],
    );
  });

  it('nesting lowers a currency’s confidence, and no other target’s', () => {
    assert.deepEqual(
      brief(['address.city', 'data.currency']).map(([column, to, confidence]) => [column, to, confidence]),
      [
        ['address.city', 'user.city', 0.6],
        ['data.currency', 'event_data currency', 0.57],
      ],
    );
  });

  it('a name the values contradict is not suggested at all', () => {
    assert.deepEqual(brief([{ name: 'email', type: 'integer' }]), [
      ['email', 'event_data email', 0.5, 'no context field matches'],
    ]);
  });
});
