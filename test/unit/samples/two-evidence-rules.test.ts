/**
 * The rules of core/samples/two-evidence.ts one by one (docs/testing.md, its mutation run): which
 * numbers are instants and not amounts (the ranges' ends, whole numbers, digits written as text,
 * the name's words of when), each actor a person's detail is never taken from, each word a
 * country's name has, and which columns thin evidence asks about.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { InferredField } from '../../../core/samples/sample.ts';
import { timeShapedAmount } from '../../../core/samples/two-evidence.ts';

const field = (name: string, examples: unknown[], extra: Partial<InferredField> = {}): InferredField => ({
  name,
  type: 'integer',
  examples,
  distinct: examples.length,
  nullable: false,
  ...extra,
});

describe('creator: an amount is not a time, rule by rule', () => {
  it('reads digits written as text (a CSV cell) as the number they are', () => {
    const sample = parseSample(
      'id,changed_value,currency\nsub_1,1751328000000,USD\nsub_2,1751328100000,USD\n',
    );
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.equal(g.value, undefined);
    assert.match(
      g.columns.find((c) => c.column === 'changed_value')?.why ?? '',
      /epoch milliseconds, not an amount/,
    );
    assert.match(
      timeShapedAmount(field('total', ['1751328000000', ' 1751328000001 '])) ?? '',
      /milliseconds/,
    );
    assert.equal(timeShapedAmount(field('total', ['1751328000000', '17.5e11'])), undefined);
  });
});
