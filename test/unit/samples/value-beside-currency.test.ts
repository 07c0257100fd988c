/**
 * Of several amounts asked about, the one beside a currency code (issue #94,
 * core/samples/price-value.ts `valueBesideCurrency` and its use in guess.ts): when the value's guess
 * has no currency in its own object and exactly one rival the question offers has, that rival is
 * preselected and becomes the value, the old guess still offered. Nothing moves when the guess has
 * its currency beside it, when no rival has one, or when several have.
 */
import assert from 'node:assert/strict';
import { fieldQuestion, guesses as guess, type PageGuesses } from '../../support/page-steps.ts';

const valueQuestion = (g: PageGuesses) => fieldQuestion(g, 'value');

/** A referral sale: the link's running total comes first, the sale's own amount beside its currency. */
const referral = {
  event: 'sale.created',
  link: { slug: 'spring', clicks: 120, saleAmount: 48000 },
  sale: { amount: 2500, currency: 'eur', invoice: 'in_31' },
};

describe('the creator: of rival amounts, the one beside its currency', () => {
  it('preselects the sale’s amount beside its currency over a link’s running total, still asking', () => {
    const g = guess(referral);
    assert.equal(g.value?.column, 'sale.amount');
    assert.equal(g.currency?.column, 'sale.currency');
    const q = valueQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['sale.amount', 'link.saleAmount'],
    );
    assert.match(
      q?.options[0]?.why ?? '',
      /beside the currency sale\.currency; link\.saleAmount has no currency beside it/,
    );
    const old = g.columns.find((c) => c.column === 'link.saleAmount');
    assert.equal(old?.field, 'link_sale_amount');
  });

  it('reads two amounts of the same name the same way: the one beside its currency', () => {
    const g = guess({ plan: { amount: 9900 }, checkout: { amount: 4500, currency: 'USD' } });
    assert.deepEqual([g.value?.column, g.currency?.column], ['checkout.amount', 'checkout.currency']);
    assert.deepEqual(
      valueQuestion(g)?.options.map((o) => o.column),
      ['checkout.amount', 'plan.amount'],
    );
  });

  it('leaves the guess when it has its own currency, when no rival has one, or when several have', () => {
    const own = guess({ order: { total: 30, currency: 'USD' }, refund_total: 0, cart: { amount: 31 } });
    assert.equal(own.value?.column, 'order.total');
    const none = guess({ link: { saleAmount: 48000 }, sale: { amount: 2500 }, currency: 'EUR' });
    assert.equal(none.value?.column, 'link.saleAmount', 'the currency sits beside neither');
    const two = guess({
      link: { saleAmount: 48000 },
      sale: { amount: 2500, currency: 'EUR' },
      invoice: { amount: 70, currency: 'EUR' },
    });
    assert.notEqual(
      two.value?.column,
      'sale.amount',
      'two rivals beside a currency: no evidence between them',
    );
  });
});
