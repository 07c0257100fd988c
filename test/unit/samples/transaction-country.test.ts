/**
 * A transaction's country is not the person's (issue #94, core/samples/transaction-country.ts and
 * its use in guess.ts): a country that is a field of a payment, order or transaction record, not
 * inside an address, billing or shipping object, nor under a customer or contact, nor on a record
 * that is the person, is never filled as the person's country: kept as a field, asked about with
 * no answer preselected. A country in the person's address, or on the person's own record, still is.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { transactionCountry } from '../../../core/samples/transaction-country.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, guesses: guessChoices(fields, sample.rows) };
}
const targetOf = (g: ReturnType<typeof read>['guesses'], column: string) =>
  g.columns.find((c) => c.column === column)?.target;

/** A payment webhook: the payment's own country code beside its amount and currency. */
const payment = {
  id: 'wh_9e107d9d372bb682',
  type: 'PAYMENT_COMPLETED',
  data: {
    id: 'payment_1f0e3dad99908345',
    amount: 25,
    currency_code: 'EUR',
    country_code: 'GB',
    customer_token: 'cus_70efdf2ec9b08607',
    created_at: 1711008868,
  },
};

describe('the creator: a transaction’s country is not the person’s', () => {
  it('never fills a payment record’s country_code as the person’s country', () => {
    const { guesses } = read(payment);
    assert.equal(targetOf(guesses, 'data.country_code'), 'event_data');
    assert.ok(!guesses.columns.some((c) => c.target === 'user.country'));
  });

  it('asks about it with no answer preselected, saying it is the payment’s', () => {
    const { guesses } = read(payment);
    const q = guesses.questions.find((x) => x.target === 'user.country');
    assert.ok(q?.noneGuessed, 'the question preselects no answer');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.country_code'],
    );
    assert.match(q.ask, /amount or a currency/);
  });

  it('reads a country on a record named as an order as the order’s, money or not', () => {
    const { fields } = read({ order: { id: 'o_1', country: 'DE', status: 'paid' } });
    assert.match(transactionCountry(fields, 'order.country') ?? '', /order record/);
  });

  it('still fills the country of the billing address beside the same payment', () => {
    const { guesses } = read({
      ...payment,
      data: {
        ...payment.data,
        country_code: undefined,
        billing_address: { line1: '1 Main St', country: 'FR' },
      },
    });
    assert.equal(targetOf(guesses, 'data.billing_address.country'), 'user.country');
  });

  it('still fills the customer’s own country inside an order', () => {
    const { fields } = read({
      order: { id: 'o_1', total: 10, currency: 'EUR', customer: { id: 'c_1', country: 'NL' } },
    });
    assert.equal(transactionCountry(fields, 'order.customer.country'), undefined);
  });

  it('still fills the country on a record that is the person, with no money on it', () => {
    const person = { id: 'cont_c4ca4238a0b92382', full_name: 'Ada Lovelace', country: 'GB' };
    const { guesses } = read({ ...person, email: 'ada@example.com' });
    assert.equal(targetOf(guesses, 'country'), 'user.country');
  });
});
