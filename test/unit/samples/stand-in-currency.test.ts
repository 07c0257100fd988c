/**
 * A currency column holding a stand-in (issue #94, core/samples/stand-in-currency.ts): beside a
 * guessed value with no currency, a column named as a currency whose values are `"<string>"` or
 * `"string"` is offered as the value's currency with no answer preselected; a real code is
 * guessed as before, and without a value nothing is asked.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { standInValue } from '../../../core/samples/stand-in-currency.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const currencyAsk = (body: unknown) =>
  guess(body).questions.find((q) => q.field === 'currency' && q.noneGuessed);

describe('the creator: a stand-in currency', () => {
  it('offers an order’s "<string>" currencyCode beside its total, where the currency was missed', () => {
    const body = { id: 'o-1', createdAt: '2026-11-02T09:00:00Z', totalPrice: 49.9, currencyCode: '<string>' };
    const g = guess(body);
    assert.equal(g.value?.column, 'totalPrice');
    assert.equal(g.currency, undefined, 'nothing filled');
    assert.deepEqual(
      currencyAsk(body)?.options.map((o) => o.column),
      ['currencyCode'],
    );
  });

  it('offers a nested snake-case currency_code holding "string"', () => {
    const body = { deal: { id: 'd-1', deal_value: 1200, currency_code: 'string' } };
    assert.deepEqual(
      currencyAsk(body)?.options.map((o) => o.column),
      ['deal.currency_code'],
    );
  });

  it('asks nothing where a real code stands, or no value is guessed', () => {
    assert.equal(currencyAsk({ id: 'o-2', total: 10, currency: 'EUR' }), undefined);
    assert.equal(guess({ id: 'o-2', total: 10, currency: 'EUR' }).currency?.column, 'currency');
    assert.equal(currencyAsk({ id: 'u-1', currency: '<string>', name: 'Ada' }), undefined);
  });

  it('reads a stand-in by its shape only', () => {
    const f = (v: string) => ({
      name: 'x',
      type: 'string' as const,
      nullable: false,
      examples: [v],
      distinct: 1,
    });
    assert.deepEqual(
      ['<string>', '{{currency}}', 'string', 'USD', 'euro'].map((v) => standInValue(f(v))),
      [true, true, true, false, false],
    );
  });
});
