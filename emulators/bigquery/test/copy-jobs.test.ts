/** BigQuery emulator: copy jobs through Google's client (table.copy, createCopyJob, copyFrom). */
import assert from 'node:assert/strict';
import type { BigQuery, Dataset } from '@google-cloud/bigquery';
import { type Harness, P, plain, startHarness } from './support/helpers.ts';

const SCHEMA = {
  fields: [
    { name: 'id', type: 'INT64', mode: 'REQUIRED' },
    { name: 'name', type: 'STRING' },
  ],
};

describe('BigQuery emulator: copy jobs', () => {
  let h: Harness;
  let bq: BigQuery;
  let ds: Dataset;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
    [ds] = await bq.createDataset('cp');
    await ds.createTable('src', { schema: SCHEMA });
    await ds.table('src').insert([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    await ds.createTable('src2', { schema: SCHEMA });
    await ds.table('src2').insert([{ id: 3, name: 'c' }]);
    // Out of the streaming buffer, as a table's rows are some time after they were streamed.
    h.emulator.ageStreamingBuffer();
  });
  after(() => h.stop());

  const rows = async (table: string) => {
    const [r] = await bq.query(`SELECT id, name FROM cp.${table} ORDER BY id`);
    return plain(r);
  };

  it('copies a table into a new one with its schema (modes included), as a DONE COPY job', async () => {
    const [md] = await ds.table('src').copy(ds.table('fresh'));
    assert.equal(md.status?.state, 'DONE');
    assert.equal(md.configuration?.jobType, 'COPY');
    assert.equal(md.statistics?.copy?.copiedRows, '2');
    assert.deepEqual(await rows('fresh'), [
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    const [table] = await ds.table('fresh').getMetadata();
    assert.deepEqual(
      table.schema.fields.map((f: { name: string; mode?: string }) => [f.name, f.mode ?? 'NULLABLE']),
      [
        ['id', 'REQUIRED'],
        ['name', 'NULLABLE'],
      ],
    );
  });

  it('honours writeDisposition: WRITE_EMPTY refuses a table with rows, WRITE_APPEND adds, WRITE_TRUNCATE replaces', async () => {
    await ds.table('src').copy(ds.table('target'));
    await assert.rejects(
      ds.table('src2').copy(ds.table('target')),
      (err: { errors?: { reason?: string }[] }) => {
        assert.equal(err.errors?.[0]?.reason, 'duplicate');
        return true;
      },
    );
    await ds.table('src2').copy(ds.table('target'), { writeDisposition: 'WRITE_APPEND' });
    assert.equal(((await rows('target')) as unknown[]).length, 3);
    await ds.table('src2').copy(ds.table('target'), { writeDisposition: 'WRITE_TRUNCATE' });
    assert.deepEqual(await rows('target'), [{ id: 3, name: 'c' }]);
  });

  it('copies several sources into one table (copyFrom), and refuses a source of another schema', async () => {
    const [job] = await ds.table('both').createCopyFromJob([ds.table('src'), ds.table('src2')]);
    await job.promise();
    assert.equal(((await rows('both')) as unknown[]).length, 3);
    await ds.createTable('other', { schema: { fields: [{ name: 'x', type: 'STRING' }] } });
    await assert.rejects(
      ds.table('other').copy(ds.table('both'), { writeDisposition: 'WRITE_APPEND' }),
      /schema/i,
    );
  });

  it('leaves rows still in the streaming buffer out of a copy, as BigQuery does (a query still reads them)', async () => {
    await ds.createTable('streamed', { schema: SCHEMA });
    await ds.table('streamed').insert([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    h.emulator.ageStreamingBuffer();
    // Fresh rows, one equal to a settled row: only the buffered copy of it is left out.
    await ds.table('streamed').insert([
      { id: 1, name: 'a' },
      { id: 9, name: 'z' },
    ]);
    const [md] = await ds.table('streamed').copy(ds.table('streamed_copy'));
    assert.equal(md.statistics?.copy?.copiedRows, '2');
    assert.deepEqual(await rows('streamed_copy'), [
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    assert.equal(((await rows('streamed')) as unknown[]).length, 4);
    h.emulator.ageStreamingBuffer();
    await ds.table('streamed').copy(ds.table('streamed_copy'), { writeDisposition: 'WRITE_TRUNCATE' });
    assert.equal(((await rows('streamed_copy')) as unknown[]).length, 4);
  });

  it('refuses a copy of a missing table, into CREATE_NEVER, or run in another location with 404', async () => {
    await assert.rejects(
      ds.table('nope').copy(ds.table('x1')),
      (err: { code?: number; errors?: { reason?: string }[] }) => {
        assert.equal(err.code, 404);
        assert.equal(err.errors?.[0]?.reason, 'notFound');
        return true;
      },
    );
    await assert.rejects(
      ds.table('src').copy(ds.table('x2'), { createDisposition: 'CREATE_NEVER' }),
      /Not found/,
    );
    await assert.rejects(
      ds.table('src', { location: 'asia-northeast1' }).copy(ds.table('x3')),
      /not found in location asia-northeast1/,
    );
    await assert.rejects(ds.table('x1').get(), { code: 404 });
  });
});
