/**
 * The specification of the SQL subset: BigQuery SQL run through the real client against
 * the emulator, and the rows BigQuery would return. Each case names its construct.
 */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { type Harness, plain, reasonOf, startHarness } from './support/helpers.ts';

const P = 'test-project';

interface Case {
  readonly name: string;
  readonly sql: string;
  /** The rows, or only how many when the rows themselves are checked elsewhere. */
  readonly rows: unknown[] | { readonly count: number };
  readonly params?: Record<string, unknown> | unknown[];
}

const ts = (iso: string) => ({ value: iso });

const CASES: readonly Case[] = [
  {
    name: 'ORDER BY puts NULLs first ascending and last descending, as BigQuery does',
    sql: 'SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x',
    rows: [{ x: null }, { x: 1 }, { x: 2 }],
  },
  {
    name: 'ORDER BY … DESC puts NULLs last',
    sql: 'SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x DESC',
    rows: [{ x: 2 }, { x: 1 }, { x: null }],
  },
  {
    name: 'ORDER BY … NULLS LAST keeps NULLs last when ascending',
    sql: 'SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x NULLS LAST',
    rows: [{ x: 1 }, { x: 2 }, { x: null }],
  },
  {
    name: 'backticked project.dataset.table and COUNT(*) as INT64',
    sql: 'SELECT COUNT(*) AS n FROM `test-project.d.events`',
    rows: [{ n: 4 }],
  },
  {
    name: 'dataset.table without project',
    sql: 'SELECT COUNT(*) AS n FROM d.events',
    rows: [{ n: 4 }],
  },
  {
    name: 'de-duplicating view query: * EXCEPT(rn) over ROW_NUMBER() partitioned by event_id and DATE(event_time)',
    sql: 'SELECT * EXCEPT(rn) FROM (SELECT event_id, received_at, ROW_NUMBER() OVER (PARTITION BY event_id, DATE(event_time) ORDER BY received_at) AS rn FROM `test-project.d.events`) WHERE rn = 1 ORDER BY event_id',
    rows: [
      { event_id: 'e1', received_at: ts('2024-01-07T10:30:01.000Z') },
      { event_id: 'e2', received_at: ts('2024-01-07T00:00:00.000Z') },
      { event_id: 'e3', received_at: ts('2024-01-08T00:00:01.000Z') },
    ],
  },
  {
    name: 'JSON_VALUE and SAFE_CAST(... AS FLOAT64), with a table alias',
    sql: "SELECT e.event_id, JSON_VALUE(e.event_data, '$.content_name') AS content_name, SAFE_CAST(JSON_VALUE(e.event_data, '$.value') AS FLOAT64) AS value FROM `test-project.d.events` AS e WHERE e.event_name = 'view_content' ORDER BY e.received_at",
    rows: [
      { event_id: 'e1', content_name: 'shoe', value: 12.5 },
      { event_id: 'e1', content_name: 'shoe-dup', value: null },
      { event_id: 'e3', content_name: 'hat', value: null },
    ],
  },
  {
    name: 'JSON_VALUE of an object is NULL; JSON_QUERY returns JSON; JSON_EXTRACT_SCALAR',
    sql: "SELECT JSON_VALUE(event_data, '$.items') AS v, TO_JSON_STRING(JSON_QUERY(event_data, '$.items')) AS q, JSON_EXTRACT_SCALAR(event_data, '$.value') AS s FROM d.events WHERE event_id = 'e2'",
    rows: [{ v: null, q: '[1,2]', s: '3' }],
  },
  {
    name: 'RECORD field access user.email',
    sql: "SELECT user.email, user.id FROM d.events WHERE event_id = 'e2'",
    rows: [{ email: 'b@x', id: 2 }],
  },
  {
    name: 'QUALIFY ROW_NUMBER() OVER (...) = 1',
    sql: 'SELECT event_id, event_name FROM d.events WHERE TRUE QUALIFY ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY received_at DESC) = 1 ORDER BY event_id',
    rows: [
      { event_id: 'e1', event_name: 'view_content' },
      { event_id: 'e2', event_name: 'purchase' },
      { event_id: 'e3', event_name: 'view_content' },
    ],
  },
  {
    name: 'MIN/MAX(event_time) GROUP BY, COUNTIF',
    sql: 'SELECT event_name, MIN(event_time) AS first_seen, MAX(event_time) AS last_seen, COUNTIF(user.id IS NOT NULL) AS with_user FROM d.events GROUP BY event_name ORDER BY event_name',
    rows: [
      {
        event_name: 'purchase',
        first_seen: ts('2024-01-06T23:59:59.000Z'),
        last_seen: ts('2024-01-06T23:59:59.000Z'),
        with_user: 1,
      },
      {
        event_name: 'view_content',
        first_seen: ts('2024-01-07T10:30:00.000Z'),
        last_seen: ts('2024-01-08T00:00:00.000Z'),
        with_user: 2,
      },
    ],
  },
  {
    name: 'TIMESTAMP_TRUNC to HOUR, DAY and WEEK (weeks start on Sunday)',
    sql: "SELECT TIMESTAMP_TRUNC(event_time, HOUR) AS h, TIMESTAMP_TRUNC(event_time, DAY) AS d, TIMESTAMP_TRUNC(event_time, WEEK) AS w, TIMESTAMP_TRUNC(event_time, WEEK(MONDAY)) AS wm FROM d.events WHERE event_id IN ('e2', 'e3') ORDER BY event_time",
    rows: [
      {
        h: ts('2024-01-06T23:00:00.000Z'),
        d: ts('2024-01-06T00:00:00.000Z'),
        w: ts('2023-12-31T00:00:00.000Z'),
        wm: ts('2024-01-01T00:00:00.000Z'),
      },
      {
        h: ts('2024-01-08T00:00:00.000Z'),
        d: ts('2024-01-08T00:00:00.000Z'),
        w: ts('2024-01-07T00:00:00.000Z'),
        wm: ts('2024-01-08T00:00:00.000Z'),
      },
    ],
  },
  {
    name: 'DATE_TRUNC on DATE with WEEK and MONTH; DATE(timestamp)',
    sql: "SELECT DATE(event_time) AS day, DATE_TRUNC(DATE(event_time), WEEK) AS week, DATE_TRUNC(DATE(event_time), MONTH) AS month FROM d.events WHERE event_id = 'e3'",
    rows: [{ day: { value: '2024-01-08' }, week: { value: '2024-01-07' }, month: { value: '2024-01-01' } }],
  },
  {
    name: 'EXTRACT (DAYOFWEEK is 1 for Sunday), FORMAT_TIMESTAMP',
    sql: "SELECT EXTRACT(DAYOFWEEK FROM event_time) AS dow, EXTRACT(HOUR FROM event_time) AS hour, EXTRACT(YEAR FROM event_time) AS y, FORMAT_TIMESTAMP('%Y-%m-%d %H:%M', event_time) AS f, FORMAT_TIMESTAMP('%F', event_time) AS f2 FROM d.events WHERE event_id = 'e1' AND received_at = TIMESTAMP '2024-01-07 10:30:01 UTC'",
    rows: [{ dow: 1, hour: 10, y: 2024, f: '2024-01-07 10:30', f2: '2024-01-07' }],
  },
  {
    name: 'TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY) and TIMESTAMP_ADD',
    sql: "SELECT TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY) < CURRENT_TIMESTAMP() AS earlier, TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00', INTERVAL 90 MINUTE) AS later",
    rows: [{ earlier: true, later: ts('2024-01-01T01:30:00.000Z') }],
  },
  {
    name: 'TIMESTAMP_DIFF, DATE_ADD, DATE_SUB, DATE_DIFF',
    sql: "SELECT TIMESTAMP_DIFF(TIMESTAMP '2024-01-01 05:59:00', TIMESTAMP '2024-01-01 00:00:00', HOUR) AS h, DATE_ADD(DATE '2024-01-31', INTERVAL 1 DAY) AS a, DATE_SUB(DATE '2024-03-01', INTERVAL 1 DAY) AS s, DATE_DIFF(DATE '2024-03-01', DATE '2024-02-01', DAY) AS dd",
    rows: [{ h: 5, a: { value: '2024-02-01' }, s: { value: '2024-02-29' }, dd: 29 }],
  },
  {
    name: 'SAFE_DIVIDE, IFNULL, SAFE_CAST of a bad string',
    sql: "SELECT SAFE_DIVIDE(1, 0) AS z, SAFE_DIVIDE(1, 4) AS q, IFNULL(NULL, 'x') AS i, SAFE_CAST('abc' AS INT64) AS c, CAST('42' AS INT64) AS c2",
    rows: [{ z: null, q: 0.25, i: 'x', c: null, c2: 42 }],
  },
  {
    name: 'SAFE_CAST to INT64 takes integer text only (decimal or hex), as BigQuery does',
    sql: "SELECT SAFE_CAST('1.5' AS INT64) AS d, SAFE_CAST('1e3' AS INT64) AS e, SAFE_CAST('0x1A' AS INT64) AS h, SAFE_CAST('-12' AS INT64) AS m, SAFE_CAST(2.5 AS INT64) AS f, SAFE_CAST(NULL AS INT64) AS n",
    rows: [{ d: null, e: null, h: 26, m: -12, f: 3, n: null }],
  },
  {
    name: 'BYTE_LENGTH of STRING (UTF-8 bytes) and BYTES, CHAR_LENGTH',
    sql: "SELECT BYTE_LENGTH('héllo') AS s, BYTE_LENGTH(b'abc') AS b, CHAR_LENGTH('héllo') AS c",
    rows: [{ s: 6, b: 3, c: 5 }],
  },
  {
    name: 'ARRAY_AGG(x ORDER BY y LIMIT 1)[OFFSET(0)]',
    sql: "SELECT event_id, ARRAY_AGG(JSON_VALUE(event_data, '$.content_name') ORDER BY received_at LIMIT 1)[OFFSET(0)] AS first_name, ARRAY_AGG(received_at ORDER BY received_at DESC)[ORDINAL(1)] AS last_received FROM d.events WHERE event_id = 'e1' GROUP BY event_id",
    rows: [{ event_id: 'e1', first_name: 'shoe', last_received: ts('2024-01-07T10:30:05.000Z') }],
  },
  {
    name: 'UNNEST(errors) AS err over a REPEATED RECORD, WITH OFFSET',
    sql: 'SELECT e.event_id, err.reason, err.code, pos FROM d.events AS e, UNNEST(e.errors) AS err WITH OFFSET AS pos ORDER BY pos',
    rows: [
      { event_id: 'e2', reason: 'late', code: 1, pos: 0 },
      { event_id: 'e2', reason: 'retry', code: 2, pos: 1 },
    ],
  },
  {
    // The idiom of GA4 export queries: an array of structs unnested without an alias exposes
    // the struct's fields as columns (BigQuery "UNNEST operator": an array of STRUCTs yields a
    // value table whose columns are the fields).
    name: 'UNNEST of a REPEATED RECORD without an alias: its fields as columns',
    sql: 'SELECT e.event_id, reason, code FROM d.events AS e, UNNEST(e.errors) ORDER BY code',
    rows: [
      { event_id: 'e2', reason: 'late', code: 1 },
      { event_id: 'e2', reason: 'retry', code: 2 },
    ],
  },
  {
    name: 'a correlated (SELECT field FROM UNNEST(arr) WHERE key = …), as GA4 event_params queries',
    sql: "SELECT e.event_id, (SELECT code FROM UNNEST(e.errors) WHERE reason = 'retry') AS retry_code FROM d.events AS e WHERE e.event_id = 'e2'",
    rows: [{ event_id: 'e2', retry_code: 2 }],
  },
  {
    // BigQuery names a bare path after its last part: GROUP BY and outer queries use that name.
    name: 'a path selected without an alias is named after its last part',
    sql: 'SELECT user.id, COUNT(*) AS n FROM d.events WHERE user.id IS NOT NULL GROUP BY id ORDER BY id',
    rows: [
      { id: 1, n: 2 },
      { id: 2, n: 1 },
    ],
  },
  {
    // BigQuery's example: APPROX_QUANTILES(x, 2) over 1..10 (with a NULL) is [1, 5, 10].
    name: 'APPROX_QUANTILES(x, n): n + 1 boundaries, minimum to maximum',
    sql: 'SELECT APPROX_QUANTILES(x, 2) AS q FROM UNNEST([1, 1, 1, 4, 5, 6, 7, 8, 9, 10]) AS x',
    rows: [{ q: [1, 5, 10] }],
  },
  {
    name: 'SELECT AS STRUCT in ARRAY(…): one STRUCT per row, fields named by alias or path',
    sql: 'SELECT ARRAY(SELECT AS STRUCT err.code, err.reason AS why FROM d.events AS e, UNNEST(e.errors) AS err ORDER BY err.code) AS errs',
    rows: [
      {
        errs: [
          { code: 1, why: 'late' },
          { code: 2, why: 'retry' },
        ],
      },
    ],
  },
  {
    name: 'SELECT AS VALUE: the value itself',
    sql: 'SELECT ARRAY(SELECT AS VALUE err.reason FROM d.events AS e, UNNEST(e.errors) AS err ORDER BY err.code) AS reasons',
    rows: [{ reasons: ['late', 'retry'] }],
  },
  {
    // BigQuery's PIVOT operator example (Produce), two quarters.
    name: 'PIVOT(SUM(sales) FOR quarter IN (…)): one column per value',
    sql: `SELECT * FROM (
        SELECT * FROM UNNEST([
          STRUCT('kale' AS product, 51 AS sales, 'Q1' AS quarter), ('kale', 23, 'Q2'),
          ('apple', 77, 'Q1'), ('apple', 0, 'Q2')])
      ) PIVOT(SUM(sales) FOR quarter IN ('Q1', 'Q2')) ORDER BY product`,
    rows: [
      { product: 'apple', Q1: 77, Q2: 0 },
      { product: 'kale', Q1: 51, Q2: 23 },
    ],
  },
  {
    name: 'UNPIVOT(sales FOR quarter IN (q1, q2)): one row per column',
    sql: "SELECT * FROM (SELECT 'kale' AS product, 51 AS q1, 23 AS q2) UNPIVOT(sales FOR quarter IN (q1, q2)) ORDER BY quarter",
    rows: [
      { product: 'kale', sales: 51, quarter: 'q1' },
      { product: 'kale', sales: 23, quarter: 'q2' },
    ],
  },
  {
    // BigQuery's documented example.
    name: 'APPROX_TOP_COUNT(x, 2): the two most frequent values and their counts',
    sql: "SELECT APPROX_TOP_COUNT(x, 2) AS approx_top_count FROM UNNEST(['apple', 'apple', 'pear', 'pear', 'pear', 'banana']) AS x",
    rows: [
      {
        approx_top_count: [
          { value: 'pear', count: 3 },
          { value: 'apple', count: 2 },
        ],
      },
    ],
  },
  {
    name: 'PERCENTILE_CONT over a window, and a named WINDOW with a frame used as OVER (w)',
    sql: `SELECT x, PERCENTILE_CONT(x, 0.5) OVER () AS median, SUM(x) OVER (w) AS running
      FROM UNNEST([1, 2, 3, 4]) AS x
      WINDOW w AS (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
      ORDER BY x`,
    rows: [
      { x: 1, median: 2.5, running: 1 },
      { x: 2, median: 2.5, running: 3 },
      { x: 3, median: 2.5, running: 6 },
      { x: 4, median: 2.5, running: 10 },
    ],
  },
  {
    // SAFE. returns NULL instead of raising an error (BigQuery "SAFE. prefix").
    name: 'SAFE.PARSE_DATE, SAFE.LN and SAFE_DIVIDE are NULL where the plain call fails',
    sql: "SELECT SAFE.PARSE_DATE('%Y-%m-%d', 'not a date') AS d, SAFE.PARSE_DATE('%Y-%m-%d', '2024-02-29') AS ok, SAFE.LN(-1) AS l, SAFE_DIVIDE(1, 0) AS q",
    rows: [{ d: null, ok: { value: '2024-02-29' }, l: null, q: null }],
  },
  {
    name: 'TABLESAMPLE SYSTEM (n PERCENT), with and without a table alias',
    sql: 'SELECT (SELECT COUNT(*) FROM d.events TABLESAMPLE SYSTEM (100 PERCENT)) AS a, (SELECT COUNT(*) FROM d.events AS e TABLESAMPLE SYSTEM (0 PERCENT)) AS b',
    rows: [{ a: 4, b: 0 }],
  },
  {
    // Implicit aliases that are DuckDB keywords (a common one in dashboards: `… timestamp`).
    name: 'implicit aliases, keywords among them',
    sql: "SELECT TIMESTAMP '2024-01-07 10:00:00+00' timestamp, 1 x, CAST('2' AS INT64) y, CASE WHEN TRUE THEN 3 END z",
    rows: [{ timestamp: ts('2024-01-07T10:00:00.000Z'), x: 1, y: 2, z: 3 }],
  },
  {
    // Scripts: variables declared with a type or a default, set from themselves, read in a query.
    name: 'DECLARE and SET: a script’s result is its last statement’s',
    sql: `DECLARE n INT64 DEFAULT 2;
DECLARE since DATE DEFAULT DATE '2024-01-01';
DECLARE label STRING;
SET n = n + 1;
SELECT n AS n, since AS since, n * 2 AS twice, label IS NULL AS unset`,
    rows: [{ n: 3, since: { value: '2024-01-01' }, twice: 6, unset: true }],
  },
  {
    // The GA4 export samples' idiom: the date range as variables, then the query.
    name: 'a query over a table filtered by script variables',
    sql: `DECLARE start_time TIMESTAMP DEFAULT TIMESTAMP '2024-01-06 00:00:00+00';
DECLARE wanted ARRAY<STRING> DEFAULT ['purchase'];
SELECT COUNT(*) AS n FROM d.events WHERE event_time >= start_time AND event_name IN UNNEST(wanted)`,
    rows: [{ n: 1 }],
  },
  {
    name: 'CREATE TEMP FUNCTION (a SQL UDF) used by the next statement',
    sql: `CREATE TEMP FUNCTION add_tax(x FLOAT64) RETURNS FLOAT64 AS (x * 1.2);
CREATE TEMPORARY FUNCTION label(s STRING) AS (CONCAT('[', UPPER(s), ']'));
CREATE TEMP FUNCTION twice(x ANY TYPE) AS (x * 2);
SELECT add_tax(10.0) AS gross, label('a') AS l, twice(21) AS t`,
    rows: [{ gross: 12, l: '[A]', t: 42 }],
  },
  {
    // Google's GA4 sample query declares its helper on INT64.
    name: 'CREATE TEMP FUNCTION with INT64 parameters and result',
    sql: `CREATE TEMP FUNCTION next_id(x INT64) RETURNS INT64 AS (x + 1);
CREATE TEMP FUNCTION bump(x INT64) AS (x * 10);
SELECT next_id(user.id) AS n, bump(2) AS b FROM d.events WHERE event_id = 'e2'`,
    rows: [{ n: 3, b: 20 }],
  },
  {
    // The incremental models' scripts (core/models/sessions.ts): temp tables read by bare name, in a
    // join, by a window function and as a MERGE source, inside a transaction.
    name: 'CREATE TEMP TABLE read by later statements of the script, as a MERGE source too',
    sql: `DECLARE since TIMESTAMP DEFAULT TIMESTAMP '2024-01-01 00:00:00+00';
BEGIN TRANSACTION;
CREATE TEMP TABLE arrived AS SELECT event_id, event_time FROM d.events WHERE event_time >= since AND event_id IN ('e2', 'e3');
CREATE OR REPLACE TEMP TABLE arrived AS SELECT event_id, event_time, LAG(event_id) OVER (ORDER BY event_time, event_id) AS previous FROM arrived;
CREATE TEMP TABLE counted AS SELECT a.event_id, a.previous, COUNT(*) OVER () AS n FROM arrived AS a JOIN d.events AS e USING (event_id);
CREATE TABLE d.temp_merged (event_id STRING, previous STRING);
MERGE d.temp_merged AS t USING counted AS s ON t.event_id = s.event_id
WHEN NOT MATCHED THEN INSERT (event_id, previous) VALUES (s.event_id, s.previous);
COMMIT TRANSACTION;
SELECT event_id, previous, (SELECT MAX(n) FROM counted) AS n FROM d.temp_merged ORDER BY event_id`,
    rows: [
      { event_id: 'e2', previous: null, n: 2 },
      { event_id: 'e3', previous: 'e2', n: 2 },
    ],
  },
  {
    name: 'SELECT AS STRUCT * makes each row a STRUCT of all its columns',
    sql: "SELECT ARRAY(SELECT AS STRUCT * FROM (SELECT event_id, user.id AS uid FROM d.events WHERE event_id = 'e2')) AS a",
    rows: [{ a: [{ event_id: 'e2', uid: 2 }] }],
  },
  {
    name: 'SELECT AS STRUCT * EXCEPT (…) and t.*',
    sql: "SELECT ARRAY(SELECT AS STRUCT * EXCEPT (event_name) FROM (SELECT event_id, event_name FROM d.events WHERE event_id = 'e3')) AS a, ARRAY(SELECT AS STRUCT e.* FROM (SELECT event_id FROM d.events WHERE event_id = 'e3') AS e) AS b",
    rows: [{ a: [{ event_id: 'e3' }], b: [{ event_id: 'e3' }] }],
  },
  {
    name: 'a STRING parameter compared with a TIMESTAMP column is coerced to TIMESTAMP',
    sql: 'SELECT COUNT(*) AS n FROM d.events WHERE event_time >= @since AND @until > event_time',
    params: { since: '2024-01-07 00:00:00', until: '2024-01-08T00:00:00Z' },
    rows: [{ n: 2 }],
  },
  {
    name: 'STRING parameters as the bounds of BETWEEN over a TIMESTAMP, and as plain strings',
    sql: 'SELECT COUNT(*) AS n, @label AS label FROM d.events WHERE event_time BETWEEN @a AND @b',
    params: { a: '2024-01-06', b: '2024-01-07 23:00:00+00', label: 'x' },
    rows: [{ n: 3, label: 'x' }],
  },
  {
    name: 'BEGIN … END blocks run their statements',
    sql: `BEGIN
  DECLARE x INT64 DEFAULT 5;
  SELECT x * x AS sq;
END;`,
    rows: [{ sq: 25 }],
  },
  {
    // Time zones, as dashboards use them: the local date, hour and day of a UTC instant.
    name: 'time zones: DATE(ts, zone), FORMAT_TIMESTAMP with a zone, EXTRACT … AT TIME ZONE, TIMESTAMP_TRUNC(…, DAY, zone)',
    sql: `SELECT DATE(TIMESTAMP '2024-01-06 23:30:00+00', 'Europe/Berlin') AS d,
  FORMAT_TIMESTAMP('%Y-%m-%d %H:%M', TIMESTAMP '2024-01-06 23:30:00+00', 'America/New_York') AS ny,
  EXTRACT(HOUR FROM TIMESTAMP '2024-01-06 23:30:00+00' AT TIME ZONE 'Asia/Tokyo') AS tokyo_hour,
  TIMESTAMP_TRUNC(TIMESTAMP '2024-01-06 23:30:00+00', DAY, 'Europe/Berlin') AS berlin_day`,
    rows: [
      {
        d: { value: '2024-01-07' },
        ny: '2024-01-06 18:30',
        tokyo_hour: 8,
        berlin_day: ts('2024-01-06T23:00:00.000Z'),
      },
    ],
  },
  {
    name: 'GROUP BY ROLLUP: the groups and their total',
    sql: "SELECT x, COUNT(*) AS n FROM UNNEST(['a', 'b', 'a']) AS x GROUP BY ROLLUP(x) ORDER BY x NULLS FIRST",
    rows: [
      { x: null, n: 3 },
      { x: 'a', n: 2 },
      { x: 'b', n: 1 },
    ],
  },
  {
    name: 'window functions: LAG, LEAD with a default, a running SUM, RANK',
    sql: `SELECT n, LAG(n) OVER (ORDER BY n) AS prev, LEAD(n, 1, 0) OVER (ORDER BY n) AS next,
  SUM(n) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
  RANK() OVER (ORDER BY MOD(n, 2)) AS r
FROM UNNEST([1, 2, 3]) AS n ORDER BY n`,
    rows: [
      { n: 1, prev: null, next: 2, running: 1, r: 2 },
      { n: 2, prev: 1, next: 3, running: 3, r: 1 },
      { n: 3, prev: 2, next: 0, running: 6, r: 2 },
    ],
  },
  {
    name: 'strings: REGEXP_REPLACE, SPLIT, ARRAY_TO_STRING, LPAD, SUBSTR, STRPOS, REVERSE, INITCAP',
    sql: String.raw`SELECT REGEXP_REPLACE('a1b22', r'\d+', '#') AS r, SPLIT('a,b,,c', ',') AS parts,
  ARRAY_TO_STRING(['x', 'y'], '-') AS joined, LPAD('7', 3, '0') AS p, SUBSTR('hello', 2, 3) AS sub,
  STRPOS('hello', 'l') AS pos, REVERSE('abc') AS rev, INITCAP('hello bIG-world') AS cap, INITCAP('') AS blank`,
    rows: [
      {
        r: 'a#b#',
        parts: ['a', 'b', '', 'c'],
        joined: 'x-y',
        p: '007',
        sub: 'ell',
        pos: 3,
        rev: 'cba',
        cap: 'Hello Big-World',
        blank: '',
      },
    ],
  },
  {
    name: 'aggregates: STRING_AGG with ORDER BY, LOGICAL_OR, COUNT(DISTINCT)',
    sql: "SELECT STRING_AGG(s, '|' ORDER BY s) AS agg, LOGICAL_OR(s = 'b') AS any_b, COUNT(DISTINCT s) AS d FROM UNNEST(['b', 'a', 'b']) AS s",
    rows: [{ agg: 'a|b|b', any_b: true, d: 2 }],
  },
  {
    name: 'JSON: JSON_EXTRACT_ARRAY, TO_JSON_STRING of a STRUCT, a nested JSON_VALUE',
    sql: `SELECT JSON_EXTRACT_ARRAY('{"a":[1,2]}', '$.a') AS arr, TO_JSON_STRING(STRUCT(1 AS x, 'y' AS z)) AS j,
  JSON_VALUE('{"a":{"b":"c"}}', '$.a.b') AS v`,
    rows: [{ arr: ['1', '2'], j: '{"x":1,"z":"y"}', v: 'c' }],
  },
  {
    name: 'dates: LAST_DAY, DATE_TRUNC to QUARTER, FORMAT_DATE, PARSE_DATE, UNIX_SECONDS',
    sql: `SELECT LAST_DAY(DATE '2024-02-10') AS l, DATE_TRUNC(DATE '2024-05-15', QUARTER) AS q,
  FORMAT_DATE('%A %d %B %Y', DATE '2024-01-07') AS f, PARSE_DATE('%d.%m.%Y', '07.01.2024') AS p,
  UNIX_SECONDS(TIMESTAMP '2024-01-01 00:00:00+00') AS u`,
    rows: [
      {
        l: { value: '2024-02-29' },
        q: { value: '2024-04-01' },
        f: 'Sunday 07 January 2024',
        p: { value: '2024-01-07' },
        u: 1704067200,
      },
    ],
  },
  {
    // END closes a CASE: never an implicit alias, whatever comes before it.
    name: 'CASE … END without an alias, before a comma and before FROM',
    sql: "SELECT CASE WHEN n > 1 THEN 'big' ELSE 'small' END, CASE n WHEN 1 THEN NULL ELSE n END FROM UNNEST([1, 2]) AS n ORDER BY n",
    rows: [
      { f0_: 'small', f1_: null },
      { f0_: 'big', f1_: 2 },
    ],
  },
  {
    // BigQuery's flexible column names take letters of any script.
    name: 'a non-ASCII alias is kept',
    sql: 'SELECT 1 AS größe, 2 AS 数量',
    rows: [{ größe: 1, 数量: 2 }],
  },
  {
    // BigQuery: the UNNEST alias is a range variable that shadows a column of the same name.
    name: 'UNNEST(errors) AS errors: errors.reason is the element’s field, not an ambiguous name',
    sql: 'SELECT errors.reason, errors.code FROM d.events AS e, UNNEST(e.errors) AS errors ORDER BY errors.code',
    rows: [
      { reason: 'late', code: 1 },
      { reason: 'retry', code: 2 },
    ],
  },
  {
    name: 'an UNNEST alias as a value is the whole element, a STRUCT',
    sql: 'SELECT TO_JSON_STRING(err) AS j FROM d.events AS e, UNNEST(e.errors) AS err ORDER BY err.code',
    rows: [{ j: '{"reason":"late","code":1}' }, { j: '{"reason":"retry","code":2}' }],
  },
  {
    name: 'an unaliased UNNEST of scalars names its column f0_',
    sql: 'SELECT * FROM UNNEST([3, 1]) ORDER BY 1',
    rows: [{ f0_: 1 }, { f0_: 3 }],
  },
  {
    name: 'LEFT JOIN UNNEST keeps rows with empty arrays',
    sql: "SELECT e.event_id, err.reason FROM d.events AS e LEFT JOIN UNNEST(e.errors) AS err WHERE e.event_id IN ('e2', 'e3') ORDER BY e.event_id, err.reason",
    rows: [
      { event_id: 'e2', reason: 'late' },
      { event_id: 'e2', reason: 'retry' },
      { event_id: 'e3', reason: null },
    ],
  },
  {
    name: 'IN UNNEST([...]) and array literals, ARRAY_LENGTH',
    sql: "SELECT COUNT(*) AS n, ARRAY_LENGTH(['a', 'b', 'c']) AS len FROM d.events WHERE event_id IN UNNEST(['e2', 'e3'])",
    rows: [{ n: 2, len: 3 }],
  },
  {
    name: 'STRUCT(... AS name) and a RECORD result',
    sql: "SELECT STRUCT(1 AS a, 'x' AS b) AS s, STRUCT(event_id, event_name) AS t FROM d.events WHERE event_id = 'e2'",
    rows: [{ s: { a: 1, b: 'x' }, t: { event_id: 'e2', event_name: 'purchase' } }],
  },
  {
    name: 'GENERATE_DATE_ARRAY gives an ARRAY<DATE>',
    sql: "SELECT GENERATE_DATE_ARRAY(DATE '2024-01-01', DATE '2024-01-03') AS days",
    rows: [{ days: [{ value: '2024-01-01' }, { value: '2024-01-02' }, { value: '2024-01-03' }] }],
  },
  {
    name: 'UNNEST(GENERATE_DATE_ARRAY(...)) AS day in FROM',
    sql: "SELECT day FROM UNNEST(GENERATE_DATE_ARRAY('2024-01-01', '2024-01-05', INTERVAL 2 DAY)) AS day ORDER BY day",
    rows: [
      { day: { value: '2024-01-01' } },
      { day: { value: '2024-01-03' } },
      { day: { value: '2024-01-05' } },
    ],
  },
  {
    name: 'SUM of INT64 comes back as INT64 (not HUGEINT), NUMERIC keeps its digits',
    sql: 'SELECT SUM(user.id) AS s, SUM(amount) AS total FROM d.events',
    rows: [{ s: 4, total: '20.75' }],
  },
  {
    name: 'WITH (CTE) names are not tables; double-quoted strings are strings',
    sql: 'WITH v AS (SELECT event_id FROM d.events WHERE event_name = "purchase") SELECT event_id FROM v',
    rows: [{ event_id: 'e2' }],
  },
  {
    name: 'string escapes, REGEXP_CONTAINS, REGEXP_EXTRACT, STARTS_WITH, CONCAT',
    sql: "SELECT 'it\\'s' AS s, REGEXP_CONTAINS('abc123', r'\\d+') AS m, REGEXP_EXTRACT('key=val', r'=(\\w+)') AS x, STARTS_WITH('shoe', 'sh') AS sw, CONCAT('a', 'b') AS c",
    rows: [{ s: "it's", m: true, x: 'val', sw: true, c: 'ab' }],
  },
  {
    name: 'unnamed columns are named f0_, f1_',
    sql: 'SELECT 1, 2 + 3',
    rows: [{ f0_: 1, f1_: 5 }],
  },
  {
    name: 'named parameters (@name) of several types',
    sql: 'SELECT event_id FROM d.events WHERE event_name = @name AND event_time >= @since AND user.id IN UNNEST(@ids) ORDER BY event_id',
    params: { name: 'view_content', since: new Date('2024-01-07T00:00:00Z'), ids: [1, 2] },
    rows: [{ event_id: 'e1' }, { event_id: 'e1' }],
  },
  {
    name: 'INTERVAL with an expression (INTERVAL MOD(x, n) SECOND)',
    sql: "SELECT TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00', INTERVAL MOD(125, 100) SECOND) AS t",
    rows: [{ t: ts('2024-01-01T00:00:25.000Z') }],
  },
  {
    name: 'warehouse typed-view columns: SAFE_CAST(JSON_VALUE(...)) AS INT64, NUMERIC, BOOL, TIMESTAMP; JSON_QUERY',
    sql: `SELECT SAFE_CAST(JSON_VALUE(event_data, '$.value') AS INT64) AS i,
  SAFE_CAST(JSON_VALUE(event_data, '$.value') AS NUMERIC) AS n,
  SAFE_CAST(JSON_VALUE(PARSE_JSON('{"b":"true"}'), '$.b') AS BOOL) AS b,
  SAFE_CAST(JSON_VALUE(PARSE_JSON('{"t":"2024-01-02T03:04:05Z"}'), '$.t') AS TIMESTAMP) AS t,
  TO_JSON_STRING(JSON_QUERY(event_data, '$.items')) AS items
FROM d.events WHERE event_id = 'e2'`,
    rows: [{ i: 3, n: '3', b: true, t: ts('2024-01-02T03:04:05.000Z'), items: '[1,2]' }],
  },
  {
    name: 'warehouse dedup view text: multi-line * EXCEPT (dedup_rank), window over event_time and event_id',
    sql: [
      'SELECT * EXCEPT (dedup_rank) FROM (',
      '  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_time, event_id ORDER BY received_at, event_name) AS dedup_rank',
      '  FROM `test-project.d.events`',
      ') WHERE dedup_rank = 1',
    ].join('\n'),
    rows: { count: 3 },
  },
  {
    name: 'comments, keywords inside strings, unquoted hyphenated project ids',
    sql: `SELECT 'FROM d.nowhere' AS s, -- a comment with FROM x
  COUNT(*) AS n /* FROM y */ # and another
FROM test-project.d.events WHERE event_id = "e2"`,
    rows: [{ s: 'FROM d.nowhere', n: 1 }],
  },
  {
    // (Pre-1970 TIMESTAMPs are right on the wire, "-500000", but the client's PreciseDate
    // parses negative microseconds wrongly, against real BigQuery too: see api.test.ts.)
    name: 'dates before 1970 and DATETIME / TIME values',
    sql: "SELECT DATE '1900-01-01' AS d, DATETIME '2024-02-29 12:00:00.25' AS dt, TIME '23:59:58' AS tm",
    rows: [
      { d: { value: '1900-01-01' }, dt: { value: '2024-02-29T12:00:00.250000' }, tm: { value: '23:59:58' } },
    ],
  },
  {
    name: 'positional parameters (?)',
    sql: 'SELECT ? AS a, ? AS b, ? AS c',
    params: ['x', 7, true],
    rows: [{ a: 'x', b: 7, c: true }],
  },
  {
    name: 'COUNTIF over no matching rows is 0, not NULL (also as a window function)',
    sql: "SELECT COUNTIF(event_name = 'nothing') AS n, COUNTIF(user.id IS NOT NULL) AS u FROM d.events WHERE event_id = 'none'",
    rows: [{ n: 0, u: 0 }],
  },
  {
    name: 'COUNTIF as a window function',
    sql: "SELECT event_id, COUNTIF(event_name = 'view_content') OVER (ORDER BY received_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM d.events ORDER BY received_at LIMIT 2",
    rows: { count: 2 },
  },
  {
    name: 'APPROX_COUNT_DISTINCT is exact at small sizes, as BigQuery is',
    sql: 'SELECT APPROX_COUNT_DISTINCT(x) AS n FROM UNNEST(GENERATE_ARRAY(1, 1000)) AS x',
    rows: [{ n: 1000 }],
  },
];

