/**
 * The money guesses' rules one at a time (core/samples/amounts.ts, docs/creator-inference.md
 * "Guesses"): each word of a partial sum, the exact shifts a name and its depth give, cents named
 * only in the leaf, each vendor known to send minor units told by its own columns, and which
 * columns hold whole numbers.
 */
import assert from 'node:assert/strict';
import {
  type AmountGuess,
  centsNamed,
  currencyNameShift,
  minorUnitsOffer,
  notTheValue,
  valueNameShift,
  wholeNumbers,
} from '../../../core/samples/amounts.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

const close = (got: number, want: number, what: string) =>
  assert.ok(Math.abs(got - want) < 1e-9, `${what}: ${got}`);
const field = (name: string, over: Partial<InferredField> = {}): InferredField => ({
  name,
  type: 'integer',
  nullable: false,
  examples: [2000],
  distinct: 1,
  ...over,
});

describe('the money guesses, rule by rule', () => {
  it('every word of the list rules a column out, however the words are spaced', () => {
    for (const name of ['discount', 'tva', 'payout', 'duration', 'length', 'Descuento'])
      assert.equal(notTheValue(`order_${name}`), name.toLowerCase(), name);
  });

  it('gives each name its exact shift: a total, a partial sum, depth and extra words', () => {
    const want: [string, number][] = [
      ['total', 0.03],
      ['grand', 0.03],
      ['amount', 0],
      ['subtotal', -0.1],
      ['line_amount', -0.11],
      ['items', -0.1],
      ['item', -0.1],
      ['unit_price', -0.11],
      ['net', -0.1],
      ['total_usd', 0.02],
      ['totals.value', -0.03 - 0.01],
      ['total.amount', 0.03 - 0.03 - 0.01],
      ['subtotal.amount', -0.1 - 0.03 - 0.01],
      ['price.tax_value', -0.03 - 0.01],
      ['value', 0],
      ['price.total', 0],
      ['a.b.amount_value', -0.06 - 0.01],
    ];
    for (const [name, shift] of want) close(valueNameShift(name), shift, name);
    close(currencyNameShift('currency'), 0, 'currency');
    close(currencyNameShift('data.details.currency_code'), -0.06, 'nested currency');
  });

  it('reads cents only in the leaf of a column', () => {
    assert.deepEqual(
      ['amount_cents', 'price_in_cents', 'data.cent', 'cents.amount', 'data.amount', 'percent'].map(
        centsNamed,
      ),
      [true, true, true, false, false, false],
    );
  });

  it('knows whole numbers: integers without a pattern, or text of digits only', () => {
    assert.equal(wholeNumbers(field('amount'), []), true);
    assert.equal(wholeNumbers(field('amount', { pattern: 'epoch_millis' }), []), false);
    assert.equal(wholeNumbers(field('amount', { type: 'number' }), []), false);
    const text = field('amount', { type: 'string', examples: ['65215'] });
    const rows = (...values: unknown[]) => values.map((amount) => ({ amount }));
    assert.equal(wholeNumbers(text, rows('65215', '-12', null, undefined)), true);
    assert.equal(wholeNumbers(text, rows('65215', '6.52')), false);
    assert.equal(wholeNumbers(text, rows('x65215')), false);
    assert.equal(wholeNumbers(text, rows('65215x')), false);
    assert.equal(wholeNumbers(text, rows('1234567890123456')), false);
    assert.equal(wholeNumbers(text, rows(65215)), false);
    assert.equal(wholeNumbers({ ...text, format: 'email' }, rows('1')), false);
    assert.equal(wholeNumbers({ ...text, distinct: 0 }, rows()), false);
  });
});

describe('the minor-units offer, vendor by vendor', () => {
  const value: AmountGuess = { column: 'amount', field: 'value', why: '' };
  const currency: AmountGuess = { column: 'currency', field: 'currency', why: '' };
  const offer = (...others: string[]) =>
    minorUnitsOffer(
      [field('amount'), field('currency', { type: 'string' }), ...others.map((n) => field(n))],
      value,
      currency,
      [],
    )?.why;
  const said = (columns: string[], name: string) => {
    const why = offer(...columns) ?? '';
    const want = `${name} sends amounts in minor units (2000 is 20.00 in a currency with cents)`;
    assert.ok(why.startsWith(want), why);
  };

  it('names the vendor its own columns tell apart', () => {
    said(['object', 'data.object.id'], 'Stripe');
    said(['notificationItems.amount'], 'Adyen');
    said(['NotificationRequestItem.x'], 'Adyen');
    said(['notification_id'], 'Paddle');
    said(['event_type', 'data.details.totals.grand_total'], 'Paddle');
    said(['meta.event_name', 'data.attributes.total'], 'Lemon Squeezy');
  });

  it('a vendor is told only by all of its columns', () => {
    const plain =
      /^amount holds whole numbers beside the currency column currency: if they are minor units \(2000 is 20\.00/;
    for (const columns of [
      ['object'],
      ['data.object.id'],
      ['event_type'],
      ['data.details.totals.grand_total'],
      ['meta.event_name'],
      ['data.attributes.total'],
    ])
      assert.match(offer(...columns) ?? '', plain, columns.join(' '));
  });

  it('says nothing of cents when the first example is no whole number, and offers nothing without the value column', () => {
    const odd = minorUnitsOffer(
      [field('amount', { examples: ['n/a'] }), field('currency')],
      value,
      currency,
      [],
    );
    assert.match(
      odd?.why ?? '',
      /^amount holds whole numbers beside the currency column currency: if they are minor units, scale them/,
    );
    assert.equal(minorUnitsOffer([field('currency')], value, currency, []), undefined);
  });
});
