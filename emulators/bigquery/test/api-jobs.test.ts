/** BigQuery emulator API: jobs and queries, through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { type Harness, P, plain, rejectsWith, startHarness } from './support/helpers.ts';

describe('BigQuery emulator API: jobs and queries', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(() => h.stop());

  describe('DML and parameters', () => {
    before(async () => {
      const [ds] = await bq.createDataset('dml');
      await ds.createTable('t', {
        schema: {
          fields: [
            { name: 'id', type: 'INT64' },
            { name: 's', type: 'STRING' },
            { name: 'ts', type: 'TIMESTAMP' },
          ],
        },
      });
    });

    it('runs INSERT, UPDATE and DELETE with numDmlAffectedRows', async () => {
      const run = async (query: string, params?: Record<string, unknown>) => {
        // jobs.insert answers at once: the job's statistics are there once it is done.
        const [job] = await bq.createQueryJob({ query, ...(params ? { params } : {}) });
        const [rows] = await job.getQueryResults();
        const [md] = await job.getMetadata();
        assert.deepStrictEqual(rows, []);
        return md.statistics.query.numDmlAffectedRows as string;
      };
      assert.equal(
        await run(
          "INSERT INTO dml.t (id, s, ts) VALUES (1, 'a', TIMESTAMP '2024-01-01'), (2, 'b', NULL), (3, 'c', NULL)",
        ),
        '3',
      );
      assert.equal(await run('UPDATE dml.t SET s = @s WHERE id >= @min', { s: 'z', min: 2 }), '2');
      assert.equal(await run('DELETE FROM dml.t WHERE id = 1'), '1');
      assert.equal(await run('INSERT dml.t (id) SELECT id + 10 FROM dml.t'), '2');
      const [rows] = await bq.query('SELECT id, s FROM dml.t ORDER BY id');
      assert.deepStrictEqual(rows, [
        { id: 2, s: 'z' },
        { id: 3, s: 'z' },
        { id: 12, s: null },
        { id: 13, s: null },
      ]);
    });

    it('returns numDmlAffectedRows from jobs.query', async () => {
      const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({ query: "UPDATE dml.t SET s = 'y' WHERE id > 10", useLegacySql: false }),
      });
      const body = (await res.json()) as { numDmlAffectedRows: string };
      assert.equal(body.numDmlAffectedRows, '2');
    });

    it('refuses UPDATE and DELETE without WHERE, as BigQuery does', async () => {
      await rejectsWith(bq.query("UPDATE dml.t SET s = 'x'"), 400, 'invalidQuery', /WHERE/);
      await rejectsWith(bq.query('DELETE FROM dml.t'), 400, 'invalidQuery', /WHERE/);
    });

    it('binds named parameters of every scalar type, arrays and structs', async () => {
      const [rows] = await bq.query({
        query:
          'SELECT @s AS s, @i AS i, @f AS f, @b AS b, @ts AS ts, @d AS d, @arr AS arr, @st.x AS sx, @nul AS nul',
        params: {
          s: "it's",
          i: 42,
          f: 0.5,
          b: false,
          ts: new Date('2024-02-03T04:05:06.789Z'),
          d: bq.date('2024-02-03'),
          arr: ['a', 'b'],
          st: { x: 7 },
          nul: null,
        },
        types: { nul: 'STRING' },
      });
      assert.deepStrictEqual(plain(rows), [
        {
          s: "it's",
          i: 42,
          f: 0.5,
          b: false,
          ts: { value: '2024-02-03T04:05:06.789Z' },
          d: { value: '2024-02-03' },
          arr: ['a', 'b'],
          sx: 7,
          nul: null,
        },
      ]);
    });

    it('answers a missing parameter with 400 invalidQuery', async () => {
      await rejectsWith(
        bq.query({ query: 'SELECT @missing', params: { other: 1 } }),
        400,
        'invalidQuery',
        /missing/,
      );
    });
  });

  describe('views', () => {
    before(async () => {
      const [ds] = await bq.createDataset('v');
      const [events] = await ds.createTable('events', {
        schema: {
          fields: [
            { name: 'event_id', type: 'STRING' },
            { name: 'event_name', type: 'STRING' },
            { name: 'event_time', type: 'TIMESTAMP' },
            { name: 'received_at', type: 'TIMESTAMP' },
            { name: 'event_data', type: 'JSON' },
          ],
        },
      });
      await events.insert([
        {
          event_id: 'a',
          event_name: 'view_content',
          event_time: '2024-01-01 00:00:00',
          received_at: '2024-01-01 00:00:01',
          event_data: { content_name: 'first', value: 1.5 },
        },
        {
          event_id: 'a',
          event_name: 'view_content',
          event_time: '2024-01-01 00:00:00',
          received_at: '2024-01-01 00:00:09',
          event_data: { content_name: 'second', value: 2 },
        },
        {
          event_id: 'b',
          event_name: 'purchase',
          event_time: '2024-01-02 00:00:00',
          received_at: '2024-01-02 00:00:01',
          event_data: {},
        },
      ]);
    });

    it('creates views from view.query (translated), including a view over a view', async () => {
      const ds = bq.dataset('v');
      const [dedup] = await ds.createTable('events_dedup', {
        view: {
          query:
            'SELECT * EXCEPT(rn) FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id, DATE(event_time) ORDER BY received_at) AS rn FROM `test-project.v.events`) WHERE rn = 1',
          useLegacySql: false,
        },
      });
      const [md] = await dedup.getMetadata();
      assert.equal(md.type, 'VIEW');
      assert.match(md.view.query, /ROW_NUMBER/);
      assert.deepStrictEqual(
        (md.schema.fields as { name: string }[]).map((f) => f.name),
        ['event_id', 'event_name', 'event_time', 'received_at', 'event_data'],
      );
      await ds.createTable('view_content', {
        view: {
          query:
            "SELECT e.event_id, e.event_time, JSON_VALUE(e.event_data, '$.content_name') AS content_name, SAFE_CAST(JSON_VALUE(e.event_data, '$.value') AS FLOAT64) AS value FROM `test-project.v.events_dedup` AS e WHERE e.event_name = 'view_content'",
          useLegacySql: false,
        },
      });
      const [rows] = await bq.query(
        'SELECT event_id, content_name, value FROM `test-project.v.view_content`',
      );
      assert.deepStrictEqual(rows, [{ event_id: 'a', content_name: 'first', value: 1.5 }]);
      // Views read the table live.
      await bq
        .dataset('v')
        .table('events')
        .insert([
          {
            event_id: 'c',
            event_name: 'view_content',
            event_time: '2024-01-03 00:00:00',
            event_data: { content_name: 'third' },
          },
        ]);
      const [after] = await bq.query('SELECT COUNT(*) AS n FROM v.view_content');
      assert.deepStrictEqual(after, [{ n: 2 }]);
    });

    it('reads CREATE OR REPLACE VIEW after a leading comment (it was answered Already Exists)', async () => {
      const view = (column: string) =>
        `-- the names we saw\n/* kept by the dashboard */\nCREATE OR REPLACE VIEW \`test-project.v.commented\` AS SELECT DISTINCT event_name AS ${column} FROM v.events`;
      await bq.query(view('a'));
      await bq.query(view('b'));
      const [md] = await bq.dataset('v').table('commented').getMetadata();
      assert.deepStrictEqual(
        (md.schema.fields as { name: string }[]).map((f) => f.name),
        ['b'],
      );
    });

    it('supports CREATE OR REPLACE VIEW and DROP VIEW through queries', async () => {
      await bq.query(
        'CREATE OR REPLACE VIEW `test-project.v.names` AS SELECT DISTINCT event_name FROM v.events',
      );
      await bq.query(
        'CREATE OR REPLACE VIEW `test-project.v.names` AS SELECT DISTINCT event_name AS name FROM v.events',
      );
      const [md] = await bq.dataset('v').table('names').getMetadata();
      assert.equal(md.type, 'VIEW');
      assert.deepStrictEqual(
        (md.schema.fields as { name: string }[]).map((f) => f.name),
        ['name'],
      );
      await bq.query('DROP VIEW v.names');
      const [exists] = await bq.dataset('v').table('names').exists();
      assert.equal(exists, false);
    });

    it('rejects a view over a missing table with 404 and a bad view query with 400, never 500', async () => {
      await rejectsWith(
        bq.dataset('v').createTable('broken', { view: { query: 'SELECT * FROM v.missing' } }),
        404,
        'notFound',
      );
      await rejectsWith(
        bq.dataset('v').createTable('broken', { view: { query: 'SELEC nonsense' } }),
        400,
        'invalidQuery',
      );
      await rejectsWith(
        bq
          .dataset('v')
          .table('events_dedup')
          .insert([{ event_id: 'x' }]),
        400,
        'invalid',
      );
    });
  });

  describe('DDL and job management', () => {
    it('runs CREATE TABLE AS SELECT, TRUNCATE TABLE and DROP TABLE as queries, keeping table resources in step', async () => {
      await bq.query(
        "CREATE TABLE v.copy AS SELECT event_id, event_time FROM v.events WHERE event_name = 'view_content'",
      );
      const [md] = await bq.dataset('v').table('copy').getMetadata();
      assert.deepStrictEqual(
        (md.schema.fields as { name: string; type: string }[]).map((f) => [f.name, f.type]),
        [
          ['event_id', 'STRING'],
          ['event_time', 'TIMESTAMP'],
        ],
      );
      const [replaced] = await bq.query(
        'SELECT * REPLACE (UPPER(event_id) AS event_id) FROM v.copy ORDER BY event_id LIMIT 1',
      );
      assert.equal((replaced[0] as { event_id: string }).event_id, 'A');
      await bq.query('TRUNCATE TABLE v.copy');
      const [count] = await bq.query('SELECT COUNT(*) AS n FROM v.copy');
      assert.deepStrictEqual(count, [{ n: 0 }]);
      await bq.query('DROP TABLE v.copy');
      const [exists] = await bq.dataset('v').table('copy').exists();
      assert.equal(exists, false);
    });

    it('lists, cancels and deletes jobs, and answers a dry run with the schema', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT 1 AS x', jobId: 'managed_job' });
      const [jobs] = await bq.getJobs();
      assert.ok(jobs.some((j) => j.id === 'managed_job'));
      await job.cancel();
      await job.delete();
      await rejectsWith(job.getMetadata(), 404, 'notFound');
      const [dry] = await bq.createQueryJob({ query: 'SELECT event_id FROM v.events', dryRun: true });
      assert.deepStrictEqual(
        (dry.metadata.statistics.query.schema.fields as { name: string }[]).map((f) => f.name),
        ['event_id'],
      );
    });

    it('refuses a load job without a destination table, and legacy SQL, with 400', async () => {
      const res = await fetch(`${h.emulator.url}/projects/${P}/jobs`, {
        method: 'POST',
        body: JSON.stringify({ configuration: { load: { sourceUris: ['gs://b/x.csv'] } } }),
      });
      assert.equal(res.status, 400);
      await rejectsWith(
        bq.query({ query: 'SELECT 1', useLegacySql: true }),
        400,
        'invalidQuery',
        /Legacy SQL/,
      );
    });
  });

  describe('query errors', () => {
    it('answers bad SQL with 400 invalidQuery (not jobInternalError, not 500)', async () => {
      await rejectsWith(bq.query('SELECT FROM WHERE'), 400, 'invalidQuery');
      await rejectsWith(bq.query('SELECT no_such_column FROM v.events'), 400, 'invalidQuery');
      await rejectsWith(bq.query("SELECT CAST('x' AS INT64)"), 400, 'invalidQuery');
      await rejectsWith(bq.createQueryJob('SELECT 1 +'), 400, 'invalidQuery');
    });

    it('answers a missing table or dataset in a query with 404 notFound', async () => {
      await rejectsWith(
        bq.query('SELECT * FROM v.nope'),
        404,
        'notFound',
        /Not found: Table test-project:v.nope/,
      );
      await rejectsWith(
        bq.query('SELECT * FROM nods.t'),
        404,
        'notFound',
        /Not found: Dataset test-project:nods/,
      );
    });

    it('needs a dataset for an unqualified table unless defaultDataset is given', async () => {
      await rejectsWith(bq.query('SELECT COUNT(*) FROM events'), 400, 'invalidQuery', /qualified/);
      const [rows] = await bq.query({
        query: 'SELECT COUNT(*) AS n FROM events',
        defaultDataset: { datasetId: 'v' },
      });
      assert.deepStrictEqual(rows, [{ n: 4 }]);
    });
  });

  describe('query jobs as Google’s client uses them', () => {
    before(async () => {
      await bq.createDataset('qj');
    });

    it('writes a query job’s rows to its destinationTable, as its write disposition says', async () => {
      const into = (query: string, extra: Record<string, unknown> = {}) =>
        bq.createQueryJob({ query, destination: bq.dataset('qj').table('out'), ...extra });
      const [job] = await into('SELECT n, n * 2 AS twice FROM UNNEST([1, 2]) AS n');
      const [rows] = await job.getQueryResults();
      assert.deepStrictEqual(plain(rows), [
        { n: 1, twice: 2 },
        { n: 2, twice: 4 },
      ]);
      const [md] = await bq.dataset('qj').table('out').getMetadata();
      assert.deepStrictEqual(
        (md.schema.fields as { name: string }[]).map((f) => f.name),
        ['n', 'twice'],
      );
      // WRITE_EMPTY (the default) refuses a table that has rows; WRITE_APPEND adds; WRITE_TRUNCATE replaces.
      // jobs.insert answers at once: the refusal is the job's, once it runs.
      const done = async (query: string, extra: Record<string, unknown> = {}) => {
        const [job] = await into(query, extra);
        await job.promise();
      };
      await assert.rejects(
        done('SELECT 3 AS n, 6 AS twice'),
        /Already Exists: Table test-project:qj\.out is not empty/,
      );
      await done('SELECT 3 AS n, 6 AS twice', { writeDisposition: 'WRITE_APPEND' });
      let [all] = await bq.query('SELECT COUNT(*) AS c FROM qj.out');
      assert.deepStrictEqual(all, [{ c: 3 }]);
      await done('SELECT 9 AS n, 18 AS twice', { writeDisposition: 'WRITE_TRUNCATE' });
      [all] = await bq.query('SELECT n FROM qj.out');
      assert.deepStrictEqual(all, [{ n: 9 }]);
      // A missing destination fails the job BigQuery created: the answer is the failed job.
      await assert.rejects(
        bq.createQueryJob({
          query: 'SELECT 1 AS n',
          destination: bq.dataset('qj').table('never'),
          createDisposition: 'CREATE_NEVER',
        }),
        (err: { errors?: { reason?: string }[] }) => err.errors?.[0]?.reason === 'notFound',
      );
    });

    it('keeps a query job’s labels, and answers jobs.query as a QueryResponse with its query id', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT 1 AS x', labels: { team: 'growth', run: '1' } });
      const [md] = await job.getMetadata();
      assert.deepStrictEqual(md.configuration.labels, { team: 'growth', run: '1' });
      await rejectsWith(
        bq.createQueryJob({ query: 'SELECT 1', labels: { Bad: 'x' } }),
        400,
        'invalid',
        /label key/,
      );
      const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({ query: 'SELECT 1 AS x', useLegacySql: false }),
      });
      const body = (await res.json()) as { kind: string; queryId?: string; jobReference: { jobId: string } };
      assert.equal(body.kind, 'bigquery#queryResponse');
      assert.equal(typeof body.queryId, 'string');
      // Without formatOptions a TIMESTAMP is float seconds (useInt64Timestamp defaults to false).
      const plainTs = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({
          query: "SELECT TIMESTAMP '2024-01-01 00:00:00.5+00' AS t",
          useLegacySql: false,
        }),
      });
      const ts = (await plainTs.json()) as { rows: { f: { v: string }[] }[] };
      assert.equal(Number(ts.rows[0]?.f[0]?.v), 1704067200.5);
      assert.match(ts.rows[0]?.f[0]?.v ?? '', /E9$/);
    });

    it('refuses a RANGE column or parameter without an element type BigQuery allows, naming it', async () => {
      await rejectsWith(
        bq.dataset('qj').createTable('ranges', { schema: { fields: [{ name: 'r', type: 'RANGE' }] } }),
        400,
        'invalid',
        /Field r is type RANGE: rangeElementType.type must be DATE, DATETIME or TIMESTAMP/,
      );
      const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({
          query: 'SELECT @r AS r',
          useLegacySql: false,
          parameterMode: 'NAMED',
          queryParameters: [
            {
              name: 'r',
              parameterType: { type: 'RANGE', rangeElementType: { type: 'INT64' } },
              parameterValue: {},
            },
          ],
        }),
      });
      assert.equal(res.status, 400);
      assert.match(
        await res.text(),
        /parameter r: a RANGE's element type must be DATE, DATETIME or TIMESTAMP/,
      );
    });

    it('finds a job in its own location only', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT 1 AS x', jobId: 'located_job', location: 'EU' });
      assert.equal((await job.getMetadata())[0].jobReference.location, 'EU');
      const elsewhere = (loc: string) =>
        fetch(`${h.emulator.url}/projects/${P}/jobs/located_job?location=${loc}`).then((r) => r.status);
      assert.equal(await elsewhere('EU'), 200);
      assert.equal(await elsewhere('US'), 404);
    });

    it('answers jobs.query still running after timeoutMs with jobComplete false, and the results once done', async () => {
      // A 400-million-row cross join cannot finish within 1 ms.
      const query =
        'SELECT COUNT(*) AS c FROM UNNEST(GENERATE_ARRAY(1, 20000)) AS a, UNNEST(GENERATE_ARRAY(1, 20000)) AS b';
      const res = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({ query, useLegacySql: false, timeoutMs: 1 }),
      });
      const first = (await res.json()) as { jobComplete: boolean; jobReference: { jobId: string } };
      assert.equal(first.jobComplete, false);
      const jobId = first.jobReference.jobId;
      const [rows] = await bq.job(jobId).getQueryResults();
      assert.deepStrictEqual(rows, [{ c: 400_000_000 }]);
      const [md] = await bq.job(jobId).getMetadata();
      assert.equal(md.status.state, 'DONE');
    });

    it('finds a job outside the US and EU multi-regions only when asked with its location', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT 1 AS x', location: 'asia-northeast1' });
      const id = job.id as string;
      await rejectsWith(bq.job(id).getMetadata(), 404, 'notFound');
      await rejectsWith(bq.job(id, { location: 'US' }).getMetadata(), 404, 'notFound');
      const [md] = await bq.job(id, { location: 'asia-northeast1' }).getMetadata();
      assert.equal(md.jobReference.location, 'asia-northeast1');
      // A job in the US or EU is found without one.
      const [eu] = await bq.createQueryJob({ query: 'SELECT 1 AS x', location: 'EU' });
      assert.equal((await bq.job(eu.id as string).getMetadata())[0].jobReference.location, 'EU');
    });

    it('answers a query job over a dataset of another location with the failed job (notFound), as BigQuery', async () => {
      await bq.createDataset('tokyo', { location: 'asia-northeast1' });
      await bq.query({ query: 'CREATE TABLE tokyo.t AS SELECT 1 AS x', location: 'asia-northeast1' });
      await new Promise<void>((resolve, reject) => {
        bq.dataset('tokyo', { location: 'US' }).createQueryJob(
          { query: 'SELECT x FROM tokyo.t' },
          (err, job) => {
            try {
              assert.equal((err as { errors?: { reason?: string }[] }).errors?.[0]?.reason, 'notFound');
              assert.equal(job?.location, 'US');
              resolve();
            } catch (e) {
              reject(e);
            }
          },
        );
      });
      const [rows] = await bq.query({ query: 'SELECT x FROM tokyo.t', location: 'asia-northeast1' });
      assert.deepStrictEqual(rows, [{ x: 1 }]);
    });

    it('runs a job that names a location only over datasets in that location', async () => {
      await bq.createDataset('eu_data', { location: 'EU' });
      await bq.query('CREATE TABLE eu_data.t AS SELECT 1 AS x');
      const [rows] = await bq.query({ query: 'SELECT x FROM eu_data.t', location: 'EU' });
      assert.deepStrictEqual(rows, [{ x: 1 }]);
      await rejectsWith(
        bq.query({ query: 'SELECT x FROM eu_data.t', location: 'US' }),
        404,
        'notFound',
        /Not found: Dataset test-project:eu_data was not found in location US/,
      );
    });
  });
});
