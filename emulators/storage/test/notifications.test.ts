/**
 * Pub/Sub notifications from the Cloud Storage emulator, end to end with this repository's Pub/Sub
 * emulator, both with IAM on: notification configurations (insert, get, list, delete; their
 * refusals; kept across a restart, gone with the bucket), the messages an upload, overwrite,
 * patch and delete publish (attributes and payload, read back from a subscription), the Pub/Sub
 * emulator's IAM deciding whether Cloud Storage's service agent may publish, and a write that
 * succeeds while Pub/Sub is down, its notification delivered once Pub/Sub is back.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { type PubSubEmulator, startPubSubEmulator } from '@eventbus/pubsub-emulator/server.ts';
import { PubSub } from '@google-cloud/pubsub';
import { Storage } from '@google-cloud/storage';
import { NotificationPublisher, STORAGE_SERVICE_AGENT } from '../notify-publisher.ts';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, tempDir } from './support/harness.ts';

const PROJECT = 'notify-project';
const TOPIC = `projects/${PROJECT}/topics/uploads`;
const FULL_TOPIC = `//pubsub.googleapis.com/${TOPIC}`;
const SUBSCRIPTION = `projects/${PROJECT}/subscriptions/uploads-sub`;
const BUCKET = 'notify-bucket';
const NOBODY = 'serviceAccount:nobody@p.iam.gserviceaccount.com';

interface Pulled {
  attributes: Record<string, string>;
  data?: string;
}

describe('storage emulator: Pub/Sub notifications', function () {
  this.timeout(60_000);
  let dir: string;
  let accessFile: string;
  let secret: string;
  let pubsub: PubSubEmulator;
  let pubsubPort: number;
  let storage: StorageEmulator;
  let client: Storage;
  let ps: PubSub;

  const startPubSub = async (port = 0) => {
    pubsub = await startPubSubEmulator({
      port,
      dataDir: join(dir, 'pubsub'),
      fsync: 'always',
      iam: { file: accessFile },
    });
    pubsubPort = pubsub.port;
  };
  const startStorage = async () => {
    storage = await startStorageEmulator({
      port: 0,
      dataDir: join(dir, 'storage'),
      fsync: 'none',
      iam: { file: accessFile },
      pubsubEndpoint: `127.0.0.1:${pubsubPort}`,
    });
    client = new Storage({ projectId: PROJECT, apiEndpoint: storage.url });
  };
  /** The topic's policy: Pub/Sub Publisher for Cloud Storage's service agent, or nobody. */
  const grantAgent = async (granted: boolean) => {
    await ps.topic(TOPIC).iam.setPolicy({
      bindings: granted ? [{ role: 'roles/pubsub.publisher', members: [STORAGE_SERVICE_AGENT] }] : [],
    });
  };
  const rest = (path: string, body?: unknown) =>
    call(`${storage.url}/storage/v1/b/${path}`, body === undefined ? 'GET' : 'POST', body);
  /** Pulls until `n` messages came (or `waitMs` passed), acknowledging them. */
  const pull = async (n: number, waitMs = 20_000): Promise<Pulled[]> => {
    const out: Pulled[] = [];
    const until = Date.now() + waitMs;
    while (out.length < n && Date.now() < until) {
      const res = await fetch(`http://127.0.0.1:${pubsubPort}/v1/${SUBSCRIPTION}:pull`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ maxMessages: 50, returnImmediately: true }),
      });
      const body = (await res.json()) as {
        receivedMessages?: {
          ackId: string;
          message: { attributes?: Record<string, string>; data?: string };
        }[];
      };
      const got = body.receivedMessages ?? [];
      for (const m of got)
        out.push({
          attributes: m.message.attributes ?? {},
          ...(m.message.data ? { data: m.message.data } : {}),
        });
      if (got.length > 0)
        await fetch(`http://127.0.0.1:${pubsubPort}/v1/${SUBSCRIPTION}:acknowledge`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ackIds: got.map((m) => m.ackId) }),
        });
      else await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  };

  before(async () => {
    dir = tempDir();
    accessFile = join(dir, 'access.json');
    secret = newTokenSecret();
    const access: AccessFile = { tokenSecret: secret, policies: [] };
    writeFileSync(accessFile, JSON.stringify(access));
    await startPubSub();
    ps = new PubSub({ projectId: PROJECT, apiEndpoint: `127.0.0.1:${pubsubPort}` });
    await ps.createTopic(TOPIC);
    await ps.topic(TOPIC).createSubscription(SUBSCRIPTION);
    await grantAgent(true);
    await startStorage();
    await client.createBucket(BUCKET);
  });

  after(async () => {
    await ps.close();
    await storage.close();
    await pubsub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    const [configs] = await client.bucket(BUCKET).getNotifications();
    for (const n of configs) await n.delete();
    await storage.settled();
    await pull(1_000, 500);
  });

  it('creates, reads, lists and deletes configurations as the client calls them', async () => {
    const bucket = client.bucket(BUCKET);
    const [created, body] = await bucket.createNotification('uploads', {
      eventTypes: ['OBJECT_FINALIZE'],
      objectNamePrefix: 'in/',
      customAttributes: { team: 'data' },
    });
    const id = created.id ?? assert.fail('no id');
    assert.match(id, /^\d+$/);
    assert.deepEqual(
      { ...(body as Record<string, unknown>), etag: undefined },
      {
        kind: 'storage#notification',
        id,
        selfLink: `${storage.url}/storage/v1/b/${BUCKET}/notificationConfigs/${id}`,
        topic: FULL_TOPIC,
        payload_format: 'JSON_API_V1',
        event_types: ['OBJECT_FINALIZE'],
        object_name_prefix: 'in/',
        custom_attributes: { team: 'data' },
        etag: undefined,
      },
    );
    const [meta] = await bucket.notification(id).getMetadata();
    assert.equal(meta.topic, FULL_TOPIC);
    assert.equal((await bucket.notification(id).exists())[0], true);
    assert.equal((await bucket.notification('999').exists())[0], false);
    const [second] = await bucket.createNotification(TOPIC, { payloadFormat: 'NONE' });
    assert.notEqual(second.id, id);
    assert.equal((await bucket.getNotifications())[0].length, 2);
    await second.delete();
    assert.deepEqual(
      (await bucket.getNotifications())[0].map((n) => n.id),
      [id],
    );
    await assert.rejects(second.delete(), (e: { code?: number }) => e.code === 404);
  });

  it('refuses what Cloud Storage refuses, with its error body', async () => {
    const bad = async (path: string, body: unknown, status: number, text: RegExp) => {
      const r = await rest(path, body);
      assert.equal(r.status, status, r.text);
      const err = r.json?.error as { code: number; message: string; errors: { reason: string }[] };
      assert.equal(err.code, status);
      assert.match(err.message, text);
      return err;
    };
    const ok = { topic: FULL_TOPIC, payload_format: 'JSON_API_V1' };
    await bad('no-such-bucket/notificationConfigs', ok, 404, /bucket does not exist/);
    await bad(`${BUCKET}/notificationConfigs`, { ...ok, topic: TOPIC }, 400, /Invalid Cloud Pub\/Sub topic/);
    await bad(`${BUCKET}/notificationConfigs`, { payload_format: 'NONE' }, 400, /topic/);
    await bad(`${BUCKET}/notificationConfigs`, { ...ok, payload_format: 'XML' }, 400, /payload_format/);
    await bad(`${BUCKET}/notificationConfigs`, { ...ok, event_types: ['OBJECT_READ'] }, 400, /event_types/);
    const missing = await bad(
      `${BUCKET}/notificationConfigs`,
      { ...ok, topic: `//pubsub.googleapis.com/projects/${PROJECT}/topics/nope` },
      400,
      /not found, or user 'service-0@gs-project-accounts\.iam\.gserviceaccount\.com' does not have permission/,
    );
    assert.equal(missing.errors[0]?.reason, 'invalid');
    // The Pub/Sub emulator's IAM decides: without the topic's grant the agent may not publish.
    await grantAgent(false);
    try {
      await bad(`${BUCKET}/notificationConfigs`, ok, 400, /does not have permission/);
    } finally {
      await grantAgent(true);
    }
    const r = await rest(`${BUCKET}/notificationConfigs/42`);
    assert.equal(r.status, 404);
    // IAM: insert needs storage.buckets.update, list storage.buckets.get (a member with none).
    const nobody = { authorization: `Bearer ${mintToken(secret, NOBODY)}` };
    const configs = `${storage.url}/storage/v1/b/${BUCKET}/notificationConfigs`;
    for (const [method, body, permission] of [
      ['POST', ok, 'storage.buckets.update'],
      ['GET', undefined, 'storage.buckets.get'],
      ['DELETE', undefined, 'storage.buckets.update'],
    ] as const) {
      const refused = await call(method === 'DELETE' ? `${configs}/1` : configs, method, body, nobody);
      assert.equal(refused.status, 403, refused.text);
      assert.ok(refused.text.includes(`'${permission}'`), refused.text);
    }
    assert.equal((await client.bucket(BUCKET).getNotifications())[0].length, 0);
  });

  it('keeps configurations across a restart, and drops them with the bucket', async () => {
    const [n] = await client.bucket(BUCKET).createNotification('uploads');
    await storage.close();
    await startStorage();
    assert.deepEqual(
      (await client.bucket(BUCKET).getNotifications())[0].map((x) => x.id),
      [n.id],
    );
    await client.createBucket('notify-gone');
    await client.bucket('notify-gone').createNotification('uploads');
    await client.bucket('notify-gone').delete();
    await client.createBucket('notify-gone');
    assert.equal((await client.bucket('notify-gone').getNotifications())[0].length, 0);
    await client.bucket('notify-gone').delete();
  });

  it('publishes each object event with Cloud Storage attributes and the object as payload', async () => {
    const bucket = client.bucket(BUCKET);
    const [n] = await bucket.createNotification('uploads', {
      objectNamePrefix: 'in/',
      customAttributes: { team: 'data' },
    });
    const file = bucket.file('in/a.txt');
    await file.save('first', { resumable: false });
    await bucket.file('out/ignored.txt').save('x', { resumable: false });
    const [finalized] = await pull(1);
    const [first] = await file.getMetadata();
    assert.deepEqual(finalized?.attributes, {
      team: 'data',
      notificationConfig: `projects/_/buckets/${BUCKET}/notificationConfigs/${n.id}`,
      eventType: 'OBJECT_FINALIZE',
      payloadFormat: 'JSON_API_V1',
      bucketId: BUCKET,
      objectId: 'in/a.txt',
      objectGeneration: String(first.generation),
      eventTime: first.timeCreated,
    });
    const payload = JSON.parse(Buffer.from(finalized?.data ?? '', 'base64').toString('utf8'));
    assert.equal(payload.kind, 'storage#object');
    assert.equal(payload.name, 'in/a.txt');
    assert.equal(payload.size, '5');
    assert.equal(payload.generation, String(first.generation));

    // An overwrite: the old generation's delete and the new one's finalize, each naming the other.
    await file.save('second', { resumable: false });
    const [second] = await file.getMetadata();
    await file.setMetadata({ metadata: { k: 'v' } });
    await file.delete();
    const events = await pull(4);
    const byType = (t: string, gen: unknown) =>
      events.find((e) => e.attributes.eventType === t && e.attributes.objectGeneration === String(gen))
        ?.attributes;
    assert.equal(
      byType('OBJECT_DELETE', first.generation)?.overwrittenByGeneration,
      String(second.generation),
    );
    assert.equal(byType('OBJECT_FINALIZE', second.generation)?.overwroteGeneration, String(first.generation));
    assert.ok(byType('OBJECT_METADATA_UPDATE', second.generation));
    assert.ok(byType('OBJECT_DELETE', second.generation));
    assert.equal(events.length, 4, JSON.stringify(events.map((e) => e.attributes.eventType)));
    assert.ok(events.every((e) => e.attributes.objectId === 'in/a.txt'));
    await storage.settled();
    assert.deepEqual(await pull(1, 1_000).then((x) => x.length), 0, 'out/ignored.txt is outside the prefix');
  });

  it('counts a notification Pub/Sub refuses for good as dropped', async () => {
    const bucket = client.bucket(BUCKET);
    await bucket.createNotification('uploads', { payloadFormat: 'NONE' });
    await grantAgent(false);
    const before = storage.notifications()?.dropped ?? 0;
    try {
      await bucket.file('refused.txt').save('x', { resumable: false });
      await storage.settled();
    } finally {
      await grantAgent(true);
    }
    assert.equal((storage.notifications()?.dropped ?? 0) - before, 1);
  });

  it('keeps a write while Pub/Sub is down and delivers its notification once it is back', async () => {
    const bucket = client.bucket(BUCKET);
    await bucket.createNotification('uploads', { payloadFormat: 'NONE', eventTypes: ['OBJECT_FINALIZE'] });
    const port = pubsubPort;
    await ps.close();
    await pubsub.close();
    const file = bucket.file('while-down.txt');
    await file.save('kept', { resumable: false });
    assert.equal((await file.download())[0].toString(), 'kept');
    assert.equal(storage.notifications()?.queued, 1);
    const retries = storage.notifications()?.retries ?? 0;
    await new Promise((r) => setTimeout(r, 400));
    assert.ok((storage.notifications()?.retries ?? 0) > retries, 'retried while Pub/Sub is down');
    await startPubSub(port);
    ps = new PubSub({ projectId: PROJECT, apiEndpoint: `127.0.0.1:${pubsubPort}` });
    await storage.settled();
    const [got] = await pull(1);
    assert.equal(got?.attributes.objectId, 'while-down.txt');
    assert.equal(got?.attributes.payloadFormat, 'NONE');
    assert.equal(got?.data, undefined);
  });
});

describe('storage emulator: the notifications queue', () => {
  it('drops and logs what finds it full, and what still waits when it stops', async () => {
    const logged: Record<string, unknown>[] = [];
    // Nothing listens on port 9 of loopback: every Publish fails and is retried.
    const q = new NotificationPublisher({
      endpoint: '127.0.0.1:9',
      token: () => undefined,
      maxQueued: 2,
      log: (line) => logged.push(line),
    });
    const message = { attributes: { eventType: 'OBJECT_FINALIZE' } };
    for (let i = 0; i < 3; i++) q.enqueue('projects/p/topics/t', message);
    assert.deepEqual({ queued: q.counts.queued, dropped: q.counts.dropped }, { queued: 2, dropped: 1 });
    const settled = q.settled();
    q.close();
    await settled;
    assert.deepEqual(
      { queued: q.counts.queued, dropped: q.counts.dropped, published: q.counts.published },
      {
        queued: 0,
        dropped: 3,
        published: 0,
      },
    );
    const drops = logged.filter((l) => l['severity'] === 'ERROR');
    assert.deepEqual(
      drops.map((l) => l['dropped']),
      [1, 3],
    );
    assert.match(String(drops[0]?.['message']), /over 2 notifications wait/);
  });
});
