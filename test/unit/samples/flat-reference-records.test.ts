/**
 * A record's id offered as the event's where nothing is named as one (issue #94,
 * core/samples/flat-reference.ts `referenceNamed`): a top-level id named for a record an event is
 * one of (a request, a post, a sale, an operation, a transaction, a submission, an
 * aggregate, Magento's order `increment_id`) is offered with no answer preselected, as an order's
 * id already was, even where its record's word elsewhere names a secret or a place
 * (`accessRequestId`, `post_id`). Never filled, and never where an event id is taken.
 */
import assert from 'node:assert/strict';
import { referenceNamed } from '../../../core/samples/flat-reference.ts';
import { read, targetOf } from '../../support/page-steps.ts';

const eventIdQuestion = (body: unknown) =>
  read(body).guesses.questions.find((q) => (q.field ?? q.target) === 'event_id');

describe('the creator: a record’s id offered as the event’s', () => {
  it('reads ids named for a record an event is one of', () => {
    for (const column of [
      'accessRequestId',
      'post_id',
      'sales_id',
      'OperationId',
      'txn_id',
      'aggregateID',
      'increment_id',
      'submission_id',
    ])
      assert.ok(referenceNamed(column), column);
  });

  it('still reads no bare id, no nested one, and no id of a word that names no record', () => {
    for (const column of ['id', 'data.post_id', 'calendar_id', 'access_token', 'post_code', 'account_id'])
      assert.ok(!referenceNamed(column), column);
  });

  it('offers a chat platform’s post_id, none preselected, where nothing is the event’s id', () => {
    const body = {
      token: 'xbxq',
      team_domain: 'acme',
      channel_name: 'town-square',
      post_id: 'axdygg1957njfe5pu38',
      text: 'hi',
    };
    const q = eventIdQuestion(body);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.ok(q.options.some((o) => o.column === 'post_id'));
    assert.equal(targetOf(read(body).guesses, 'post_id'), 'event_data');
  });

  it('offers an access request’s id beside the identities it names', () => {
    const body = {
      accessRequestId: '2c91808b6ef1d43e016efba0ce470904',
      requestedBy: { type: 'IDENTITY', name: 'Ann Lee' },
      created: '2026-01-02T10:00:00Z',
    };
    assert.ok(eventIdQuestion(body)?.options.some((o) => o.column === 'accessRequestId'));
  });

  it('offers nothing more where an event id is taken', () => {
    const body = {
      id: 'evt_1a2b3c4d',
      type: 'post.created',
      post_id: 'p_99',
      created_at: '2026-01-02T10:00:00Z',
    };
    assert.equal(targetOf(read(body).guesses, 'id'), 'event_id');
    assert.ok(!read(body).guesses.questions.some((q) => q.options.some((o) => o.column === 'post_id')));
  });
});
