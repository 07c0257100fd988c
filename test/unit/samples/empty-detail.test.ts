/**
 * An empty column named for the person's e-mail or phone (issue #94, core/samples/empty-detail.ts
 * and its use in guess.ts, and `answerQuestion` in draft.ts): with no column taken or asked about
 * as the person's e-mail (or phone), an always-empty column whose leaf is named for one is
 * offered with no answer preselected; it stays left out until the person picks it, and stays out
 * when they answer no. A business's or an actor's, a setting or an id named after one, or a
 * detail another column already gives are left as they were.
 */
import assert from 'node:assert/strict';
import { answerQuestion, NONE } from '../../../core/samples/draft.ts';
import { emptyDetailTarget } from '../../../core/samples/empty-detail.ts';
import { guesses, targetOf } from '../../support/page-steps.ts';

const askFor = (g: ReturnType<typeof guesses>, target: string) =>
  g.questions.find((q) => (q.field ?? q.target) === target);

/** A booking's test event: the customer's phone and e-mail blank. */
const booking = {
  booking_id: 'bk_5521',
  status: 'confirmed',
  customer: { first_name: 'Ines', last_name: 'Moreau', phone_number: '', email: null },
  created_at: '2026-11-20T09:00:00Z',
};

describe('the creator: an empty e-mail or phone', () => {
  it('offers a blank phone and e-mail as the person’s, none preselected, where they were missed', () => {
    const g = guesses(booking);
    for (const [target, column] of [
      ['user.phone', 'customer.phone_number'],
      ['user.email', 'customer.email'],
    ] as const) {
      assert.equal(targetOf(g, column), 'skip', 'left out until the person picks it');
      const q = askFor(g, target);
      assert.deepEqual(
        q?.options.map((o) => o.column),
        [column],
      );
      assert.ok(q?.noneGuessed, 'no answer preselected');
    }
  });

  it('keeps the column left out when the answer is no, and maps it when picked', () => {
    const g = guesses(booking);
    const q = askFor(g, 'user.phone');
    assert.ok(q);
    const choices = g.columns.map((c) => ({ column: c.column, target: c.target }));
    const no = answerQuestion(q, NONE, choices).find((c) => c.column === 'customer.phone_number');
    assert.equal(no?.target, 'skip');
    const yes = answerQuestion(q, 'customer.phone_number', choices).find(
      (c) => c.column === 'customer.phone_number',
    );
    assert.equal(yes?.target, 'user.phone');
  });

  it('reads the detail from the leaf’s last words', () => {
    assert.equal(emptyDetailTarget('to_email_address'), 'user.email');
    assert.equal(emptyDetailTarget('data.receipt_email'), 'user.email');
    assert.equal(emptyDetailTarget('personal_info.mobile_phone'), 'user.phone');
    assert.equal(emptyDetailTarget('msisdn'), 'user.phone');
    assert.equal(emptyDetailTarget('email_config_id'), undefined);
    assert.equal(emptyDetailTarget('primary_phone_number_id'), undefined);
    assert.equal(emptyDetailTarget('emailSettings'), undefined);
  });

  it('leaves a business’s blank phone, and a detail another column gives', () => {
    const shop = guesses({ order_id: 'o_1', merchant: { name: 'Lumen', phone: '' }, note: 'x' });
    assert.equal(askFor(shop, 'user.phone'), undefined);
    const given = guesses({ order_id: 'o_2', email: 'ana@example.com', receipt_email: '' });
    assert.equal(targetOf(given, 'email'), 'user.email');
    assert.ok(!askFor(given, 'user.email')?.options.some((o) => o.column === 'receipt_email'));
  });
});
