/**
 * A phone written as digits alone (issue #94, core/samples/evidence.ts): under a phone's name, in
 * any language the corpus shows, text of 8 to 15 digits is the person's phone when it sits with
 * the person; a business's such number is not the person's, and digits under any other name (an
 * order number, a postcode, an id) never become a phone.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The columns taken as the person's phone without a question, and every column's target. */
const read = (body: unknown) => {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  const asked = new Set(g.questions.flatMap((q) => q.options.map((o) => o.column)));
  return {
    phones: g.columns.flatMap((c) => (c.target === 'user.phone' && !asked.has(c.column) ? [c.column] : [])),
    target: (column: string) => g.columns.find((c) => c.column === column)?.target,
    personal: (column: string) => g.columns.find((c) => c.column === column)?.personal,
  };
};

describe('the creator: a phone written as digits alone', () => {
  it('takes a customer’s digits-only phone as the person’s, in several shapes', () => {
    assert.deepEqual(
      read({ id: 'evt_1', customer: { id: 'c1', email: 'ana@example.com', phone: '5511999997777' } }).phones,
      ['customer.phone'],
    );
    assert.deepEqual(read({ order_id: 88, buyer: { name: 'Ana', checkout_phone: '99999999900' } }).phones, [
      'buyer.checkout_phone',
    ]);
    assert.deepEqual(read({ lead_id: 'l1', nome: 'Ana', telefone: '11999999999' }).phones, ['telefone']);
  });

  it('never takes a business’s phone as the person’s, though it marks it personal', () => {
    const r = read({ id: 'evt_2', merchant: { id: 'm1', phone: '4930123456' }, amount: 12 });
    assert.deepEqual(r.phones, []);
    assert.notEqual(r.target('merchant.phone'), 'user.phone');
    assert.equal(r.personal('merchant.phone'), true);
  });

  it('never takes an order number, a postcode, a timestamp, a date or an amount as a phone', () => {
    const r = read({
      customer: {
        id: 'c1',
        order_number: '100234567',
        postcode: '01067',
        created: '1700000000',
        phone_verified_on: '20260115',
        total: '1234567890.50',
      },
    });
    assert.deepEqual(r.phones, []);
    for (const c of ['order_number', 'postcode', 'created', 'phone_verified_on', 'total'])
      assert.notEqual(r.target(`customer.${c}`), 'user.phone', c);
  });

  it('takes no phone from seven digits or from sixteen', () => {
    assert.deepEqual(read({ customer: { id: 'c1', phone: '1234567' } }).phones, []);
    assert.deepEqual(read({ customer: { id: 'c1', phone: '1234567890123456' } }).phones, []);
  });
});
