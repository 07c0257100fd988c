/**
 * An id many events share is not the event's own (issue #94, core/samples/shared-id.ts): a
 * mailing's, campaign's or template's id, or an id beside a second id of the same thing
 * (`message_id` beside `message_uid`), taken as the event's id is kept as a field and asked about,
 * nothing preselected, the more specific ids offered first. Payloads invented for these tests, in
 * several shapes.
 */
import assert from 'node:assert/strict';
import { secondIds, sharedIdReason } from '../../../core/samples/shared-id.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { eventIdAsk, eventIdFilled } from './rule-fields.ts';

describe('the creator: an id many events share is not the event’s own', () => {
  it('asks, none preselected, rather than take a mailing’s message_id beside the sent message’s message_uid', () => {
    const body = {
      event: 'message opened',
      message_id: 12,
      message_uid: '5550001_12_3_77',
      to: 'ana@example.com',
    };
    assert.deepEqual(eventIdFilled(body), []);
    const q = eventIdAsk(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(q.options.map((o) => o.column).slice(0, 2), ['message_uid', 'message_id']);
  });

  it('asks the same of a nested message id beside its guid, and of a broadcast’s own id', () => {
    const nested = {
      type: 'email.clicked',
      data: { messageId: 7, messageGuid: '0b6f3c1e-6a3d-4f6e-9d7a-1c2b3a4d5e6f', email: 'li@example.com' },
    };
    assert.deepEqual(eventIdFilled(nested), []);
    assert.equal(eventIdAsk(nested)?.options[0]?.column, 'data.messageGuid');
    assert.ok(eventIdAsk(nested)?.noneGuessed);
    const broadcast = {
      type: 'broadcast.clicked',
      broadcast: { id: 'b_9' },
      subscriber: { email: 'jo@example.com' },
    };
    assert.deepEqual(eventIdFilled(broadcast), []);
    assert.match(eventIdAsk(broadcast)?.ask ?? '', /broadcast/);
    assert.ok(eventIdAsk(broadcast)?.noneGuessed);
  });

  it('keeps a record’s own id beside its uid, and a lone message id, as the event’s id', () => {
    assert.deepEqual(eventIdFilled({ id: 'sub_1', uid: 'u-77', type: 'subscription.created' }), ['id']);
    const lone = { event: 'delivered', message_id: 'msg_0a9f3e', recipient: 'kai@example.com' };
    assert.deepEqual(eventIdFilled(lone), ['message_id']);
  });

  it('reads a second id by its stem and object, and names of things sent to many', () => {
    const fields = fieldsOf({ message_id: 1, message_uid: 'a', order_uid: 'b', data: { message_uid: 'c' } });
    assert.deepEqual(secondIds(fields, 'message_id'), ['message_uid']);
    assert.deepEqual(secondIds(fields, 'data.message_id'), ['data.message_uid']);
    assert.deepEqual(secondIds(fields, 'id'), []);
    assert.match(sharedIdReason(fieldsOf({ template_id: 't' }), 'template_id') ?? '', /template/);
    assert.equal(sharedIdReason(fieldsOf({ event_id: 'e' }), 'event_id'), undefined);
  });
});
