/**
 * Pub/Sub features beyond publish and pull, through Google's own client: snapshots and Seek
 * (to a snapshot, a time, a future time; retained acknowledged messages), DetachSubscription,
 * push without wrapper, exactly-once ack failures per ack id, IAM policies (kept, not enforced),
 * and ingestion settings (stored and returned, nothing ingested). Schemas: schemas.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Message, type Subscription, v1 } from '@google-cloud/pubsub';
import * as grpc from '@grpc/grpc-js';
import {
  afterKill9,
  childrenOnTempDir,
  PROJECT,
  type Running,
  rest,
  start,
  until,
} from './support/harness.ts';

const P = `projects/${PROJECT}`;

/** The raw generated clients (UpdateSnapshot and ack answers are not in the handwritten one). */
function rawSubscriber(port: number): v1.SubscriberClient {
  return new v1.SubscriberClient({
    servicePath: '127.0.0.1',
    port,
    sslCreds: grpc.credentials.createInsecure(),
    projectId: PROJECT,
  });
}

interface Pulled {
  ackId: string;
  message: { messageId: string; data?: string };
}

async function pull(base: string, sub: string, max = 100): Promise<Pulled[]> {
  const res = await rest(base, 'POST', `/v1/${P}/subscriptions/${sub}:pull`, {
    maxMessages: max,
    returnImmediately: true,
  });
  return (res.body['receivedMessages'] ?? []) as Pulled[];
}

async function ack(base: string, sub: string, pulled: readonly Pulled[]): Promise<void> {
  const res = await rest(base, 'POST', `/v1/${P}/subscriptions/${sub}:acknowledge`, {
    ackIds: pulled.map((p) => p.ackId),
  });
  assert.equal(res.status, 200);
}

const texts = (pulled: readonly Pulled[]): string[] =>
  pulled.map((p) => Buffer.from(p.message.data ?? '', 'base64').toString()).sort();

