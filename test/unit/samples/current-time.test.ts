/**
 * A time named as the current one is when the event happened (issue #94, core/samples/guess.ts
 * `TIME_RANKS`): a payment processor's notice carries `currentTime` (when it was raised) beside
 * the invoice's `invoiceTime`, an order hook `CurrentChange` beside `LastChange`; the record's
 * times ranked first. A name that starts with `current` now ranks as one that names when it
 * happened.
 */
import assert from 'node:assert/strict';
import { read } from '../../support/page-steps.ts';

describe('the creator: a time named as the current one', () => {
  it('takes an invoice notice’s currentTime over its invoiceTime', () => {
    const { guesses } = read({
      event: { code: 1005, name: 'invoice_confirmed' },
      data: {
        id: 'inv_1',
        invoiceTime: 1764000000000,
        currentTime: 1764000900000,
        price: 10,
        currency: 'USD',
      },
    });
    assert.equal(guesses.eventTime.column, 'data.currentTime');
  });

  it('takes an order hook’s CurrentChange over its LastChange', () => {
    const { guesses } = read({
      OrderId: 'v1-01',
      State: 'payment-approved',
      LastChange: '2026-01-02T10:00:00Z',
      CurrentChange: '2026-01-02T10:05:00Z',
    });
    assert.equal(guesses.eventTime.column, 'CurrentChange');
  });

  it('still ranks a creation time over a currency or an amount named current', () => {
    const { guesses } = read({
      id: 'o_1',
      created_at: '2026-01-02T10:00:00Z',
      current_total: 5,
      currency: 'EUR',
    });
    assert.equal(guesses.eventTime.column, 'created_at');
  });
});
