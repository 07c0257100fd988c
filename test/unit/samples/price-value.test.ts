/**
 * A price beside its currency (issue #94, core/samples/price-value.ts and its use in guess.ts):
 * with no column named as the value, a number named as a price (`price`, `offerPrice`) that sits
 * in one record beside a column of currency codes is offered as the event's value, asked about
 * with it preselected, never filled without asking; its currency follows it. A unit's price, a
 * price with no currency beside it, or a price beside a named amount is left as it was.
 */
import assert from 'node:assert/strict';
import { fieldQuestion, guesses as guess, type PageGuesses } from '../../support/page-steps.ts';

const valueQuestion = (g: PageGuesses) => fieldQuestion(g, 'value');

/** A store's payment: what was paid is `payment.price`, in `payment.currency`. */
const payment = {
  payment: { txn_id: 'TX-88121', price: 12.5, currency: 'EUR', status: 'complete' },
  customer: { email: 'ana@example.com', name: 'Ana Silva' },
};

describe('the creator: a price beside its currency', () => {
  it('offers a price beside a currency code as the value, asked about, preselected', () => {
    const g = guess(payment);
    assert.equal(g.value?.column, 'payment.price');
    const q = valueQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['payment.price'],
    );
    assert.equal(q?.noneGuessed, undefined, 'the price is preselected');
    const c = g.columns.find((x) => x.column === 'payment.price');
    assert.equal(c?.field, 'value');
    assert.equal(c?.confidence, 0.5, 'a question’s guess is no certainty');
    assert.match(c?.why ?? '', /price beside the currency payment\.currency/);
  });

  it('takes the currency beside the price as the value’s currency', () => {
    assert.equal(guess(payment).currency?.column, 'payment.currency');
  });

  it('leaves a price with no currency code beside it in its record as a field', () => {
    const g = guess({ product: { id: 'p_1', price: 30 }, order: { currency: 'USD', status: 'paid' } });
    assert.equal(g.value, undefined);
    assert.equal(valueQuestion(g), undefined);
  });

  it('leaves a unit’s price as a field: it is not what the event is worth', () => {
    const g = guess({ unit_price: 4.5, quantity: 3, currency: 'GBP', id: 'ord_1' });
    assert.equal(g.value, undefined);
  });

  it('keeps a named amount as the value, the price beside it a field', () => {
    const g = guess({ amount: 25, price: 30, currency: 'USD', id: 'pay_1' });
    assert.equal(g.value?.column, 'amount');
    assert.ok(!valueQuestion(g)?.options.some((o) => o.column === 'price'));
  });

  it('prefers the payload’s own price over a nested one, offering both', () => {
    const g = guess({ price: 10, currency: 'USD', offer: { price: 8, currency: 'USD' } });
    assert.equal(g.value?.column, 'price');
    assert.deepEqual(
      valueQuestion(g)?.options.map((o) => o.column),
      ['price', 'offer.price'],
    );
  });

  it('offers a price named in any language the synonyms cover', () => {
    for (const w of ['price', 'preis', 'prix', 'precio', 'prezzo', 'preco']) {
      assert.equal(guess({ id: 'ord_1', [w]: 12.5, currency: 'EUR' }).value?.column, w, w);
    }
  });

  it('leaves any part’s or former price as a field: unit, item, line, list, base, original, compare…', () => {
    for (const w of 'unit item items line per each list base original old compare'.split(' ')) {
      const g = guess({ id: 'ord_1', [`${w}_price`]: 12.5, currency: 'EUR' });
      assert.equal(g.value, undefined, w);
      assert.equal(valueQuestion(g), undefined, w);
    }
  });

  it('offers at most three prices, the first preselected, each saying its currency', () => {
    const priced = (price: number) => ({ price, currency: 'USD' });
    const g = guess({ a: priced(1), b: priced(2), c: priced(3), d: priced(4) });
    assert.equal(g.value?.column, 'a.price');
    const q = valueQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => [o.column, o.why]),
      [
        ['a.price', 'a number named as a price, beside the currency a.currency'],
        ['b.price', 'a number named as a price, beside the currency b.currency'],
        ['c.price', 'a number named as a price, beside the currency c.currency'],
      ],
    );
    assert.match(q?.ask ?? '', /^Is a\.price the event's value\? .*beside the currency a\.currency/);
  });

  it('leaves a price whose currency sits in another record, above or below it', () => {
    assert.equal(guess({ price: 10, offer: { currency: 'USD' } }).value, undefined);
    assert.equal(guess({ offer: { price: 10 }, currency: 'USD' }).value, undefined);
  });

  it('leaves a price written as text to the rules for text amounts, not to this one', () => {
    assert.equal(valueQuestion(guess({ id: 'ord_1', price: 'ten', currency: 'USD' })), undefined);
  });

  it('offers a price named with another word before it, listed before or after its currency', () => {
    assert.equal(guess({ id: 'ord_1', offerPrice: 12.5, currency: 'EUR' }).value?.column, 'offerPrice');
    assert.equal(guess({ currency: 'EUR', price: 12.5, id: 'ord_1' }).value?.column, 'price');
  });

  it('prefers the payload’s own price even when a nested one is listed first', () => {
    const g = guess({ offer: { price: 8, currency: 'USD' }, price: 10, currency: 'USD' });
    assert.equal(g.value?.column, 'price');
    // By depth, not by the length of the name.
    assert.equal(
      guess({ a: { price: 8, currency: 'USD' }, sale_price: 10, currency: 'USD' }).value?.column,
      'sale_price',
    );
    assert.deepEqual(
      valueQuestion(g)?.options.map((o) => o.column),
      ['price', 'offer.price'],
    );
  });
});
