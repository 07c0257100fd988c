/**
 * A person record's own id taken as the event's (issue #94, core/samples/person-record.ts's
 * personRecordOwnIdQuestion): when the record the event is about is a person (their name beside
 * their contact details, no money) and its plain id is taken as the event's id, with nothing else
 * the person's id, the page offers that id as the person's too, with no answer preselected: it
 * keeps the event's id, and nothing is filled as the person's until the person picks. An order's
 * id, a record of no person, or a person's id already taken are left as they were.
 */
import assert from 'node:assert/strict';
import { guesses, takenAs, targetOf } from '../../support/page-steps.ts';

const personIdAsk = (g: ReturnType<typeof guesses>) =>
  g.questions.find((q) => q.target === 'user_id' && /record of a person/.test(q.options[0]?.why ?? ''));

describe('the creator: a person record’s own id taken as the event’s', () => {
  it('offers an updated partner’s own id as the person’s too, none preselected, the event id kept', () => {
    const g = guesses({
      type: 'affiliate.updated',
      data: { id: 'aff_9QwX2', first_name: 'Noor', last_name: 'Haddad', email: 'noor@example.net' },
    });
    assert.equal(targetOf(g, 'data.id'), 'event_id');
    const ask = personIdAsk(g);
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['data.id'],
    );
    assert.ok(ask?.noneGuessed, 'no answer preselected: the column keeps the event’s id');
    assert.match(ask.ask, /taken as the event's id/);
    assert.deepEqual(takenAs(g, 'user_id', 'user.external_id'), []);
  });

  it('reads a created person at the payload’s top the same way', () => {
    const g = guesses({
      id: 'c0ffee00-1111-4222-8333-944455556666',
      event_type: 'person.created',
      email: 'kai@example.org',
      first_name: 'Kai',
      last_name: 'Berg',
      phone: '+4915112345678',
    });
    assert.equal(targetOf(g, 'id'), 'event_id');
    assert.ok(personIdAsk(g)?.noneGuessed);
  });

  it('leaves an order’s id, a record of no person, and a person’s id taken alone', () => {
    const order = guesses({
      type: 'order.paid',
      data: {
        id: 'ord_1',
        total: 40,
        currency: 'EUR',
        first_name: 'Ana',
        last_name: 'Lima',
        email: 'a@example.com',
      },
    });
    assert.equal(personIdAsk(order), undefined, 'an order holds money: not the person');
    const ticket = guesses({
      type: 'ticket.created',
      data: { id: 't_77', subject: 'Help', email: 'b@example.com' },
    });
    assert.equal(personIdAsk(ticket), undefined, 'no name of a person beside the e-mail');
    const known = guesses({
      type: 'contact.updated',
      data: {
        id: 'ct_5',
        customer_id: 'cus_5',
        first_name: 'Ana',
        last_name: 'Lima',
        email: 'a@example.com',
      },
    });
    assert.equal(personIdAsk(known), undefined, 'the person’s id is taken or asked already');
  });
});
