/**
 * A document's total before it is paid or accepted is no value (issue #94,
 * core/samples/document-total.ts): a quote's, proposal's, contract's or document's total on its
 * creation, sending, viewing or change of state is asked about with no answer preselected, and no
 * currency is filled; its payment or acceptance keeps it as the value. Payloads invented for these
 * tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { unsettledDocument } from '../../../core/samples/document-total.ts';
import { fieldsOf, guesses, valueAsked } from '../../support/page-steps.ts';

describe('the creator: a document’s total before its payment or acceptance is no value', () => {
  it('asks, none preselected, about a drafted document’s grand total on its change of state', () => {
    const body = [
      {
        event: 'document_state_changed',
        data: {
          id: 'doc_1',
          status: 'document.draft',
          date_modified: '2026-05-01T09:00:00Z',
          grand_total: { amount: '120.00', currency: 'EUR' },
        },
      },
    ];
    assert.match(valueAsked(body, 'data.grand_total.amount').ask, /not yet paid or accepted/);
  });

  it('asks the same of a sent quote, a viewed proposal and a created contract', () => {
    for (const [body, column] of [
      [{ type: 'quote.sent', quote: { id: 'q_1', total: 990, currency: 'USD' } }, 'quote.total'],
      [
        { event: 'proposal_viewed', proposal: { id: 'p_2', amount: 450.5, currency: 'GBP' } },
        'proposal.amount',
      ],
      [
        { topic: 'created', data: { object: 'contract', id: 'k_3', total_amount: 1200, currency: 'EUR' } },
        'data.total_amount',
      ],
    ] as const) {
      assert.match(valueAsked(body, column).ask, /a (quote|proposal|contract) not yet paid/, column);
    }
  });

  it('keeps an accepted quote’s and a signed contract’s total as the value', () => {
    for (const [body, column] of [
      [{ type: 'quote.accepted', quote: { id: 'q_4', total: 990, currency: 'USD' } }, 'quote.total'],
      [
        {
          event: 'document_state_changed',
          data: { id: 'd_5', status: 'document.completed', total: 75, currency: 'EUR' },
        },
        'data.total',
      ],
    ] as const) {
      assert.equal(guesses(body).value?.column, column, column);
    }
  });

  it('keeps a paid invoice’s and a created order’s total as the value: no document is asked for', () => {
    const paid = guesses({ type: 'invoice.paid', invoice: { id: 'in_6', total: 30, currency: 'USD' } });
    assert.equal(paid.value?.column, 'invoice.total');
    const order = guesses({ type: 'order.created', order: { id: 'o_7', total: 64.9, currency: 'EUR' } });
    assert.equal(order.value?.column, 'order.total');
  });

  it('reads the kind from the event, the path or the record’s object, and the step from the event or the status', () => {
    assert.match(
      unsettledDocument(fieldsOf({ event: 'estimate.created', amount: 5 }), 'amount') ?? '',
      /estimate/,
    );
    assert.match(
      unsettledDocument(fieldsOf({ agreement: { status: 'sent', total: 5 } }), 'agreement.total') ?? '',
      /status is "sent"/,
    );
    assert.equal(unsettledDocument(fieldsOf({ event: 'quote.won', total: 5 }), 'total'), undefined);
    assert.equal(unsettledDocument(fieldsOf({ quote: { total: 5 } }), 'quote.total'), undefined);
    assert.equal(
      unsettledDocument(fieldsOf({ event: 'subscription.created', total: 5 }), 'total'),
      undefined,
    );
  });

  it('reads a status named for its record and a type column’s value where no event name is sent', () => {
    const quote = {
      id: 'a_1',
      quoteStatus: 'Viewed',
      dateViewed: '2026-03-01T08:00:00Z',
      client: { id: 'c_1', amount: 500, currency: 'EUR' },
    };
    assert.match(valueAsked(quote, 'client.amount').ask, /an amount on a quote not yet paid or accepted/);
    const contract = {
      id: 'a_2',
      state: 'created',
      record_type: 'Contract',
      details: { amount: 900, currency: 'USD' },
    };
    assert.match(valueAsked(contract, 'details.amount').ask, /a contract not yet paid/);
  });

  it('asks about a client’s rate on a proposal sent, whatever the amount is named', () => {
    // The wrong fill it answers: a rate on a proposal whose name is in its status and type columns.
    const fields = fieldsOf({
      id: 'p_1',
      proposalStatus: 'Sent',
      proposalType: 'Proposal',
      client: { id: 'c_2', hourlyAmount: 150, currency: 'USD' },
    });
    assert.match(
      unsettledDocument(fields, 'client.hourlyAmount') ?? '',
      /an amount on a proposal not yet paid or accepted: its status is "sent"/,
    );
  });

  it('keeps the value where the named status says signed, an invoice is drafted, or a type names an identity document', () => {
    const signed = guesses({
      id: 'a_3',
      proposal_status: 'signed',
      client: { id: 'c_3', amount: 500, currency: 'EUR' },
    });
    assert.equal(signed.value?.column, 'client.amount');
    const draft = guesses({
      id: 'a_4',
      invoiceStatus: 'draft',
      invoice: { id: 'i_1', total: 50, currency: 'EUR' },
    });
    assert.equal(draft.value?.column, 'invoice.total');
    const payer = guesses({
      id: 'a_5',
      status: 'created',
      document_type: 'CPF',
      document: '123',
      amount: 50,
      currency: 'BRL',
    });
    assert.equal(payer.value?.column, 'amount');
  });
});
