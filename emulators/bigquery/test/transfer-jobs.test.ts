/**
 * BigQuery emulator: load jobs (CSV and NEWLINE_DELIMITED_JSON, from the Storage emulator or an
 * uploaded file) and extract jobs (to the Storage emulator), through Google's own clients: the
 * BigQuery emulator finds the Storage emulator through STORAGE_EMULATOR_HOST.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery, type Dataset } from '@google-cloud/bigquery';
import type { Bucket } from '@google-cloud/storage';
import { OAuth2Client } from 'google-auth-library';
import { type Harness, P, plain, startHarness } from './support/helpers.ts';
import { type StorageStandIn, startStorageStandIn } from './support/storage.ts';

const SCHEMA = {
  fields: [
    { name: 'id', type: 'INT64', mode: 'REQUIRED' },
    { name: 'name', type: 'STRING' },
    { name: 'at', type: 'TIMESTAMP' },
  ],
};

interface JobFailure {
  errors?: { reason?: string; message?: string }[];
}

describe('BigQuery emulator: load and extract jobs with the Storage emulator', () => {
  let storage: StorageStandIn;
  let h: Harness;
  let bq: BigQuery;
  let ds: Dataset;
  let bucket: Bucket;
  let files: string;
  before(async () => {
    storage = await startStorageStandIn(P);
    h = await startHarness(P);
    bq = h.bq;
    [ds] = await bq.createDataset('tr');
    [bucket] = await storage.storage.createBucket('transfer-bucket');
    files = mkdtempSync(join(tmpdir(), 'bq-load-'));
  });
  after(async () => {
    await h.stop();
    await storage.stop();
    rmSync(files, { recursive: true, force: true });
  });

  const rows = async (table: string) => {
    const [r] = await bq.query(`SELECT * FROM tr.${table} ORDER BY id`);
    return plain(r);
  };

  it('loads CSV from a gs:// object into a new table with the job’s schema (header skipped, empty = NULL)', async () => {
    await bucket.file('in/people.csv').save('id,name,at\n1,Ann,2024-01-02 03:04:05 UTC\n2,,\n');
    const [job] = await ds.table('people').createLoadJob(bucket.file('in/people.csv'), {
      sourceFormat: 'CSV',
      skipLeadingRows: 1,
      schema: SCHEMA,
    });
    await job.promise();
    const [md] = await job.getMetadata();
    assert.equal(md.statistics.load.outputRows, '2');
    assert.deepEqual(await rows('people'), [
      { id: 1, name: 'Ann', at: { value: '2024-01-02T03:04:05.000Z' } },
      { id: 2, name: null, at: null },
    ]);
  });

  it('loads NEWLINE_DELIMITED_JSON through a wildcard URI, appending by default, and WRITE_TRUNCATE replaces', async () => {
    await ds.createTable('events', { schema: SCHEMA });
    await bucket.file('json/part-1.json').save('{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n');
    await bucket.file('json/part-2.json').save('{"id": 3, "name": "c", "at": "2024-01-01T00:00:00Z"}\n');
    const load = (options: Record<string, unknown> = {}) =>
      ds
        .table('events')
        .load(bucket.file('json/part-*'), { sourceFormat: 'NEWLINE_DELIMITED_JSON', ...options });
    await load();
    await load();
    assert.equal(((await rows('events')) as unknown[]).length, 6);
    await load({ writeDisposition: 'WRITE_TRUNCATE' });
    assert.deepEqual(
      ((await rows('events')) as { id: number }[]).map((r) => r.id),
      [1, 2, 3],
    );
  });

  it('loads a local file (the client’s multipart upload), with autodetect', async () => {
    const path = join(files, 'scores.json');
    writeFileSync(
      path,
      '{"player": "x", "score": 10, "ratio": 0.5, "ok": true}\n{"player": "y", "score": 7, "ratio": 1.5, "ok": false}\n',
    );
    // The client uploads a file only with credentials (docs/google-wire.md §7): a static token,
    // which the emulator does not check.
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: 'emulator', expiry_date: Date.now() + 3_600_000 });
    // `useAuthWithCustomEndpoint` is read by the client's common layer, not in BigQueryOptions' type.
    const options = {
      projectId: P,
      apiEndpoint: h.emulator.url,
      useAuthWithCustomEndpoint: true,
      authClient,
    };
    const uploader = new BigQuery(options as ConstructorParameters<typeof BigQuery>[0]);
    const [job] = await uploader
      .dataset('tr')
      .table('scores')
      .load(path, { sourceFormat: 'NEWLINE_DELIMITED_JSON', autodetect: true });
    assert.equal(job.status?.state, 'DONE');
    const [md] = await ds.table('scores').getMetadata();
    assert.deepEqual(
      md.schema.fields.map((f: { name: string; type: string }) => [f.name, f.type]),
      [
        ['player', 'STRING'],
        ['score', 'INTEGER'],
        ['ratio', 'FLOAT'],
        ['ok', 'BOOLEAN'],
      ],
    );
    const [r] = await bq.query('SELECT player, score FROM tr.scores ORDER BY score');
    assert.deepEqual(plain(r), [
      { player: 'y', score: 7 },
      { player: 'x', score: 10 },
    ]);
  });

  it('fails the whole load on one bad row, naming it, and loads nothing', async () => {
    await bucket.file('bad.csv').save('1,a,\nnot-a-number,b,\n');
    await assert.rejects(
      ds.table('strict').load(bucket.file('bad.csv'), { schema: SCHEMA }),
      (err: JobFailure) => {
        assert.equal(err.errors?.[0]?.reason, 'invalid');
        assert.match(err.errors?.[0]?.message ?? '', /row 2/);
        return true;
      },
    );
    await assert.rejects(ds.table('strict').get(), { code: 404 });
  });

  it('refuses a load of a missing object with 404 notFound, and other formats by name', async () => {
    await assert.rejects(
      ds.table('missing').load(bucket.file('nope.csv'), { schema: SCHEMA }),
      (err: JobFailure & { code?: number }) => {
        assert.equal(err.code, 404);
        assert.equal(err.errors?.[0]?.reason, 'notFound');
        return true;
      },
    );
    await assert.rejects(ds.table('avro').load(bucket.file('bad.csv'), { sourceFormat: 'AVRO' }), /AVRO/);
  });

  it('extracts a table to CSV with a header and to NEWLINE_DELIMITED_JSON', async () => {
    await ds.createTable('out', { schema: SCHEMA });
    await ds.table('out').insert([
      { id: 1, name: 'a,b', at: '2024-01-02T03:04:05Z' },
      { id: 2, name: 'c' },
    ]);
    h.emulator.ageStreamingBuffer();
    const [csvJob] = await ds
      .table('out')
      .createExtractJob(bucket.file('exports/out.csv'), { format: 'CSV' });
    await csvJob.promise();
    const [csv] = await bucket.file('exports/out.csv').download();
    assert.equal(csv.toString(), 'id,name,at\n1,"a,b",2024-01-02 03:04:05 UTC\n2,c,\n');
    await ds.table('out').extract(bucket.file('exports/out-*.json'), { format: 'JSON' });
    const [json] = await bucket.file('exports/out-000000000000.json').download();
    assert.deepEqual(
      json
        .toString()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      [
        { id: '1', name: 'a,b', at: '2024-01-02 03:04:05 UTC' },
        { id: '2', name: 'c', at: null },
      ],
    );
  });

  it('leaves rows still in the streaming buffer out of an extract, as BigQuery does', async () => {
    await ds.createTable('buffered', { schema: SCHEMA });
    await ds.table('buffered').insert([{ id: 1, name: 'settled' }]);
    h.emulator.ageStreamingBuffer();
    await ds.table('buffered').insert([{ id: 2, name: 'fresh' }]);
    await ds.table('buffered').extract(bucket.file('exports/buffered.csv'), { format: 'CSV' });
    const [csv] = await bucket.file('exports/buffered.csv').download();
    assert.equal(csv.toString(), 'id,name,at\n1,settled,\n');
    // The read was rolled back: the table still holds both rows.
    assert.equal(((await rows('buffered')) as unknown[]).length, 2);
  });
});
