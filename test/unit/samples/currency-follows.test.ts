/**
 * A currency follows its value (issue #94, core/samples/currency-follows.ts): where any rule asks
 * about the value, the currency beside it is asked too, as the value is (preselected when the
 * value is), never left filled alone; where the value is filled without asking, so is its
 * currency. Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { currencyFollows } from '../../../core/samples/late-amount-rules.ts';
import type { Question } from '../../../core/samples/questions.ts';
import { fieldQuestion, guesses } from '../../support/page-steps.ts';

/** The page's currency question on `body`, asserted asked and offering `column` alone. */
function currencyAsked(body: unknown, column: string) {
  const g = guesses(body);
  const q = fieldQuestion(g, 'currency');
  assert.ok(q, `the currency is asked: ${JSON.stringify(body)}`);
  assert.deepEqual(
    q.options.map((o) => o.column),
    [column],
  );
  const shown = g.columns.find((c) => c.column === column);
  assert.equal(shown?.confidence, 0.5, 'shown as a question’s guess');
  return { g, q };
}

describe('the creator: a currency follows its value', () => {
  it('asks for an order’s currency when its amount is asked, an order created and not yet paid', () => {
    const body = {
      shopReference: 'shop-77',
      totalAmount: 40.7,
      status: 'created',
      orderToken: 'TK9',
      details: {
        totalAmount: { amount: '40.70', currency: 'EUR' },
        consumer: { givenNames: 'Ana', email: 'ana@example.com' },
      },
    };
    const g = guesses(body);
    assert.ok(fieldQuestion(g, 'value')?.options.some((o) => o.column === 'details.totalAmount.amount'));
    const { q } = currencyAsked(body, 'details.totalAmount.currency');
    assert.match(q.ask, /answer as you answer that/);
  });

  it('asks the same beside amounts named alike and beside a fee, preselected as the value is', () => {
    for (const [body, column] of [
      [{ invoice_id: 'in_1', amount_paid: 1200, amount_due: 300, currency: 'USD' }, 'currency'],
      [
        { data: { payment: { amount: 10, currency: 'EUR' }, fee: { amount: 1, currency: 'EUR' } } },
        'data.payment.currency',
      ],
    ] as const) {
      const { g, q } = currencyAsked(body, column);
      assert.equal(q.noneGuessed, undefined, 'preselected, as the value is');
      assert.equal(g.currency?.column, column, 'still the value’s currency until the person says no');
    }
  });

  it('fills the currency without a question where the value is filled without one', () => {
    for (const body of [
      { id: 'o_1', total: 25, currency: 'GBP', email: 'c@example.com' },
      { order: { id: 'o_2', status: 'paid', grand_total: 99.9, currency_code: 'CHF' } },
    ]) {
      const g = guesses(body);
      assert.ok(g.value && g.currency, JSON.stringify(body));
      assert.equal(fieldQuestion(g, 'currency'), undefined);
    }
  });

  it('asks with nothing preselected when the value’s own question preselects nothing', () => {
    const columns = [
      { column: 'amount', target: 'event_data', field: 'value', why: 'x', confidence: 0.5 },
      { column: 'currency', target: 'event_data', field: 'currency', why: 'y', confidence: 0.9 },
    ];
    const questions: Question[] = [
      {
        target: 'event_data',
        field: 'value',
        ask: 'Is amount the value?',
        options: [{ column: 'amount', why: 'named like one' }],
        noneGuessed: { why: 'maybe not' },
      },
    ];
    const currency = { column: 'currency', field: 'currency' as const, why: 'y' };
    const value = { column: 'amount', field: 'value' as const, why: 'x' };
    assert.equal(currencyFollows(columns, questions, value, currency), currency);
    assert.ok(questions[1]?.field === 'currency' && questions[1].noneGuessed);
    assert.equal(columns[1]?.confidence, 0.5);
    // Asked once: a second call adds no second question.
    currencyFollows(columns, questions, value, currency);
    assert.equal(questions.length, 2);
  });

  it('offers the currency beside an amount a rule took back and asks, nothing filled', () => {
    for (const [body, currency] of [
      [
        { type: 'invoice.drafted', invoice: { id: 'i', status: 'draft', total: 70, currency: 'EUR' } },
        'invoice.currency',
      ],
      [
        {
          event: 'payment_link.created',
          data: { status: 'open', amount: 8, currency_code: 'BRL', paid_at: null },
        },
        'data.currency_code',
      ],
    ] as const) {
      const g = guesses(body);
      assert.equal(g.value, undefined);
      assert.equal(g.currency, undefined);
      const q = fieldQuestion(g, 'currency');
      assert.ok(q?.noneGuessed, JSON.stringify(body));
      assert.deepEqual(
        q.options.map((o) => o.column),
        [currency],
      );
    }
  });

  it('offers no currency where no value is asked, or the only value question preselects one', () => {
    assert.equal(
      fieldQuestion(guesses({ id: 'u1', email: 'a@example.com', currency: 'USD' }), 'currency'),
      undefined,
    );
    const currency = { column: 'currency', field: 'currency' as const, why: 'y' };
    const columns = [
      { column: 'currency', target: 'event_data', field: 'currency', why: 'y', confidence: 0.9 },
    ];
    const preselected: Question[] = [
      {
        target: 'event_data',
        field: 'value',
        ask: 'Is amount the value?',
        options: [{ column: 'amount', why: 'w' }],
      },
    ];
    assert.equal(currencyFollows(columns, preselected, undefined, currency), undefined);
    assert.equal(preselected.length, 1);
    assert.equal(columns[0]?.confidence, 0.9);
  });
});
