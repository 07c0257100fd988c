/**
 * A currency written as its ISO 4217 number (issue #94, core/samples/numeric-currency.ts): offered
 * as the value's currency with its letter code said, nothing preselected; never a column not named
 * as a currency, nor numbers ISO 4217 gives no currency, nor where no value is taken.
 */
import assert from 'node:assert/strict';
import { letterCode } from '../../../core/samples/numeric-currency.ts';
import { fieldQuestion, guesses } from '../../support/page-steps.ts';

describe('the creator: a currency written as its ISO 4217 number', () => {
  it('reads the numbers as letter codes', () => {
    assert.equal(letterCode(978), 'EUR');
    assert.equal(letterCode('840'), 'USD');
    assert.equal(letterCode(36), 'AUD');
    assert.equal(letterCode('036'), 'AUD');
    assert.equal(letterCode(123), undefined);
    assert.equal(letterCode('9780'), undefined);
    assert.equal(letterCode(978.5), undefined);
  });

  it('offers a number under `currency`, nothing preselected, rather than filling it on its name', () => {
    const g = guesses({ event: 'payment.succeeded', id: 'p1', amount: 12.5, currency: 978 });
    assert.equal(g.value?.column, 'amount');
    assert.equal(g.currency, undefined);
    const q = fieldQuestion(g, 'currency');
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['currency'],
    );
    assert.match(q.options[0]?.why ?? '', /978 is EUR/);
  });

  it('offers digits written as text under a currency code’s name, nested or not', () => {
    for (const [body, column, code] of [
      [{ type: 'sale', sale: { id: 's', total: 20, currency_code: '840' } }, 'sale.currency_code', 'USD'],
      [{ kind: 'charge', payment: { amount: 9.99, currencyCode: 826 } }, 'payment.currencyCode', 'GBP'],
    ] as const) {
      const g = guesses(body);
      assert.equal(g.currency, undefined, JSON.stringify(body));
      const q = fieldQuestion(g, 'currency');
      assert.ok(q?.noneGuessed, JSON.stringify(body));
      assert.equal(q.options[0]?.column, column);
      assert.match(q.options[0]?.why ?? '', new RegExp(`is ${code}`));
    }
  });

  it('leaves letter codes, other names, numbers of no currency and money-less samples alone', () => {
    assert.equal(guesses({ event: 'paid', amount: 5, currency: 'EUR' }).currency?.column, 'currency');
    for (const body of [
      { event: 'paid', amount: 5, currency_code: '123' },
      { event: 'paid', amount: 5, code: 978 },
      { event: 'visit', page: '/a', currency: 978 },
    ]) {
      const q = fieldQuestion(guesses(body), 'currency');
      assert.ok(!q?.options.some((o) => /ISO 4217/.test(o.why)), JSON.stringify(body));
    }
  });
});
