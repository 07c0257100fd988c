/**
 * The store path's writer on the Storage Write API (adapters/bigquery-write-api.ts), against the
 * BigQuery emulator: concurrent writes share one append, values keep insertAll's meaning
 * (microsecond timestamps, JSON, repeated records, dates), and a refused row is refused alone
 * while the rest of its request is written.
 */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { createWriteApiWriter } from '../../adapters/bigquery-write-api.ts';
import { timestampMicros } from '../../adapters/proto-rows.ts';
import { type Harness, startHarness } from '../../emulators/bigquery/test/support/helpers.ts';

const P = 'write-api';

const col = (name: string, type: string, mode = 'NULLABLE', fields?: object[]) => ({
  name,
  type,
  mode,
  ...(fields ? { fields } : {}),
});

describe('storage: rows through the Storage Write API', () => {
  let h: Harness;
  let bigquery: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bigquery = h.bq;
    await bigquery.createDataset('ds');
    const errors = col('errors', 'RECORD', 'REPEATED', [col('path', 'STRING'), col('message', 'STRING')]);
    const schema = [col('id', 'STRING', 'REQUIRED'), col('seen', 'TIMESTAMP', 'REQUIRED'), col('n', 'INT64')];
    await bigquery
      .dataset('ds')
      .createTable('rows', { schema: [...schema, col('day', 'DATE'), col('data', 'JSON'), errors] });
  });
  after(() => h.stop());

  it('reads an RFC 3339 timestamp as microseconds since the epoch', () => {
    assert.equal(timestampMicros('1970-01-01T00:00:01.000001Z')?.toString(), '1000001');
    assert.equal(timestampMicros('2026-01-02T03:04:05.123456Z')?.toString(), '1767323045123456');
    assert.equal(timestampMicros('2026-01-02T04:04:05.5+01:00')?.toString(), '1767323045500000');
    assert.equal(timestampMicros('not a time')?.toString(), undefined);
  });

  it('writes concurrent rows in one append, with their values as insertAll would store them', async () => {
    const writer = createWriteApiWriter(bigquery, 'ds', { windowMs: 20 });
    const row = (id: string, extra: Record<string, unknown> = {}) => ({
      insertId: id,
      json: { id, seen: '2026-01-02T03:04:05.123456Z', ...extra },
    });
    const results = await Promise.all([
      writer.write('rows', [row('a', { n: 1, day: '2026-01-02', data: { k: [1, 'two'] } })]),
      writer.write('rows', [
        row('b', {
          errors: [
            { path: 'x', message: 'bad' },
            { path: 'y', message: 'worse' },
          ],
        }),
      ]),
      writer.write('rows', [row('c', { data: '{"raw":true}' })]),
    ]);
    assert.deepEqual(results, [[], [], []]);
    assert.equal(writer.requests, 1);
    const [rows] = await bigquery.query(
      "SELECT id, FORMAT_TIMESTAMP('%Y-%m-%d %H:%M:%E6S', seen) AS seen, n, CAST(day AS STRING) AS day, TO_JSON_STRING(data) AS data, ARRAY_LENGTH(errors) AS errors FROM ds.rows ORDER BY id",
    );
    assert.deepEqual(rows, [
      {
        id: 'a',
        seen: '2026-01-02 03:04:05.123456',
        n: 1,
        day: '2026-01-02',
        data: '{"k":[1,"two"]}',
        errors: 0,
      },
      { id: 'b', seen: '2026-01-02 03:04:05.123456', n: null, day: null, data: null, errors: 2 },
      { id: 'c', seen: '2026-01-02 03:04:05.123456', n: null, day: null, data: '{"raw":true}', errors: 0 },
    ]);
  });

  it('refuses a bad row alone and writes the rest of its request', async () => {
    const writer = createWriteApiWriter(bigquery, 'ds', { windowMs: 20 });
    const at = '2026-02-01T00:00:00Z';
    const [good, unknownField, badValue, alsoGood] = await Promise.all([
      writer.write('rows', [{ insertId: 'g1', json: { id: 'g1', seen: at } }]),
      writer.write('rows', [{ insertId: 'u', json: { id: 'u', seen: at, no_such_column: 1 } }]),
      writer.write('rows', [{ insertId: 'v', json: { id: 'v', seen: 'never' } }]),
      writer.write('rows', [{ insertId: 'g2', json: { id: 'g2', seen: at } }]),
    ]);
    assert.deepEqual(good, []);
    assert.deepEqual(alsoGood, []);
    assert.equal(unknownField?.[0]?.reason, 'invalid');
    assert.match(String(unknownField?.[0]?.message), /no_such_column/);
    assert.equal(badValue?.[0]?.reason, 'invalid');
    const [rows] = await bigquery.query("SELECT id FROM ds.rows WHERE id IN ('g1','g2','u','v') ORDER BY id");
    assert.deepEqual(
      rows.map((r: { id: string }) => r.id),
      ['g1', 'g2'],
    );
  });
});
