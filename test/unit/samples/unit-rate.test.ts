/**
 * A rate is no value (issue #94, core/samples/unit-rate.ts): an amount named as a rate or a price
 * per unit (hourly, daily, monthly, per seat, per unit, a tariff) is what something would cost, so
 * unless the event charges it and no total stands beside it, it is kept as a field and asked about
 * with no answer preselected, and no currency is filled. Payloads invented for these tests, in
 * several shapes.
 */
import assert from 'node:assert/strict';
import { rateNotCharged, rateWord } from '../../../core/samples/unit-rate.ts';
import { fieldsOf, guesses, valueAsked } from '../../support/page-steps.ts';

describe('the creator: a rate is no value', () => {
  it('asks, none preselected, about a client’s hourly amount on a sent proposal whose name is only in its status', () => {
    // The shape of the wrong fill it answers: no event name in the body, the rate on the client.
    const body = {
      id: 'ag_1',
      dateSent: '2026-04-02T10:00:00Z',
      client: { id: 'cl_1', name: 'Northwind', hourlyAmount: 120, currency: 'USD' },
      agreementStatus: 'Sent',
    };
    assert.match(valueAsked(body, 'client.hourlyAmount').ask, /A rate says what something would cost/);
  });

  it('asks the same of a member’s hourly amount, a per-seat amount and a tariff’s amount on events that charge nothing', () => {
    for (const [body, column] of [
      [
        {
          type: 'member.updated',
          member: { id: 'm_1', hourly_amount: 80, currency: 'GBP', email: 'a@example.com' },
        },
        'member.hourly_amount',
      ],
      [
        { type: 'seat.added', data: { id: 's_1', amount_per_seat: 12, currency: 'EUR' } },
        'data.amount_per_seat',
      ],
      [{ event: 'tariff.changed', tariff: { id: 'tf_1', amount: 0.25, currency: 'EUR' } }, 'tariff.amount'],
    ] as const) {
      assert.match(valueAsked(body, column).ask, /Is .* the event's value\? A rate/, column);
    }
  });

  it('asks about a subscription’s unit amount on its creation: no charge yet', () => {
    const body = {
      type: 'subscription.created',
      subscription: { id: 'sub_1', unit_amount: 2900, currency: 'USD' },
    };
    assert.match(
      rateNotCharged(fieldsOf(body), 'subscription.unit_amount') ?? '',
      /unit, a rate, and the event is "subscription.created", which charges nothing/,
    );
    valueAsked(body, 'subscription.unit_amount');
  });

  it('keeps a rate as the value where the event charges it and no total stands beside it', () => {
    const renewed = guesses({
      type: 'subscription.renewed',
      subscription: { id: 'sub_2', monthly_amount: 29, currency: 'USD' },
    });
    assert.equal(renewed.value?.column, 'subscription.monthly_amount');
    assert.equal(renewed.currency?.column, 'subscription.currency');
    const paid = guesses({ type: 'invoice.paid', data: { id: 'in_1', unit_amount: 1200, currency: 'eur' } });
    assert.equal(paid.value?.column, 'data.unit_amount');
  });

  it('keeps an order’s total as the value beside its unit amount', () => {
    const g = guesses({
      type: 'order.paid',
      order: { id: 'o_1', unit_amount: 12, grand_total: 36, currency: 'EUR' },
    });
    assert.equal(g.value?.column, 'order.grand_total');
  });

  it('says a rate beside a total is not what a charging event charged, and a count named total is no total', () => {
    const fields = fieldsOf({ type: 'order.paid', order: { unit_amount: 12, total_price: 36 } });
    assert.match(rateNotCharged(fields, 'order.unit_amount') ?? '', /beside a total \(order.total_price\)/);
    const hours = fieldsOf({ type: 'timesheet.paid', hourly_amount: 80, total_hours: 8 });
    assert.equal(rateNotCharged(hours, 'hourly_amount'), undefined);
  });

  it('reads the rate in the amount’s name or its money object’s key, and nowhere else', () => {
    assert.equal(rateWord('client.hourlyAmount'), 'hourly');
    assert.equal(rateWord('price_per_seat'), 'per');
    assert.equal(rateWord('daily_rate.amount'), 'daily');
    assert.equal(rateWord('lines.0.unit_price'), 'unit');
    assert.equal(rateWord('rates.total'), undefined);
    assert.equal(rateWord('amount'), undefined);
    assert.equal(rateWord('lead.Annual_Revenue'), undefined);
    assert.equal(rateWord('personal_amount'), undefined);
  });
});
