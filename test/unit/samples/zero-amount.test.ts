/**
 * An amount zero in every row (issue #94, core/samples/zero-amount.ts): a total of 0 cannot show
 * it is the event's money (a restaurant account opened for a reservation, held-out-33's Lightspeed,
 * values ours), so the value is asked, nothing preselected, and its currency follows; a sample with
 * a real amount keeps its fill, and a value some rule already asks keeps that question.
 */
import assert from 'node:assert/strict';
import { zeroAmount } from '../../../core/samples/zero-amount.ts';
import { field, guessOf } from './rule-fields.ts';

const account = (totalAmount: number | string) => ({
  notificationType: 'OPEN',
  account: {
    id: '1560383093',
    name: 'Table 1',
    currencyCode: 'GBP',
    openDate: 1712245742020,
    paidAmount: 0,
    totalAmount,
    taxAmount: 0,
  },
});

describe('creator: an amount zero in every row', () => {
  it('asks the value, nothing preselected, and fills no currency', () => {
    const g = guessOf(account(0));
    assert.equal(g.value, undefined);
    assert.equal(g.currency, undefined);
    const q = g.questions.find((x) => x.field === 'value');
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['account.totalAmount'],
    );
    assert.match(q.ask, /0 in every row/);
    // Written as text, the zero is asked too (there among the amounts named like a value).
    const text = guessOf(account('0.00'));
    assert.ok(
      text.questions.some(
        (x) => x.field === 'value' && x.options.some((o) => o.column === 'account.totalAmount'),
      ),
    );
  });

  it('keeps a real amount filled, with its currency', () => {
    const g = guessOf(account(42.5));
    assert.equal(g.value?.column, 'account.totalAmount');
    assert.equal(g.currency?.column, 'account.currencyCode');
  });

  it('leaves a value without any currency code to its own question, preselected', () => {
    const g = guessOf({ booking: { id: 'b-1', amountPaid: 0, startsAt: '2026-05-01T09:00:00Z' } });
    const q = g.questions.find((x) => x.field === 'value');
    assert.equal(q?.noneGuessed, undefined);
    assert.match(q?.ask ?? '', /no currency stands anywhere/);
  });

  it('reads zero by value: a number or numeric text, one distinct value, every example', () => {
    const of = (examples: unknown[], distinct = 1) =>
      zeroAmount([field('total', examples, { distinct })], 'total');
    for (const zero of [[0], ['0'], ['0.00'], [' 0 '], [0, '0.0']]) assert.ok(of(zero), JSON.stringify(zero));
    for (const not of [[5], [''], [' '], ['none'], [null], [0, 5], []])
      assert.equal(of(not), undefined, JSON.stringify(not));
    assert.equal(of([0], 2), undefined);
    assert.equal(zeroAmount([field('total', [0], { distinct: 1 })], 'other'), undefined);
  });

  it('leaves a value another question already offers to that question', () => {
    // Written as text, the zero is among amounts named like a value: that question stays, alone.
    const asked = guessOf(account('0.00')).questions.filter((x) => x.field === 'value');
    assert.equal(asked.length, 1);
    assert.match(asked[0]?.ask ?? '', /Several are named like one/);
  });
});
