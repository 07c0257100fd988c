/**
 * JSON inside a sample's values (core/samples/encoded.ts), rule by rule: a column is read as
 * nested columns only when every value it has is base64 of a JSON object with a key (not a list,
 * a text, null or `{}`), missing and null cells aside; the other columns keep their place and
 * values, and the nested columns of every row are listed once, where the column was.
 */
import assert from 'node:assert/strict';
import { withEncodedColumns } from '../../../core/samples/encoded.ts';
import type { JsonResult } from '../../../core/samples/json.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const sample = (rows: Record<string, unknown>[]): JsonResult => ({
  columns: [...new Set(rows.flatMap((r) => Object.keys(r)))],
  rows,
  problems: [],
});

describe('a sample column of base64 JSON', () => {
  it('is read as nested columns in its place, listed once over every row', () => {
    const read = withEncodedColumns(
      sample([
        { id: 1, ue: b64('{"a":1,"b":{"c":"x"}}'), n: 'one' },
        { id: 2, ue: b64('{"a":2,"d":true}'), n: 'two' },
        { id: 3, ue: null, n: 'three' },
        { id: 4, n: 'four' },
      ]),
    );
    assert.deepEqual(read.encoded, ['ue']);
    assert.deepEqual(read.columns, ['id', 'ue.a', 'ue.b.c', 'ue.d', 'n']);
    assert.deepEqual(read.rows, [
      { id: 1, 'ue.a': 1, 'ue.b.c': 'x', n: 'one' },
      { id: 2, 'ue.a': 2, 'ue.d': true, n: 'two' },
      { id: 3, n: 'three' },
      { id: 4, n: 'four' },
    ]);
  });

  it('reads URL-safe base64 without padding, from the shortest object with a key', () => {
    const read = withEncodedColumns(
      sample([{ u: Buffer.from('{"k":"??>"}').toString('base64url') }, { u: b64('{"":1}') }]),
    );
    assert.equal(b64('{"":1}').length, 8);
    assert.deepEqual(read.encoded, ['u']);
    assert.deepEqual(read.rows[0], { 'u.k': '??>' });
  });

  it('stays as it is when one value is not base64 of an object with a key', () => {
    for (const other of [
      'not base64 at all',
      b64('[{"a":1}]'),
      b64('"a text value"'),
      b64('null'),
      b64('{    }'),
      12345678,
    ]) {
      const input = sample([{ x: b64('{"a":1}') }, { x: other }]);
      const read = withEncodedColumns(input);
      assert.equal(read, input, String(other));
      assert.equal(read.encoded, undefined);
    }
  });

  it('leaves a sample without such a column as it was', () => {
    const input = sample([{ a: 'plain', b: 'text values' }]);
    assert.equal(withEncodedColumns(input), input);
    assert.equal(withEncodedColumns(sample([{ a: null }])).encoded, undefined);
  });
});
