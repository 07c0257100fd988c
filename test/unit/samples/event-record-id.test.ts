/**
 * An id named for the record the event names, where no event id is (issue #94,
 * core/samples/event-record-id.ts): offered with no answer preselected, wherever it sits, even in
 * a party's object; never an id named for a party or the event itself, nor where an event id is
 * already taken or asked. Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { eventIdAsk, eventIdFilled } from './rule-fields.ts';

const offered = (body: unknown) => eventIdAsk(body)?.options.map((o) => o.column) ?? [];

describe('the creator: an id named for the record the event names', () => {
  it('offers a chat’s id inside the visitor’s object on a chat’s end, nothing preselected', () => {
    const body = {
      event: 'chat_ended',
      visitor: { name: 'Ana', email: 'ana@example.com', chat_id: 'c-77aa', chats: 3 },
    };
    assert.deepEqual(eventIdFilled(body), []);
    const q = eventIdAsk(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(offered(body), ['visitor.chat_id']);
  });

  it('reads the event’s name however it is written, and the id however it is cased', () => {
    assert.deepEqual(
      offered({ type: 'Conversation.Closed', customer: { email: 'k@example.com', conversationId: 'k-1' } }),
      ['customer.conversationId'],
    );
    assert.deepEqual(offered({ topic: 'SESSION_EXPIRED', member: { name: 'Jo', session_uuid: 's-9' } }), [
      'member.session_uuid',
    ]);
  });

  it('offers no id named for a party or the event, nor one of a record the name does not name', () => {
    for (const body of [
      { event: 'user_login', data: { user_id: 'u-1', ip: '203.0.113.5' } },
      { type: 'visitor.left', visitor_id: 'v-1', page: '/x' },
      { event: 'chat_ended', visitor: { session_id: 's-1', name: 'Bo' } },
    ])
      assert.equal(
        eventIdAsk(body)?.options.some((o) => /user_id|visitor_id|session_id/.test(o.column)) ?? false,
        false,
        JSON.stringify(body),
      );
  });
});
