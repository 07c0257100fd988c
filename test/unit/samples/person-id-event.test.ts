/**
 * The person's id where no event id is (issue #94, core/samples/person-id-event.ts): where nothing
 * is taken or asked as the event's id and the event's name says a person's record changed
 * (created, updated, amended), the person's id is offered as the event's id with nothing
 * preselected, and stays the person's; a login, a conversion or a message is not asked about.
 * Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { personRecordChange } from '../../../core/samples/person-id-event.ts';
import { fieldsOf, guesses, isPersonId } from '../../support/page-steps.ts';

/** The page's question on the event's id for `body`, if it asks one. */
const eventAsk = (body: unknown) => guesses(body).questions.find((q) => q.target === 'event_id');

describe('the creator: the person’s id where no event id is', () => {
  it('offers, none preselected, an end user’s id on their record’s creation, keeping it the person’s', () => {
    const body = {
      type: 'v2.end_user.created',
      timestamp: '2025-04-01T08:00:00Z',
      data: { end_user_id: '66a1b2c3d4', profile: { first_name: 'Rui', email: 'rui@example.com' } },
    };
    const q = eventAsk(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.end_user_id'],
    );
    const id = guesses(body).columns.find((c) => c.column === 'data.end_user_id');
    assert.ok(isPersonId(id?.target), 'still the person’s id');
  });

  it('reads a template’s and a notification name’s words for a customer’s update or amendment', () => {
    for (const body of [
      {
        customerHashId: '85c2-44aa',
        template: 'CARD_CUSTOMER_UPDATE_WEBHOOK',
        fields: { email: 'a@example.com' },
      },
      { notificationName: 'customer amended', customer: { customerId: 'c-71', email: 'b@example.com' } },
    ])
      assert.match(personRecordChange(fieldsOf(body)) ?? '', /customer/i, JSON.stringify(body));
  });

  it('asks nothing of a login, a message, or where the event already has an id', () => {
    for (const body of [
      { event: 'login', user: { id: 'u1', email: 'c@example.com' } },
      { event: 'message_created', contact: { uuid: 'k-1', name: 'Lu' } },
      { id: 'evt_9', type: 'customer.updated', customer: { id: 'cus_2', email: 'd@example.com' } },
    ])
      assert.ok(
        !eventAsk(body)?.options.some((o) => /user\.id|contact\.uuid|customer\.id/.test(o.column)),
        JSON.stringify(body),
      );
  });
});
