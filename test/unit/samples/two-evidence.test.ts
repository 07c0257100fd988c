/**
 * Two kinds of evidence (issue #94, core/samples/two-evidence.ts and its use in guess.ts): an
 * amount is a number that is not a time.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { timeShapedAmount } from '../../../core/samples/two-evidence.ts';

/** The page's guesses on one JSON body, with `col` to reach one column's. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return Object.assign(g, {
    col: (name: string) => g.columns.find((x) => x.column === name) ?? assert.fail(`no column ${name}`),
  });
}
const field = (name: string, examples: unknown[], extra: Record<string, unknown> = {}) =>
  ({ name, type: 'integer', examples, distinct: examples.length, nullable: false, ...extra }) as never;

describe('creator: two kinds of evidence', () => {
  it('takes no time as the value, and then no currency, saying why', () => {
    const g = guess({ id: 'sub_1', changed_value: 1751328000000, currency: 'USD' });
    assert.equal(g.value, undefined);
    assert.equal(g.currency, undefined);
    const c = g.col('changed_value');
    assert.equal(c.target, 'event_data');
    assert.match(c.why, /epoch milliseconds, not an amount: kept as a field/);
  });

  it('keeps a large amount in a currency as the value: a number is a time only by its range or its name', () => {
    const g = guess({ id: 'o_1', amount: 1700000000, currency: 'IDR' });
    assert.equal(g.value?.column, 'amount');
    assert.equal(g.currency?.column, 'currency');
    assert.equal(timeShapedAmount(field('amount', [1700000000])), undefined);
    assert.match(timeShapedAmount(field('amount_changed_at', [1700000000])) ?? '', /epoch seconds/);
    assert.match(timeShapedAmount(field('total', [1751328000000])) ?? '', /epoch milliseconds/);
    assert.equal(timeShapedAmount(field('total', [1751328000000, 2500])), undefined);
  });
});