const UNSUPPORTED: readonly { sql: string; construct: string }[] = [
  { sql: 'SELECT APPROX_TOP_SUM(event_name, 1, 2) FROM d.events', construct: 'APPROX_TOP_SUM' },
  {
    sql: 'SELECT * FROM d.events FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP()',
    construct: 'FOR SYSTEM_TIME AS OF',
  },
  { sql: 'MERGE d.events t USING d.events s ON FALSE WHEN NOT MATCHED THEN INSERT ROW', construct: 'MERGE' },
  { sql: 'DECLARE x INT64 DEFAULT 1; IF x > 0 THEN SELECT 1; END IF', construct: 'IF in scripts' },
  {
    sql: 'CREATE TEMP FUNCTION f(x STRING) RETURNS STRING LANGUAGE js AS r"return x;"; SELECT f("a")',
    construct: 'JavaScript functions',
  },
  { sql: 'SELECT * FROM d.INFORMATION_SCHEMA.JOBS', construct: 'INFORMATION_SCHEMA.JOBS' },
  { sql: 'CREATE TEMP TABLE t (x INT64); SELECT 1', construct: 'CREATE TEMP TABLE without AS' },
  { sql: 'SELECT FARM_FINGERPRINT(event_id) FROM d.events', construct: 'FARM_FINGERPRINT' },
  { sql: 'SELECT * FROM d.events MATCH_RECOGNIZE(ORDER BY event_time)', construct: 'MATCH_RECOGNIZE' },
];

