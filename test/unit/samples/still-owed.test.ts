/**
 * An amount still owed is not the value beside one paid (issue #94, core/samples/amounts.ts
 * `valueNameShift`): `amount_due`, `amountRemaining` and `balance_owed`-like names rank below an
 * amount paid or a total beside them, so a payment's value is what was paid; alone, an invoice's
 * due amount is still its value.
 */
import assert from 'node:assert/strict';
import { valueNameShift } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const valueAsk = (body: unknown) => guess(body).questions.find((q) => q.field === 'value');

describe('the creator: an amount still owed is not the value beside one paid', () => {
  it('preselects the amount paid where it used to preselect the amount due', () => {
    const body = {
      id: 'evt_31',
      type: 'invoice.payment_succeeded',
      created: 1700000000,
      data: { object: { id: 'inv_9', amount_due: 1500, amount_paid: 1500, currency: 'usd' } },
    };
    const g = guess(body);
    assert.equal(g.value?.column, 'data.object.amount_paid');
    const ask = valueAsk(body);
    if (ask) assert.equal(ask.options[0]?.column, 'data.object.amount_paid');
  });

  it('takes the total or the amount over a camel-case remaining amount holding less', () => {
    const total = guess({ orderId: 'o-4', currency: 'EUR', amountRemaining: 20, orderTotal: 60 });
    assert.equal(total.value?.column, 'orderTotal');
    const plain = guess({ paymentId: 'p-2', currency: 'GBP', amount_unpaid: 5, amount: 25 });
    assert.equal(plain.value?.column, 'amount');
  });

  it('keeps an amount due as the value when nothing paid or totalled stands beside it', () => {
    const g = guess({ id: 'inv_1', type: 'invoice.created', currency: 'EUR', amount_due: 99 });
    assert.equal(g.value?.column, 'amount_due');
  });

  it('ranks each word of an amount owed as a partial sum, and no word that only contains one', () => {
    for (const name of ['amount_due', 'amountRemaining', 'amount_owed', 'data.amount_unpaid'])
      assert.ok(valueNameShift(name) < valueNameShift('amount_paid'), name);
    assert.ok(Math.abs(valueNameShift('amount_due') - (-0.1 - 0.01)) < 1e-9);
    assert.ok(Math.abs(valueNameShift('procedure_amount') - -0.01) < 1e-9);
    assert.ok(Math.abs(valueNameShift('overdue_amount') - -0.01) < 1e-9);
  });
});
