/**
 * PARTITION BY, CLUSTER BY and OPTIONS in CREATE TABLE, CTAS and CREATE VIEW: what the emulator
 * records is on the table resource as tables.get shows it; what it does not is refused by name
 * (400 invalidQuery), never dropped. The clauses read on their own (translate) and through
 * Google's client.
 */
import assert from 'node:assert/strict';
import { translate } from '../sql.ts';
import { type Harness, P, reasonOf, startHarness } from './support/helpers.ts';

const options = (sql: string) => translate(sql, { projectId: 'p', defaultDataset: undefined }).tableOptions;

describe('BigQuery emulator: CREATE TABLE clauses (translate)', () => {
  it('reads the time partitionings BigQuery takes, by column and by ingestion time', () => {
    const head = 'CREATE TABLE d.t (day DATE, at TIMESTAMP, n INT64)';
    assert.deepEqual(options(`${head} PARTITION BY day`)?.timePartitioning, { type: 'DAY', field: 'day' });
    assert.deepEqual(options(`${head} PARTITION BY DATE(at)`)?.timePartitioning, {
      type: 'DAY',
      field: 'at',
    });
    assert.deepEqual(options(`${head} PARTITION BY TIMESTAMP_TRUNC(at, HOUR)`)?.timePartitioning, {
      type: 'HOUR',
      field: 'at',
    });
    assert.deepEqual(options(`${head} PARTITION BY DATE_TRUNC(day, MONTH)`)?.timePartitioning, {
      type: 'MONTH',
      field: 'day',
    });
    assert.deepEqual(options(`${head} PARTITION BY _PARTITIONDATE`)?.timePartitioning, { type: 'DAY' });
    assert.deepEqual(options(`${head} PARTITION BY DATE(_PARTITIONTIME)`)?.timePartitioning, { type: 'DAY' });
    assert.deepEqual(
      options(`${head} PARTITION BY RANGE_BUCKET(n, GENERATE_ARRAY(-10, 100, 5))`)?.rangePartitioning,
      {
        field: 'n',
        range: { start: '-10', end: '100', interval: '5' },
      },
    );
  });

  it('reads CLUSTER BY and the OPTIONS it records, the partition ones onto the partitioning', () => {
    const got = options(
      `CREATE TABLE d.t (day DATE, a STRING, b INT64) PARTITION BY day CLUSTER BY a, b
       OPTIONS(expiration_timestamp = TIMESTAMP '2030-01-02 03:04:05 UTC', partition_expiration_days = 1.5,
               require_partition_filter = TRUE, description = 'orders', friendly_name = "Orders",
               labels = [('team', 'growth'), ('tier', 'gold')])`,
    );
    assert.deepEqual(got, {
      timePartitioning: { type: 'DAY', field: 'day', expirationMs: String(1.5 * 86_400_000) },
      clustering: { fields: ['a', 'b'] },
      expirationTime: String(Date.parse('2030-01-02T03:04:05Z')),
      requirePartitionFilter: true,
      description: 'orders',
      friendlyName: 'Orders',
      labels: { team: 'growth', tier: 'gold' },
    });
    const ctas = translate("CREATE TABLE d.t2 OPTIONS(description = 'x') AS SELECT 1 AS n", {
      projectId: 'p',
      defaultDataset: undefined,
    });
    assert.deepEqual(ctas.tableOptions, { description: 'x' });
    assert.match(ctas.sql, /AS SELECT 1/);
    const col = translate("CREATE TABLE d.t3 (id INT64 NOT NULL OPTIONS(description = 'the id'))", {
      projectId: 'p',
      defaultDataset: undefined,
    });
    assert.deepEqual(col.columnDescriptions, { id: 'the id' });
    assert.match(col.sql, /"id" BIGINT NOT NULL\)$/);
  });

  it('refuses by name what it would otherwise drop', () => {
    const refusals: [string, RegExp][] = [
      ["CREATE TABLE d.t (a STRING) OPTIONS(kms_key_name = 'k')", /OPTIONS\(kms_key_name\)/],
      ['CREATE TABLE d.t (a INT64) PARTITION BY a + 1', /PARTITION BY/],
      [
        'CREATE TABLE d.t (at TIMESTAMP) PARTITION BY TIMESTAMP_TRUNC(at, MINUTE)',
        /DAY, HOUR, MONTH or YEAR/,
      ],
      ['CREATE TABLE d.t (a INT64) OPTIONS(partition_expiration_days = 3)', /time-partitioned/],
      ['CREATE TABLE d.t (a STRING) CLUSTER BY a, a, a, a, a', /between 1 and 4/],
      ["CREATE TABLE d.t (a STRING DEFAULT 'x')", /column a DEFAULT/],
      ["CREATE TABLE d.t (a STRING OPTIONS(rounding_mode = 'x'))", /column OPTIONS\(rounding_mode\)/],
      ["CREATE TABLE d.t (a STRING OPTIONS(description = CONCAT('a', 'b')))", /only literal values/],
      ['CREATE TABLE d.t (a STRING) OPTIONS(description = a)', /constant expression; the name a/],
      [
        'CREATE TABLE d.t (a STRING) OPTIONS(description = (SELECT MAX(a) FROM d.u))',
        /constant expression; a subquery/,
      ],
      ['CREATE TABLE d.t (a STRING) OPTIONS(description = CONCAT(d.u, "x"))', /not constant/],
      ['CREATE TABLE d.t (a STRING) OPTIONS(kms_key_name = CONCAT("a", "b"))', /OPTIONS\(kms_key_name\)/],
      ["CREATE TABLE d.t (a STRING) OPTIONS(expiration_timestamp = 'soon')", /Invalid timestamp/],
      ['CREATE VIEW d.v PARTITION BY x AS SELECT 1 AS x', /CREATE VIEW/],
    ];
    for (const [sql, message] of refusals) assert.throws(() => options(sql), message, sql);
  });

  it('keeps a constant expression in OPTIONS, translated, to evaluate when the statement runs', () => {
    const tr = translate(
      `CREATE OR REPLACE TABLE d.t OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 7 DAY),
       description = 'x') AS SELECT 1 AS n`,
      { projectId: 'p', defaultDataset: undefined },
    );
    assert.deepEqual(tr.tableOptions, { description: 'x' });
    assert.equal(tr.optionExpressions?.length, 1);
    assert.equal(tr.optionExpressions?.[0]?.name, 'expiration_timestamp');
    assert.match(tr.optionExpressions?.[0]?.sql ?? '', /current_timestamp/i);
    assert.match(tr.sql, /AS SELECT 1/);
  });
});

