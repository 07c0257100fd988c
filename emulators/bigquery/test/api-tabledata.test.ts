/** BigQuery emulator API: tabledata, through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import type { BigQuery, Table } from '@google-cloud/bigquery';
import { type Harness, P, rejectsWith, startHarness } from './support/helpers.ts';

describe('BigQuery emulator API: tabledata', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(() => h.stop());

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
          // The invalid rows first, then the others "stopped" (the order BigQuery answers in).
          assert.deepStrictEqual(
            err.errors.map((e) => e.errors.map((x) => x.reason)),
            [['invalid'], ['invalid'], ['invalid'], ['stopped']],
          );
          assert.match(err.errors[0]?.errors[0]?.message ?? '', /no such field: bad/);
          assert.match(err.errors[1]?.errors[0]?.message ?? '', /Missing required field: id/);
          assert.match(err.errors[2]?.errors[0]?.message ?? '', /Cannot convert value to integer/);
          return true;
        },
      );
      assert.equal(await count("id IN ('s1', 's2', 's4')"), 0);
    });

    it('refuses a boolean for a STRING column in BigQuery’s words, and takes a number as its text', async () => {
      await assert.rejects(
        table.insert([{ id: true }]),
        (err: Error & { errors: { errors: { message: string }[] }[] }) => {
          assert.equal(
            err.errors[0]?.errors[0]?.message,
            'Conversion from bool to std::string is unsupported.',
          );
          return true;
        },
      );
      await table.insert([{ id: 42 }]);
      assert.equal(await count("id = '42'"), 1);
    });

    it('refuses useInt64Timestamp=true with a FLOAT64 or ISO8601 timestamp output format, in BigQuery’s words', async () => {
      const list = (q: string) =>
        fetch(`${h.emulator.url}/projects/${P}/datasets/ins/tables/rows/data?${q}`).then(async (r) => ({
          status: r.status,
          text: await r.text(),
        }));
      const both = await list(
        'formatOptions.useInt64Timestamp=true&formatOptions.timestampOutputFormat=FLOAT64',
      );
      assert.equal(both.status, 400);
      assert.match(both.text, /Cannot specify both use_int64_timestamp and timestamp_output_format\./);
      assert.equal(
        (await list('formatOptions.useInt64Timestamp=true&formatOptions.timestampOutputFormat=INT64')).status,
        200,
      );
      assert.equal((await list('formatOptions.timestampOutputFormat=NANOS')).status, 400);
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
      await job.getQueryResults();
      const [md] = await job.getMetadata();
      assert.equal(md.status.state, 'DONE');
      assert.equal(md.jobReference.jobId, 'my_job_1');
      assert.equal(md.statistics.query.statementType, 'SELECT');
      await rejectsWith(bq.job('no_such_job').getMetadata(), 404, 'notFound');
      await rejectsWith(bq.createQueryJob({ query: 'SELECT 1', jobId: 'my_job_1' }), 409, 'duplicate');
    });
  });
});
