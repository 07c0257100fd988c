/**
 * A subtotal written in two words is a partial sum too (issue #94, core/samples/amounts.ts
 * `valueNameShift`): `sub_total`, `subTotal` and `sub-total` rank below the order's total as
 * `subtotal` does, so the total beside them is the value, even when both hold the same amount (no
 * shipping, no tax); alone, a subtotal is still the value. A word that only begins with "sub"
 * (`subscription_total`) is no partial sum.
 */
import assert from 'node:assert/strict';
import { valueNameShift } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}

/** A ticket marketplace's order, its subtotal and total the same (nothing added). */
const ticketOrder = {
  data: {
    id: 'ord_88',
    placed_at: '2026-10-02T18:00:00Z',
    currency: 'EUR',
    sub_total: '95.00',
    grand_total: '95.00',
    quantity: 2,
  },
  meta: { type: 'order.updated' },
};

describe('the creator: a subtotal in two words is not the value beside a total', () => {
  it('takes the grand total, not the equal sub_total it used to fill', () => {
    const g = guess(ticketOrder);
    assert.equal(g.value?.column, 'data.grand_total');
    assert.equal(g.currency?.column, 'data.currency');
    const sub = g.columns.find((c) => c.column === 'data.sub_total');
    assert.notEqual(sub?.field, 'value');
  });

  it('takes the total over a camel-case subTotal holding less', () => {
    const g = guess({
      orderId: 'A-1',
      createdAt: '2026-10-02T18:00:00Z',
      currency: 'USD',
      subTotal: 40.5,
      shippingTotal: 5,
      orderTotal: 45.5,
    });
    assert.equal(g.value?.column, 'orderTotal');
  });

  it('takes the total of a money object over the sub-total object beside it', () => {
    const g = guess({
      id: 'inv_3',
      created: '2026-10-02T18:00:00Z',
      'sub-total': { amount: 80, currency: 'GBP' },
      'grand-total': { amount: 96, currency: 'GBP' },
    });
    assert.equal(g.value?.column, 'grand-total.amount');
  });

  it('keeps a sub_total as the value when no total stands beside it', () => {
    const g = guess({ id: 'q_1', created: '2026-10-02T18:00:00Z', currency: 'EUR', sub_total: 12.5 });
    assert.equal(g.value?.column, 'sub_total');
  });

  it('ranks each spelling of a subtotal alike, and no word that merely starts with "sub"', () => {
    for (const name of ['sub_total', 'subTotal', 'sub-total', 'data.sub_total'])
      assert.ok(valueNameShift(name) < valueNameShift('grand_total'), name);
    assert.ok(Math.abs(valueNameShift('sub_total') - (0.03 - 0.1 - 0.01)) < 1e-9);
    assert.ok(Math.abs(valueNameShift('subscription_total') - (0.03 - 0.01)) < 1e-9);
  });
});
