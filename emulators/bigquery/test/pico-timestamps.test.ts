/**
 * BigQuery emulator: picosecond TIMESTAMP columns (`timestampPrecision: 12`) and the
 * `formatOptions` tabledata.list answers them in, through Google's client (and raw fetch where
 * the wire form matters): what Google's `system-test/timestamp_output_format.ts` checks.
 */
import assert from 'node:assert/strict';
import type { BigQuery, Table } from '@google-cloud/bigquery';
import { type Harness, P, rejectsWith, startHarness } from './support/helpers.ts';

const INSERTED = '2023-01-01T12:00:00.123456789123Z';

describe('BigQuery emulator: picosecond timestamps', () => {
  let h: Harness;
  let bq: BigQuery;
  let table: Table;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
    const [ds] = await bq.createDataset('pico');
    [table] = await ds.createTable('ts', {
      schema: {
        fields: [
          { name: 'id', type: 'INT64' },
          { name: 'ts', type: 'TIMESTAMP', timestampPrecision: '12' },
          {
            name: 'rec',
            type: 'RECORD',
            fields: [{ name: 'at', type: 'TIMESTAMP', timestampPrecision: '12' }],
          },
        ],
      },
    });
    await table.insert([{ id: 1, ts: INSERTED, rec: { at: INSERTED } }]);
  });
  after(() => h.stop());

  /** The first row's cells of tabledata.list with these query parameters, as sent on the wire. */
  const wire = async (qs: string): Promise<unknown[]> => {
    const res = await fetch(
      `${h.emulator.url}/projects/${P}/datasets/pico/tables/ts/data?maxResults=1&${qs}`,
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { rows: { f: { v: unknown }[] }[] };
    return (body.rows[0]?.f ?? []).map((c) => c.v);
  };

  it('creates a TIMESTAMP field with timestampPrecision 12 and reports it back', async () => {
    const [meta] = await table.getMetadata();
    assert.equal(meta.schema.fields[1].timestampPrecision, '12');
    assert.equal(meta.schema.fields[2].fields[0].timestampPrecision, '12');
  });

  it('refuses timestampPrecision 12 on a field that is not a TIMESTAMP, and precisions other than 6 and 12', async () => {
    const ds = bq.dataset('pico');
    await rejectsWith(
      ds.createTable('bad1', {
        schema: { fields: [{ name: 's', type: 'STRING', timestampPrecision: '12' }] },
      }),
      400,
      'invalid',
      /only a TIMESTAMP field has picosecond precision/,
    );
    await rejectsWith(
      ds.createTable('bad2', {
        schema: { fields: [{ name: 't', type: 'TIMESTAMP', timestampPrecision: '9' }] },
      }),
      400,
      'invalid',
      /timestampPrecision: 9/,
    );
  });

  it('answers ISO8601_STRING with all twelve fraction digits, at the top level and in a RECORD', async () => {
    const [, ts, rec] = await wire('formatOptions.timestampOutputFormat=ISO8601_STRING');
    assert.equal(ts, INSERTED);
    assert.deepStrictEqual(rec, { f: [{ v: INSERTED }] });
    const [rows] = await table.getRows({ 'formatOptions.timestampOutputFormat': 'ISO8601_STRING' });
    assert.equal((rows[0] as { ts: { value: string } }).ts.value, INSERTED);
  });

  it('answers INT64 and useInt64Timestamp with microseconds, the digits below dropped', async () => {
    assert.equal((await wire('formatOptions.timestampOutputFormat=INT64'))[1], '1672574400123456');
    assert.equal((await wire('formatOptions.useInt64Timestamp=true'))[1], '1672574400123456');
    const [rows] = await table.getRows({ 'formatOptions.timestampOutputFormat': 'INT64' });
    assert.equal((rows[0] as { ts: { value: string } }).ts.value, '2023-01-01T12:00:00.123456000Z');
  });

  it('answers FLOAT64, TIMESTAMP_OUTPUT_FORMAT_UNSPECIFIED and no format with float seconds', async () => {
    assert.equal((await wire('formatOptions.timestampOutputFormat=FLOAT64'))[1], '1.672574400123456E9');
    assert.equal(
      (await wire('formatOptions.timestampOutputFormat=TIMESTAMP_OUTPUT_FORMAT_UNSPECIFIED'))[1],
      '1.672574400123456E9',
    );
    assert.equal((await wire(''))[1], '1.672574400123456E9');
  });

  it('refuses useInt64Timestamp=true with ISO8601_STRING in BigQuery’s words', async () => {
    await assert.rejects(
      table.getRows({
        'formatOptions.timestampOutputFormat': 'ISO8601_STRING',
        'formatOptions.useInt64Timestamp': true,
      }),
      { message: 'Cannot specify both use_int64_timestamp and timestamp_output_format.' },
    );
  });

  it('stores other timestamp forms in the canonical text: fewer digits, a zone offset, float seconds', async () => {
    await table.insert([
      { id: 2, ts: '2023-01-01 12:00:00.5' },
      { id: 3, ts: '2023-01-01T14:00:00.000000000001+02:00' },
      { id: 4, ts: 1672574400.25 },
    ]);
    const [rows] = await bq.query('SELECT id, ts FROM pico.ts WHERE id > 1 ORDER BY id');
    assert.deepStrictEqual(
      rows.map((r: { ts: unknown }) => r.ts),
      [
        '2023-01-01T12:00:00.500000000000Z',
        '2023-01-01T12:00:00.000000000001Z',
        '2023-01-01T12:00:00.250000000000Z',
      ],
    );
  });

  it('lets a query read the column as its text (a known difference), ordered as the times are', async () => {
    const [job] = await bq.createQueryJob({
      query: 'SELECT ts, TIMESTAMP(SUBSTR(ts, 1, 26)) AS micros FROM pico.ts WHERE id > 1 ORDER BY ts',
    });
    const [rows, , res] = await job.getQueryResults();
    assert.equal(res?.schema?.fields?.[0]?.type, 'STRING');
    assert.deepStrictEqual(
      rows.map((r: { ts: string; micros: { value: string } }) => [r.ts.slice(17, 32), r.micros.value]),
      [
        ['00.000000000001', '2023-01-01T12:00:00.000Z'],
        ['00.250000000000', '2023-01-01T12:00:00.250Z'],
        ['00.500000000000', '2023-01-01T12:00:00.500Z'],
      ],
    );
  });

  it('refuses a value that is not a timestamp, per row', async () => {
    await assert.rejects(
      table.insert([{ id: 5, ts: 'soon' }]),
      (err: Error & { errors: { errors: { message: string }[] }[] }) => {
        assert.match(err.errors[0]?.errors[0]?.message ?? '', /Could not parse "soon" as a timestamp/);
        return true;
      },
    );
  });

  it('refuses a patch that changes a field’s timestamp precision', async () => {
    const [meta] = await table.getMetadata();
    const fields = meta.schema.fields.map((f: { name: string }) =>
      f.name === 'ts' ? { ...f, timestampPrecision: '6' } : f,
    );
    await rejectsWith(table.setMetadata({ schema: { fields } }), 400, 'invalid', /has changed type/);
  });
});
