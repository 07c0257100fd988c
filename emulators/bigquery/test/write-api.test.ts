/**
 * The Storage Write API through Google's own managed writer (`@google-cloud/bigquery-storage`'s
 * WriterClient and JSONWriter), unchanged but for its endpoint: rows appended to a pending stream
 * are invisible to queries until the stream is finalized and committed, then read back; a repeated
 * offset is refused as BigQuery refuses it (ALREADY_EXISTS with OFFSET_ALREADY_EXISTS), one past the
 * end too (OUT_OF_RANGE); committed and default streams show rows at once and DML may change them;
 * buffered rows show after FlushRows; bad rows are row errors and write nothing; IAM asks for
 * `bigquery.tables.updateData`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccessFile, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import bigqueryStorage from '@google-cloud/bigquery-storage';
import * as grpc from '@grpc/grpc-js';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';
import { type Harness, plain, startHarness } from './support/helpers.ts';

const { adapt, managedwriter } = bigqueryStorage;
type WriterClient = InstanceType<typeof managedwriter.WriterClient>;

const P = 'test-project';
const SCHEMA = {
  fields: [
    { name: 'name', type: 'STRING', mode: 'REQUIRED' },
    { name: 'n', type: 'INTEGER' },
    { name: 'seen_at', type: 'TIMESTAMP' },
    { name: 'born', type: 'DATE' },
  ],
};
const DESCRIPTOR = adapt.convertStorageSchemaToProto2Descriptor(
  adapt.convertBigQuerySchemaToStorageTableSchema(SCHEMA),
  'root',
);

/** Google's client pointed at the emulator: the only change from production is the endpoint. */
const writerClient = (port: number): WriterClient =>
  new managedwriter.WriterClient({
    servicePath: '127.0.0.1',
    port,
    sslCreds: grpc.credentials.createInsecure(),
    projectId: P,
  });

/** The StorageError codes the client finds in an in-stream error's details. */
const storageCodes = (details: unknown): number[] =>
  ((details ?? []) as { value?: Uint8Array }[]).map((d) => {
    const decoded = bigqueryStorage.protos.google.cloud.bigquery.storage.v1.StorageError.decode(
      d.value ?? new Uint8Array(),
    );
    return Number(decoded.code);
  });

