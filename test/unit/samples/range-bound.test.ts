/**
 * An end of a range is no value (issue #94, core/samples/range-bound.ts): an amount named as a
 * lower or upper bound, a minimum or maximum, a floor, ceiling, limit, threshold or cap says how
 * much may or must change hands, not how much did, so it is kept as a field and asked about with
 * no answer preselected, and no currency is filled. Payloads invented for these tests, in several
 * shapes.
 */
import assert from 'node:assert/strict';
import { boundWord } from '../../../core/samples/range-bound.ts';
import { guesses, valueAsked } from '../../support/page-steps.ts';

describe('the creator: an end of a range is no value', () => {
  it('asks, none preselected, about an expected payment’s lower bound rather than fill it and its currency', () => {
    const body = {
      id: 'evt_71',
      event_name: 'matched',
      event_time: '2026-03-02T10:00:00Z',
      data: {
        id: 'xp_4',
        amount_lower_bound: 25000,
        amount_upper_bound: 26000,
        currency: 'USD',
        direction: 'credit',
      },
    };
    assert.match(valueAsked(body, 'data.amount_lower_bound').ask, /a bound/);
  });

  it('asks the same of a card’s maximum amount, a rule’s minimum amount and a flat alert threshold', () => {
    for (const [body, column] of [
      [{ type: 'card.updated', card: { id: 'c_1', max_amount: 500, currency: 'EUR' } }, 'card.max_amount'],
      [{ event: 'rule.changed', rule: { id: 'r_2', minAmount: 10.5, currency: 'GBP' } }, 'rule.minAmount'],
      [{ topic: 'alert', alert_id: 'a_3', threshold_amount: 90, currency: 'USD' }, 'threshold_amount'],
    ] as const) {
      assert.match(valueAsked(body, column).ask, /one end of a range/, column);
    }
  });

  it('keeps a payment’s amount as the value beside a limit it was checked against', () => {
    const g = guesses({
      type: 'payment.succeeded',
      payment: { id: 'p_9', amount: 42, currency: 'EUR', limit: { daily: 1000 } },
    });
    assert.equal(g.value?.column, 'payment.amount');
    assert.equal(g.currency?.column, 'payment.currency');
  });

  it('keeps an order’s total as the value: nothing bounds it', () => {
    const g = guesses({ type: 'order.paid', order: { id: 'o_5', total: 88.2, currency: 'USD' } });
    assert.equal(g.value?.column, 'order.total');
  });

  it('reads the bound words among a path’s words, not inside other words', () => {
    assert.equal(boundWord('data.amount_lower_bound'), 'a bound');
    assert.equal(boundWord('plan.maxPrice'), 'a maximum');
    assert.equal(boundWord('price_floor'), 'a floor');
    assert.equal(boundWord('amount_capturable'), undefined);
    assert.equal(boundWord('minute_rate'), undefined);
    assert.equal(boundWord('total'), undefined);
  });
});
