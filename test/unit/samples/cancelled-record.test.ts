/**
 * A cancelled booking or order moves no money (issue #94, core/samples/cancelled-record.ts): its
 * amount is asked about, nothing preselected and no currency filled, where the event's name or the
 * record's status says it was cancelled; a refund said, a cancelled subscription, or a booking
 * paid keeps the value. Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { cancelledRecord } from '../../../core/samples/cancelled-record.ts';
import { fieldsOf, guesses, valueAsked } from '../../support/page-steps.ts';

describe('the creator: a cancelled booking or order moves no money', () => {
  it('asks about a cancelled booking’s price, named by its event or its status', () => {
    const stay = {
      event_type: 'booking_canceled',
      data: {
        id: 'bk1',
        status: 'canceled',
        currency: 'EUR',
        total_amount: 320,
        guest_email: 'g@example.com',
      },
    };
    assert.match(valueAsked(stay, 'data.total_amount').ask, /a cancellation moves no money/);
    valueAsked(
      { reservation: { id: 'r2', state: 'cancelled', amount: 75, currency: 'USD' } },
      'reservation.amount',
    );
    valueAsked({ topic: 'orders/cancelled', order: { id: 7, total: 19.9, currency: 'CAD' } }, 'order.total');
  });

  it('keeps the value where a refund is said, or the record is no booking or order', () => {
    for (const body of [
      { type: 'order.cancelled', order: { id: 'o', status: 'refunded', total: 40, currency: 'EUR' } },
      { event: 'booking.refunded', booking: { id: 'b', status: 'cancelled', amount: 50, currency: 'GBP' } },
      { type: 'subscription.cancelled', data: { id: 's', plan_price: 9, currency: 'USD', total: 9 } },
      { type: 'booking.paid', booking: { id: 'b2', status: 'confirmed', total: 60, currency: 'EUR' } },
    ])
      assert.ok(guesses(body).value, JSON.stringify(body));
    assert.equal(
      cancelledRecord(fieldsOf({ status: 'active', order: { total: 3 } }), 'order.total'),
      undefined,
    );
  });

  it('keeps a cancelled order’s price asked, though a later rule takes a price beside a currency', () => {
    // The price rule (price-value.ts) runs after it: the value a rule asked stays asked, nothing
    // preselected, no currency filled.
    valueAsked(
      {
        event: 'order.cancelled',
        order: { id: 'o1', status: 'cancelled', total_price: 45.5, currency: 'EUR' },
      },
      'order.total_price',
    );
    valueAsked(
      { data: { reservation: { id: 'r-9', state: 'canceled', total_price: 210, currency: 'USD' } } },
      'data.reservation.total_price',
    );
    // Nor does an amount whose digits are written as text beside the currency (guess.ts `textAmount`).
    valueAsked(
      { event: 'order.cancelled', order: { id: 'o1', amount: 45.5, total: '4550', currency: 'EUR' } },
      'order.amount',
    );
  });

  it('asks about a cancelled record’s amount written as text digits, as about a number', () => {
    // The amount written as text is taken as the value after the amount rules have run: the
    // cancellation is read again then.
    valueAsked(
      {
        event: 'booking.cancelled',
        booking: { id: 'b1', status: 'cancelled', total: '12000', currency: 'EUR' },
      },
      'booking.total',
    );
    valueAsked(
      {
        type: 'order.updated',
        data: { object: 'order', id: 'o1', status: 'canceled', amount: '4500', currency: 'USD' },
      },
      'data.amount',
    );
    // The same text amount on a paid order, or a refund said, is still the value.
    for (const body of [
      { event: 'order.paid', order: { id: 'o2', total: '12000', currency: 'EUR' } },
      {
        event: 'booking.cancelled',
        booking: { id: 'b3', status: 'refunded', total: '12000', currency: 'EUR' },
      },
    ])
      assert.ok(guesses(body).value, JSON.stringify(body));
  });

  it('still preselects a price beside its currency where no rule asked the value', () => {
    const g = guesses({
      event: 'order.paid',
      order: { id: 'o2', status: 'paid', total_price: 45.5, currency: 'EUR' },
    });
    assert.equal(g.value?.column, 'order.total_price');
    const q = g.questions.find((x) => x.field === 'value');
    assert.equal(q?.noneGuessed, undefined, 'preselected');
  });
});