describe('bigquery emulator: the Storage Write API through Google’s managed writer', () => {
  let h: Harness;
  let client: WriterClient;
  let table = 0;
  let parent: string;
  let tableId: string;
  /** A connection to a new stream of `streamType` (or the default stream) and a JSONWriter on it. */
  const open = async (stream: { streamType?: string; streamId?: string }) => {
    const connection = await client.createStreamConnection({ ...stream, destinationTable: parent } as never);
    return { connection, writer: new managedwriter.JSONWriter({ connection, protoDescriptor: DESCRIPTOR }) };
  };
  const ns = async () => (await rows()).map((r: { n: number }) => r.n);
  const rows = async (sql = `SELECT name, n FROM w.${tableId} ORDER BY n`) => (await h.bq.query(sql))[0];

  before(async () => {
    h = await startHarness(P);
    await h.bq.createDataset('w');
    client = writerClient(h.emulator.port);
  });
  after(async () => {
    client.close();
    await h.stop();
  });
  beforeEach(async () => {
    tableId = `t${++table}`;
    await h.bq.dataset('w').createTable(tableId, { schema: SCHEMA });
    parent = `projects/${P}/datasets/w/tables/${tableId}`;
  });

  it('appends to a pending stream, commits it, and reads the rows back through a query', async () => {
    const { connection, writer } = await open({ streamType: managedwriter.PendingStream });
    const at = new Date('2026-11-25T10:00:00.123Z');
    const first = await writer
      .appendRows(
        [
          { name: 'ada', n: 1, seen_at: at, born: new Date('1815-12-10') },
          { name: 'alan', n: 2 },
        ],
        0,
      )
      .getResult();
    assert.equal(first.error ?? null, null);
    assert.equal(first.appendResult?.offset?.value, '0');
    const second = await writer.appendRows([{ name: 'grace', n: 3 }], 2).getResult();
    assert.equal(second.appendResult?.offset?.value, '2');
    // Pending: nothing to see before the commit.
    assert.deepEqual(await rows(), []);
    assert.equal(Number((await connection.finalize())?.rowCount), 3);
    const commit = await client.batchCommitWriteStream({ parent, writeStreams: [connection.getStreamId()] });
    assert.deepEqual(commit.streamErrors, []);
    assert.ok(commit.commitTime);
    assert.deepEqual(
      (await rows()).map((r: { name: string; n: number }) => [r.name, r.n]),
      [
        ['ada', 1],
        ['alan', 2],
        ['grace', 3],
      ],
    );
    const [typed] = await h.bq.query(`SELECT seen_at, born FROM w.${tableId} WHERE n = 1`);
    assert.deepEqual(plain(typed), [
      { seen_at: { value: '2026-11-25T10:00:00.123Z' }, born: { value: '1815-12-10' } },
    ]);
    // A committed stream takes no more rows, and is not committed twice.
    const again = await client.batchCommitWriteStream({ parent, writeStreams: [connection.getStreamId()] });
    assert.equal(again.commitTime, null);
    assert.equal(again.streamErrors?.[0]?.code, 'STREAM_ALREADY_COMMITTED');
    writer.close();
  });

  it('refuses a repeated offset as BigQuery does (ALREADY_EXISTS) and one past the end (OUT_OF_RANGE), writing nothing', async () => {
    const { writer } = await open({ streamType: managedwriter.CommittedStream });
    const ok = await writer.appendRows([{ name: 'a', n: 1 }], 0).getResult();
    assert.equal(ok.appendResult?.offset?.value, '0');
    // Committed: visible at once.
    assert.equal((await rows()).length, 1);
    const repeated = await writer.appendRows([{ name: 'a', n: 1 }], 0).getResult();
    assert.equal(repeated.error?.code, grpc.status.ALREADY_EXISTS);
    assert.match(
      String(repeated.error?.message),
      /^The offset is within stream, expected offset 1, received 0/,
    );
    assert.deepEqual(storageCodes(repeated.error?.details), [8]); // OFFSET_ALREADY_EXISTS
    const beyond = await writer.appendRows([{ name: 'b', n: 2 }], 5).getResult();
    assert.equal(beyond.error?.code, grpc.status.OUT_OF_RANGE);
    assert.deepEqual(storageCodes(beyond.error?.details), [9]); // OFFSET_OUT_OF_RANGE
    // The connection goes on after an in-stream refusal.
    const next = await writer.appendRows([{ name: 'b', n: 2 }], 1).getResult();
    assert.equal(next.appendResult?.offset?.value, '1');
    assert.deepEqual(await ns(), [1, 2]);
    writer.close();
  });

  it('shows default-stream rows at once, and lets DML change them (no insertAll streaming buffer)', async () => {
    const { writer } = await open({ streamId: managedwriter.DefaultStream });
    const res = await writer
      .appendRows([
        { name: 'x', n: 7 },
        { name: 'y', n: 8 },
      ])
      .getResult();
    assert.equal(res.error ?? null, null);
    assert.equal((await rows()).length, 2);
    await h.bq.query(`DELETE FROM w.${tableId} WHERE n = 7`);
    assert.deepEqual(await ns(), [8]);
    writer.close();
  });

  it('keeps buffered rows out of queries until FlushRows', async () => {
    const { connection, writer } = await open({ streamType: managedwriter.BufferedStream });
    await writer
      .appendRows(
        [
          { name: 'a', n: 1 },
          { name: 'b', n: 2 },
          { name: 'c', n: 3 },
        ],
        0,
      )
      .getResult();
    assert.deepEqual(await rows(), []);
    const flushed = await connection.flushRows({ offset: 1 });
    assert.equal(flushed?.offset, '1');
    assert.deepEqual(await ns(), [1, 2]);
    writer.close();
  });

  it('answers a bad row with a row error and writes none of the request, and an empty append with its error', async () => {
    const { writer } = await open({ streamType: managedwriter.CommittedStream });
    // `name` is REQUIRED: the second row lacks it.
    const bad = await writer.appendRows([{ name: 'a', n: 1 }, { n: 2 }], 0).getResult();
    assert.equal(bad.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.match(String(bad.error?.message), /^Errors found while processing rows/);
    assert.deepEqual(
      bad.rowErrors?.map((e) => [String(e.index), e.code]),
      [['1', 'FIELDS_ERROR']],
    );
    const empty = await writer.appendRows([], 0).getResult();
    assert.match(String(empty.error?.message), /^Rows must be specified/);
    assert.deepEqual(await rows(), []);
    // Nothing was written, so offset 0 is still free.
    const ok = await writer.appendRows([{ name: 'a', n: 1 }], 0).getResult();
    assert.equal(ok.appendResult?.offset?.value, '0');
    writer.close();
  });

  it('fills a missing column with its default value expression when the append asks for DEFAULT_VALUE', async () => {
    await h.bq.dataset('w').createTable(`${tableId}_d`, {
      schema: [
        { name: 'name', type: 'STRING', mode: 'REQUIRED' },
        { name: 'id', type: 'STRING', mode: 'REQUIRED', defaultValueExpression: 'GENERATE_UUID()' },
        { name: 'tag', type: 'STRING', defaultValueExpression: "'plain'" },
      ],
    });
    const schema = { fields: [{ name: 'name', type: 'STRING', mode: 'REQUIRED' }] };
    const connection = await client.createStreamConnection({
      streamId: managedwriter.DefaultStream,
      destinationTable: `${parent}_d`,
    });
    const writer = new managedwriter.JSONWriter({
      connection,
      protoDescriptor: adapt.convertStorageSchemaToProto2Descriptor(
        adapt.convertBigQuerySchemaToStorageTableSchema(schema),
        'root',
      ),
      defaultMissingValueInterpretation: 'DEFAULT_VALUE',
      missingValueInterpretations: { tag: 'NULL_VALUE' },
    });
    const res = await writer.appendRows([{ name: 'a' }]).getResult();
    assert.equal(res.error ?? null, null);
    const [got] = await h.bq.query(`SELECT name, id, tag FROM w.${tableId}_d`);
    assert.equal(got.length, 1);
    assert.match(String(got[0].id), /^[0-9a-f-]{36}$/);
    assert.equal(got[0].tag, null);
    writer.close();
  });

  it('stores rows of the fast path (write-rows.ts) as the general path would, and refuses bad rows the same way', async () => {
    // No DATE column: every column has a text form, so well-formed appends take the fast path.
    const schema = {
      fields: [
        { name: 'name', type: 'STRING', mode: 'REQUIRED' },
        { name: 'n', type: 'INTEGER' },
        { name: 'seen_at', type: 'TIMESTAMP' },
        { name: 'data', type: 'JSON' },
        { name: 'tags', type: 'STRING', mode: 'REPEATED' },
        { name: 'who', type: 'RECORD', fields: [{ name: 'id', type: 'STRING' }] },
      ],
    };
    const fastId = `${tableId}_fast`;
    await h.bq.dataset('w').createTable(fastId, { schema });
    const protoDescriptor = adapt.convertStorageSchemaToProto2Descriptor(
      adapt.convertBigQuerySchemaToStorageTableSchema(schema),
      'root',
    );
    const connection = await client.createStreamConnection({
      streamId: managedwriter.DefaultStream,
      destinationTable: `projects/${P}/datasets/w/tables/${fastId}`,
    });
    const writer = new managedwriter.JSONWriter({ connection, protoDescriptor });
    const at = new Date('2026-11-25T10:00:00.123Z');
    const ok = await writer
      .appendRows([
        { name: 'quote " \\ \n é 😀', n: 1, seen_at: at, data: '{"a": [1, "x"]}', who: { id: 'u1' } },
        { name: 'plain', n: 2, tags: ['p', 'q'] },
      ])
      .getResult();
    assert.equal(ok.error ?? null, null);
    // A row the general path refuses: the same row error, and nothing of the append stored.
    const bad = await writer
      .appendRows([
        { name: 'a', n: 3 },
        { name: 'b', data: '{nope' },
      ])
      .getResult();
    assert.equal(bad.error?.code, grpc.status.INVALID_ARGUMENT);
    assert.deepEqual(
      bad.rowErrors?.map((e) => [String(e.index), e.code]),
      [['1', 'FIELDS_ERROR']],
    );
    const [stored] = await h.bq.query(
      `SELECT name, n, seen_at, TO_JSON_STRING(data) AS data, tags, who FROM w.${fastId} ORDER BY n`,
    );
    assert.deepEqual(plain(stored), [
      {
        name: 'quote " \\ \n é 😀',
        n: 1,
        seen_at: { value: '2026-11-25T10:00:00.123Z' },
        data: '{"a":[1,"x"]}',
        tags: [],
        who: { id: 'u1' },
      },
      { name: 'plain', n: 2, seen_at: null, data: null, tags: ['p', 'q'], who: null },
    ]);
    // Many appends in flight at once: each one's text stays its own until its rows are stored
    // (the fast path reuses the buffers of stored appends).
    const pipelined = Array.from({ length: 24 }, (_, a) =>
      writer
        .appendRows(Array.from({ length: 40 }, (_, k) => ({ name: `p${a}-${k}`, n: 1000 + a * 40 + k })))
        .getResult(),
    );
    for (const r of await Promise.all(pipelined)) assert.equal(r.error ?? null, null);
    const [stored2] = await h.bq.query(`SELECT name, n FROM w.${fastId} WHERE n >= 1000 ORDER BY n`);
    assert.deepEqual(
      (stored2 as { name: string; n: number }[]).map((r) => [r.name, r.n]),
      Array.from({ length: 960 }, (_, i) => [`p${Math.floor(i / 40)}-${i % 40}`, 1000 + i]),
    );
    writer.close();
    // A pending stream holds the fast path's rows (read back from their text) until its commit.
    const pending = await client.createStreamConnection({
      streamType: managedwriter.PendingStream,
      destinationTable: `projects/${P}/datasets/w/tables/${fastId}`,
    });
    const held = new managedwriter.JSONWriter({ connection: pending, protoDescriptor });
    const appended = await held
      .appendRows([{ name: 'held " é', n: 5000, seen_at: at, data: '[1]', tags: ['t'], who: { id: 'h' } }], 0)
      .getResult();
    assert.equal(appended.appendResult?.offset?.value, '0');
    await pending.finalize();
    await client.batchCommitWriteStream({
      parent: `projects/${P}/datasets/w/tables/${fastId}`,
      writeStreams: [pending.getStreamId()],
    });
    const [committed] = await h.bq.query(
      `SELECT name, seen_at, TO_JSON_STRING(data) AS data, tags, who FROM w.${fastId} WHERE n = 5000`,
    );
    assert.deepEqual(plain(committed), [
      {
        name: 'held " é',
        seen_at: { value: '2026-11-25T10:00:00.123Z' },
        data: '[1]',
        tags: ['t'],
        who: { id: 'h' },
      },
    ]);
    held.close();
  });

  it('answers GetWriteStream with the table schema (FULL view) and NOT_FOUND for an unknown stream', async () => {
    const name = await client.createWriteStream({
      streamType: managedwriter.PendingStream,
      destinationTable: parent,
    });
    const got = await client.getWriteStream({ streamId: name, view: 'FULL' as never });
    assert.equal(got.type, 'PENDING');
    assert.deepEqual(
      got.tableSchema?.fields?.map((f) => [f.name, f.type, f.mode]),
      [
        ['name', 'STRING', 'REQUIRED'],
        ['n', 'INT64', 'NULLABLE'],
        ['seen_at', 'TIMESTAMP', 'NULLABLE'],
        ['born', 'DATE', 'NULLABLE'],
      ],
    );
    await assert.rejects(
      client.getWriteStream({ streamId: `${parent}/streams/nope` }),
      (e: { code?: number }) => {
        assert.equal(e.code, grpc.status.NOT_FOUND);
        return true;
      },
    );
  });
});

describe('bigquery emulator: the Storage Write API with --iam', () => {
  const WRITER = `serviceAccount:writer@${P}.iam.gserviceaccount.com`;
  const READER = `serviceAccount:reader@${P}.iam.gserviceaccount.com`;
  let dir: string;
  let emu: BigQueryEmulator;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bq-write-iam-'));
    const file = join(dir, 'access.json');
    const access: AccessFile = {
      tokenSecret: newTokenSecret(),
      policies: [
        {
          resource: `projects/${P}/datasets/w`,
          bindings: [{ role: 'roles/bigquery.dataEditor', members: [WRITER] }],
        },
        {
          resource: `projects/${P}/datasets/w`,
          bindings: [{ role: 'roles/bigquery.dataViewer', members: [READER] }],
        },
      ],
    };
    writeFileSync(file, JSON.stringify(access));
    emu = await startBigQueryEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      iam: {
        file,
        identities: [
          { member: WRITER, port: 0 },
          { member: READER, port: 0 },
        ],
      },
    });
    // The owner (no token, main port) makes the table.
    const owner = await startOwnerTable(emu);
    assert.ok(owner);
  });
  after(async () => {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a member without bigquery.tables.updateData (PERMISSION_DENIED) and serves one with it', async () => {
    const parent = `projects/${P}/datasets/w/tables/t`;
    const reader = writerClient(emu.identityPorts.get(READER) as number);
    const writer = writerClient(emu.identityPorts.get(WRITER) as number);
    try {
      await assert.rejects(
        reader.createWriteStream({ streamType: managedwriter.CommittedStream, destinationTable: parent }),
        (e: { code?: number; details?: string }) => {
          assert.equal(e.code, grpc.status.PERMISSION_DENIED);
          assert.match(String(e.details), /Permission bigquery\.tables\.updateData denied/);
          return true;
        },
      );
      const name = await writer.createWriteStream({
        streamType: managedwriter.CommittedStream,
        destinationTable: parent,
      });
      assert.match(name, /\/streams\//);
    } finally {
      reader.close();
      writer.close();
    }
  });
});

/** The dataset and table of the IAM test, made by the owner over REST. */
async function startOwnerTable(emu: BigQueryEmulator): Promise<boolean> {
  const post = (path: string, body: unknown) =>
    fetch(`${emu.url}/bigquery/v2/projects/${P}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const ds = await post('datasets', { datasetReference: { projectId: P, datasetId: 'w' } });
  const t = await post('datasets/w/tables', {
    tableReference: { projectId: P, datasetId: 'w', tableId: 't' },
    schema: SCHEMA,
  });
  return ds.ok && t.ok;
}
