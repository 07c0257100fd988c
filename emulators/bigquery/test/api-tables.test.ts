/** BigQuery emulator API: tables, through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import { ALL_TYPES, type Harness, P, plain, rejectsWith, startHarness } from './support/helpers.ts';

describe('BigQuery emulator API: tables', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(() => h.stop());

  describe('tables', () => {
    before(async () => {
      await bq.createDataset('tables');
    });

    it('creates a table with every type and mode, and reports partitioning, clustering, expiration and description back', async () => {
      const expirationTime = String(Date.now() + 86_400_000);
      const [table] = await bq.dataset('tables').createTable('all_types', {
        schema: { fields: ALL_TYPES },
        // A century: the rows below (2024) stay; partitions past expirationMs are deleted.
        timePartitioning: { type: 'DAY', field: 'ts', expirationMs: '3153600000000' },
        clustering: { fields: ['id', 'i'] },
        expirationTime,
        description: 'every type',
      });
      const [md] = await table.getMetadata();
      assert.deepStrictEqual(md.timePartitioning, {
        type: 'DAY',
        field: 'ts',
        expirationMs: '3153600000000',
      });
      assert.deepStrictEqual(md.clustering, { fields: ['id', 'i'] });
      assert.equal(md.expirationTime, expirationTime);
      assert.equal(md.description, 'every type');
      assert.equal(md.type, 'TABLE');
      const fields = md.schema.fields as { name: string; type: string; mode?: string; fields?: unknown[] }[];
      // A field created without a mode comes back without one, as BigQuery answers it (it is NULLABLE).
      assert.deepStrictEqual(
        fields.map((f) => [f.name, f.type, f.mode ?? '(none)']),
        [
          ['id', 'STRING', 'REQUIRED'],
          ['i', 'INTEGER', '(none)'],
          ['f', 'FLOAT', '(none)'],
          ['n', 'NUMERIC', '(none)'],
          ['b', 'BOOLEAN', '(none)'],
          ['ts', 'TIMESTAMP', '(none)'],
          ['d', 'DATE', '(none)'],
          ['dt', 'DATETIME', '(none)'],
          ['by', 'BYTES', '(none)'],
          ['j', 'JSON', '(none)'],
          ['tags', 'STRING', 'REPEATED'],
          ['user', 'RECORD', '(none)'],
        ],
      );
    });

    it('keeps policy tags in the schema (enforced only with --iam: data-masking.test.ts)', async () => {
      const tag = 'projects/p/locations/eu/taxonomies/1/policyTags/2';
      const [table] = await bq.dataset('tables').createTable('tagged', {
        schema: {
          fields: [
            { name: 'id', type: 'STRING' },
            {
              name: 'user',
              type: 'RECORD',
              fields: [{ name: 'email', type: 'STRING', policyTags: { names: [tag] } }],
            },
          ],
        },
      });
      const [md] = await table.getMetadata();
      assert.deepStrictEqual(md.schema.fields[1].fields[0].policyTags, { names: [tag] });
      assert.equal(md.schema.fields[0].policyTags, undefined);
      await table.insert([{ id: 'a', user: { email: 'ann@example.com' } }]);
      const [rows] = await table.getRows();
      assert.equal(
        rows[0]?.['user'].email,
        'ann@example.com',
        'not masked: without --iam nothing is enforced',
      );
      await rejectsWith(
        bq.dataset('tables').createTable('bad_tags', {
          schema: {
            fields: [{ name: 'x', type: 'STRING', policyTags: { names: 'nope' as unknown as string[] } }],
          },
        }),
        400,
        'invalid',
        /policyTags/,
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

    it('adds fields inside an existing RECORD and a REPEATED RECORD, at any depth, and keeps the rows', async () => {
      const ds = bq.dataset('tables');
      const [t] = await ds.createTable('nested_patch', {
        schema: {
          fields: [
            { name: 'id', type: 'STRING' },
            {
              name: 'device',
              type: 'RECORD',
              fields: [
                { name: 'ua', type: 'STRING' },
                { name: 'geo', type: 'RECORD', fields: [{ name: 'country', type: 'STRING' }] },
              ],
            },
            { name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING' }] },
          ],
        },
      });
      await t.insert([{ id: 'old', device: { ua: 'u', geo: { country: 'FR' } }, items: [{ sku: 'a' }] }]);
      const [md] = await t.getMetadata();
      const id = { name: 'id', type: 'STRING' };
      assert.equal(md.schema.fields[0].name, 'id');
      // The patch lists the new nested fields first: the stored schema keeps the table's order.
      const device = {
        name: 'device',
        type: 'RECORD',
        fields: [
          { name: 'hints', type: 'RECORD', fields: [{ name: 'mobile', type: 'STRING' }] },
          { name: 'ua', type: 'STRING' },
          {
            name: 'geo',
            type: 'RECORD',
            fields: [
              { name: 'region', type: 'STRING' },
              { name: 'country', type: 'STRING' },
            ],
          },
        ],
      };
      const items = {
        name: 'items',
        type: 'RECORD',
        mode: 'REPEATED',
        fields: [
          { name: 'sku', type: 'STRING' },
          { name: 'qty', type: 'INT64' },
        ],
      };
      await t.setMetadata({ schema: { fields: [id, device, items] } });
      const [after] = await t.getMetadata();
      assert.deepEqual(
        (after.schema.fields[1].fields as { name: string }[]).map((f) => f.name),
        ['ua', 'geo', 'hints'],
      );
      await t.insert([
        {
          id: 'new',
          device: { ua: 'v', hints: { mobile: '?1' }, geo: { country: 'DE', region: 'BE' } },
          items: [{ sku: 'b', qty: 2 }],
        },
      ]);
      const [rows] = await bq.query({
        query:
          'SELECT id, device.hints.mobile AS mobile, device.geo.region AS region, device.geo.country AS country, items[SAFE_OFFSET(0)].qty AS qty FROM tables.nested_patch ORDER BY id',
      });
      assert.deepEqual(rows, [
        { id: 'new', mobile: '?1', region: 'BE', country: 'DE', qty: 2 },
        { id: 'old', mobile: null, region: null, country: 'FR', qty: null },
      ]);
      // A nested field's type cannot change, nor can a REQUIRED one be added.
      const retyped = {
        ...device,
        fields: [{ name: 'ua', type: 'INT64' }, ...device.fields.slice(0, 1), device.fields[2]],
      };
      await rejectsWith(
        t.setMetadata({ schema: { fields: [id, retyped, items] } }),
        400,
        'invalid',
        /Field device\.ua has changed type/,
      );
      const required = {
        ...items,
        fields: [...items.fields, { name: 'must', type: 'STRING', mode: 'REQUIRED' }],
      };
      await rejectsWith(
        t.setMetadata({ schema: { fields: [id, device, required] } }),
        400,
        'invalid',
        /Cannot add required fields.*items\.must/,
      );
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
});
