/**
 * An id named for the event's person beside an asked user id (issue #94, core/samples/role-id.ts
 * and its use in guess.ts): where the page asks whether a `user_id` is the person's id and the
 * same object holds an id named for the person's role in the event (`respondent_id`,
 * `contact_id`, `attendeeId`), that id is preselected, the user id offered after it. Nothing more
 * is filled without asking; a `client_id`, an id in another object, or a question preselecting
 * nothing are left as they were.
 */
import assert from 'node:assert/strict';
import type { Question } from '../../../core/samples/questions.ts';
import { personRoleOfId, roleIdBesideAsked } from '../../../core/samples/role-id.ts';
import type { RuleGuess as Guess } from '../../../core/samples/rule-guess.ts';
import { isPersonId, type PageGuesses, read, targetOf } from '../../support/page-steps.ts';

const questionOf = (g: PageGuesses, column: string) =>
  g.questions.find((q) => q.options.some((o) => o.column === column));

describe('the creator: an id named for the event’s person beside an asked user id', () => {
  it('preselects a survey response’s respondent_id over the owner’s user_id, offering both', () => {
    const { guesses } = read({
      event_id: 'ev_4411',
      event_type: 'answer_submitted',
      resources: { respondent_id: 'r_9001', survey_id: 's_12', user_id: 'u_77' },
    });
    assert.ok(isPersonId(targetOf(guesses, 'resources.respondent_id')));
    assert.equal(targetOf(guesses, 'resources.user_id'), 'event_data');
    const q = questionOf(guesses, 'resources.respondent_id');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['resources.respondent_id', 'resources.user_id'],
    );
    assert.match(q?.ask ?? '', /respondent/);
  });

  it('does the same for a CRM deal’s contactId beside its userId, and an attendeeId', () => {
    const deal = read({
      id: 'evt_1',
      data: { deal_id: 'd_5', contactId: 'c_31', userId: 'u_2', status: 'won' },
    });
    assert.ok(isPersonId(targetOf(deal.guesses, 'data.contactId')));
    assert.equal(questionOf(deal.guesses, 'data.contactId')?.options[0]?.column, 'data.contactId');
    assert.equal(personRoleOfId('attendeeId'), 'attendee');
    assert.equal(personRoleOfId('booking.guest_uuid'), 'guest');
  });

  it('leaves a client_id, an id of another object, and names that are no role', () => {
    for (const c of ['client_id', 'survey_id', 'user_id', 'contact', 'contact_ids'])
      assert.equal(personRoleOfId(c), undefined, c);
    const { guesses } = read({
      id: 'evt_2',
      data: { userId: 'u_2', status: 'won' },
      meta: { contactId: 'c_31' },
    });
    assert.deepEqual(
      questionOf(guesses, 'data.userId')?.options.map((o) => o.column),
      ['data.userId'],
    );
    assert.equal(targetOf(guesses, 'meta.contactId'), 'event_data');
  });

  it('changes nothing for a question that preselects none, or when no question asks', () => {
    const fields = read({ a: { user_id: 'u_1', respondent_id: 'r_1' } }).fields;
    const base: Guess[] = [
      { column: 'a.user_id', target: 'user_id', why: 'name' },
      { column: 'a.respondent_id', target: 'event_data', field: 'respondent_id', why: 'field' },
    ];
    const none: Question[] = [
      {
        target: 'user_id',
        ask: '?',
        options: [{ column: 'a.user_id', why: 'x' }],
        noneGuessed: { why: 'y' },
      },
    ];
    roleIdBesideAsked(fields, base, none);
    assert.equal(none[0]?.options.length, 1);
    roleIdBesideAsked(fields, base, []);
    assert.equal(base[0]?.target, 'user_id');
    assert.equal(base[1]?.target, 'event_data');
  });

  describe('the same id in an object named for the role', () => {
    /** A streaming platform's new subscription: the channel's owner and the subscriber, alike. */
    const subscription = {
      broadcaster: { user_id: 123456789, username: 'streamer', channel_slug: 'streamer' },
      subscriber: { user_id: 987654321, username: 'fan', channel_slug: 'fan' },
      duration: 1,
      created_at: '2026-01-14T16:08:06Z',
    };

    it('preselects subscriber.user_id where the page preselected the broadcaster’s', () => {
      const { guesses } = read(subscription);
      assert.ok(isPersonId(targetOf(guesses, 'subscriber.user_id')));
      assert.equal(targetOf(guesses, 'broadcaster.user_id'), 'event_data');
      assert.deepEqual(
        questionOf(guesses, 'subscriber.user_id')?.options.map((o) => o.column),
        ['subscriber.user_id', 'broadcaster.user_id'],
      );
      assert.match(
        questionOf(guesses, 'subscriber.user_id')?.ask ?? '',
        /in an object named for the event's subscriber/,
      );
    });

    it('reads a plural role object, and only a column of the same name', () => {
      const { guesses } = read({
        broadcaster: { user_id: 'h-1' },
        subscribers: { user_id: 'c-1', account_id: 'a-1' },
        created_at: '2026-01-14T16:08:06Z',
      });
      assert.equal(questionOf(guesses, 'subscribers.user_id')?.options[0]?.column, 'subscribers.user_id');
      assert.equal(targetOf(guesses, 'subscribers.account_id'), 'event_data');
    });

    it('keeps the question as it was when the preselected object names a role, or no object does', () => {
      const both = read({
        guest: { user_id: 'g-1' },
        subscriber: { user_id: 's-1' },
        at: '2026-01-14T16:08:06Z',
      });
      assert.notEqual(targetOf(both.guesses, 'guest.user_id'), 'event_data');
      const none = read({
        owner: { user_id: 'o-1' },
        channel: { user_id: 'c-1' },
        at: '2026-01-14T16:08:06Z',
      });
      assert.ok(
        !questionOf(none.guesses, 'owner.user_id')?.options.some((o) => o.column === 'channel.user_id'),
      );
    });
  });
});