describe('pubsub emulator: snapshots, seek, detach, unwrapped push, exactly-once, IAM', () => {
  let r: Running;
  before(async () => {
    r = await start();
  });
  after(async () => {
    await r.stop();
  });

  const setUp = async (name: string, options: Record<string, unknown> = {}) => {
    const [topic] = await r.client.createTopic(`${name}-t`);
    const [sub] = await topic.createSubscription(`${name}-s`, options);
    return { topic, sub };
  };

  it('creates, gets, lists, updates and deletes snapshots', async () => {
    const { topic, sub } = await setUp('snap-crud');
    await topic.publishMessage({ data: Buffer.from('a') });
    const [snapshot] = await sub.createSnapshot('snap-crud-1');
    assert.equal(snapshot.name, `${P}/snapshots/snap-crud-1`);
    const [listed] = await r.client.getSnapshots();
    assert.ok(listed.some((s) => s.name === `${P}/snapshots/snap-crud-1`));
    await assert.rejects(sub.createSnapshot('snap-crud-1'), { code: 6 });

    const raw = rawSubscriber(r.emulator.port);
    const [got] = await raw.getSnapshot({ snapshot: `${P}/snapshots/snap-crud-1` });
    assert.equal(got.topic, topic.name);
    // Seven days from the oldest unacknowledged message, as Pub/Sub keeps a snapshot.
    const expires = Number(got.expireTime?.seconds) * 1000;
    assert.ok(Math.abs(expires - (Date.now() + 7 * 86_400_000)) < 60_000, String(expires));
    const [updated] = await raw.updateSnapshot({
      snapshot: { name: `${P}/snapshots/snap-crud-1`, labels: { team: 'growth' } },
      updateMask: { paths: ['labels'] },
    });
    assert.deepEqual(updated.labels, { team: 'growth' });
    await snapshot.delete();
    await assert.rejects(raw.getSnapshot({ snapshot: `${P}/snapshots/snap-crud-1` }), { code: 5 });
    await raw.close();
  });

  it('forgets a snapshot once its expire time has passed', async () => {
    const { sub } = await setUp('snap-exp');
    await sub.createSnapshot('snap-exp-1');
    const raw = rawSubscriber(r.emulator.port);
    await raw.updateSnapshot({
      snapshot: {
        name: `${P}/snapshots/snap-exp-1`,
        expireTime: { seconds: Math.floor(Date.now() / 1000) - 1 },
      },
      updateMask: { paths: ['expire_time'] },
    });
    await assert.rejects(raw.getSnapshot({ snapshot: `${P}/snapshots/snap-exp-1` }), { code: 5 });
    const [listed] = await r.client.getSnapshots();
    assert.ok(!listed.some((s) => s.name === `${P}/snapshots/snap-exp-1`));
    await raw.close();
  });

  it('seeks to a snapshot: acknowledged messages it holds, and those published since, come back', async () => {
    const { topic, sub } = await setUp('seek-snap');
    await topic.publishMessage({ data: Buffer.from('before') });
    await sub.createSnapshot('seek-snap-1');
    await topic.publishMessage({ data: Buffer.from('after') });
    const base = r.emulator.url;
    const first = await pull(base, 'seek-snap-s');
    assert.deepEqual(texts(first), ['after', 'before']);
    await ack(base, 'seek-snap-s', first);
    assert.deepEqual(await pull(base, 'seek-snap-s'), []);
    await sub.seek('seek-snap-1');
    const again = await pull(base, 'seek-snap-s');
    assert.deepEqual(texts(again), ['after', 'before']);
    // An ack id from before the seek settles nothing now.
    await ack(base, 'seek-snap-s', first);
    await rest(base, 'POST', `/v1/${P}/subscriptions/seek-snap-s:modifyAckDeadline`, {
      ackIds: again.map((p) => p.ackId),
      ackDeadlineSeconds: 0,
    });
    assert.equal((await pull(base, 'seek-snap-s')).length, 2);
  });

  it('seeks to a time: with retainAckedMessages acknowledged messages published since come back', async () => {
    const { topic, sub } = await setUp('seek-time', { retainAckedMessages: true });
    await topic.publishMessage({ data: Buffer.from('old') });
    const base = r.emulator.url;
    const old = await pull(base, 'seek-time-s');
    await ack(base, 'seek-time-s', old);
    const cut = Date.now() + 5;
    await until(() => Date.now() > cut);
    await topic.publishMessage({ data: Buffer.from('new') });
    const fresh = await pull(base, 'seek-time-s');
    await ack(base, 'seek-time-s', fresh);
    // The raw client, for a time in milliseconds (the handwritten one sends whole seconds).
    const raw = rawSubscriber(r.emulator.port);
    await raw.seek({
      subscription: sub.name,
      time: { seconds: Math.floor(cut / 1000), nanos: (cut % 1000) * 1_000_000 },
    });
    await raw.close();
    assert.deepEqual(texts(await pull(base, 'seek-time-s')), ['new']);
    await sub.seek(new Date(0));
    assert.deepEqual(texts(await pull(base, 'seek-time-s')), ['new', 'old']);
  });

  it('seeks to a time without retained acks: only unacknowledged messages are affected', async () => {
    const { topic, sub } = await setUp('seek-noretain');
    await topic.publishMessage({ data: Buffer.from('acked') });
    const base = r.emulator.url;
    await ack(base, 'seek-noretain-s', await pull(base, 'seek-noretain-s'));
    await topic.publishMessage({ data: Buffer.from('pending') });
    await sub.seek(new Date(0));
    assert.deepEqual(texts(await pull(base, 'seek-noretain-s')), ['pending']);
  });

  it('seeks to a future time: the backlog is purged, later messages are delivered', async () => {
    const { topic, sub } = await setUp('seek-purge');
    await topic.publishMessage({ data: Buffer.from('stale') });
    await sub.seek(new Date('3000-01-01'));
    await topic.publishMessage({ data: Buffer.from('fresh') });
    assert.deepEqual(texts(await pull(r.emulator.url, 'seek-purge-s')), ['fresh']);
  });

  it('serves snapshots and Seek over REST too', async () => {
    const { topic } = await setUp('rest-snap');
    const base = r.emulator.url;
    await topic.publishMessage({ data: Buffer.from('kept') });
    const made = await rest(base, 'PUT', `/v1/${P}/snapshots/rest-snap-1`, {
      subscription: `${P}/subscriptions/rest-snap-s`,
    });
    assert.equal(made.status, 200);
    assert.equal(made.body['topic'], topic.name);
    assert.match(String(made.body['expireTime']), /^\d{4}-\d\d-\d\dT/);
    const listed = await rest(base, 'GET', `/v1/${P}/snapshots`);
    assert.ok(
      (listed.body['snapshots'] as { name: string }[]).some((s) => s.name === `${P}/snapshots/rest-snap-1`),
    );
    await ack(base, 'rest-snap-s', await pull(base, 'rest-snap-s'));
    const seek = await rest(base, 'POST', `/v1/${P}/subscriptions/rest-snap-s:seek`, {
      snapshot: `${P}/snapshots/rest-snap-1`,
    });
    assert.equal(seek.status, 200);
    assert.deepEqual(texts(await pull(base, 'rest-snap-s')), ['kept']);
    const purge = await rest(base, 'POST', `/v1/${P}/subscriptions/rest-snap-s:seek`, {
      time: '3000-01-01T00:00:00Z',
    });
    assert.equal(purge.status, 200);
    assert.deepEqual(await pull(base, 'rest-snap-s'), []);
    assert.equal((await rest(base, 'DELETE', `/v1/${P}/snapshots/rest-snap-1`)).status, 200);
    assert.equal((await rest(base, 'GET', `/v1/${P}/snapshots/rest-snap-1`)).status, 404);
  });

  it('refuses a seek to a snapshot of another topic', async () => {
    const a = await setUp('seek-other-a');
    await setUp('seek-other-b');
    await a.sub.createSnapshot('seek-other-1');
    const other = r.client.subscription('seek-other-b-s');
    await assert.rejects(other.seek('seek-other-1'), { code: 9 });
  });

  it('detaches a subscription: detached on get, its messages dropped, pulls refused', async () => {
    const { topic, sub } = await setUp('detach');
    await topic.publishMessage({ data: Buffer.from('x') });
    assert.equal((await sub.detached())[0], false);
    await r.client.detachSubscription(sub.name);
    assert.equal((await sub.detached())[0], true);
    const res = await rest(r.emulator.url, 'POST', `/v1/${P}/subscriptions/detach-s:pull`, {
      maxMessages: 1,
    });
    assert.equal(res.status, 400);
    assert.equal((res.body['error'] as { status: string }).status, 'FAILED_PRECONDITION');
  });

  describe('push without wrapper', () => {
    let server: Server;
    const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
    let url = '';
    before(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks) });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`;
    });
    after(() => {
      server.close();
    });

    for (const writeMetadata of [false, true]) {
      it(`delivers the raw data as the body${writeMetadata ? ', with metadata and attributes as headers' : ''}, and keeps noWrapper`, async () => {
        const name = `unwrapped-${writeMetadata}`;
        const [topic] = await r.client.createTopic(`${name}-t`);
        const [sub] = await topic.createSubscription(`${name}-s`, {
          pushConfig: { pushEndpoint: url, noWrapper: { writeMetadata } },
        });
        const [md] = await sub.getMetadata();
        assert.deepEqual(md.pushConfig?.noWrapper, { writeMetadata });
        const before = received.length;
        const id = await topic.publishMessage({
          data: Buffer.from([0, 1, 2, 255]),
          attributes: { color: 'red' },
        });
        await until(() => received.length > before);
        const got = received[received.length - 1] as { headers: IncomingHttpHeaders; body: Buffer };
        assert.deepEqual([...got.body], [0, 1, 2, 255]);
        if (writeMetadata) {
          assert.equal(got.headers['color'], 'red');
          assert.equal(got.headers['x-goog-pubsub-message-id'], id);
          assert.equal(got.headers['x-goog-pubsub-subscription-name'], sub.name);
        } else {
          assert.equal(got.headers['color'], undefined);
          assert.equal(got.headers['x-goog-pubsub-message-id'], undefined);
        }
        await sub.delete();
      });
    }
  });

  describe('exactly-once delivery', () => {
    it('fails an ack of an id that is not the current delivery, per id, as the client reads it', async () => {
      const { topic } = await setUp('eod', { enableExactlyOnceDelivery: true });
      await topic.publishMessage({ data: Buffer.from('once') });
      const [pulled] = await pull(r.emulator.url, 'eod-s');
      assert.ok(pulled);
      const raw = rawSubscriber(r.emulator.port);
      const stale = `${pulled.message.messageId}-1`;
      await assert.rejects(
        raw.acknowledge({ subscription: `${P}/subscriptions/eod-s`, ackIds: [stale, pulled.ackId] }),
        (err: { code?: number; errorInfoMetadata?: Record<string, string> }) => {
          assert.equal(err.code, 3);
          assert.deepEqual(err.errorInfoMetadata, { [stale]: 'PERMANENT_FAILURE_INVALID_ACK_ID' });
          return true;
        },
      );
      // The valid id in the same request was acknowledged; acking it again fails.
      await assert.rejects(
        raw.modifyAckDeadline({
          subscription: `${P}/subscriptions/eod-s`,
          ackIds: [pulled.ackId],
          ackDeadlineSeconds: 30,
        }),
        (err: { errorInfoMetadata?: Record<string, string> }) =>
          err.errorInfoMetadata?.[pulled.ackId] === 'PERMANENT_FAILURE_INVALID_ACK_ID',
      );
      await raw.close();
    });

    it('answers ackWithResponse of Google’s subscriber: SUCCESS, and INVALID for an id acked elsewhere', async () => {
      const { topic, sub } = await setUp('eod-client', { enableExactlyOnceDelivery: true });
      const messages: Message[] = [];
      (sub as Subscription).on('message', (m: Message) => messages.push(m));
      await topic.publishMessage({ data: Buffer.from('x') });
      await topic.publishMessage({ data: Buffer.from('y') });
      await until(() => messages.length === 2);
      const [first, second] = messages as [Message, Message];
      assert.equal(await first.ackWithResponse(), 'SUCCESS');
      const raw = rawSubscriber(r.emulator.port);
      await raw.acknowledge({ subscription: sub.name, ackIds: [second.ackId] });
      await raw.close();
      await assert.rejects(second.ackWithResponse(), (err: { errorCode?: string }) => {
        assert.equal(err.errorCode, 'INVALID');
        return true;
      });
      await sub.close();
    });

    it('without exactly-once, an unknown ack id still succeeds', async () => {
      await setUp('plain-ack');
      await ack(r.emulator.url, 'plain-ack-s', [{ ackId: '123456-1', message: { messageId: '123456' } }]);
    });
  });

  it('stores and returns IAM policies (not enforced: every permission asked about is granted)', async () => {
    const [topic] = await r.client.createTopic('iam-t');
    const [empty] = await topic.iam.getPolicy();
    assert.deepEqual(empty.bindings, []);
    assert.equal(empty.version, 0);
    const bindings = [{ role: 'roles/pubsub.publisher', members: ['user:a@example.com'] }];
    const [set] = await topic.iam.setPolicy({ bindings });
    assert.deepEqual(set.bindings, [{ ...bindings[0], condition: null }]);
    const [again] = await topic.iam.getPolicy();
    assert.deepEqual(again.bindings, set.bindings);
    const [perms] = await topic.iam.testPermissions(['pubsub.topics.get', 'pubsub.topics.delete']);
    assert.deepEqual(perms, { 'pubsub.topics.get': true, 'pubsub.topics.delete': true });
    await assert.rejects(r.client.topic('iam-missing').iam.getPolicy(), { code: 5 });
  });

  it('stores and returns ingestion settings on create and update (gRPC and REST), ingesting nothing', async () => {
    const kinesis = {
      awsKinesis: { streamArn: 'arn:x', consumerArn: 'arn:y', awsRoleArn: 'arn:z', gcpServiceAccount: 'a@b' },
    };
    const [created] = await r.client.createTopic({ name: 'ingest-t', ingestionDataSourceSettings: kinesis });
    assert.deepEqual(created.metadata?.ingestionDataSourceSettings?.awsKinesis, {
      ...kinesis.awsKinesis,
      state: 'STATE_UNSPECIFIED',
    });
    // The gRPC loader's oneof names (not in the client's types) say which source and format are set.
    const oneof = (o: object | null | undefined, name: string): unknown =>
      (o as Record<string, unknown>)[name];
    assert.equal(oneof(created.metadata?.ingestionDataSourceSettings, 'source'), 'awsKinesis');
    // An empty message chooses the format; the timestamp round-trips.
    const storage = {
      cloudStorage: {
        bucket: 'b',
        avroFormat: {},
        minimumObjectCreateTime: { seconds: '1700000000', nanos: 0 },
      },
    };
    const [topic] = await r.client.createTopic('ingest-t2');
    await topic.setMetadata({ ingestionDataSourceSettings: storage });
    const [meta] = await topic.getMetadata();
    assert.equal(meta.ingestionDataSourceSettings?.cloudStorage?.bucket, 'b');
    assert.equal(oneof(meta.ingestionDataSourceSettings?.cloudStorage, 'inputFormat'), 'avroFormat');
    assert.equal(
      String(meta.ingestionDataSourceSettings?.cloudStorage?.minimumObjectCreateTime?.seconds),
      '1700000000',
    );
    const viaRest = await rest(r.emulator.url, 'GET', `/v1/${P}/topics/ingest-t2`);
    assert.deepEqual(viaRest.body['ingestionDataSourceSettings'], {
      cloudStorage: { bucket: 'b', avroFormat: {}, minimumObjectCreateTime: '2023-11-14T22:13:20.000Z' },
    });
    const [plain] = await r.client.topic('ingest-t').getMetadata();
    assert.equal(plain.ingestionDataSourceSettings?.awsKinesis?.streamArn, 'arn:x');
  });
});

describe('pubsub emulator: snapshots, seeks and retained acks survive kill -9', () => {
  const { dataDir, children } = childrenOnTempDir();

  it('replays a snapshot, a seek and retained acknowledged messages after a crash', async () => {
    const second = await afterKill9(dataDir, children, async (client, url) => {
      const [topic] = await client.createTopic('dur-t');
      const [sub] = await topic.createSubscription('dur-s', { retainAckedMessages: true });
      await topic.publishMessage({ data: Buffer.from('one') });
      await sub.createSnapshot('dur-snap');
      await topic.publishMessage({ data: Buffer.from('two') });
      await ack(url, 'dur-s', await pull(url, 'dur-s'));
      await sub.seek(new Date('3000-01-01'));
    });
    const again = second.client;
    assert.deepEqual(await pull(second.url, 'dur-s'), []);
    const [snaps] = await again.getSnapshots();
    assert.deepEqual(
      snaps.map((s) => s.name),
      [`${P}/snapshots/dur-snap`],
    );
    // The retained acknowledged messages came back with the log: a seek to the start finds them.
    await again.subscription('dur-s').seek(new Date(0));
    assert.deepEqual(texts(await pull(second.url, 'dur-s')), ['one', 'two']);
    await again.subscription('dur-s').seek('dur-snap');
    assert.deepEqual(texts(await pull(second.url, 'dur-s')), ['one', 'two']);
    await again.close();
  });
});