describe('BigQuery emulator: CREATE TABLE clauses through the client', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(P);
    await h.bq.createDataset('opts');
  });
  after(() => h.stop());

  it('records a CTAS’s partitioning, clustering and options on the table tables.get shows, and expires it', async () => {
    await h.bq.query(
      `CREATE TABLE opts.sales PARTITION BY DATE(at) CLUSTER BY region
       OPTIONS(partition_expiration_days = 30, description = 'daily sales', labels = [('team', 'growth')])
       AS SELECT TIMESTAMP '2030-01-01 00:00:00 UTC' AS at, 'eu' AS region, 3 AS n`,
    );
    const [md] = await h.bq.dataset('opts').table('sales').getMetadata();
    assert.deepEqual(md.timePartitioning, {
      type: 'DAY',
      field: 'at',
      expirationMs: String(30 * 86_400_000),
    });
    assert.deepEqual(md.clustering, { fields: ['region'] });
    assert.equal(md.description, 'daily sales');
    assert.deepEqual(md.labels, { team: 'growth' });
    assert.equal(md.numRows, '1');
    // An expiration set in SQL is recorded, and honoured.
    await h.bq.query(
      "CREATE TABLE opts.gone (a STRING) OPTIONS(expiration_timestamp = TIMESTAMP '2001-01-01 00:00:00 UTC')",
    );
    await assert.rejects(h.bq.dataset('opts').table('gone').getMetadata(), { code: 404 });
  });

  it('evaluates constant expressions in OPTIONS when the statement runs, as BigQuery does', async () => {
    const before = Date.now();
    await h.bq.query(
      `CREATE OR REPLACE TABLE opts.week OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 7 DAY),
       description = CONCAT('a', 'b')) AS SELECT 1 AS n`,
    );
    const [md] = await h.bq.dataset('opts').table('week').getMetadata();
    const week = 7 * 86_400_000;
    const expires = Number(md.expirationTime);
    assert.ok(expires >= before + week - 1000 && expires <= Date.now() + week + 1000, String(expires));
    assert.equal(md.description, 'ab');
    await h.bq.query(
      `CREATE TABLE opts.later (a STRING) OPTIONS (expiration_timestamp = TIMESTAMP_SUB(TIMESTAMP '2031-01-08 00:00:00 UTC', INTERVAL 7 DAY))`,
    );
    const [later] = await h.bq.dataset('opts').table('later').getMetadata();
    assert.equal(later.expirationTime, String(Date.parse('2031-01-01T00:00:00Z')));
    await h.bq.query(
      'CREATE TABLE opts.dated (a STRING) OPTIONS (expiration_timestamp = DATE_ADD(CURRENT_DATE(), INTERVAL 2 DAY))',
    );
    const [dated] = await h.bq.dataset('opts').table('dated').getMetadata();
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    assert.ok(
      [today + 2 * 86_400_000, today + 86_400_000].includes(Number(dated.expirationTime)),
      String(dated.expirationTime),
    );
    await h.bq.query(
      "CREATE VIEW opts.v OPTIONS (friendly_name = CONCAT('V', '1'), expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR)) AS SELECT 1 AS n",
    );
    const [view] = await h.bq.dataset('opts').table('v').getMetadata();
    assert.equal(view.friendlyName, 'V1');
    assert.ok(Number(view.expirationTime) > Date.now() + 3_000_000);
  });

  it('refuses an expression of the wrong type or a non-constant one, creating nothing', async () => {
    for (const sql of [
      'CREATE TABLE opts.bad3 (a STRING) OPTIONS(expiration_timestamp = 1 + 1)',
      'CREATE TABLE opts.bad4 (a STRING) OPTIONS(description = a)',
      "CREATE TABLE opts.bad5 (a STRING) OPTIONS(description = (SELECT 'x'))",
      'CREATE TABLE opts.bad6 AS SELECT 1 AS n OPTIONS(description = 1)',
    ]) {
      await assert.rejects(h.bq.query(sql), (err: unknown) => {
        assert.equal(reasonOf(err), 'invalidQuery', `${sql}: ${String(err)}`);
        return true;
      });
    }
    const [tables] = await h.bq.dataset('opts').getTables();
    assert.deepEqual(
      tables.map((t) => t.id).filter((id) => id?.startsWith('bad')),
      [],
    );
  });

  it('refuses an option it does not record and a partition column of the wrong type, creating nothing', async () => {
    for (const sql of [
      "CREATE TABLE opts.bad1 (a STRING) OPTIONS(max_staleness = INTERVAL '4:0:0' HOUR TO SECOND)",
      'CREATE TABLE opts.bad2 (a STRING) PARTITION BY a',
    ]) {
      await assert.rejects(h.bq.query(sql), (err: unknown) => {
        assert.ok(['invalidQuery', 'invalid'].includes(reasonOf(err) ?? ''), String(err));
        return true;
      });
    }
    const [tables] = await h.bq.dataset('opts').getTables();
    assert.deepEqual(
      tables.map((t) => t.id).filter((id) => id?.startsWith('bad')),
      [],
    );
  });
});
