/**
 * A person's id under their party (issue #94, core/samples/party-id.ts and its use in guess.ts):
 * with no column taken or asked about as the person's id, an id named for a person's party
 * (`contact_id`) or the plain or user id of a person's party object (`requester.id`,
 * `sender.user_id`) is asked about: preselected when it is the only one, offered with no answer
 * preselected beside another, never filled silently; never a business party's or an actor's.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { clientOfPerson } from '../../../core/samples/party-id.ts';

/** The guesses for one body, with the person-id question and the columns taken as the person's id. */
function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  const ask = g.questions.find((q) => q.target === 'user_id');
  const taken = g.columns.filter((c) => c.target === 'user_id').map((c) => c.column);
  return { g, ask, taken };
}

describe('the creator: a person’s id under their party', () => {
  it('asks about a contact_id beside the contact’s details, preselected', () => {
    const { g, ask, taken } = read({
      id: 'evt-1',
      type: 'contact.created',
      list_id: 'list-9',
      contact_id: 'e3ab8c80-5f65',
      contact_email_address: 'claire@example.com',
    });
    assert.deepEqual(taken, ['contact_id']);
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['contact_id'],
    );
    assert.equal(ask?.noneGuessed, undefined);
    assert.equal(g.columns.find((c) => c.column === 'contact_id')?.confidence, 0.5);
  });

  it('asks about a requester’s id, never the assignee’s', () => {
    const { ask, taken } = read({
      event_id: 'e-1',
      data: {
        conversation: {
          assignee: { id: 'agent-1', name: 'Agent' },
          requester: { id: 'req-7', name: 'Contact Name' },
        },
      },
    });
    assert.deepEqual(taken, ['data.conversation.requester.id']);
    assert.ok(!ask?.options.some((o) => o.column.includes('assignee')));
  });

  it('asks about a sender’s user_id', () => {
    const { taken } = read({ category: 'message_send', sender: { user_id: 'Jeff', nickname: 'J' } });
    assert.deepEqual(taken, ['sender.user_id']);
  });

  it('offers several parties’ ids with no answer preselected', () => {
    const { ask, taken } = read({ message: { id: 'm1', sender_id: 5, recipient_id: 6 } });
    assert.ok(ask?.noneGuessed);
    assert.deepEqual(ask.options.map((o) => o.column).sort(), ['message.recipient_id', 'message.sender_id']);
    assert.deepEqual(taken, []);
  });

  it('offers no business party’s id, and asks nothing where the person’s id is taken', () => {
    assert.equal(read({ id: 'e1', merchant: { id: 'm-1' }, account_id: 'a-1' }).ask, undefined);
    const named = read({ id: 'e1', customer: { id: 'c-1', email: 'a@example.com' }, contact_id: 'k-2' });
    assert.ok(!named.ask?.options.some((o) => o.column === 'contact_id'));
  });

  it('asks about a client’s client_id as the person’s, where once it was a browser’s anonymous id', () => {
    for (const [body, column] of [
      [
        { appointmentId: 7, client: { clientId: 101, firstName: 'Ana', lastName: 'Lima' } },
        'client.clientId',
      ],
      [
        { entity_name: 'client', data: { client_id: 'k7zc', email: 'ana@example.com', first_name: 'Ana' } },
        'data.client_id',
      ],
      [{ ticket: { id: 9, subject: 'Help', client_id: 55, email: 'ana@example.com' } }, 'ticket.client_id'],
    ] as const) {
      const { g, ask, taken } = read(body);
      assert.equal(g.columns.find((c) => c.column === column)?.target, 'user_id', column);
      assert.deepEqual(taken, [column], column);
      assert.deepEqual(
        ask?.options.map((o) => o.column),
        [column],
        column,
      );
    }
  });

  it('keeps a client_id a browser’s anonymous id at the top, in a context, or beside no person', () => {
    for (const [body, column] of [
      [{ client_id: 'cid-5678', events: 'page_view', email: 'ana@example.com' }, 'client_id'],
      [{ context: { client_id: 'app-1', user_id: 'u-1' } }, 'context.client_id'],
      [{ data: { client_id: 'c-1', amount: 12, currency: 'EUR' } }, 'data.client_id'],
      [{ data: { client_id: 'c-1', app_name: 'Portal' } }, 'data.client_id'],
    ] as const)
      assert.equal(read(body).g.columns.find((c) => c.column === column)?.target, 'anonymous_id', column);
  });

  it('says why a client_id is a customer’s: the person’s party above it, or a person’s detail beside it', () => {
    const fieldsOf = (body: unknown) => inferFields(parseSample(JSON.stringify(body)));
    const inside = fieldsOf({ client: { clientId: 1 } });
    assert.equal(
      clientOfPerson(inside, 'client.clientId'),
      "a client's id, inside client: the client is a customer here, not a browser",
    );
    const beside = fieldsOf({ data: { client_id: 1, phone: '+14155550123' } });
    assert.equal(
      clientOfPerson(beside, 'data.client_id'),
      "a client's id, beside data.phone: the client is a customer here, not a browser",
    );
    // Another id, an e-mail in another object, or an always-empty detail says nothing.
    assert.equal(clientOfPerson(fieldsOf({ client: { account_id: 1 } }), 'client.account_id'), undefined);
    const elsewhere = fieldsOf({ data: { client_id: 1 }, user: { email: 'a@example.com' } });
    assert.equal(clientOfPerson(elsewhere, 'data.client_id'), undefined);
    const empty = fieldsOf({ data: { client_id: 1, email: null } });
    assert.equal(clientOfPerson(empty, 'data.client_id'), undefined);
  });
});
