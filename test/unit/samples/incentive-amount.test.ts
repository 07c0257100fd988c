/**
 * An incentive or reward offered is not the event's value (issue #94, core/samples/amounts.ts
 * `notTheValue`): an amount named or placed as an incentive, a reward, a bonus or cashback is
 * what the business offers for the act, not what the act is worth. It is never the value, and
 * with no other amount nothing is: the currency beside it is then no event's currency either.
 */
import assert from 'node:assert/strict';
import { notTheValue } from '../../../core/samples/amounts.ts';
import { read } from '../../support/page-steps.ts';

describe('the creator: an incentive or reward offered is not the value', () => {
  it('fills no value nor currency from an e-mail capture’s incentive (the old wrong fill)', () => {
    const { guesses } = read({
      id: 'wh_1',
      type: 'emailCapture',
      eventId: 'ev_1',
      emailAddress: 'friend@mail.example',
      incentive: { couponCode: 'WELCOME', amount: 30, currency: 'USD' },
    });
    assert.equal(guesses.value, undefined);
    assert.equal(guesses.currency, undefined);
  });

  it('takes an order’s price over the cashback amount beside it', () => {
    const { guesses } = read({ order: { id: 'o_5', cashback_amount: 4, price: 80, currency: 'EUR' } });
    assert.equal(guesses.value?.column, 'order.price');
  });

  it('reads a referral’s reward and a sign-up bonus as no value', () => {
    for (const body of [
      { event: 'referral.completed', reward: { amount: 10, currency: 'USD' } },
      { event: 'user.signed_up', bonus_amount: 5, currency: 'GBP' },
    ]) {
      assert.equal(read(body).guesses.value, undefined, JSON.stringify(body));
    }
  });

  it('says which word rules such an amount out', () => {
    assert.equal(notTheValue('incentive.amount'), 'incentive');
    assert.equal(notTheValue('data.rewards_total'), 'rewards');
    assert.equal(notTheValue('cashbackAmount'), 'cashback');
    assert.equal(notTheValue('order.amount'), undefined);
  });

  it('still takes a plain amount beside its currency', () => {
    const { guesses } = read({ event: 'payment.succeeded', payment: { amount: 25, currency: 'USD' } });
    assert.equal(guesses.value?.column, 'payment.amount');
  });
});
