/**
 * An estimate is no value (issue #94, core/samples/estimated-value.ts): an amount named as an
 * estimate, a forecast, a projection, an expected, potential or weighted value is not money that
 * changed hands, so where the event's name does not say it was realised (a deal won, a quote
 * accepted, an order paid) it is kept as a field and asked about with no answer preselected, and
 * no currency is filled. Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { estimateWord, realised } from '../../../core/samples/estimated-value.ts';
import { fieldsOf, read, valueAsked } from '../../support/page-steps.ts';

const valueQuestion = (body: unknown) =>
  read(body).guesses.questions.find((q) => q.target === 'event_data' && q.field === 'value');

describe('the creator: an estimate is no value', () => {
  it('asks, none preselected, about a created deal’s estimated value rather than fill it and its currency', () => {
    const body = {
      type: 'deal.created',
      data: {
        deal_id: 'd_9',
        estimated_value: 12000,
        currency: 'EUR',
        contact: { email: 'kim@example.com' },
      },
    };
    assert.match(valueAsked(body, 'data.estimated_value').ask, /estimated/);
  });

  it('asks the same of an opportunity’s expected revenue and a pipeline’s forecast amount', () => {
    for (const body of [
      { event: 'opportunity.updated', opportunity: { id: 'op_1', expected_revenue: 800.5, currency: 'GBP' } },
      { event_type: 'pipeline_changed', record: { id: 'r_4', forecast_amount: 3000, currency_code: 'USD' } },
    ]) {
      const { guesses } = read(body);
      assert.equal(guesses.value, undefined, JSON.stringify(body));
      assert.ok(valueQuestion(body)?.noneGuessed, JSON.stringify(body));
    }
  });

  it('keeps a won deal’s estimated value as the value: the event realises it', () => {
    const { guesses } = read({
      type: 'deal.won',
      data: { id: 'd_2', estimated_value: 5400, currency: 'USD' },
    });
    assert.equal(guesses.value?.column, 'data.estimated_value');
    assert.equal(guesses.currency?.column, 'data.currency');
  });

  it('keeps an order’s total as the value: no estimate is named', () => {
    const { guesses } = read({ type: 'order.created', order: { id: 'o_7', total: 64.9, currency: 'EUR' } });
    assert.equal(guesses.value?.column, 'order.total');
  });

  it('keeps a plain amount as the value on an event that realises nothing: only the name says estimate', () => {
    const { guesses } = read({
      type: 'subscription.updated',
      subscription: { id: 's_3', amount: 19, currency: 'USD' },
    });
    assert.equal(guesses.value?.column, 'subscription.amount');
  });

  it('reads estimate words in the path and realising words in the event’s name', () => {
    assert.equal(estimateWord('quote.projectedTotal'), 'projected');
    assert.equal(estimateWord('lead.potential_value'), 'potential');
    assert.equal(estimateWord('deal.amount'), undefined);
    assert.equal(realised(fieldsOf({ event: 'quote.accepted' })).yes, true);
    assert.equal(realised(fieldsOf({ event: 'invoice.paid' })).yes, true);
    assert.equal(realised(fieldsOf({ event: 'deal.closed_lost' })).yes, false);
    assert.equal(realised(fieldsOf({ event: 'quote.sent' })).yes, false);
    assert.equal(realised(fieldsOf({ data: { event: 'deal.won' } })).yes, false);
  });
});
