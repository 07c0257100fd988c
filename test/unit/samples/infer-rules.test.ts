/**
 * The rules of core/samples/infer.ts one by one (docs/testing.md, its mutation run): each word of
 * a currency's name, each name under which integers are epoch times (and the ranges' ends), each
 * flag and switch name, the JSON sender's digits as text, and what an enum, the examples, the
 * invalid rows, `text` and `loose` say.
 */
import assert from 'node:assert/strict';
import { type InferredField, inferFields } from '../../../core/samples/infer.ts';

/** Infers one column from its values (CSV cells are strings; other values as JSON gives them). */
function one(
  values: unknown[],
  name = 'x',
  more: { delimiter?: string; format?: 'json' | 'csv' } = {},
): InferredField {
  const rows = values.map((v) => (v === undefined ? {} : { [name]: v }));
  const [field] = inferFields({ columns: [name], rows, ...more });
  return field as InferredField;
}
const kind = (f: InferredField) => [f.type, f.format ?? f.pattern ?? ''].filter((x) => x !== '').join(' ');

describe('samples: inferring a column, rule by rule', () => {
  it('reads codes in any case as currencies under each word of a currency’s name', () => {
    for (const name of [
      'currencycode',
      'currency_code',
      'Waehrung',
      'devise',
      'moneda',
      'divisa',
      'valuta',
      'order_currency',
    ])
      assert.equal(kind(one(['usd', 'eur'], name)), 'string currency', name);
    for (const name of ['country_code', 'currency_rate', 'code'])
      assert.equal(kind(one(['usd', 'eur'], name)), 'string', name);
  });

  it('reads integers as epoch times under each name of a time, in any case', () => {
    for (const name of [
      'time',
      'Date',
      'paid_at',
      'at',
      'ts',
      'stamp',
      'epoch',
      'created',
      'UPDATED',
      'zeit',
      'datum',
      'fecha',
      'heure',
      'hora',
    ])
      assert.equal(kind(one([1709294400, 1709298000], name)), 'timestamp epoch_seconds', name);
    for (const name of ['attempts', 'rats', 'at_home', 'tsar', 'cats'])
      assert.equal(kind(one([1709294400, 1709298000], name)), 'integer', name);
  });

  it('reads integers as epoch times under an `Instant`, a point in time', () => {
    // A login event's `event.createInstant` (epoch milliseconds) was read as a plain integer.
    for (const name of ['createInstant', 'event.insertInstant', 'instant', 'last_login_instant'])
      assert.equal(kind(one([1505762615056, 1505762615999], name)), 'timestamp epoch_millis', name);
    assert.equal(kind(one([3, 4], 'instantCount')), 'integer');
  });

  it('reads integers as epoch times under a camel-case `At`, and only there', () => {
    // Once plain integers: a message's `sentAt` lost the event time to its `updatedAt`.
    for (const name of ['sentAt', 'lastActiveAt', 'joined2At', 'message.deliveredAt'])
      assert.equal(kind(one([1696934912, 1696934440], name)), 'timestamp epoch_seconds', name);
    assert.equal(kind(one([1696934912000, 1696934440000], 'readAt')), 'timestamp epoch_millis');
    // Case matters: a `chat`, a `format` or a `SEAT` number is no time, nor is a camel-case `At`
    // holding no epoch.
    for (const name of ['chat', 'format', 'SEAT', 'flatAT'])
      assert.equal(kind(one([1696934912, 1696934440], name)), 'integer', name);
    assert.equal(kind(one([3, 4], 'sentAt')), 'integer');
  });

  it('takes epoch seconds and milliseconds from 2001-09-09 to 2099-12-31, both ends included', () => {
    assert.equal(kind(one([1e9, 4102444800], 'ts')), 'timestamp epoch_seconds');
    assert.equal(kind(one([1e12, 4102444800000], 'ts')), 'timestamp epoch_millis');
    assert.equal(kind(one([1e9 - 1, 1e9], 'ts')), 'integer');
    assert.equal(kind(one([4102444801, 1e9], 'ts')), 'integer');
    assert.equal(kind(one([1e12 - 1, 1e12], 'ts')), 'integer');
    assert.equal(kind(one([4102444800001, 1e12], 'ts')), 'integer');
  });

  it('keeps a JSON sender’s integers written as text as text, but not its times or decimals', () => {
    const json = { format: 'json' as const };
    assert.deepEqual(
      [one(['727', '94103'], 'zip', json).type, one(['727', '94103'], 'zip', json).text],
      ['string', undefined],
    );
    assert.equal(kind(one(['1709294400'], 'created', json)), 'timestamp epoch_seconds');
    assert.equal(one(['29.35', '3'], 'price', json).type, 'number');
    assert.equal(one([727, 94103], 'zip', json).type, 'integer');
    assert.equal(one(['727', '94103'], 'zip', { format: 'csv' }).type, 'integer');
    assert.equal(one(['727', '94103'], 'zip', { format: 'ndjson' } as never).type, 'string');
  });

  it('reads 0 and 1 as yes/no under each flag name, and as integers elsewhere', () => {
    for (const name of [
      'is_member',
      'hasCard',
      'can-edit',
      'should_send',
      'was_sent',
      'isactive',
      'vip_flag',
      'news opt-in',
      'active',
      'Enabled',
      'flag',
      'optin',
    ])
      assert.equal(one(['0', '1'], name).type, 'boolean', name);
    for (const name of ['list', 'flags', 'inactive', 'member', 'options'])
      assert.equal(one(['0', '1'], name).type, 'integer', name);
  });

  it('reads on and off as yes/no only under a switch or flag name', () => {
    for (const name of [
      'consent',
      'opt_in',
      'newsletter',
      'accepts_marketing',
      'Marketing',
      'subscribe',
      'agree',
      'accept',
      'terms',
      'gdpr',
      'checkbox',
      'enabled',
      'active',
      'is_ok',
      'has-card',
      'email_flag',
    ])
      assert.equal(one(['on', 'off'], name).type, 'boolean', name);
    for (const name of ['province', 'light', 'this_is'])
      assert.equal(one(['on', 'off'], name).type, 'string', name);
  });

  it('reads yes/no only when every value is one, and 0/1 beside a word', () => {
    assert.equal(one(['yes', '1', '0'], 'x').type, 'boolean');
    assert.equal(one(['yes', 'no', 'maybe'], 'x').type, 'string');
    assert.equal(one(['on', 'yes'], 'consent').type, 'boolean');
    assert.equal(one(['on', 'yes'], 'x').type, 'string');
  });

  it('writes the decimal comma only when a value has a separator', () => {
    assert.deepEqual([kind(one(['1', '2'], 'x', { delimiter: ';' }))], ['integer']);
    assert.equal(kind(one(['1,5', '2'], 'x', { delimiter: ';' })), 'number decimal_comma');
    assert.equal(kind(one(['1.234', '2'], 'x', { delimiter: ';' })), 'integer decimal_comma');
  });

  it('lists an enum of at most 10 values of at most 64 characters, each seen twice on average', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `v${i}`);
    assert.deepEqual(one([...ten, ...ten]).enum, ten);
    assert.equal(one([...ten, 'v10', ...ten, 'v10']).enum, undefined);
    assert.deepEqual(one(['a', 'b', 'a', 'b']).enum, ['a', 'b']);
    assert.equal(one(['a', 'b', 'a']).enum, undefined);
    const long = 'x'.repeat(64);
    assert.deepEqual(one([long, long]).enum, [long]);
    assert.equal(one([`${long}x`, `${long}x`]).enum, undefined);
    assert.equal(one(['a@b.co', 'a@b.co']).enum, undefined, 'a format says more');
    assert.equal(one([1, 1]).enum, undefined);
    assert.equal(one(['', null]).enum, undefined);
  });

  it('gives three examples at most, and the rows that do not fit only', () => {
    assert.deepEqual(one(['a', 'b', 'c', 'd']).examples, ['a', 'b', 'c']);
    const values = Array.from({ length: 20 }, (_, i) => String(i));
    values[3] = 'n/a';
    assert.deepEqual(one(values, 'x').invalid, [3]);
    assert.equal(one(['1', '2']).invalid, undefined);
    assert.equal(one(['a', 'b']).invalid, undefined);
  });

  it('says which values are written as text, and which formats the definition would refuse', () => {
    assert.equal(one(['1', '2']).text, true);
    assert.equal(one([1, 2]).text, undefined);
    assert.equal(one(['{"a":1}']).text, undefined);
    assert.equal(one(['ok']).text, undefined);
    assert.equal(one(['(030) 123-4567', '+49 170 1234567']).loose, true);
    assert.equal(one(['+491701234567']).loose, undefined);
    assert.equal(one(['at', 'de']).loose, true);
    assert.equal(one([' usd', 'EUR '], 'currency').loose, undefined);
  });

  it('takes the share a reading must fit from the options', () => {
    const rows = ['1', '2', 'x', 'y'].map((x) => ({ x }));
    assert.equal(inferFields({ columns: ['x'], rows }, { minShare: 0.5 })[0]?.type, 'integer');
    assert.equal(inferFields({ columns: ['x'], rows })[0]?.type, 'string');
  });
});
