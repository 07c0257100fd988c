/**
 * What vouches for a column named as the person's id (issue #94,
 * core/samples/person-id-evidence.ts `lonePersonId`): only the person's own details beside it. An
 * id named for an e-mail (`emailId`) is no contact detail; a message's recipient (`to`) does not
 * say whose a `userId` beside it is; and details in a record with its own id below a top-level
 * `customerId` are that record's party's. Where only another party's details stand beside it, the
 * page asks with no answer preselected, rather than fill the account's id as the person's.
 */
import assert from 'node:assert/strict';
import { lonePersonId } from '../../../core/samples/person-id-evidence.ts';
import { fieldsOf, isPersonId, read, targetOf } from '../../support/page-steps.ts';

const questionOf = (body: unknown, column: string) =>
  read(body).guesses.questions.find((q) => q.options.some((o) => o.column === column));

describe('the creator: what vouches for the person’s id', () => {
  it('asks about a newsletter’s userId beside the address it was sent to (the old wrong fill)', () => {
    const body = {
      meta: { topic: 'newsletter/sent', ts: 1700000000000 },
      data: {
        emailId: 'm_5aa3',
        templateId: 't_640a',
        userId: 'u_67b5',
        to: 'reader@mail.example',
        subject: 'Spring sale',
      },
    };
    const q = questionOf(body, 'data.userId');
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.equal(targetOf(read(body).guesses, 'data.userId'), 'event_data');
    assert.match(q.options[0]?.why ?? '', /recipient/);
  });

  it('reads an id named for an e-mail as no contact detail', () => {
    const fields = fieldsOf({ data: { userId: 'u_1', emailId: 'm_1', subject: 'Hi' } });
    assert.match(lonePersonId('data.userId', fields) ?? '', /nothing beside it/);
  });

  it('lets a recipient’s address vouch for an id named for the recipient', () => {
    const fields = fieldsOf({ message: { recipient_id: 'r_1', recipient: 'ann@mail.example' } });
    assert.equal(lonePersonId('message.recipient_id', fields), undefined);
    const user = fieldsOf({ message: { user_id: 'u_1', recipient: 'ann@mail.example' } });
    assert.match(lonePersonId('message.user_id', user) ?? '', /recipient/);
  });

  it('asks about a top-level customerId whose person details sit in a record with its own id', () => {
    const body = {
      customerId: 'c2824d58',
      appId: 'app-c2824d58',
      eventType: 'PARTICIPANT_JOINED',
      data: { id: 'user-77', name: 'Jo Doe', email: 'jo@company.example' },
    };
    const q = questionOf(body, 'customerId');
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.ok(!isPersonId(targetOf(read(body).guesses, 'customerId')), 'kept as a field');
    assert.match(q.options[0]?.why ?? '', /own id \(data\.id\)/);
  });

  it('still takes a top-level customerId vouched by details of its own record or beside it', () => {
    const same = fieldsOf({ customerId: '7733', customer: { id: '7733', email: 'ann@mail.example' } });
    assert.equal(lonePersonId('customerId', same), undefined);
    const flat = fieldsOf({ customer_id: 'cus_9', email: 'ann@mail.example', amount: 5 });
    assert.equal(lonePersonId('customer_id', flat), undefined);
    const nested = fieldsOf({ data: { customer: 'cus_1', card: { id: 'card_1', name: 'Ann Lee' } } });
    assert.equal(lonePersonId('data.customer', nested), undefined);
  });
});
