/**
 * Wildcard tables (`dataset.prefix*`) as BigQuery's "Query multiple tables using a wildcard table"
 * defines them: the union of the tables whose names start with the prefix, `_TABLE_SUFFIX` the part
 * the `*` matched (filterable, as GA4's daily and intraday export tables are read), the newest
 * table's schema with NULL where an older table lacks a column, a matching view refusing the
 * query, and no match at all a table not found. A view over a wildcard sees tables made later.
 */
import assert from 'node:assert/strict';
import { type Harness, plain, startHarness } from './support/helpers.ts';

describe('bigquery emulator: wildcard tables', () => {
  let h: Harness;
  const rows = async (sql: string) => plain((await h.bq.query(sql))[0]) as Record<string, unknown>[];
  const refusal = async (sql: string) => {
    try {
      await h.bq.query(sql);
    } catch (e) {
      return (e as Error).message;
    }
    assert.fail(`expected a refusal of ${sql}`);
  };

  before(async () => {
    h = await startHarness('p');
    await h.bq.createDataset('ga');
    await h.bq.createDataset('views');
    // GA4's export shape, reduced: an older table without event_date.
    await h.bq.query(
      "CREATE TABLE ga.events_20260301 AS SELECT 'purchase' AS event_name, [STRUCT('event_id' AS key, STRUCT('e1' AS string_value, CAST(NULL AS INT64) AS int_value) AS value)] AS event_params",
    );
    await h.bq.query(
      "CREATE TABLE ga.events_20260302 AS SELECT '20260302' AS event_date, 'purchase' AS event_name, [STRUCT('event_id' AS key, STRUCT('e2' AS string_value, CAST(NULL AS INT64) AS int_value) AS value)] AS event_params",
    );
    await h.bq.query(
      "CREATE TABLE ga.events_intraday_20260303 AS SELECT '20260303' AS event_date, 'lead' AS event_name, [STRUCT('event_id' AS key, STRUCT('e3' AS string_value, CAST(NULL AS INT64) AS int_value) AS value)] AS event_params",
    );
    await h.bq.query("CREATE TABLE ga.other AS SELECT 'x' AS event_name");
  });
  after(() => h.stop());

  it('unions the matching tables with _TABLE_SUFFIX, in the newest table’s columns', async () => {
    assert.deepEqual(
      await rows(
        'SELECT _TABLE_SUFFIX AS suffix, event_date, event_name FROM `p.ga.events_*` ORDER BY suffix',
      ),
      [
        { suffix: '20260301', event_date: null, event_name: 'purchase' },
        { suffix: '20260302', event_date: '20260302', event_name: 'purchase' },
        { suffix: 'intraday_20260303', event_date: '20260303', event_name: 'lead' },
      ],
    );
    // `*` leaves the pseudo-column out, as BigQuery does; naming it still reads it.
    assert.deepEqual(
      await rows("SELECT * FROM `p.ga.events_*` WHERE _TABLE_SUFFIX = '20260302'").then((r) =>
        r.map((x) => Object.keys(x)),
      ),
      [['event_date', 'event_name', 'event_params']],
    );
    assert.deepEqual(
      await rows("SELECT *, _TABLE_SUFFIX AS s FROM `p.ga.events_*` WHERE _TABLE_SUFFIX = '20260302'").then(
        (r) => r.map((x) => Object.keys(x)),
      ),
      [['event_date', 'event_name', 'event_params', 's']],
    );
    // Shorter prefix, more tables; the default project.
    assert.deepEqual(await rows('SELECT COUNT(*) AS n FROM `ga.e*`'), [{ n: 3 }]);
  });

  it('filters on _TABLE_SUFFIX and reads event_params with UNNEST, as GA4’s export is read', async () => {
    assert.deepEqual(
      await rows(
        [
          'SELECT p.value.string_value AS event_id, e._TABLE_SUFFIX AS suffix',
          'FROM `p.ga.events_*` AS e, UNNEST(e.event_params) AS p',
          "WHERE (e._TABLE_SUFFIX BETWEEN '20260302' AND '20260303'",
          "  OR e._TABLE_SUFFIX BETWEEN 'intraday_20260302' AND 'intraday_20260303')",
          "  AND p.key = 'event_id'",
          'ORDER BY event_id',
        ].join('\n'),
      ),
      [
        { event_id: 'e2', suffix: '20260302' },
        { event_id: 'e3', suffix: 'intraday_20260303' },
      ],
    );
  });

  it('refuses a wildcard matching a view, no match at all, and _TABLE_SUFFIX without one', async () => {
    await h.bq.query('CREATE VIEW views.events_v AS SELECT 1 AS x');
    await h.bq.query('CREATE TABLE views.events_t (x INT64)');
    assert.match(
      await refusal("SELECT x FROM `p.views.events_*` WHERE _TABLE_SUFFIX = 't'"),
      /Views cannot be queried through prefix\. First view p:views\.events_v/,
    );
    assert.match(await refusal('SELECT 1 FROM `p.ga.nothing_*`'), /Not found: Table p:ga\.nothing_\*/);
    assert.match(await refusal('SELECT 1 FROM `p.gone.events_*`'), /Not found: Dataset p:gone/);
    assert.match(await refusal('SELECT _TABLE_SUFFIX FROM ga.other'), /_TABLE_SUFFIX/);
    assert.match(await refusal('SELECT 1 FROM `p.ga.ev*ents`'), /must end the table name/);
  });

  it('a view over a wildcard table sees a table made after it', async () => {
    await h.bq.query(
      "CREATE VIEW views.ga_names AS SELECT event_name FROM `p.ga.events_*` WHERE event_name = 'refund'",
    );
    assert.deepEqual(await rows('SELECT COUNT(*) AS n FROM views.ga_names'), [{ n: 0 }]);
    await h.bq.query(
      "CREATE TABLE ga.events_20260304 AS SELECT '20260304' AS event_date, 'refund' AS event_name, [STRUCT('event_id' AS key, STRUCT('e4' AS string_value, CAST(NULL AS INT64) AS int_value) AS value)] AS event_params",
    );
    assert.deepEqual(await rows('SELECT COUNT(*) AS n FROM views.ga_names'), [{ n: 1 }]);
  });
});
