/** The REST surface through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import { BigQuery, type Table } from '@google-cloud/bigquery';
import { type Harness, plain, reasonOf, startHarness } from './helpers.ts';

const P = 'test-project';

interface ClientError extends Error {
  code?: number;
}

async function rejectsWith(
  p: Promise<unknown>,
  code: number,
  reason: string,
  message?: RegExp,
): Promise<void> {
  await assert.rejects(p, (err: ClientError) => {
    assert.equal(err.code, code, err.message);
    assert.equal(reasonOf(err), reason);
    if (message) assert.match(err.message, message);
    return true;
  });
}

const ALL_TYPES = [
  { name: 'id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'i', type: 'INT64' },
  { name: 'f', type: 'FLOAT64' },
  { name: 'n', type: 'NUMERIC' },
  { name: 'b', type: 'BOOL' },
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'd', type: 'DATE' },
  { name: 'dt', type: 'DATETIME' },
  { name: 'by', type: 'BYTES' },
  { name: 'j', type: 'JSON' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'email', type: 'STRING' },
      { name: 'address', type: 'RECORD', fields: [{ name: 'city', type: 'STRING' }] },
    ],
  },
];

describe('BigQuery emulator: REST API with the real client', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(async () => {
    await h.stop();
  });

  describe('server', () => {
    it('answers GET /health with {"status":"ok"}', async () => {
      const res = await fetch(`${h.emulator.url}/health`);
      assert.equal(res.status, 200);
      assert.deepStrictEqual(await res.json(), { status: 'ok' });
    });

    it('serves the API with and without the /bigquery/v2 prefix', async () => {
      await bq.createDataset('prefix_check');
      for (const base of [`${h.emulator.url}/bigquery/v2`, h.emulator.url]) {
        const res = await fetch(`${base}/projects/${P}/datasets/prefix_check?prettyPrint=false`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as { datasetReference: { datasetId: string } };
        assert.equal(body.datasetReference.datasetId, 'prefix_check');
      }
    });

    it('works with BIGQUERY_EMULATOR_HOST as the client reads it (no /bigquery/v2)', async () => {
      const saved = process.env['BIGQUERY_EMULATOR_HOST'];
      process.env['BIGQUERY_EMULATOR_HOST'] = h.emulator.url;
      try {
        const viaEnv = new BigQuery({ projectId: P });
        const [rows] = await viaEnv.query('SELECT 1 AS one');
        assert.deepStrictEqual(rows, [{ one: 1 }]);
      } finally {
        if (saved === undefined) delete process.env['BIGQUERY_EMULATOR_HOST'];
        else process.env['BIGQUERY_EMULATOR_HOST'] = saved;
      }
    });

    it('answers malformed JSON with 400 parseError and unknown paths with 404, in BigQuery error shape', async () => {
      const bad = await fetch(`${h.emulator.url}/projects/${P}/datasets`, { method: 'POST', body: '{nope' });
      assert.equal(bad.status, 400);
      const body = (await bad.json()) as {
        error: { code: number; errors: { reason: string; domain: string }[]; status: string };
      };
      assert.equal(body.error.code, 400);
      assert.equal(body.error.errors[0]?.reason, 'parseError');
      assert.equal(body.error.errors[0]?.domain, 'global');
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      const missing = await fetch(`${h.emulator.url}/projects/${P}/nothing`);
      assert.equal(missing.status, 404);
    });
  });

  describe('datasets', () => {
    it('inserts, gets, lists and deletes datasets', async () => {
      const [ds] = await bq.createDataset('ds_crud', {
        location: 'US',
        description: 'for tests',
        labels: { team: 'data' },
      });
      const [md] = await ds.getMetadata();
      assert.equal(md.description, 'for tests');
      assert.deepStrictEqual(md.labels, { team: 'data' });
      assert.equal(md.location, 'US');
      const [list] = await bq.getDatasets();
      assert.ok(list.some((d) => d.id === 'ds_crud'));
      await ds.delete();
      const [exists] = await bq.dataset('ds_crud').exists();
      assert.equal(exists, false);
    });

    it('answers 409 duplicate for an existing dataset and 404 notFound for a missing one', async () => {
      await bq.createDataset('ds_dup');
      await rejectsWith(
        bq.createDataset('ds_dup'),
        409,
        'duplicate',
        /Already Exists: Dataset test-project:ds_dup/,
      );
      await rejectsWith(
        bq.dataset('ds_missing').getMetadata(),
        404,
        'notFound',
        /Not found: Dataset test-project:ds_missing/,
      );
    });

    it('refuses to delete a dataset with tables unless force (deleteContents) is set', async () => {
      const [ds] = await bq.createDataset('ds_full');
      await ds.createTable('t', { schema: { fields: [{ name: 'a', type: 'STRING' }] } });
      await rejectsWith(ds.delete(), 400, 'resourceInUse');
      await ds.delete({ force: true });
      const [exists] = await ds.exists();
      assert.equal(exists, false);
    });

    it('rejects an invalid dataset id with 400 invalid', async () => {
      await rejectsWith(bq.createDataset('bad-name'), 400, 'invalid');
    });

    it('refuses ids that differ only in case from existing ones (DuckDB names ignore case)', async () => {
      const [ds] = await bq.createDataset('casey');
      await rejectsWith(bq.createDataset('Casey'), 400, 'invalid', /differs only in case/);
      await ds.createTable('events', { schema: { fields: [{ name: 'a', type: 'STRING' }] } });
      await rejectsWith(
        ds.createTable('Events', { schema: { fields: [{ name: 'a', type: 'STRING' }] } }),
        400,
        'invalid',
        /differs only in case/,
      );
    });
  });

  describe('tables', () => {
    before(async () => {
      await bq.createDataset('tables');
    });

    it('creates a table with every type and mode, and reports partitioning, clustering, expiration and description back', async () => {
      const expirationTime = String(Date.now() + 86_400_000);
      const [table] = await bq.dataset('tables').createTable('all_types', {
        schema: { fields: ALL_TYPES },
        timePartitioning: { type: 'DAY', field: 'ts', expirationMs: '864000000' },
        clustering: { fields: ['id', 'i'] },
        expirationTime,
        description: 'every type',
      });
      const [md] = await table.getMetadata();
      assert.deepStrictEqual(md.timePartitioning, { type: 'DAY', field: 'ts', expirationMs: '864000000' });
      assert.deepStrictEqual(md.clustering, { fields: ['id', 'i'] });
      assert.equal(md.expirationTime, expirationTime);
      assert.equal(md.description, 'every type');
      assert.equal(md.type, 'TABLE');
      const fields = md.schema.fields as { name: string; type: string; mode: string; fields?: unknown[] }[];
      assert.deepStrictEqual(
        fields.map((f) => [f.name, f.type, f.mode]),
        [
          ['id', 'STRING', 'REQUIRED'],
          ['i', 'INTEGER', 'NULLABLE'],
          ['f', 'FLOAT', 'NULLABLE'],
          ['n', 'NUMERIC', 'NULLABLE'],
          ['b', 'BOOLEAN', 'NULLABLE'],
          ['ts', 'TIMESTAMP', 'NULLABLE'],
          ['d', 'DATE', 'NULLABLE'],
          ['dt', 'DATETIME', 'NULLABLE'],
          ['by', 'BYTES', 'NULLABLE'],
          ['j', 'JSON', 'NULLABLE'],
          ['tags', 'STRING', 'REPEATED'],
          ['user', 'RECORD', 'NULLABLE'],
        ],
      );
    });

    it('round-trips every type through insertAll, tabledata.list and a query', async () => {
      const table = bq.dataset('tables').table('all_types');
      const row = {
        id: 'r1',
        i: 9007199254740993n.toString(),
        f: 1.5,
        n: '123.456',
        b: true,
        ts: '2024-05-06T07:08:09.123456Z',
        d: '2024-05-06',
        dt: '2024-05-06 07:08:09',
        by: Buffer.from('bytes!').toString('base64'),
        j: { a: [1, 2], b: 'x' },
        tags: ['x', 'y'],
        user: { email: 'u@x', address: { city: 'Paris' } },
      };
      await table.insert([row]);
      const expected = {
        id: 'r1',
        i: 9007199254740993n.toString(),
        f: 1.5,
        n: '123.456',
        b: true,
        ts: { value: '2024-05-06T07:08:09.123456000Z' },
        d: { value: '2024-05-06' },
        dt: { value: '2024-05-06T07:08:09' },
        by: { type: 'Buffer', data: [...Buffer.from('bytes!')] },
        j: '{"a":[1,2],"b":"x"}',
        tags: ['x', 'y'],
        user: { email: 'u@x', address: { city: 'Paris' } },
      };
      const [listed] = await table.getRows({ wrapIntegers: { integerTypeCastFunction: (s: string) => s } });
      assert.deepStrictEqual(plain(listed), [expected]);
      const [queried] = await bq.query({
        query: 'SELECT * FROM tables.all_types',
        wrapIntegers: { integerTypeCastFunction: (s: string) => s },
      });
      assert.deepStrictEqual(plain(queried), [expected]);
    });

    it('encodes values on the wire as BigQuery does (int64 µs timestamps, strings, nested f/v)', async () => {
      const res = await fetch(`${h.emulator.url}/bigquery/v2/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({
          query: "SELECT ts, i, b, tags, user FROM tables.all_types WHERE id = 'r1'",
          useLegacySql: false,
          formatOptions: { useInt64Timestamp: true },
        }),
      });
      const body = (await res.json()) as {
        rows: { f: { v: unknown }[] }[];
        totalRows: string;
        jobComplete: boolean;
      };
      assert.equal(body.jobComplete, true);
      assert.equal(body.totalRows, '1');
      assert.deepStrictEqual(body.rows[0]?.f, [
        { v: '1714979289123456' },
        { v: '9007199254740993' },
        { v: 'true' },
        { v: [{ v: 'x' }, { v: 'y' }] },
        { v: { f: [{ v: 'u@x' }, { v: { f: [{ v: 'Paris' }] } }] } },
      ]);
      const floatTs = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({
          query: "SELECT TIMESTAMP '2024-01-01 00:00:01.5 UTC' AS t",
          formatOptions: { useInt64Timestamp: false },
        }),
      });
      const fb = (await floatTs.json()) as { rows: { f: { v: string }[] }[] };
      assert.equal(Number(fb.rows[0]?.f[0]?.v), 1704067201.5);
      const negative = await fetch(`${h.emulator.url}/projects/${P}/queries`, {
        method: 'POST',
        body: JSON.stringify({
          query: "SELECT TIMESTAMP '1969-12-31 23:59:59.5 UTC' AS t",
          formatOptions: { useInt64Timestamp: true },
        }),
      });
      const nb = (await negative.json()) as { rows: { f: { v: string }[] }[] };
      assert.equal(nb.rows[0]?.f[0]?.v, '-500000');
    });

    it('lists, patches (description, added column, relaxed mode) and deletes tables', async () => {
      const ds = bq.dataset('tables');
      const [t] = await ds.createTable('patchable', {
        schema: { fields: [{ name: 'a', type: 'STRING', mode: 'REQUIRED' }] },
      });
      const [tables] = await ds.getTables();
      assert.ok(tables.some((x) => x.id === 'patchable'));
      await t.setMetadata({
        description: 'patched',
        schema: {
          fields: [
            { name: 'a', type: 'STRING', mode: 'NULLABLE' },
            { name: 'b', type: 'INT64' },
          ],
        },
      });
      await t.insert([{ b: 2 }]);
      const [md] = await t.getMetadata();
      assert.equal(md.description, 'patched');
      assert.equal(md.numRows, '1');
      await rejectsWith(
        t.setMetadata({ schema: { fields: [{ name: 'b', type: 'INT64' }] } }),
        400,
        'invalid',
        /Field a is missing/,
      );
      await t.delete();
      await rejectsWith(t.getMetadata(), 404, 'notFound', /Not found: Table test-project:tables.patchable/);
    });

    it('rejects bad schemas, duplicate tables and bad partitioning with 4xx, never 500', async () => {
      const ds = bq.dataset('tables');
      await rejectsWith(
        ds.createTable('bad_type', { schema: { fields: [{ name: 'a', type: 'BLOB' }] } }),
        400,
        'invalid',
      );
      await rejectsWith(
        ds.createTable('bad_name', { schema: { fields: [{ name: 'a-b', type: 'STRING' }] } }),
        400,
        'invalid',
      );
      await rejectsWith(
        ds.createTable('no_fields', { schema: { fields: [{ name: 'r', type: 'RECORD' }] } }),
        400,
        'invalid',
      );
      await rejectsWith(
        ds.createTable('bad_part', {
          schema: { fields: [{ name: 'a', type: 'STRING' }] },
          timePartitioning: { type: 'DAY', field: 'a' },
        }),
        400,
        'invalid',
      );
      await rejectsWith(
        ds.createTable('all_types', { schema: { fields: [{ name: 'a', type: 'STRING' }] } }),
        409,
        'duplicate',
      );
      await rejectsWith(
        bq.dataset('nope').createTable('t', { schema: { fields: [{ name: 'a', type: 'STRING' }] } }),
        404,
        'notFound',
      );
    });
  });

  describe('tabledata.insertAll', () => {
    let table: Table;
    before(async () => {
      const [ds] = await bq.createDataset('ins');
      [table] = await ds.createTable('rows', {
        schema: {
          fields: [
            { name: 'id', type: 'STRING', mode: 'REQUIRED' },
            { name: 'n', type: 'INT64' },
            { name: 'rec', type: 'RECORD', fields: [{ name: 'x', type: 'STRING' }] },
          ],
        },
      });
    });
    const count = async (where = 'TRUE') => {
      const [rows] = await bq.query(`SELECT COUNT(*) AS c FROM ins.rows WHERE ${where}`);
      return (rows[0] as { c: number }).c;
    };

    it('makes inserted rows visible to the next query', async () => {
      await table.insert([{ id: 'v1', n: 1 }]);
      assert.equal(await count("id = 'v1'"), 1);
    });

    it('inserts nothing when a row is invalid and skipInvalidRows is false: per-row errors, others "stopped"', async () => {
      await assert.rejects(
        table.insert([{ id: 's1', bad: 1 }, { id: 's2' }, { n: 3 }, { id: 's4', n: 'abc' }]),
        (
          err: Error & {
            name: string;
            errors: { errors: { reason: string; message: string; location?: string }[] }[];
          },
        ) => {
          assert.equal(err.name, 'PartialFailureError');
          assert.deepStrictEqual(
            err.errors.map((e) => e.errors.map((x) => x.reason)),
            [['invalid'], ['stopped'], ['invalid'], ['invalid']],
          );
          assert.match(err.errors[0]?.errors[0]?.message ?? '', /no such field: bad/);
          assert.match(err.errors[2]?.errors[0]?.message ?? '', /Missing required field: id/);
          assert.match(err.errors[3]?.errors[0]?.message ?? '', /Cannot convert value to integer/);
          return true;
        },
      );
      assert.equal(await count("id IN ('s1', 's2', 's4')"), 0);
    });

    it('with skipInvalidRows inserts the valid rows and reports only the invalid ones', async () => {
      await assert.rejects(
        table.insert(
          [
            { id: 'k1' },
            { id: 'k2', rec: 'not a record' },
            { id: 'k3' },
            // What JSON.parse makes of 9223372036854775807: 2^63, one past INT64 (the row fails, not the request).
            { id: 'k4', n: 2 ** 63 },
            { id: 'k5', n: -(2 ** 63) },
          ],
          { skipInvalidRows: true },
        ),
        (err: Error & { errors: { row: { id: string } }[] }) => {
          assert.deepStrictEqual(
            err.errors.map((e) => e.row.id),
            ['k2', 'k4'],
          );
          return true;
        },
      );
      assert.equal(await count("id IN ('k1', 'k2', 'k3', 'k4', 'k5')"), 3);
    });

    it('with ignoreUnknownValues drops unknown fields, nested ones included', async () => {
      await table.insert([{ id: 'u1', extra: true, rec: { x: 'a', y: 'b' } }], { ignoreUnknownValues: true });
      const [rows] = await bq.query("SELECT rec.x FROM ins.rows WHERE id = 'u1'");
      assert.deepStrictEqual(rows, [{ x: 'a' }]);
    });

    it('de-duplicates rows by insertId within the window, across and within requests', async () => {
      const rows = [
        { insertId: 'dup-1', json: { id: 'd1' } },
        { insertId: 'dup-1', json: { id: 'd1' } },
        { insertId: 'dup-2', json: { id: 'd2' } },
      ];
      await table.insert(rows, { raw: true });
      await table.insert(rows, { raw: true });
      assert.equal(await count("id IN ('d1', 'd2')"), 2);
      await table.insert([{ json: { id: 'd3' } }, { json: { id: 'd3' } }], { raw: true });
      assert.equal(await count("id = 'd3'"), 2, 'rows without insertId are never de-duplicated');
    });

    it('de-duplicates by insertId on the appender path too, and across the two paths', async () => {
      // An integer as a string has no text form (row-text.ts): such a request is appended.
      const appended = [
        { insertId: 'dup-a1', json: { id: 'a1', n: '1' } },
        { insertId: 'dup-a1', json: { id: 'a1', n: '1' } },
        { insertId: 'dup-t1', json: { id: 't1', n: '2' } },
      ];
      await table.insert(appended, { raw: true });
      await table.insert(appended, { raw: true });
      assert.equal(await count("id IN ('a1', 't1')"), 2);
      // The same ids sent as rows with a text form: already stored, so nothing new.
      await table.insert(
        [
          { insertId: 'dup-a1', json: { id: 'a1', n: 1 } },
          { insertId: 'dup-t1', json: { id: 't1', n: 2 } },
        ],
        { raw: true },
      );
      assert.equal(await count("id IN ('a1', 't1')"), 2);
    });

    it('forgets an insertId once its window (60 s) has passed', async () => {
      // The emulator runs in this process: move its clock instead of waiting a minute.
      const realNow = Date.now;
      try {
        await table.insert([{ insertId: 'win-1', json: { id: 'w1' } }], { raw: true });
        Date.now = () => realNow() + 30_000;
        await table.insert([{ insertId: 'win-1', json: { id: 'w1' } }], { raw: true });
        assert.equal(await count("id = 'w1'"), 1, 'within the window: de-duplicated');
        Date.now = () => realNow() + 61_000;
        await table.insert([{ insertId: 'win-1', json: { id: 'w1' } }], { raw: true });
        assert.equal(await count("id = 'w1'"), 2, 'past the window: a new row');
      } finally {
        Date.now = realNow;
      }
    });

    it('enforces the 50,000-row and 10 MB request limits with 400 invalid', async () => {
      const many = Array.from({ length: 50_001 }, (_, i) => ({ json: { id: `m${i}` } }));
      await rejectsWith(table.insert(many, { raw: true }), 400, 'invalid', /too many rows/);
      const big = Array.from({ length: 11 }, (_, i) => ({
        json: { id: `b${i}`, rec: { x: 'x'.repeat(1024 * 1024) } },
      }));
      await rejectsWith(table.insert(big, { raw: true }), 400, 'invalid', /payload size exceeds/);
      assert.equal(await count("starts_with(id, 'm') OR starts_with(id, 'b')"), 0);
    });

    it('answers 404 for a missing table and 400 for an empty request', async () => {
      await rejectsWith(
        bq
          .dataset('ins')
          .table('missing')
          .insert([{ id: 'x' }]),
        404,
        'notFound',
      );
      const res = await fetch(`${h.emulator.url}/projects/${P}/datasets/ins/tables/rows/insertAll`, {
        method: 'POST',
        body: JSON.stringify({ rows: [] }),
      });
      assert.equal(res.status, 400);
    });

    it('is safe under concurrent inserts and queries', async () => {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        work.push(table.insert(Array.from({ length: 50 }, (_, k) => ({ id: `c${i}_${k}`, n: k }))));
        work.push(bq.query('SELECT COUNT(*) AS c FROM ins.rows'));
      }
      await Promise.all(work);
      assert.equal(await count("starts_with(id, 'c')"), 1000);
    });
  });

  describe('tabledata.list and query paging', () => {
    before(async () => {
      const [ds] = await bq.createDataset('paging');
      const [t] = await ds.createTable('nums', { schema: { fields: [{ name: 'n', type: 'INT64' }] } });
      await t.insert(Array.from({ length: 25 }, (_, n) => ({ n })));
    });

    it('pages tabledata.list with maxResults and pageToken', async () => {
      const table = bq.dataset('paging').table('nums');
      const [page1, next1, resp1] = await table.getRows({ maxResults: 10, autoPaginate: false });
      assert.equal(page1.length, 10);
      assert.equal((resp1 as { totalRows: string }).totalRows, '25');
      assert.ok(next1);
      const [page2, next2] = await table.getRows({ ...next1, autoPaginate: false });
      assert.equal(page2.length, 10);
      const [page3, next3] = await table.getRows({ ...next2, autoPaginate: false });
      assert.equal(page3.length, 5);
      assert.equal(next3, null);
      const all = [...page1, ...page2, ...page3].map((r) => (r as { n: number }).n);
      assert.deepStrictEqual(
        all,
        Array.from({ length: 25 }, (_, n) => n),
      );
      const [everything] = await table.getRows({ maxResults: 7 });
      assert.equal(everything.length, 7);
      // Past the end, however far (within uint64), is an empty page; a huge page size is all rows.
      const [none] = await table.getRows({ startIndex: '999999999999999999', autoPaginate: false });
      assert.deepStrictEqual(none, []);
      const [whole] = await table.getRows({
        // As text: the client would write the number 1e19 as "1e+19", which is no uint64 literal.
        maxResults: '9999999999999999999' as unknown as number,
        autoPaginate: false,
      });
      assert.equal(whole.length, 25);
    });

    it('pages query results through jobs.getQueryResults', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT n FROM paging.nums ORDER BY n' });
      const [page1, next1] = await job.getQueryResults({ maxResults: 10, autoPaginate: false });
      assert.deepStrictEqual(
        page1.map((r) => (r as { n: number }).n),
        Array.from({ length: 10 }, (_, n) => n),
      );
      assert.ok(next1?.pageToken);
      const [rest] = await job.getQueryResults({ pageToken: next1.pageToken });
      assert.equal(rest.length, 15);
      const [autoAll] = await bq.query({ query: 'SELECT n FROM paging.nums', maxResults: 4 });
      assert.equal(autoAll.length, 25);
    });

    it('reports the job through jobs.get, and 404 for an unknown job', async () => {
      const [job] = await bq.createQueryJob({ query: 'SELECT 1 AS x', jobId: 'my_job_1' });
      const [md] = await job.getMetadata();
      assert.equal(md.status.state, 'DONE');
      assert.equal(md.jobReference.jobId, 'my_job_1');
      assert.equal(md.statistics.query.statementType, 'SELECT');
      await rejectsWith(bq.job('no_such_job').getMetadata(), 404, 'notFound');
      await rejectsWith(bq.createQueryJob({ query: 'SELECT 1', jobId: 'my_job_1' }), 409, 'duplicate');
    });
  });

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
        const [job] = await bq.createQueryJob({ query, ...(params ? { params } : {}) });
        const [md] = await job.getMetadata();
        const [rows] = await job.getQueryResults();
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

    it('refuses load jobs and legacy SQL with 400', async () => {
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

  describe('malformed requests', () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/projects/test-project/datasets', { datasetReference: 'nope' }],
      ['POST', '/projects/test-project/datasets', []],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't1' }, schema: { fields: 'x' } },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't2' }, schema: { fields: [null] } },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't3' }, view: { query: 42 } },
      ],
      ['POST', '/projects/test-project/datasets/v/tables/events/insertAll', { rows: 'x' }],
      [
        'POST',
        '/projects/test-project/datasets/v/tables/events/insertAll',
        { rows: [null, 1, 'x', { json: [] }] },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables/events/insertAll',
        { rows: [{ json: { event_time: {} } }] },
      ],
      ['POST', '/projects/test-project/queries', {}],
      ['POST', '/projects/test-project/queries', { query: 7 }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT @x', queryParameters: 'x' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT @x', queryParameters: [{ name: 'x' }] }],
      [
        'POST',
        '/projects/test-project/queries',
        {
          query: 'SELECT @x',
          queryParameters: [
            { name: 'x', parameterType: { type: 'INT64' }, parameterValue: { value: 'abc' } },
          ],
        },
      ],
      ['POST', '/projects/test-project/queries', { query: "SELECT ')" }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT (((' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT CAST(1 AS)' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT x FROM UNNEST(' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT 1', maxResults: 'abc' }],
      ['GET', '/projects/test-project/queries/nope?pageToken=zz', undefined],
      ['GET', '/projects/test-project/datasets/v/tables/events/data?maxResults=-1', undefined],
      [
        'GET',
        '/projects/test-project/datasets/v/tables/events/data?startIndex=99999999999999999999999',
        undefined,
      ],
      [
        'GET',
        '/projects/test-project/datasets/v/tables/events/data?pageToken=999999999999999999999',
        undefined,
      ],
      ['GET', '/projects/test-project/datasets/%E0%A4%A/tables', undefined],
      ['POST', '/projects/test-project/jobs', { configuration: 'x' }],
      [
        'PATCH',
        '/projects/test-project/datasets/v/tables/events',
        { schema: { fields: [{ name: 'event_id', type: 'INT64' }] } },
      ],
    ];
    for (const [method, path, body] of cases) {
      it(`answers ${method} ${path} ${JSON.stringify(body) ?? ''} with a 4xx (or per-row errors) in BigQuery's shape`, async () => {
        const res = await fetch(`${h.emulator.url}${path}`, {
          method,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const out = (await res.json()) as {
          error?: { code: number; errors: { reason: string }[] };
          insertErrors?: { errors: { reason: string }[] }[];
        };
        if (path.endsWith('/insertAll') && res.status === 200) {
          // Row-level mistakes are per-row insertErrors, as in BigQuery.
          assert.ok(
            out.insertErrors?.every((e) => e.errors[0]?.reason === 'invalid'),
            JSON.stringify(out),
          );
          return;
        }
        assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}: ${JSON.stringify(out)}`);
        assert.equal(out.error?.code, res.status);
        assert.ok(out.error?.errors[0]?.reason);
      });
    }
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
});