async function seed(bq: BigQuery): Promise<void> {
  const [ds] = await bq.createDataset('d');
  const [table] = await ds.createTable('events', {
    schema: {
      fields: [
        { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
        { name: 'event_name', type: 'STRING' },
        { name: 'event_time', type: 'TIMESTAMP' },
        { name: 'received_at', type: 'TIMESTAMP' },
        {
          name: 'user',
          type: 'RECORD',
          fields: [
            { name: 'email', type: 'STRING' },
            { name: 'id', type: 'INT64' },
          ],
        },
        {
          name: 'errors',
          type: 'RECORD',
          mode: 'REPEATED',
          fields: [
            { name: 'reason', type: 'STRING' },
            { name: 'code', type: 'INT64' },
          ],
        },
        { name: 'event_data', type: 'JSON' },
        { name: 'amount', type: 'NUMERIC' },
      ],
    },
  });
  await table.insert([
    {
      event_id: 'e1',
      event_name: 'view_content',
      event_time: '2024-01-07 10:30:00',
      received_at: '2024-01-07 10:30:01',
      user: { email: 'a@x', id: 1 },
      event_data: JSON.stringify({ content_name: 'shoe', value: '12.5' }),
      amount: '10.5',
    },
    {
      event_id: 'e1',
      event_name: 'view_content',
      event_time: '2024-01-07 10:30:00',
      received_at: '2024-01-07 10:30:05',
      user: { email: 'a@x', id: 1 },
      event_data: { content_name: 'shoe-dup' },
    },
    {
      event_id: 'e2',
      event_name: 'purchase',
      event_time: '2024-01-06T23:59:59Z',
      received_at: '2024-01-07T00:00:00Z',
      user: { email: 'b@x', id: 2 },
      errors: [
        { reason: 'late', code: 1 },
        { reason: 'retry', code: 2 },
      ],
      event_data: { value: 3, items: [1, 2] },
      amount: 10.25,
    },
    {
      event_id: 'e3',
      event_name: 'view_content',
      event_time: '2024-01-08 00:00:00+00:00',
      received_at: 1704672001,
      event_data: { content_name: 'hat', value: 'abc' },
    },
  ]);
}

describe('BigQuery emulator: SQL subset (table of BigQuery SQL → rows)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(P);
    await seed(h.bq);
  });
  after(async () => {
    await h.stop();
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const [rows] = await h.bq.query({ query: c.sql, ...(c.params ? { params: c.params } : {}) });
      if (Array.isArray(c.rows)) assert.deepStrictEqual(plain(rows), c.rows);
      else assert.equal(rows.length, c.rows.count);
    });
  }

  it('CAST of non-integer text to INT64 is an invalidQuery error naming the value', async () => {
    await assert.rejects(h.bq.query("SELECT CAST('1.5' AS INT64) AS x"), (err: Error & { code?: number }) => {
      assert.equal(err.code, 400);
      assert.equal(reasonOf(err), 'invalidQuery');
      assert.match(err.message, /Bad int64 value: 1\.5/);
      return true;
    });
  });

  it('INFORMATION_SCHEMA.COLUMNS without a dataset reads the default dataset', async () => {
    const [rows] = await h.bq.query({
      query:
        "SELECT column_name, data_type FROM INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'events' AND ordinal_position <= 2 ORDER BY ordinal_position",
      defaultDataset: { projectId: P, datasetId: 'd' },
    });
    assert.deepStrictEqual(plain(rows), [
      { column_name: 'event_id', data_type: 'STRING' },
      { column_name: 'event_name', data_type: 'STRING' },
    ]);
  });

  it('INFORMATION_SCHEMA.COLUMNS without an alias is named by its last part (columns.column_name), as Cube reads it', async () => {
    const [rows] = await h.bq.dataset('d').query({
      query:
        "SELECT columns.column_name AS c, columns.table_name AS t FROM INFORMATION_SCHEMA.COLUMNS WHERE columns.table_name = 'events' AND columns.ordinal_position = 1",
    });
    assert.deepStrictEqual(plain(rows), [{ c: 'event_id', t: 'events' }]);
  });

  it('a DuckDB error reaches the caller in BigQuery words: invalidQuery, no DuckDB error class or type names', async () => {
    await assert.rejects(
      h.bq.query({ query: 'SELECT COUNT(*) FROM d.events WHERE event_time > @n', params: { n: 5 } }),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, 400);
        assert.equal(reasonOf(err), 'invalidQuery');
        assert.doesNotMatch(err.message, /Binder Error|TIMESTAMP WITH TIME ZONE|BIGINT|explicit cast/);
        assert.match(err.message, /No matching signature for operator .*TIMESTAMP, INT64/);
        return true;
      },
    );
  });

  for (const u of UNSUPPORTED) {
    it(`rejects ${u.construct} with 400 invalidQuery naming it`, async () => {
      await assert.rejects(h.bq.query(u.sql), (err: Error & { code?: number }) => {
        assert.equal(err.code, 400);
        assert.equal(reasonOf(err), 'invalidQuery');
        assert.match(err.message, new RegExp(u.construct.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'));
        return true;
      });
    });
  }
});
