/**
 * A reference named for the person is asked, not filled (issue #94, core/samples/person-id-evidence.ts
 * `personReference` and its use in guess.ts): `customer_reference`, `customerRef`, `customer_ref`
 * may be the person's number at the business or the business's own reference for the request it
 * made for them; the name cannot tell whose, so the column is kept as a field and the page asks
 * with none preselected. An id named for the person (`customer_id`) is read as before, and a
 * reference another question already offers is left to it.
 */
import assert from 'node:assert/strict';
import { personReference, personReferenceQuestion } from '../../../core/samples/person-id-evidence.ts';
import type { Question } from '../../../core/samples/questions.ts';
import type { RuleGuess as Guess } from '../../../core/samples/rule-guess.ts';
import { guesses, isPersonId, targetOf } from '../../support/page-steps.ts';

describe('the creator: a reference named for the person is asked, not filled', () => {
  it('asks about a mobile-money payment’s customer_reference beside the payer’s number, none preselected', () => {
    const g = guesses({
      status: 'success',
      customer_reference: 'ord-77aq1x',
      transaction_ref: 'a81f0c2e94d1',
      msisdn: '+254712345678',
      amount: 1500,
      currency: 'KES',
    });
    assert.equal(targetOf(g, 'customer_reference'), 'event_data');
    assert.ok(!g.columns.some((c) => isPersonId(c.target)));
    const q = g.questions.find((x) => x.options.some((o) => o.column === 'customer_reference'));
    assert.ok(q?.noneGuessed, 'the question preselects no answer');
    assert.ok(isPersonId(q.target));
    assert.match(q.ask, /reference/);
  });

  it('asks likewise for a nested customerRef and a form’s customer_ref', () => {
    const nested = guesses({
      event: 'payment.completed',
      data: {
        payment_id: 'pay_5',
        amount: 30,
        currency: 'EUR',
        customerRef: 'C-00912',
        customer_email: 'z@example.com',
      },
    });
    assert.equal(targetOf(nested, 'data.customerRef'), 'event_data');
    assert.ok(
      nested.questions.some((q) => q.noneGuessed && q.options.some((o) => o.column === 'data.customerRef')),
    );
    const flat = guesses({ submission_id: 's_1', customer_ref: 'u-ref-81', email: 'q@example.net' });
    assert.equal(targetOf(flat, 'customer_ref'), 'event_data');
    assert.ok(
      flat.questions.some((q) => q.noneGuessed && q.options.some((o) => o.column === 'customer_ref')),
    );
  });

  it('says why for a reference, nothing for an id named for the person', () => {
    assert.match(personReference('customer_reference') ?? '', /"reference" in its name/);
    assert.match(personReference('data.customerRef') ?? '', /"ref"/);
    for (const column of ['customer_id', 'customer', 'user.id', 'referrer_id', 'preferences'])
      assert.equal(personReference(column), undefined, column);
  });

  it('still fills a customer_id beside the same payment', () => {
    const g = guesses({ customer_id: 'cus_31', email: 'a@example.org', amount: 10, currency: 'USD' });
    assert.ok(isPersonId(targetOf(g, 'customer_id')));
  });

  it('leaves a reference another question already offers as it is', () => {
    const base: Guess[] = [{ column: 'customer_reference', target: 'user.external_id', why: 'name' }];
    const questions: Question[] = [
      {
        target: 'user.external_id',
        ask: 'Is customer_reference the person’s id?',
        options: [{ column: 'customer_reference', why: 'asked before' }],
      },
    ];
    personReferenceQuestion(base, questions);
    assert.equal(base[0]?.target, 'user.external_id');
    assert.equal(questions.length, 1);
  });
});
