/**
 * A currency named as a setting is not the value's (issue #94, core/samples/amounts.ts
 * `currencySetting` and its use in guess.ts): a `default_currency_id` or `preferredCurrency` says
 * what an account chose for what is to come, not what the amount beside the event is written in.
 * Wherever it sits it is kept under its own name and no currency is filled (the page asks for
 * one). Under a plain name, a currency stays the value's.
 */
import assert from 'node:assert/strict';
import { currencySetting } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const column = (g: ReturnType<typeof guess>, name: string) => g.columns.find((c) => c.column === name);

describe('the creator: a currency setting is not the value’s currency', () => {
  it('no longer fills an affiliate’s default currency as the sale’s: the currency is left to ask', () => {
    const g = guess({ affiliate_id: 7731, sale_amount: 120.5, default_currency_id: 'USD' });
    assert.equal(g.value?.column, 'sale_amount');
    assert.equal(g.currency, undefined);
    const c = column(g, 'default_currency_id');
    assert.equal(c?.field, 'default_currency_id');
    assert.match(c?.why ?? '', /"default" in its name: a setting/);
  });

  it('reads the setting in another object too, under other words', () => {
    const g = guess({
      order: { order_ref: 'A-19', total: 80 },
      account: { preferredCurrency: 'EUR', plan: 'team' },
    });
    assert.equal(g.value?.column, 'order.total');
    assert.equal(g.currency, undefined);
    assert.equal(
      currencySetting('settings.favourite_currency'),
      '"favourite" in its name: a setting, not the currency of an amount beside it',
    );
  });

  it('takes a plain currency beside the value over a setting elsewhere, and a plain one anywhere', () => {
    const both = guess({ default_currency: 'USD', price: { amount: 15, currency: 'GBP' } });
    assert.deepEqual([both.value?.column, both.currency?.column], ['price.amount', 'price.currency']);
    assert.equal(
      column(both, 'price.currency')?.why,
      'event field: the currency beside the value price.amount; default_currency is a setting',
    );
    const plain = guess({ sale_amount: 9, meta: { currency: 'JPY' } });
    assert.equal(plain.currency?.column, 'meta.currency');
    assert.equal(currencySetting('currency_code'), undefined);
    assert.equal(currencySetting('base.currency'), undefined, 'only the leaf’s own words count');
  });
});
