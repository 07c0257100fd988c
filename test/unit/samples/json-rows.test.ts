/**
 * JSON samples (core/samples/json.ts), rule by rule: nesting flattened to dotted paths down to
 * eight levels (deeper kept whole, an empty object kept as a value), the records key a sample
 * offers (one array of objects under a plain name), the rows of that key when asked, the line of
 * a JSON error, and NDJSON's blank and non-object lines.
 */
import assert from 'node:assert/strict';
import { jsonRows, ndjsonRows, readJson, recordsPath } from '../../../core/samples/json.ts';

/** An object nested `depth` levels: {k1:{k2:…{k<depth>:1}}}. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = depth; i >= 1; i--) value = { [`k${i}`]: value };
  return value as Record<string, unknown>;
}

describe('a JSON sample', () => {
  it('flattens eight levels of objects into a path, and keeps a ninth whole', () => {
    assert.deepEqual(jsonRows(nested(8)).rows, [{ 'k1.k2.k3.k4.k5.k6.k7.k8': 1 }]);
    assert.deepEqual(jsonRows(nested(9)).rows, [{ 'k1.k2.k3.k4.k5.k6.k7.k8': { k9: 1 } }]);
    assert.deepEqual(jsonRows({ a: {}, b: [] }).rows, [{ a: {}, b: [] }]);
  });

  it('offers the one key holding an array of objects, under a plain name', () => {
    assert.equal(recordsPath({ events: [{ a: 1 }], n: 1 }), 'events');
    assert.equal(recordsPath({ $data_2: [{ a: 1 }] }), '$data_2');
    assert.equal(recordsPath({ 'line-items': [{ a: 1 }] }), 'line-items');
    for (const value of [
      { a: [{ x: 1 }], b: [{ y: 1 }] },
      { a: [] },
      { a: [{ x: 1 }, 2] },
      { a: { x: 1 } },
      { '2nd': [{ x: 1 }] },
      { 'a.b': [{ x: 1 }] },
      { 'a b': [{ x: 1 }] },
      [{ a: [{ x: 1 }] }],
      null,
    ])
      assert.equal(recordsPath(value), undefined, JSON.stringify(value));
  });

  it('reads the rows of the records key when asked, and the value itself otherwise', () => {
    const body = { events: [{ a: 1 }, { a: 2 }], n: 3 };
    assert.deepEqual(jsonRows(body, 'events').rows, [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(jsonRows(body).rows, [{ events: body.events, n: 3 }]);
    assert.deepEqual(jsonRows([{ a: 1 }], 'events').rows, [{ a: 1 }]);
    assert.deepEqual(jsonRows(body, 'missing').problems, [
      { message: 'the JSON is neither an object nor an array of objects' },
    ]);
  });

  it('gives the line of a JSON error where the parser names a position', () => {
    const read = readJson('{\n"a": 1,\n"b" 2\n}');
    assert.ok('problem' in read);
    assert.equal(read.problem.line, 3);
    assert.match(read.problem.message, /^not valid JSON: /);
    // A line end inside a string is the error's own position: still the line it breaks.
    const broken = readJson('{"a":"x\ny"}');
    assert.ok('problem' in broken);
    assert.equal(broken.problem.line, 1);
    // V8 names no position for a bad first token: no line rather than a guess.
    const first = readJson('x');
    assert.ok('problem' in first);
    assert.equal('line' in first.problem, false);
  });

  it('reads NDJSON lines with blanks around them, skipping blank lines', () => {
    const read = ndjsonRows('  {"a":1}  \n\n   \n\t{"a":2}\n"x"\n');
    assert.deepEqual(read.rows, [{ a: 1 }, { a: 2 }]);
    assert.deepEqual(read.columns, ['a']);
    assert.deepEqual(read.problems, [{ line: 5, message: 'is not a JSON object: skipped' }]);
  });
});
