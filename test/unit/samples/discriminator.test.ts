/**
 * The column that tells a sample's event types apart, and the rows grouped by it
 * (core/samples/multi-type.ts, docs/creator-inference.md "Several event types"): only a whole
 * top-level name of the list, in any case, filled with text in every row and taking two values
 * or more; each group keeps the columns any of its own rows has.
 */
import assert from 'node:assert/strict';
import { discriminatorOf, rowsByType } from '../../../core/samples/multi-type.ts';
import type { ParsedSample } from '../../../core/samples/sample.ts';

const sample = (rows: Record<string, unknown>[]): ParsedSample => ({
  format: 'ndjson',
  header: true,
  columns: [...new Set(rows.flatMap((r) => Object.keys(r)))],
  rows,
  problems: [],
});
const two = (column: string, a: unknown = 'paid', b: unknown = 'refund') =>
  discriminatorOf(sample([{ [column]: a }, { [column]: b }]));

describe("the creator's discriminator of event types", () => {
  it('takes each name of the list, whole and in any case', () => {
    const names = 'type Event EVENT_TYPE eventType topic action kind event_name trigger'.split(' ');
    assert.deepEqual(
      names.map((n) => two(n)),
      names,
    );
    for (const name of ['subtype', 'types', 'event_types', 'data.type'])
      assert.equal(two(name), undefined, name);
  });

  it('needs text in every row and two values at least', () => {
    assert.equal(two('type', 'paid', 'paid'), undefined);
    assert.equal(two('type', 'paid', ''), undefined);
    assert.equal(two('type', 1, 2), undefined);
    assert.equal(two('type', 'paid', 2), undefined);
    assert.equal(two('type', 'paid', null), undefined);
    assert.equal(discriminatorOf(sample([{ type: 'a' }, { type: 'b' }, { type: 'c' }])), 'type');
  });

  it('groups rows by its value in order of first appearance, each with the columns its rows have', () => {
    const groups = rowsByType(
      sample([
        { type: 'paid', amount: 1 },
        { type: 'refund', reason: 'late' },
        { type: 'paid', plan: 'pro' },
      ]),
      'type',
    );
    assert.deepEqual([...groups.keys()], ['paid', 'refund']);
    assert.deepEqual(groups.get('paid')?.rows.length, 2);
    assert.deepEqual(groups.get('paid')?.columns, ['type', 'amount', 'plan']);
    assert.deepEqual(groups.get('refund')?.columns, ['type', 'reason']);
  });
});
