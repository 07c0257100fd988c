/**
 * BigQuery and Cloud Storage subscriptions, with Google's clients: the Pub/Sub emulator writes
 * into our BigQuery and Storage emulators (each on an ephemeral loopback port), acknowledges only
 * written messages, and reports RESOURCE_ERROR while it cannot write.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BigQueryEmulator, startBigQueryEmulator } from '@eventbus/bigquery-emulator/server.ts';
import { type StorageEmulator, startStorageEmulator } from '@eventbus/storage-emulator/server.ts';
import { BigQuery } from '@google-cloud/bigquery';
import { type PubSub, v1 } from '@google-cloud/pubsub';
import { Storage } from '@google-cloud/storage';
import { credentials } from '@grpc/grpc-js';
import { type PubSubEmulator, startPubSubEmulator } from '../server.ts';
import {
  childrenOnTempDir,
  errorOf,
  exited,
  launch,
  PROJECT,
  pubsubClient,
  rest,
  until,
} from './support/harness.ts';

const METADATA_SCHEMA = [
  { name: 'data', type: 'STRING' },
  { name: 'message_id', type: 'STRING' },
  { name: 'attributes', type: 'STRING' },
  { name: 'subscription_name', type: 'STRING' },
  { name: 'publish_time', type: 'TIMESTAMP' },
];

describe('pubsub emulator: BigQuery and Cloud Storage subscriptions', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  let bqEmu: BigQueryEmulator;
  let gcsEmu: StorageEmulator;
  let psEmu: PubSubEmulator;
  let pubsub: PubSub;
  let bq: BigQuery;
  let gcs: Storage;
  let n = 0;
  const id = (what: string): string => `${what}_${++n}`;
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'pubsub-exports-'));
    dirs.push(d);
    return d;
  };

  before(async () => {
    bqEmu = await startBigQueryEmulator({ port: 0, dataDir: dir() });
    gcsEmu = await startStorageEmulator({ port: 0, dataDir: dir(), fsync: 'none' });
    psEmu = await startPubSubEmulator({
      port: 0,
      dataDir: dir(),
      fsync: 'none',
      bigqueryEndpoint: bqEmu.url,
      storageEndpoint: gcsEmu.url,
    });
    pubsub = pubsubClient(psEmu.port);
    bq = new BigQuery({ projectId: PROJECT, apiEndpoint: bqEmu.url });
    gcs = new Storage({ projectId: PROJECT, apiEndpoint: gcsEmu.url });
  });

  after(async () => {
    await pubsub.close();
    await psEmu.close();
    await gcsEmu.close();
    await bqEmu.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function table(
    schema: { name: string; type: string }[],
  ): Promise<{ dataset: string; table: string }> {
    const dataset = id('ds');
    await bq.createDataset(dataset);
    await bq.dataset(dataset).createTable('t', { schema });
    return { dataset, table: 't' };
  }

  async function rows(dataset: string): Promise<Record<string, unknown>[]> {
    const [r] = await bq.dataset(dataset).table('t').getRows();
    return r as Record<string, unknown>[];
  }

  /** The table's one row, once it is there. */
  async function oneRow(dataset: string, ms?: number): Promise<Record<string, unknown>> {
    await until(async () => (await rows(dataset)).length === 1, ms);
    return (await rows(dataset))[0] as Record<string, unknown>;
  }

  async function topicAndSub(options: Record<string, unknown>) {
    const [topic] = await pubsub.createTopic(id('topic'));
    const [sub] = await topic.createSubscription(id('sub'), options);
    return { topic, sub };
  }

  it('writes each message as a row with the metadata columns (writeMetadata), and returns the config', async () => {
    const t = await table(METADATA_SCHEMA);
    const { topic, sub } = await topicAndSub({
      bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t`, writeMetadata: true },
    });
    const [meta] = await sub.getMetadata();
    assert.equal(meta.bigqueryConfig?.table, `${PROJECT}.${t.dataset}.t`);
    assert.equal(meta.bigqueryConfig?.writeMetadata, true);
    assert.equal(meta.bigqueryConfig?.state, 'ACTIVE');
    assert.equal(meta.state, 'ACTIVE');

    const messageId = await topic.publishMessage({ data: Buffer.from('hello'), attributes: { k: 'v' } });
    const row = await oneRow(t.dataset);
    assert.equal(row['data'], 'hello');
    assert.equal(row['message_id'], messageId);
    assert.equal(row['subscription_name'], sub.name);
    assert.deepEqual(JSON.parse(String(row['attributes'])), { k: 'v' });
    assert.ok((row['publish_time'] as { value: string }).value);
  });

  it('writes only the data column by default, base64 into a BYTES column', async () => {
    const t = await table([{ name: 'data', type: 'BYTES' }]);
    const { topic } = await topicAndSub({ bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t` } });
    await topic.publishMessage({ data: Buffer.from([0, 1, 255]) });
    const row = await oneRow(t.dataset);
    assert.deepEqual([...(row['data'] as Buffer)], [0, 1, 255]);
  });

  it('maps a JSON message to columns with useTableSchema, dropping unknown fields when told', async () => {
    const t = await table([
      { name: 'name', type: 'STRING' },
      { name: 'n', type: 'INTEGER' },
    ]);
    const { topic } = await topicAndSub({
      bigqueryConfig: { table: `${PROJECT}:${t.dataset}.t`, useTableSchema: true, dropUnknownFields: true },
    });
    await topic.publishMessage({ json: { name: 'a', n: 3, extra: true } });
    const row = await oneRow(t.dataset);
    assert.equal(row['name'], 'a');
    assert.equal(row['n'], 3);
  });

  it('keeps a message whose field the table lacks and reports SCHEMA_MISMATCH (no dropUnknownFields)', async () => {
    const t = await table([{ name: 'name', type: 'STRING' }]);
    const { topic, sub } = await topicAndSub({
      bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t`, useTableSchema: true },
    });
    await topic.publishMessage({ json: { name: 'a', extra: 1 } });
    await until(async () => (await sub.getMetadata())[0].state === 'RESOURCE_ERROR');
    const [meta] = await sub.getMetadata();
    assert.equal(meta.bigqueryConfig?.state, 'SCHEMA_MISMATCH');
    assert.equal((await rows(t.dataset)).length, 0);
  });

  it('writes the messages a table takes and keeps only the ones it refuses', async () => {
    const t = await table([
      { name: 'name', type: 'STRING' },
      { name: 'n', type: 'INTEGER' },
    ]);
    const { topic, sub } = await topicAndSub({
      bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t`, useTableSchema: true },
    });
    // Published together (the client batches them into one Publish), they reach the writer as
    // one batch: the refused ones must not keep the good one back.
    await Promise.all([
      topic.publishMessage({ json: { name: 'good' } }),
      topic.publishMessage({ json: { name: 'extra field', other: 1 } }),
      topic.publishMessage({ json: { name: 'not a number', n: 'x' } }),
    ]);
    assert.equal((await oneRow(t.dataset))['name'], 'good');
    await until(async () => (await sub.getMetadata())[0].bigqueryConfig?.state === 'SCHEMA_MISMATCH');
    assert.equal((await rows(t.dataset)).length, 1);
  });

  it('refuses a BigQuery subscription whose table is missing or lacks the columns it writes', async () => {
    const [topic] = await pubsub.createTopic(id('topic'));
    await assert.rejects(
      topic.createSubscription(id('sub'), { bigqueryConfig: { table: `${PROJECT}.nope.t` } }),
      (err: { code?: number }) => err.code === 5,
    );
    const t = await table([{ name: 'data', type: 'STRING' }]);
    await assert.rejects(
      topic.createSubscription(id('sub'), {
        bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t`, writeMetadata: true },
      }),
      (err: { code?: number; message?: string }) =>
        err.code === 3 && /subscription_name/.test(err.message ?? ''),
    );
  });

  it('keeps messages while the table is gone (RESOURCE_ERROR, NOT_FOUND) and writes them once it is back', async () => {
    const t = await table([{ name: 'data', type: 'STRING' }]);
    const { topic, sub } = await topicAndSub({ bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t` } });
    await bq.dataset(t.dataset).table('t').delete();
    await topic.publishMessage({ data: Buffer.from('kept') });
    await until(async () => (await sub.getMetadata())[0].state === 'RESOURCE_ERROR');
    assert.equal((await sub.getMetadata())[0].bigqueryConfig?.state, 'NOT_FOUND');

    await bq.dataset(t.dataset).createTable('t', { schema: [{ name: 'data', type: 'STRING' }] });
    assert.equal((await oneRow(t.dataset, 20_000))['data'], 'kept');
    await until(async () => (await sub.getMetadata())[0].state === 'ACTIVE');
  });

  it('makes a pull subscription again when the BigQuery config is cleared, and delivers to the puller', async () => {
    const t = await table([{ name: 'data', type: 'STRING' }]);
    const { topic, sub } = await topicAndSub({ bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t` } });
    await sub.setMetadata({ bigqueryConfig: {} });
    const [meta] = await sub.getMetadata();
    assert.equal(meta.bigqueryConfig, null);
    await topic.publishMessage({ data: Buffer.from('pulled') });
    const puller = new v1.SubscriberClient({
      servicePath: '127.0.0.1',
      port: psEmu.port,
      sslCreds: credentials.createInsecure(),
    });
    const [pulled] = await puller.pull({ subscription: sub.name, maxMessages: 1 });
    await puller.close();
    assert.equal(Buffer.from(pulled.receivedMessages?.[0]?.message?.data ?? '').toString(), 'pulled');
    assert.equal((await rows(t.dataset)).length, 0);
  });

  it('writes a text file of messages (one per line) once it reaches maxBytes, named prefix, datetime, suffix', async () => {
    const bucket = id('bucket').replace('_', '-');
    await gcs.createBucket(bucket);
    const { topic, sub } = await topicAndSub({
      cloudStorageConfig: { bucket, filenamePrefix: 'in/', filenameSuffix: '.txt', maxBytes: 1000 },
    });
    const [meta] = await sub.getMetadata();
    assert.equal(meta.cloudStorageConfig?.bucket, bucket);
    assert.equal(meta.cloudStorageConfig?.filenamePrefix, 'in/');
    assert.equal(String(meta.cloudStorageConfig?.maxBytes), '1000');
    const line = 'x'.repeat(599);
    await Promise.all([
      topic.publishMessage({ data: Buffer.from(line) }),
      topic.publishMessage({ data: Buffer.from(line) }),
    ]);
    await until(async () => (await gcs.bucket(bucket).getFiles())[0].length === 1);
    const [[file]] = await gcs.bucket(bucket).getFiles();
    assert.match(file?.name ?? '', /^in\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_[0-9a-f-]{36}\.txt$/);
    const [content] = await (file as NonNullable<typeof file>).download();
    assert.equal(content.toString(), `${line}\n${line}\n`);
  });

  it('writes a file maxDuration after its first message even when it is small', async () => {
    const bucket = id('bucket').replace('_', '-');
    await gcs.createBucket(bucket);
    const { topic } = await topicAndSub({
      cloudStorageConfig: { bucket, maxDuration: { seconds: 1 }, filenameDatetimeFormat: 'YYYY/MM/DD/' },
    });
    await topic.publishMessage({ data: Buffer.from('small') });
    await until(async () => (await gcs.bucket(bucket).getFiles())[0].length === 1, 20_000);
    const [[file]] = await gcs.bucket(bucket).getFiles();
    assert.match(file?.name ?? '', /^\d{4}\/\d\d\/\d\d\/_/);
    assert.equal((await (file as NonNullable<typeof file>).download())[0].toString(), 'small\n');
  });

  it('round-trips the configs over REST, and without the other emulators refuses them as FAILED_PRECONDITION', async () => {
    const t = await table([{ name: 'data', type: 'STRING' }]);
    const base = `${psEmu.url}/v1/projects/${PROJECT}`;
    const topicName = id('topic');
    assert.equal((await rest(base, 'PUT', `/topics/${topicName}`)).status, 200);
    const body = {
      topic: `projects/${PROJECT}/topics/${topicName}`,
      bigqueryConfig: { table: `${PROJECT}.${t.dataset}.t`, dropUnknownFields: true },
    };
    const created = await rest(base, 'PUT', `/subscriptions/${id('sub')}`, body);
    assert.deepEqual(created.body['bigqueryConfig'], {
      state: 'ACTIVE',
      table: `${PROJECT}.${t.dataset}.t`,
      dropUnknownFields: true,
    });

    const dataDir = dir();
    const alone = await startPubSubEmulator({ port: 0, dataDir, fsync: 'none' });
    try {
      const b = `${alone.url}/v1/projects/${PROJECT}`;
      await rest(b, 'PUT', `/topics/${topicName}`);
      const refused = await rest(b, 'PUT', '/subscriptions/s', body);
      assert.equal(refused.status, 400);
      assert.equal(errorOf(refused).status, 'FAILED_PRECONDITION');
      assert.match(errorOf(refused).message, /--bigquery-endpoint/);
    } finally {
      await alone.close();
    }
  });

  it('refuses a Cloud Storage subscription to a missing bucket, and Avro output', async () => {
    const [topic] = await pubsub.createTopic(id('topic'));
    await assert.rejects(
      topic.createSubscription(id('sub'), { cloudStorageConfig: { bucket: 'no-such-bucket' } }),
      (err: { code?: number }) => err.code === 5,
    );
    const bucket = id('bucket').replace('_', '-');
    await gcs.createBucket(bucket);
    await assert.rejects(
      topic.createSubscription(id('sub'), {
        cloudStorageConfig: { bucket, avroConfig: { writeMetadata: true } },
      }),
      (err: { code?: number; message?: string }) => err.code === 3 && /avro_config/.test(err.message ?? ''),
    );
  });
});

describe('pubsub emulator: export subscriptions across kill -9', function () {
  this.timeout(90_000);
  const { dataDir, children } = childrenOnTempDir();

  /** Where a subscription writes: taken away and put back, and what it holds. */
  interface Target {
    remove(): Promise<void>;
    restore(): Promise<void>;
    written(): Promise<string[]>;
  }

  /**
   * Publishes a message while the target is gone (the write fails, the message must be kept),
   * kills the emulator with SIGKILL, puts the target back and restarts: answers what is written.
   */
  async function acrossKill9(id: string, args: string[], options: object, target: Target): Promise<string[]> {
    const first = await launch(dataDir, args);
    children.push(first.child);
    const client = pubsubClient(Number(new URL(first.url).port));
    const [topic] = await client.createTopic(id);
    const [sub] = await topic.createSubscription(id, options);
    await target.remove();
    await topic.publishMessage({ data: Buffer.from('survives') });
    await until(async () => (await sub.getMetadata())[0].state === 'RESOURCE_ERROR');
    await client.close();
    first.child.kill('SIGKILL');
    await exited(first.child);

    await target.restore();
    const second = await launch(dataDir, args);
    children.push(second.child);
    await until(async () => (await target.written()).length > 0, 30_000);
    second.child.kill('SIGTERM');
    await exited(second.child);
    return target.written();
  }

  it('acknowledges a message only once it is written: a row the table could not take is written after a restart', async () => {
    const bqDir = mkdtempSync(join(tmpdir(), 'pubsub-exports-bq-'));
    const bqEmu = await startBigQueryEmulator({ port: 0, dataDir: bqDir });
    try {
      const bq = new BigQuery({ projectId: PROJECT, apiEndpoint: bqEmu.url });
      const schema = [{ name: 'data', type: 'STRING' }];
      await bq.createDataset('d');
      await bq.dataset('d').createTable('t', { schema });
      const written = await acrossKill9(
        'bq',
        ['--bigquery-endpoint', bqEmu.url],
        { bigqueryConfig: { table: `${PROJECT}.d.t` } },
        {
          remove: async () => void (await bq.dataset('d').table('t').delete()),
          restore: async () => void (await bq.dataset('d').createTable('t', { schema })),
          written: async () =>
            (await bq.dataset('d').table('t').getRows())[0].map((r) =>
              String((r as Record<string, unknown>)['data']),
            ),
        },
      );
      assert.deepEqual(written, ['survives']);
    } finally {
      await bqEmu.close();
      rmSync(bqDir, { recursive: true, force: true });
    }
  });

  it('acknowledges a message only once it is written: a file the bucket could not take is written after a restart', async () => {
    const gcsDir = mkdtempSync(join(tmpdir(), 'pubsub-exports-gcs-'));
    const gcsEmu = await startStorageEmulator({ port: 0, dataDir: gcsDir, fsync: 'none' });
    try {
      const gcs = new Storage({ projectId: PROJECT, apiEndpoint: gcsEmu.url });
      await gcs.createBucket('files');
      const written = await acrossKill9(
        'gcs',
        ['--storage-endpoint', gcsEmu.url],
        { cloudStorageConfig: { bucket: 'files', maxDuration: { seconds: 1 } } },
        {
          remove: async () => void (await gcs.bucket('files').delete()),
          restore: async () => void (await gcs.createBucket('files')),
          written: async () =>
            Promise.all(
              (await gcs.bucket('files').getFiles())[0].map(async (f) => (await f.download())[0].toString()),
            ),
        },
      );
      assert.deepEqual(written, ['survives\n']);
    } finally {
      await gcsEmu.close();
      rmSync(gcsDir, { recursive: true, force: true });
    }
  });
});
