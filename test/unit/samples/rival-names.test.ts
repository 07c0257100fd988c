/**
 * A software user's name beside another person's party is asked (issue #94,
 * core/samples/rival-names.ts): where a `user` and another party that could be the person (a
 * student, a customer, a contact) are both named, the user's first, last or full name and its
 * address are no longer filled as the person's: kept as fields and asked with no answer
 * preselected. A user alone, and the other party's own names, are left as they were.
 */
import assert from 'node:assert/strict';
import { read, targetOf } from '../../support/page-steps.ts';

const question = (body: unknown, column: string) =>
  read(body).guesses.questions.find((q) => q.options.some((o) => o.column === column));

describe('the creator: a software user’s name beside another party', () => {
  it('asks about an agency user’s names beside the student the event is about', () => {
    const body = {
      created: '2026-03-01T10:00:00Z',
      type: 'student:update',
      user: { userId: 7, firstname: 'Joan', lastname: 'Staff', email: 'joan@agency.example' },
      data: { after: { studentId: 41, email: 'kim@mail.example' } },
    };
    const { guesses } = read(body);
    for (const column of ['user.firstname', 'user.lastname']) {
      assert.equal(targetOf(guesses, column), 'event_data', column);
      const q = question(body, column);
      assert.ok(q?.noneGuessed, `${column}: no answer preselected`);
      assert.match(q.ask, /user's (first|last) name, beside a student/);
    }
  });

  it('reads a support user’s name beside a ticket’s customer the same way', () => {
    const body = {
      event: 'ticket.updated',
      ticket: { id: 'T-9', subject: 'Refund' },
      user: { id: 'u_3', first_name: 'Sam', last_name: 'Agent', email: 'sam@desk.example' },
      customer: { id: 'c_88', email: 'lee@mail.example' },
    };
    const { guesses } = read(body);
    assert.equal(targetOf(guesses, 'user.first_name'), 'event_data');
    assert.ok(question(body, 'user.last_name')?.noneGuessed);
  });

  it('still fills the names of a user who is the only party', () => {
    const body = {
      event: 'user.created',
      user: { id: 'u_1', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@mail.example' },
    };
    const { guesses } = read(body);
    assert.equal(targetOf(guesses, 'user.first_name'), 'user.first_name');
    assert.equal(targetOf(guesses, 'user.last_name'), 'user.last_name');
  });

  it('leaves the other party’s own names as they were', () => {
    const body = {
      event: 'contact.updated',
      user: { id: 'u_3', email: 'sam@crm.example' },
      contact: { id: 'c_2', first_name: 'Lee', last_name: 'Buyer', email: 'lee@mail.example' },
    };
    const { guesses } = read(body);
    assert.equal(targetOf(guesses, 'contact.first_name'), 'user.first_name');
    assert.equal(question(body, 'contact.first_name'), undefined);
  });
});
