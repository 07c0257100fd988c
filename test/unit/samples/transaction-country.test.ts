/**
 * A transaction's country is not the person's (issue #94, core/samples/transaction-country.ts and
 * its use in guess.ts): a country that is a field of a payment, order or transaction record, not
 * inside an address, billing or shipping object, nor under a customer or contact, nor on a record
 * that is the person, is never filled as the person's country: kept as a field, asked about with
 * no answer preselected. A country in the person's address, or on the person's own record, still is.
 */
import assert from 'node:assert/strict';
import type { Question } from '../../../core/samples/questions.ts';
import type { RuleGuess as Guess } from '../../../core/samples/rule-guess.ts';
import { transactionCountry, transactionCountryQuestion } from '../../../core/samples/transaction-country.ts';
import { read, targetOf } from '../../support/page-steps.ts';

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

  it('keeps a country named for the person’s place as theirs, even on a payment record', () => {
    const words =
      'address addresses billing shipping delivery location geo geoip home residence mailing profile from';
    for (const w of words.split(' ')) {
      const { fields } = read({
        payment: { id: 'p_1', amount: 25, currency: 'EUR', [`${w}_country`]: 'FR' },
      });
      assert.equal(transactionCountry(fields, `payment.${w}_country`), undefined, w);
    }
    // The same record's own country is the payment's: the place word alone makes the difference.
    const { fields } = read({ payment: { id: 'p_1', amount: 25, currency: 'EUR', country: 'FR' } });
    assert.ok(transactionCountry(fields, 'payment.country'));
  });

  it('reads a country on a record named as any kind of transaction as the transaction’s', () => {
    const words =
      'payment payments order orders transaction transactions charge invoice refund checkout purchase sale';
    for (const w of words.split(' ')) {
      const { fields } = read({ [w]: { id: 'x_1', country: 'DE', status: 'open' } });
      assert.equal(
        transactionCountry(fields, `${w}.country`),
        `a field of ${w}, ${['order', 'orders', 'invoice'].includes(w) ? 'an' : 'a'} ${w} record, not of the person's address`,
      );
    }
    const { fields } = read({ subscription: { id: 'x_1', country: 'DE', status: 'open' } });
    assert.equal(transactionCountry(fields, 'subscription.country'), undefined, 'not a transaction’s name');
  });

  it('still fills the country of a customer’s record that holds their lifetime total', () => {
    const { fields, guesses } = read({
      customer: { id: 'c_1', total_spent: 1200, currency: 'EUR', country: 'NL' },
    });
    assert.equal(transactionCountry(fields, 'customer.country'), undefined);
    assert.equal(targetOf(guesses, 'customer.country'), 'user.country');
  });

  it('reads a record named as a checkout that is the person as the person’s, not a transaction', () => {
    const buyer = {
      id: 'ch_1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      country: 'GB',
    };
    assert.equal(transactionCountry(read({ checkout: buyer }).fields, 'checkout.country'), undefined);
  });

  it('says which record the country is a field of: the payload’s own, or the object it sits in', () => {
    const top = read({ id: 'pay_1', amount: 25, currency: 'EUR', country: 'GB' });
    assert.equal(
      transactionCountry(top.fields, 'country'),
      "a field of the payload, which holds an amount or a currency (a payment, an order), not of the person's address",
    );
    const nested = read({ sale: { id: 's_1', total: 25, currency: 'EUR', country: 'GB' } });
    assert.match(transactionCountry(nested.fields, 'sale.country') ?? '', /^a field of sale, /);
  });

  it('keeps the guess as a field saying why, and asks with a reason for choosing none', () => {
    const { fields, guesses } = read({ id: 'pay_1', amount: 25, currency: 'EUR', country: 'GB' });
    const why = transactionCountry(fields, 'country');
    assert.ok(why);
    const c = guesses.columns.find((x) => x.column === 'country');
    assert.equal(c?.why, `named as a country, but ${why}: kept as a field, asked above`);
    const q = guesses.questions.find((x) => x.target === 'user.country');
    assert.equal(q?.noneGuessed?.why, `${why}; nothing says it is where the person lives`);
  });

  describe('its question, asked once', () => {
    const { fields } = read({ id: 'pay_1', amount: 25, currency: 'EUR', country: 'GB' });
    const taken = (): Guess[] => [{ column: 'country', target: 'user.country', why: 'named as a country' }];

    it('asks when no question has been asked yet', () => {
      const base = taken();
      const questions: Question[] = [];
      transactionCountryQuestion(fields, base, questions);
      assert.equal(base[0]?.target, 'event_data');
      assert.deepEqual(
        questions.map((q) => q.options.map((o) => o.column)),
        [['country']],
      );
    });

    it('asks beside a question about another column', () => {
      const base = taken();
      const questions: Question[] = [
        { target: 'user_id', ask: 'Whose id?', options: [{ column: 'id', why: 'x' }] },
      ];
      transactionCountryQuestion(fields, base, questions);
      assert.equal(questions.length, 2);
    });

    it('leaves a country another question already offers, among other columns, as it is', () => {
      const base = taken();
      const asked: Question = {
        target: 'user.country',
        ask: 'Which is the person’s country?',
        options: [
          { column: 'id', why: 'x' },
          { column: 'country', why: 'y' },
        ],
      };
      const questions = [asked];
      transactionCountryQuestion(fields, base, questions);
      assert.deepEqual(questions, [asked]);
      assert.deepEqual(base, taken());
    });
  });
});
