/**
 * insertAll row conversion: the compiled fast path must give exactly what the generic
 * path gives (values and errors), whatever the row looks like.
 */
import assert from 'node:assert/strict';
import { convertRow, convertRowGeneric } from '../insert-rows.ts';
import { type FieldSchema, normaliseSchema } from '../schema.ts';
import { canonicalTimestampMicros, parseTimestampMicros } from '../time-text.ts';

const FIELDS = normaliseSchema([
  { name: 'id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'at', type: 'TIMESTAMP', mode: 'REQUIRED' },
  { name: 'n', type: 'INT64' },
  { name: 'x', type: 'FLOAT64' },
  { name: 'ok', type: 'BOOL' },
  { name: 'price', type: 'NUMERIC' },
  { name: 'day', type: 'DATE' },
  { name: 'data', type: 'JSON' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'user_id', type: 'STRING' },
      { name: 'seen', type: 'TIMESTAMP', mode: 'REPEATED' },
    ],
  },
  { name: 'constructor', type: 'JSON' },
]) as FieldSchema[];

const ROWS: unknown[] = [
  { id: 'a', at: '2024-01-01T00:00:00Z' },
  { id: 'a', at: '2024-01-01T00:00:00.123456789Z', n: 5, x: 1.5, ok: true, price: '1.25', day: '2024-02-29' },
  { id: 'a', at: '2024-01-01 10:11:12.5Z', data: { a: [1, 2] }, tags: ['x', 'y'], user: { user_id: 'u' } },
  { id: 'a', at: '2024-01-01T00:00:00Z', data: '{"a":1}', user: { seen: ['2024-03-01T00:00:00.000001Z'] } },
  { id: 'a', at: '2024-01-01T00:00:00Z', data: '{not json' },
  { id: 'a', at: '2023-02-29T00:00:00Z' },
  { id: 'a', at: '2024-01-01T24:00:00Z' },
  { id: 'a', at: '0099-01-01T00:00:00Z' },
  { id: 'a', at: '1969-12-31T23:59:59.9995Z' },
  { id: 'a', at: '2024-01-01T00:00:00+02:00' },
  { id: 'a', at: '2024-01-01T00:00:00.Z' },
  { id: 'a', at: 1_700_000_000.25 },
  { id: 'a', at: '2024-01-01T00:00:00Z', n: '42', x: 'NaN', ok: 'true' },
  { id: 'a', at: '2024-01-01T00:00:00Z', n: 2 ** 60 },
  { id: 'a', at: '2024-01-01T00:00:00Z', n: 1.5 },
  { id: 7, at: '2024-01-01T00:00:00Z' },
  { id: 'a' },
  { ID: 'a', AT: '2024-01-01T00:00:00Z' },
  { id: 'a', at: '2024-01-01T00:00:00Z', extra: 1 },
  { id: 'a', at: '2024-01-01T00:00:00Z', tags: ['x', null] },
  { id: 'a', at: '2024-01-01T00:00:00Z', tags: 'x' },
  { id: 'a', at: '2024-01-01T00:00:00Z', user: 'u' },
  { id: 'a', at: '2024-01-01T00:00:00Z', user: { user_id: 'u', other: 1 } },
  { id: 'a', at: '2024-01-01T00:00:00Z', constructor: { a: 1 } },
  JSON.parse('{"id":"a","at":"2024-01-01T00:00:00Z","__proto__":{"x":1}}'),
  [],
  null,
  'row',
];

describe('BigQuery emulator: insertAll row conversion', () => {
  for (const [i, row] of ROWS.entries()) {
    for (const ignoreUnknown of [false, true]) {
      it(`fast path equals the generic path for row ${i} (ignoreUnknownValues ${ignoreUnknown})`, () => {
        assert.deepStrictEqual(
          convertRow(FIELDS, row, ignoreUnknown),
          convertRowGeneric(FIELDS, row, ignoreUnknown),
        );
      });
    }
  }

  it('reads canonical timestamps as the generic parser does', () => {
    let state = 12345;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const pad = (v: number, n: number) => String(v).padStart(n, '0');
    for (let k = 0; k < 5000; k++) {
      const frac = rand(11);
      const text = `${pad(1000 + rand(9000), 4)}-${pad(rand(14), 2)}-${pad(rand(33), 2)}${rand(2) ? 'T' : ' '}${pad(rand(25), 2)}:${pad(rand(61), 2)}:${pad(rand(61), 2)}${frac === 0 ? '' : `.${pad(rand(10 ** Math.min(frac, 9)), Math.min(frac, 9))}`}${frac === 10 ? '' : 'Z'}`;
      const fast = canonicalTimestampMicros(text);
      if (fast !== undefined) assert.equal(fast, parseTimestampMicros(text), text);
      else if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(text))
        assert.equal(parseTimestampMicros(text), undefined, `fast path refused a valid ${text}`);
    }
  });
});
