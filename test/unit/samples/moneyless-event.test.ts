/**
 * An event that is no sale has no value (issue #94, core/samples/moneyless-event.ts): where the
 * event's name says it is an e-mail capture, a sign-up, an opt-in, a lead, a click, an open, a
 * delivery, a bounce or an unsubscribe, and names nothing sold, the amount taken as the value is
 * kept as a field and asked about with no answer preselected. An order's or a subscription's
 * amount, and an event whose name says nothing, stay the value.
 */
import assert from 'node:assert/strict';
import { noSale } from '../../../core/samples/moneyless-event.ts';
import { fieldsOf, read, valueAsked } from '../../support/page-steps.ts';

describe('the creator: an event that is no sale has no value', () => {
  it('asks, none preselected, about a lead’s value rather than fill it', () => {
    const body = { event: 'lead.created', payload: { id: 'l_1', name: 'Ana', value: 5000, currency: 'USD' } };
    valueAsked(body, 'payload.value');
  });

  it('reads a click, an e-mail capture and a sign-up as no sale', () => {
    assert.match(noSale(fieldsOf({ event: 'subscriber.clicked_email' })) ?? '', /clicked/);
    assert.match(noSale(fieldsOf({ type: 'emailCapture' })) ?? '', /email capture/);
    assert.match(noSale(fieldsOf({ event_type: 'user_sign_up' })) ?? '', /sign up/);
  });

  it('keeps the value of an event that names something sold, or names nothing', () => {
    assert.equal(noSale(fieldsOf({ type: 'order.delivered' })), undefined);
    assert.equal(noSale(fieldsOf({ event: 'subscription.created' })), undefined);
    assert.equal(noSale(fieldsOf({ event: 'payment_intent.succeeded' })), undefined);
    const { guesses } = read({ event: 'order.delivered', order: { id: 'o_1', total: 40, currency: 'EUR' } });
    assert.equal(guesses.value?.column, 'order.total');
  });

  it('reads the name only from one value at the top: a nested or varying one says nothing', () => {
    assert.equal(noSale(fieldsOf({ data: { event: 'lead.created' } })), undefined);
  });
});
