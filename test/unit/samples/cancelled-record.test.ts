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
});
