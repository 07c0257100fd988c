/**
 * BigQuery emulator: the RANGE type (RANGE<DATE>, RANGE<DATETIME>, RANGE<TIMESTAMP>) through
 * Google's client: table columns (create, get, insertAll, tabledata.list), query parameters
 * (positional and named), RANGE literals, the RANGE constructor and the RANGE functions, and the
 * REST form of values (`[start, end)`, `UNBOUNDED` for an open bound), read raw where it matters.
 */
import assert from 'node:assert/strict';
import type { BigQuery, Table } from '@google-cloud/bigquery';
import { type Harness, P, rejectsWith, startHarness } from './support/helpers.ts';

/** The client's RANGE value class (not exported by name from the package). */
type BigQueryRange = ReturnType<BigQuery['range']>;

/** A RANGE column of each element type. */
const PERIODS = [
  { name: 'id', type: 'INT64' },
  ...(['DATE', 'TIMESTAMP', 'DATETIME'] as const).map((type, i) => ({
    name: ['days', 'times', 'civil'][i] as string,
    type: 'RANGE',
    rangeElementType: { type },
  })),
];

describe('BigQuery emulator: RANGE', () => {
  let h: Harness;
  let bq: BigQuery;
  let table: Table;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
    [table] = await (await bq.createDataset('ranges'))[0].createTable('periods', {
      schema: { fields: PERIODS },
    });
  });
  after(() => h.stop());

  /** A query's rows as sent on the wire (jobs.query), cells only. */
  const wire = async (query: string): Promise<unknown[][]> => {
    const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
      method: 'POST',
      body: JSON.stringify({ query, useLegacySql: false, defaultDataset: { datasetId: 'ranges' } }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { rows: { f: { v: unknown }[] }[] };
    return body.rows.map((r) => r.f.map((c) => c.v));
  };
  const one = async (query: string): Promise<unknown> => {
    const [rows] = await bq.query({ query, defaultDataset: { datasetId: 'ranges' } });
    return Object.values(rows[0] as Record<string, unknown>)[0];
  };

  it('creates RANGE columns with their element type and reports them back', async () => {
    const [meta] = await table.getMetadata();
    assert.deepEqual(
      meta.schema.fields
        .slice(1)
        .map((f: { type: string; rangeElementType: unknown }) => [f.type, f.rangeElementType]),
      [
        ['RANGE', { type: 'DATE' }],
        ['RANGE', { type: 'TIMESTAMP' }],
        ['RANGE', { type: 'DATETIME' }],
      ],
    );
  });

  it('names RANGE columns RANGE<T> in INFORMATION_SCHEMA.COLUMNS', async () => {
    assert.deepEqual(
      await wire(
        "SELECT column_name, data_type FROM ranges.INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'periods' ORDER BY ordinal_position",
      ),
      [
        ['id', 'INT64'],
        ['days', 'RANGE<DATE>'],
        ['times', 'RANGE<TIMESTAMP>'],
        ['civil', 'RANGE<DATETIME>'],
      ],
    );
  });

  it("inserts BigQueryRange values (the client's start/end objects) and range text, and lists them back", async () => {
    await table.insert([
      {
        id: 1,
        days: bq.range('[2020-01-01, 2020-12-31)', 'DATE'),
        times: bq.range('[2020-10-01 12:00:00+08, 2020-12-31 12:00:00+08)', 'TIMESTAMP'),
        civil: bq.range('[2020-01-01 12:00:00, UNBOUNDED)', 'DATETIME'),
      },
      { id: 2, days: '[UNBOUNDED, 2021-06-01)', times: null, civil: { start: '2021-01-01T00:00:00' } },
    ]);
    const [rows] = await table.getRows({ selectedFields: 'id,days,times,civil' });
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const r1 = byId.get(1) as Record<string, BigQueryRange>;
    assert.equal(r1.days?.constructor.name, 'BigQueryRange');
    assert.deepEqual(r1.days?.value, { start: '2020-01-01', end: '2020-12-31' });
    assert.deepEqual(r1.times?.value, { start: '2020-10-01T04:00:00.000Z', end: '2020-12-31T04:00:00.000Z' });
    assert.equal(r1.civil?.value.end, 'UNBOUNDED');
    const r2 = byId.get(2) as Record<string, BigQueryRange | null>;
    assert.deepEqual(r2.days?.value, { start: 'UNBOUNDED', end: '2021-06-01' });
    assert.equal(r2.times, null);
    assert.equal(r2.civil?.value.end, 'UNBOUNDED');
  });

  it('answers RANGE values on the wire as [start, end) with UNBOUNDED, and the result schema as RANGE', async () => {
    const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
      method: 'POST',
      body: JSON.stringify({
        query:
          "SELECT RANGE<DATE> '[2020-01-01, UNBOUNDED)' AS r, RANGE(DATETIME '2020-01-01 10:00:00', NULL) AS c, " +
          "RANGE<TIMESTAMP> '[2020-01-01 00:00:00 UTC, UNBOUNDED)' AS t",
        useLegacySql: false,
        formatOptions: { useInt64Timestamp: true },
      }),
    });
    const body = (await res.json()) as {
      schema: { fields: unknown[] };
      rows: { f: { v: unknown }[] }[];
    };
    assert.deepEqual(body.schema.fields[0], {
      name: 'r',
      type: 'RANGE',
      mode: 'NULLABLE',
      rangeElementType: { type: 'DATE' },
    });
    assert.deepEqual(
      body.rows[0]?.f.map((c) => c.v),
      ['[2020-01-01, UNBOUNDED)', '[2020-01-01T10:00:00, UNBOUNDED)', '[1577836800000000, UNBOUNDED)'],
    );
    // A TIMESTAMP bound is written as a TIMESTAMP cell is, in the format asked: int64 microseconds
    // above, float seconds when none is asked.
    assert.deepEqual(await wire("SELECT RANGE<TIMESTAMP> '[2020-01-01 00:00:00 UTC, UNBOUNDED)'"), [
      ['[1.5778368E9, UNBOUNDED)'],
    ]);
  });

  it('takes RANGE query parameters, positional and named, with open bounds', async () => {
    const [positional] = await bq.query({
      query: 'SELECT ? AS r, RANGE_START(?) AS s',
      params: [
        bq.range('[2020-10-01 12:00:00+08, 2020-12-31 12:00:00+08)', 'TIMESTAMP'),
        bq.range('[2020-01-01, UNBOUNDED)', 'DATE'),
      ],
    });
    assert.deepEqual((positional[0].r as BigQueryRange).value, {
      start: '2020-10-01T04:00:00.000Z',
      end: '2020-12-31T04:00:00.000Z',
    });
    assert.equal(positional[0].s.value, '2020-01-01');
    const [named] = await bq.query({
      query: 'SELECT RANGE_CONTAINS(@r, DATE @d) AS inside, RANGE_END(@r) IS NULL AS open',
      params: { r: bq.range('[2020-01-01, UNBOUNDED)', 'DATE'), d: '2999-01-01' },
    });
    assert.deepEqual(named[0], { inside: true, open: true });
  });

  it('refuses a RANGE parameter whose start is not before its end', async () => {
    await rejectsWith(
      bq.query({ query: 'SELECT @r AS r', params: { r: bq.range('[2020-12-31, 2020-01-01)', 'DATE') } }),
      400,
      'invalid',
      /RANGE start must be less than end/,
    );
  });

  it('computes RANGE_START, RANGE_END, RANGE_CONTAINS, RANGE_OVERLAPS and RANGE_INTERSECT as BigQuery', async () => {
    const q = "RANGE<DATE> '[2020-01-01, 2020-03-01)'";
    assert.equal(((await one(`SELECT RANGE_START(${q})`)) as { value: string }).value, '2020-01-01');
    assert.equal(await one(`SELECT RANGE_END(RANGE<DATE> '[2020-01-01, UNBOUNDED)')`), null);
    assert.equal(await one(`SELECT RANGE_CONTAINS(${q}, DATE '2020-02-29')`), true);
    // The end is exclusive.
    assert.equal(await one(`SELECT RANGE_CONTAINS(${q}, DATE '2020-03-01')`), false);
    assert.equal(await one(`SELECT RANGE_CONTAINS(${q}, RANGE<DATE> '[2020-01-15, 2020-02-01)')`), true);
    assert.equal(await one(`SELECT RANGE_CONTAINS(${q}, RANGE<DATE> '[2020-01-15, UNBOUNDED)')`), false);
    assert.equal(await one(`SELECT RANGE_OVERLAPS(${q}, RANGE<DATE> '[2020-02-01, 2020-05-01)')`), true);
    // Ranges that only touch do not overlap.
    assert.equal(await one(`SELECT RANGE_OVERLAPS(${q}, RANGE<DATE> '[2020-03-01, UNBOUNDED)')`), false);
    assert.deepEqual(
      ((await one(`SELECT RANGE_INTERSECT(${q}, RANGE<DATE> '[2020-02-01, UNBOUNDED)')`)) as BigQueryRange)
        .value,
      { start: '2020-02-01', end: '2020-03-01' },
    );
    await rejectsWith(
      bq.query(`SELECT RANGE_INTERSECT(${q}, RANGE<DATE> '[2020-04-01, 2020-05-01)')`),
      400,
      'invalidQuery',
      /do not overlap/,
    );
    await rejectsWith(
      bq.query("SELECT RANGE(DATE '2020-05-01', DATE '2020-01-01')"),
      400,
      'invalidQuery',
      /RANGE start must be less than end/,
    );
  });

  it('cuts a RANGE into steps with GENERATE_RANGE_ARRAY, keeping or leaving out the last partial step', async () => {
    const days = "RANGE<DATE> '[2020-01-01, 2020-01-06)'";
    const cut = async (query: string) =>
      ((await one(query)) as BigQueryRange[]).map((r) => `${r.value.start}/${r.value.end}`);
    assert.deepEqual(await cut(`SELECT GENERATE_RANGE_ARRAY(${days}, INTERVAL 2 DAY)`), [
      '2020-01-01/2020-01-03',
      '2020-01-03/2020-01-05',
      '2020-01-05/2020-01-06',
    ]);
    assert.deepEqual(await cut(`SELECT GENERATE_RANGE_ARRAY(${days}, INTERVAL 2 DAY, FALSE)`), [
      '2020-01-01/2020-01-03',
      '2020-01-03/2020-01-05',
    ]);
    await rejectsWith(
      bq.query("SELECT GENERATE_RANGE_ARRAY(RANGE<DATE> '[2020-01-01, UNBOUNDED)', INTERVAL 1 DAY)"),
      400,
      'invalidQuery',
      /must not be unbounded/,
    );
  });

  it('filters a table on its RANGE column, and casts to RANGE<T>', async () => {
    const rows = await wire(
      "SELECT id FROM periods WHERE RANGE_CONTAINS(days, DATE '2020-06-15') ORDER BY id",
    );
    assert.deepEqual(rows, [['1'], ['2']]);
    assert.deepEqual(
      await wire(
        "SELECT CAST(NULL AS RANGE<DATE>) AS n, id FROM periods WHERE RANGE_OVERLAPS(days, RANGE<DATE> '[2021-01-01, UNBOUNDED)')",
      ),
      [[null, '2']],
    );
  });

  it('casts a RANGE to STRING as BigQuery writes it, and reads one from text with CAST and SAFE_CAST', async () => {
    const [rows] = await bq.query(
      "SELECT CAST(RANGE<DATE> '[2020-01-01, UNBOUNDED)' AS STRING) AS d, " +
        "CAST(RANGE<TIMESTAMP> '[2020-01-01 00:00:00 UTC, 2020-02-01 00:00:00 UTC)' AS STRING) AS t, " +
        'CAST(CAST(NULL AS RANGE<DATE>) AS STRING) AS n, CAST(NULL AS STRING) AS s, CAST(12 AS STRING) AS i, ' +
        "CAST('[UNBOUNDED, 2020-03-01)' AS RANGE<DATE>) AS parsed, SAFE_CAST('2020' AS RANGE<DATE>) AS bad",
    );
    const row = rows[0] as Record<string, unknown>;
    assert.deepEqual(
      { ...row, parsed: (row.parsed as BigQueryRange).value },
      {
        d: '[2020-01-01, UNBOUNDED)',
        t: '[2020-01-01 00:00:00+00, 2020-02-01 00:00:00+00)',
        n: null,
        s: null,
        i: '12',
        parsed: { start: 'UNBOUNDED', end: '2020-03-01' },
        bad: null,
      },
    );
    await rejectsWith(
      bq.query("SELECT CAST('2020' AS RANGE<DATE>)"),
      400,
      'invalidQuery',
      /Invalid RANGE value/,
    );
  });

  it('refuses a RANGE literal that is not [start, end)', async () => {
    await rejectsWith(
      bq.query("SELECT RANGE<DATE> '2020-01-01'"),
      400,
      'invalidQuery',
      /Invalid RANGE literal/,
    );
    await rejectsWith(
      bq.query("SELECT RANGE<INT64> '[1, 2)'"),
      400,
      'invalidQuery',
      /RANGE element type must be/,
    );
  });

  it('refuses an inserted RANGE whose start is not before its end, or that is not a range', async () => {
    const res = await fetch(`${h.emulator.url}/projects/${P}/datasets/ranges/tables/periods/insertAll`, {
      method: 'POST',
      body: JSON.stringify({
        rows: [{ json: { id: 3, days: '[2020-05-01, 2020-01-01)' } }, { json: { days: 7 } }],
      }),
    });
    const body = (await res.json()) as { insertErrors: { index: number; errors: { message: string }[] }[] };
    assert.match(body.insertErrors[0]?.errors[0]?.message ?? '', /RANGE start must be less than end/);
    assert.match(body.insertErrors[1]?.errors[0]?.message ?? '', /as a RANGE value/);
  });
});
