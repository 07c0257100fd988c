/**
 * A time-shaped amount is never the value (issue #94, core/samples/amounts.ts `timeShapedAmount`
 * and `mayBeTheValue`): a column named like an amount whose values are epoch seconds or
 * milliseconds, or dates, is kept as a field and never offered as the event's value, on every
 * path that proposes one: the guesses' name match, a column named `value` kept under its own
 * name, digits written as text, the rivals of the value's question, and the studio page's value
 * slot (which asks `mayBeTheValue`).
 */
import assert from 'node:assert/strict';
import { mayBeTheValue } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, rows: sample.rows, guesses: guessChoices(fields, sample.rows) };
}
const whyOf = (r: ReturnType<typeof read>, column: string) =>
  r.guesses.columns.find((c) => c.column === column)?.why ?? '';

describe('creator: a time-shaped amount is never the value', () => {
  it('keeps a column named value of epoch seconds under its own name, never as the value', () => {
    const r = read([
      { id: 'a', value: 1751328000, currency: 'USD' },
      { id: 'b', value: 1751328600, currency: 'USD' },
    ]);
    assert.equal(r.guesses.value, undefined);
    // No value, so no currency and no offer of minor units either.
    assert.equal(r.guesses.currency, undefined);
    assert.equal(r.guesses.minorUnits, undefined);
    assert.match(
      whyOf(r, 'value'),
      /under its own name, but .*epoch seconds, not an amount: not the event's value/,
    );
    assert.match(whyOf(r, 'value'), /2025-07-01T00:00:00\.000Z/);
  });

  it('refuses epoch milliseconds and dates under any amount name', () => {
    for (const [column, v] of [
      ['total', 1751328000000],
      ['amount', '2026-01-01T10:00:00Z'],
      ['grand_total', '2026-01-01'],
    ] as const) {
      const r = read({ id: 'o_1', [column]: v, currency: 'EUR' });
      assert.equal(r.guesses.value, undefined, column);
    }
  });

  it('reads digits written as text the same way: a total of "1751328000000" is no amount', () => {
    const r = read({ id: 'o_1', total: '1751328000000', currency: 'USD' });
    assert.equal(r.guesses.value, undefined);
    // Digits of an amount beside a currency stay the value, in minor units.
    assert.equal(read({ id: 'o_1', total: '65215', currency: 'USD' }).guesses.value?.column, 'total');
  });

  it('takes the real amount beside a time named like one', () => {
    const r = read({ id: 'o_1', value: 1751328000, amount: 29.5, currency: 'USD' });
    assert.equal(r.guesses.value?.column, 'amount');
    // The time is no rival in a question of which amount is the value.
    assert.ok(!r.guesses.questions.some((q) => q.options.some((o) => o.column === 'value')));
  });

  it('is the one rule the page’s value slot asks too', () => {
    const { fields, rows } = read({ value: 1751328000, total: 42, fee: 1.5 });
    const by = (name: string) => fields.find((f) => f.name === name);
    const [value, total, fee] = [by('value'), by('total'), by('fee')];
    assert.ok(value && total && fee);
    assert.equal(mayBeTheValue(value, rows), false);
    assert.equal(mayBeTheValue(value), false, 'the examples alone, as the page has them');
    assert.equal(mayBeTheValue(total, rows), true);
    assert.equal(mayBeTheValue(fee), false, 'a fee is never the value either');
  });
});
