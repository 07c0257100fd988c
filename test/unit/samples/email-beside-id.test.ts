/**
 * The e-mail kept beside the person's id (issue #94, core/samples/email-beside-id.ts): where the
 * person's id is read in an object and the page asks about the person's e-mail, an address in
 * that object is preselected, the columns offered before kept after it; nothing is filled without
 * asking, and no question is made where none was asked.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const emailAsk = (body: unknown) => guess(body).questions.find((q) => q.target === 'user.email');

/** A support conversation: the requester, the agent assigned, and the channel's address. */
const message = {
  event_id: 'e-1',
  event_fqn: 'CONVERSATION_MESSAGE_ADDED',
  data: {
    conversation: {
      id: 42,
      channel: 'EMAIL',
      contact_point: 'inbox@support.example.io',
      requester: { id: '1234-abcd', name: 'Ann Contact', email: 'ann@example.com', user_type: 'Contact' },
      assignee: { id: 'a-9', name: 'Agent', email: 'agent@example.io' },
    },
  },
};

describe('the creator: the e-mail beside the person’s id', () => {
  it('preselects the requester’s address where the page offered only the channel’s and the agent’s', () => {
    const q = emailAsk(message);
    assert.equal(q?.options[0]?.column, 'data.conversation.requester.email');
    assert.equal(q?.noneGuessed, undefined, 'preselected');
    assert.ok(
      q?.options.some((o) => o.column === 'data.conversation.contact_point'),
      'the other columns kept',
    );
    const g = guess(message);
    assert.equal(
      g.columns.find((c) => c.column === 'data.conversation.requester.email')?.target,
      'user.email',
    );
    assert.notEqual(
      g.columns.find((c) => c.column === 'data.conversation.contact_point')?.target,
      'user.email',
    );
  });

  it('makes no question where the e-mail was not asked about', () => {
    const plain = {
      id: 'evt_2',
      type: 'customer.created',
      customer: { id: 'c-1', email: 'ann@example.com' },
    };
    const g = guess(plain);
    assert.equal(g.columns.find((c) => c.column === 'customer.email')?.target, 'user.email');
    assert.equal(emailAsk(plain), undefined);
  });

  it('leaves the question alone where no address sits beside the person’s id', () => {
    const { requester: _, ...conversation } = message.data.conversation;
    const without = {
      ...message,
      data: { conversation: { ...conversation, requester: { id: '1234-abcd' } } },
    };
    assert.notEqual(emailAsk(without)?.options[0]?.column, 'data.conversation.requester.email');
  });

  describe('an address named for a role a person plays', () => {
    /** An e-mail delivery report: the sending address and the recipient's, named for nothing else. */
    const report = {
      id: 'c3f5a1d2-0b1e-4c2a-9e55-1b2c3d4e5f60',
      eventType: 'Microsoft.Communication.EmailDeliveryReportReceived',
      eventTime: '2026-09-06T21:34:42Z',
      data: { sender: 'noreply@shop.example', recipient: 'ann@example.com', status: 'Delivered' },
    };

    it('preselects the recipient where the page asked only about the sender', () => {
      const q = emailAsk(report);
      assert.deepEqual(
        q?.options.map((o) => o.column),
        ['data.recipient', 'data.sender'],
      );
      assert.match(q?.ask ?? '', /named for a role a person plays/);
      assert.equal(guess(report).columns.find((c) => c.column === 'data.sender')?.target, 'event_data');
    });

    it('offers a customer’s address beside an unnamed one, never a user’s', () => {
      const order = {
        id: 'o-1',
        type: 'order.created',
        data: { address: 'shop@example.io', customer: 'ann@example.com' },
      };
      assert.equal(emailAsk(order)?.options[0]?.column, 'data.customer');
      const user = {
        id: 'o-2',
        type: 'order.created',
        data: { sender: 'shop@example.io', user: 'ann@example.com' },
      };
      assert.notEqual(emailAsk(user)?.options[0]?.column, 'data.user');
    });
  });

  it('never preselects a team’s address beside the person’s id over the person’s own list', () => {
    const lead = {
      eventName: 'leadAccepted',
      lead: { userId: 'u-7', teamEmail: 'team@agency.example', email: ['lead@example.com'] },
    };
    const q = emailAsk(lead);
    assert.equal(q?.options[0]?.column, 'lead.email');
    assert.equal(guess(lead).columns.find((c) => c.column === 'lead.teamEmail')?.target, 'event_data');
  });
});
