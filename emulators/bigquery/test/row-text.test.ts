/**
 * insertAll rows as JSON text (row-text.ts): a row is prepared only when the converter
 * accepts it, preparing it changes nothing the converter makes of it, and DuckDB's reader
 * stores exactly what the appender stores for it.
 */
import assert from 'node:assert/strict';
import { type DuckDBConnection, DuckDBDataChunk, DuckDBInstance } from '@duckdb/node-api';
import { convertRow } from '../insert-rows.ts';
import { prepareRowText, rowTextInsertSql } from '../row-text.ts';
import { columnDefinitions, type FieldSchema, normaliseSchema } from '../schema.ts';

// The same table shape as convert.test.ts on purpose: both insert paths must agree on it.
// jscpd:ignore-start
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
  { name: 'nums', type: 'FLOAT64', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'user_id', type: 'STRING' },
      { name: 'seen', type: 'TIMESTAMP', mode: 'REPEATED' },
      { name: 'extra', type: 'JSON' },
    ],
  },
  { name: 'hits', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'k', type: 'INT64' }] },
  { name: 'constructor', type: 'JSON' },
]) as FieldSchema[];
// jscpd:ignore-end

const AT = '2024-01-01T00:00:00Z';
const ROWS: unknown[] = [
  { id: 'a', at: AT },
  { id: 'a', at: '2024-01-01T00:00:00.123456789Z', n: 5, x: 1.5, ok: true },
  {
    id: 'a',
    at: '2024-01-01 10:11:12.5Z',
    data: { a: [1, 2.5, 'é'] },
    tags: ['x', 'y'],
    user: { user_id: 'u' },
  },
  { id: 'a', at: AT, data: '{"a": 1.0,  "b": "\\u00e9"}', user: { seen: ['2024-03-01T00:00:00.000001Z'] } },
  { id: 'a', at: AT, data: '"just a string"', user: { extra: [null, { b: true }] } },
  { id: 'a', at: AT, data: 12, constructor: { a: 1 } },
  { id: 'a', at: AT, data: null, tags: null, nums: [0, 1e21, 5e-324, 1.7976931348623157e308, 0.1] },
  { id: 'a', at: AT, x: 0, n: -9007199254740991 },
  { id: 'a', at: AT, x: 1e20, n: 9007199254740991 },
  { id: 'a', at: AT, x: 123456789012345680000 },
  { id: 'quote " back \\ slash \n tab \t nul \u0000 é 😀 \u2028', at: AT },
  { id: 7, at: AT },
  { id: true, at: AT },
  { id: 1e21, at: AT },
  { id: 0.30000000000000004, at: AT },
  { id: 1.5e-7, at: AT },
  { id: 'a', at: AT, hits: [{ k: 1 }, { k: null }, {}] },
  { id: 'a', at: '1000-01-01T00:00:00.000000Z' },
  { id: 'a', at: '9999-12-31T23:59:59.999999999Z' },
  { id: 'a', at: '2024-02-29T12:00:00.1Z' },
  { id: 'a', at: '1969-12-31T23:59:59.9995Z' },
  // Rows that must take the appender path (loose forms) or fail there.
  { id: 'a', at: AT, price: '1.25' },
  { id: 'a', at: AT, day: '2024-02-29' },
  { id: 'a', at: AT, n: '42' },
  { id: 'a', at: AT, x: 'NaN' },
  { id: 'a', at: AT, ok: 'true' },
  { id: 'a', at: AT, n: 2 ** 60 },
  { id: 'a', at: AT, n: 1.5 },
  { id: 'a', at: '2024-01-01T00:00:00+02:00' },
  { id: 'a', at: 1_700_000_000.25 },
  { id: 'a', at: '2023-02-29T00:00:00Z' },
  { id: 'a', at: '0099-01-01T00:00:00Z' },
  { id: 'lone \ud800 surrogate', at: AT },
  { id: 'a', at: AT, data: 'lone \ud800' },
  { id: 'a', at: AT, data: '{not json' },
  { id: 'a' },
  { ID: 'a', AT },
  { id: 'a', at: AT, extra: 1 },
  { id: 'a', at: AT, tags: ['x', null] },
  { id: 'a', at: AT, tags: 'x' },
  { id: 'a', at: AT, user: 'u' },
  { id: 'a', at: AT, user: { user_id: 'u', other: 1 } },
  JSON.parse(`{"id":"a","at":"${AT}","__proto__":{"x":1}}`),
  [],
  null,
  'row',
];

async function rowsOf(conn: DuckDBConnection, table: string): Promise<unknown> {
  // Text of every column (JSON bytes, microseconds) in row order.
  const cols = FIELDS.map((f) => `CAST("${f.name}" AS VARCHAR)`).join(', ');
  const r = await conn.runAndReadAll(`SELECT ${cols} FROM ${table} ORDER BY rowid`);
  return r.getRows();
}

describe('BigQuery emulator: insertAll rows as JSON text', () => {
  it('prepares only rows the converter accepts, and they still convert to the same values', () => {
    for (const [i, row] of ROWS.entries()) {
      const copy = structuredClone(row);
      if (!prepareRowText(FIELDS, copy)) continue;
      const before = convertRow(FIELDS, row, false);
      assert.ok('values' in before, `row ${i} was prepared but is invalid`);
      assert.deepStrictEqual(convertRow(FIELDS, copy, false), before, `row ${i}`);
    }
  });

  it('refuses loose forms, lone surrogates, -0, infinities and types without a text form', () => {
    const first = ROWS.findIndex((r) => (r as { price?: string } | null)?.price === '1.25');
    for (const row of ROWS.slice(first))
      assert.equal(prepareRowText(FIELDS, structuredClone(row)), false, String(JSON.stringify(row)));
    assert.equal(prepareRowText(FIELDS, { id: 'a', at: AT, x: -0 }), false);
    assert.equal(prepareRowText(FIELDS, JSON.parse(`{"id":"a","at":"${AT}","x":1e400}`)), false);
    assert.equal(prepareRowText(FIELDS, { id: 'a', at: AT, nums: [1, Number.NEGATIVE_INFINITY] }), false);
    assert.equal(prepareRowText(FIELDS, { id: 'a', at: AT, price: null, day: null }), true);
  });

  it('stores through from_json exactly what the appender stores', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      await conn.run(`SET TimeZone = 'UTC'`);
      await conn.run(`CREATE TABLE viaText (${columnDefinitions(FIELDS)})`);
      await conn.run(`CREATE TABLE viaAppender (${columnDefinitions(FIELDS)})`);
      const texts: string[] = [];
      const values = [];
      for (const row of ROWS) {
        const copy = structuredClone(row);
        if (!prepareRowText(FIELDS, copy)) continue;
        texts.push(JSON.stringify(copy));
        const c = convertRow(FIELDS, row, false);
        assert.ok('values' in c);
        values.push(c.values);
      }
      assert.ok(texts.length >= 18, `only ${texts.length} rows had text`);
      await conn.run(rowTextInsertSql('viaText', FIELDS), [`[${texts.join(',')}]`]);
      const appender = await conn.createAppender('viaAppender');
      const types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
      const chunk = DuckDBDataChunk.create(types, values.length);
      chunk.setRows(values);
      appender.appendDataChunk(chunk);
      appender.flushSync();
      appender.closeSync();
      const viaText = await rowsOf(conn, 'viaText');
      assert.equal((viaText as unknown[]).length, texts.length);
      assert.deepStrictEqual(viaText, await rowsOf(conn, 'viaAppender'));
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});
