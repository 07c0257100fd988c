/**
 * One question over candidate columns (core/samples/ask-columns.ts, used by party-id.ts and
 * unplaced-email.ts): the first option preselected and its guess rewritten to the target, or
 * every option offered with no answer preselected and nothing taken.
 */
import assert from 'node:assert/strict';
import { askColumns } from '../../../core/samples/ask-columns.ts';
import type { RuleGuess } from '../../../core/samples/rule-guess.ts';

const text = {
  ask: 'Is one of these the person’s?',
  taken: 'the one candidate, asked above',
  none: 'nothing says which',
};
const options = [
  { column: 'ticket.email', why: 'an address' },
  { column: 'form.email', why: 'another address' },
];
/** The guesses before the question: both candidates kept as fields, the first one listed first. */
const kept = (): RuleGuess[] => [
  { column: 'ticket.email', target: 'event_data', field: 'ticket_email', why: 'a field' },
  { column: 'form.email', target: 'event_data', field: 'form_email', why: 'a field' },
];

describe('the creator: one question over candidate columns', () => {
  it('preselects the first option, its guess rewritten to the target with the taken words', () => {
    const base = kept();
    const q = askColumns(base, 'user.email', options, true, text);
    assert.deepEqual(q, { target: 'user.email', ask: text.ask, options });
    assert.deepEqual(base, [{ column: 'ticket.email', target: 'user.email', why: text.taken }, kept()[1]]);
  });

  it('offers every option with no answer preselected, nothing taken, when told not to preselect', () => {
    const base = kept();
    const q = askColumns(base, 'user.email', options, false, text);
    assert.deepEqual(q, { target: 'user.email', ask: text.ask, options, noneGuessed: { why: text.none } });
    assert.deepEqual(base, kept());
  });

  it('preselects nothing when the first option has no guess to rewrite, or there is no option', () => {
    const base = kept().slice(1);
    const q = askColumns(base, 'user.email', options, true, text);
    assert.deepEqual(q.noneGuessed, { why: text.none });
    assert.deepEqual(base, kept().slice(1));
    assert.deepEqual(askColumns(kept(), 'user_id', [], true, text), {
      target: 'user_id',
      ask: text.ask,
      options: [],
      noneGuessed: { why: text.none },
    });
  });
});
