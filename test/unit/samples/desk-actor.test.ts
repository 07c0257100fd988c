/**
 * A desk's user who acted on a record is the business's (issue #94, core/samples/desk-actor.ts):
 * a software user's object beside a work record (a case, ticket, issue, incident or task) and an
 * action pressed or run on it (a button, action, macro, command) is the team member who acted;
 * their id, e-mail and names are kept as fields, never the person's, unless the event's name says
 * the event is about that user themselves. Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { deskActor } from '../../../core/samples/desk-actor.ts';
import { fieldsOf, guesses, isPersonId, takenAs } from '../../support/page-steps.ts';

/** The columns of `body` the page takes as any of the person's details. */
const personal = (body: unknown) =>
  guesses(body).columns.flatMap((c) => (c.target.startsWith('user') ? [c.column] : []));

describe('the creator: a desk’s user who acted on a record', () => {
  it('keeps as fields the user who pressed a case’s button, not the person’s id, e-mail and names', () => {
    const body = {
      user: { id: 91, first_name: 'Robin', last_name: 'Hale', email: 'robin.hale@example.com' },
      button: { id: 4, label: 'Close case', type: 'webhook' },
      case: { id: 310, name: 'Locked account', status: 'open' },
      message: 'Close case pressed on case 310',
    };
    assert.deepEqual(personal(body), []);
    const g = guesses(body);
    assert.match(g.columns.find((c) => c.column === 'user.email')?.why ?? '', /the team member who acted/);
  });

  it('reads a member’s macro on a ticket and a user’s action on an incident, under envelopes too', () => {
    for (const body of [
      {
        member: { id: 'mb_7', email: 'desk@example.com', name: 'Sam' },
        ticket_id: 'T-1002',
        macro: { id: 'm1', title: 'Refund approved' },
      },
      {
        data: {
          user: { user_id: 'op-3', email: 'oncall@example.com', phone: '+4915112345678' },
          incident: { id: 'inc-9', severity: 'high' },
          action: 'acknowledge',
        },
      },
    ])
      assert.deepEqual(personal(body), [], JSON.stringify(body));
  });

  it('says why, for each column of the user object and no other', () => {
    const why = deskActor(
      fieldsOf({ member: { id: 'u1', email: 'a@example.com' }, task: { id: 't' }, command: 'done' }),
    );
    assert.match(why('member.email') ?? '', /member beside task/);
    assert.equal(why('task.id'), undefined);
    assert.equal(why('command'), undefined);
  });

  it('still takes the user as the person with no action, no work record, or an event about the user', () => {
    for (const body of [
      { user: { id: 'u-5', email: 'lee@example.com' }, case: { id: 8, status: 'new' } },
      { user: { id: 'u-6', email: 'kim@example.com' }, button: { id: 2 }, page: { title: 'Pricing' } },
      {
        event: 'user.profile_updated',
        user: { id: 'u-7', email: 'max@example.com' },
        ticket: { id: 3 },
        action: 'edit',
      },
    ]) {
      const g = guesses(body);
      assert.ok(takenAs(g, 'user.email').length === 1, JSON.stringify(body));
      assert.ok(
        g.columns.some((c) => isPersonId(c.target)),
        JSON.stringify(body),
      );
    }
  });
});
