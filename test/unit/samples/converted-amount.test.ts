/**
 * A converted or crypto amount beside the price is not the event's value (issue #94,
 * core/samples/converted-amount.ts): where the value was taken from an amount named crypto or
 * converted, and a price or an amount sits beside a currency code, the price is the value and the
 * converted amount is kept under its own name. A crypto amount alone stays the value.
 */
import assert from 'node:assert/strict';
import { read, targetOf } from '../../support/page-steps.ts';

describe('the creator: a converted or crypto amount beside the price', () => {
  it('takes the fiat amount, written as text, over the crypto amount paid (the old wrong fill)', () => {
    const { guesses } = read({
      id: 'evt_1',
      type: 'charge:complete',
      data: {
        name: 'Headphones',
        amount: '599',
        currency: 'CNY',
        crypto_amount: '0.352212',
        crypto_currency: 'ETH',
      },
    });
    assert.equal(guesses.value?.column, 'data.amount');
    assert.equal(guesses.currency?.column, 'data.currency');
    assert.equal(targetOf(guesses, 'data.crypto_amount'), 'event_data');
  });

  it('takes a price beside its currency over a crypto amount', () => {
    const { guesses } = read({
      id: 'e1',
      type: 'charge:confirmed',
      data: { price: '25', currency: 'EUR', crypto_amount: '0.00041', crypto_currency: 'BTC' },
    });
    assert.equal(guesses.value?.column, 'data.price');
  });

  it('takes an order’s amount over its conversion amount', () => {
    const { guesses } = read({
      id: 'e4',
      order: { conversion_amount: 12.5, amount: '1000', currency_code: 'JPY' },
    });
    assert.equal(guesses.value?.column, 'order.amount');
    assert.equal(guesses.currency?.column, 'order.currency_code');
  });

  it('keeps a crypto amount as the value when no price sits beside a currency', () => {
    const { guesses } = read({ id: 'e3', payment: { crypto_amount: 0.5, network: 'bitcoin' } });
    assert.equal(guesses.value?.column, 'payment.crypto_amount');
  });

  it('leaves a plain amount taken over a converted one as it was', () => {
    const { guesses } = read({
      id: 'e2',
      payment: { amount: 40.5, currency: 'GBP', converted_amount: 51.2, converted_currency: 'USD' },
    });
    assert.equal(guesses.value?.column, 'payment.amount');
  });
});
