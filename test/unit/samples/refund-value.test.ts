/**
 * A refund's own amount is a refund event's value (issue #94, core/samples/refund-value.ts): where
 * nothing is the value, an amount in an object named as a refund, ruled out by that word alone,
 * is offered as the value, preselected, and asked about. An order's refund beside its total, and a
 * `refund_amount` in no refund object, stay what they were.
 */
import assert from 'node:assert/strict';
import { read } from '../../support/page-steps.ts';

const valueQuestion = (body: unknown) =>
  read(body).guesses.questions.find((q) => q.target === 'event_data' && q.field === 'value');

describe('the creator: a refund’s own amount', () => {
  it('asks about a refund entity’s amount as the value, preselected, its currency beside it', () => {
    const body = {
      event: 'refund.created',
      payload: { refund: { entity: { id: 'rfnd_1', amount: 50000, currency: 'INR', payment_id: 'pay_1' } } },
      created_at: 1700000000,
    };
    const { guesses } = read(body);
    assert.equal(guesses.value?.column, 'payload.refund.entity.amount');
    assert.equal(guesses.currency?.column, 'payload.refund.entity.currency');
    const q = valueQuestion(body);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['payload.refund.entity.amount'],
    );
    assert.equal(q?.noneGuessed, undefined);
  });

  it('reads a refund object’s refund_amount the same way', () => {
    const body = {
      type: 'REFUND_STATUS_WEBHOOK',
      data: {
        refund: { refund_id: 'r_9', refund_amount: 2, refund_currency: 'INR', refund_status: 'SUCCESS' },
      },
    };
    assert.equal(read(body).guesses.value?.column, 'data.refund.refund_amount');
    assert.ok(valueQuestion(body));
  });

  it('keeps an order’s total as the value beside the refund it carries', () => {
    const { guesses } = read({ order: { id: 'o_1', total: 80, currency: 'EUR', refund: { amount: 10 } } });
    assert.equal(guesses.value?.column, 'order.total');
  });

  it('offers no refund_amount that sits in no refund object', () => {
    const { guesses } = read({ order_id: 'o_2', refund_amount: 5, currency: 'USD' });
    assert.equal(guesses.value, undefined);
  });
});
