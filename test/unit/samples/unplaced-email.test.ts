/**
 * An address no rule placed (issue #94, core/samples/unplaced-email.ts and its use in guess.ts):
 * with no column taken or asked about as the person's e-mail, a column of addresses kept as a
 * field for where it sits is asked about: preselected when it is the only one and not a sender's,
 * offered with no answer preselected when there are several or it is whoever sent; never a
 * business party's or an actor's address, never filled silently.
 */
import assert from 'node:assert/strict';
import type { DraftGuess } from '../../../core/samples/ask-columns.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { unplacedEmailQuestion } from '../../../core/samples/unplaced-email.ts';

/** The e-mail question for one body, the columns taken as the person's e-mail, and the guesses. */
const read = (body: unknown) => {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return {
    g,
    ask: g.questions.find((q) => q.target === 'user.email'),
    taken: g.columns.flatMap((c) => (c.target === 'user.email' ? [c.column] : [])),
  };
};

describe('the creator: an address no rule placed', () => {
  it('asks about a ticket’s e-mail, preselected, marked personal', () => {
    const { g, ask, taken } = read({ ticket: { id: 12, email: 'jon@example.com', subject: 'Help' } });
    assert.deepEqual(taken, ['ticket.email']);
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['ticket.email'],
    );
    assert.equal(ask?.noneGuessed, undefined);
    const c = g.columns.find((x) => x.column === 'ticket.email');
    assert.equal(c?.confidence, 0.5);
    assert.equal(c?.personal, true);
  });

  it('offers a sender’s address with no answer preselected', () => {
    const { ask, taken } = read({ message: { id: 1, sender_email: 'iago@example.com', content: 'hi' } });
    assert.ok(ask?.noneGuessed);
    assert.deepEqual(taken, []);
  });

  it('offers several addresses with no answer preselected', () => {
    const { ask, taken } = read({ parameters: { mail: 'a@example.com' }, fields: { mail: 'b@example.com' } });
    assert.ok(ask?.noneGuessed);
    assert.equal(ask.options.length, 2);
    assert.deepEqual(taken, []);
  });

  it('never offers a business party’s or an actor’s address', () => {
    assert.equal(read({ ticket: { id: 1 }, assignee: { email: 'agent@example.com' } }).ask, undefined);
    assert.equal(read({ id: 'e1', changer: { primary_email: 'admin@example.com' } }).ask, undefined);
  });

  it('asks nothing when the person’s e-mail is already taken', () => {
    const { ask, taken } = read({ customer: { email: 'a@example.com' }, ticket: { email: 'b@example.com' } });
    assert.deepEqual(taken, ['customer.email']);
    assert.ok(!ask?.options.some((o) => o.column === 'ticket.email'));
  });

  describe('called on its own', () => {
    const { fields } = (() => {
      const s = parseSample(JSON.stringify({ reply_to: 'a@example.com', id: 'm_1' }));
      return { fields: inferFields(s) };
    })();
    const kept = (): DraftGuess[] => [
      { column: 'reply_to', target: 'event_data', field: 'reply_to', why: 'a field' },
      { column: 'id', target: 'event_id', why: 'the id' },
    ];

    it('says an address at the top of the payload sits at the top', () => {
      const q = unplacedEmailQuestion(kept(), fields, []);
      assert.equal(
        q?.options[0]?.why,
        'its values are e-mail addresses, but where it sits (the top) does not say whose',
      );
    });
  });
});
