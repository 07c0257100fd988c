/**
 * The Pub/Sub emulator with `--iam`: callers by token, by identity port or as the owner; each RPC
 * authorized on its resource as Pub/Sub does, on the gRPC surface (Google's client: the
 * high-level one on an identity port, where it sends no token, and the v1 clients with an
 * `authorization` header) and on REST (fetch, for the bodies themselves); refusals are
 * PERMISSION_DENIED naming the permission and the resource, a token that does not verify is
 * UNAUTHENTICATED; the access file is re-read when it changes. Without `--iam`, tokens are ignored.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AccessFile,
  denialInfo,
  mintToken,
  newTokenSecret,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { type PubSub, v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import { type PubSubEmulator, startPubSubEmulator } from '../server.ts';
import { PROJECT, pubsubClient, type Running, sleep, start } from './support/harness.ts';

const sa = (name: string) => `serviceAccount:${name}@${PROJECT}.iam.gserviceaccount.com`;
/** Publisher on `orders`, subscriber on `orders-sub`. */
const STORE = sa('store');
/** Nothing, until the access file is rewritten; bound to the identity port. */
const OTHER = sa('other');
const TOPIC = `projects/${PROJECT}/topics/orders`;
const SUB = `projects/${PROJECT}/subscriptions/orders-sub`;

const POLICIES: IamPolicy[] = [
  { resource: TOPIC, bindings: [{ role: 'roles/pubsub.publisher', members: [STORE] }] },
  { resource: SUB, bindings: [{ role: 'roles/pubsub.subscriber', members: [STORE] }] },
];

interface GrpcFailure {
  code: number;
  message: string;
  errorInfoMetadata?: Record<string, string>;
}

/** A gRPC refusal whose message names `permission` on `resource`. */
function deniedOver(permission: string, resource: string) {
  return (e: unknown): boolean => {
    const f = e as GrpcFailure;
    assert.equal(f.code, 7, f.message);
    assert.match(f.message, /User not authorized to perform this action\./);
    assert.ok(f.message.includes(`'${permission}'`) && f.message.includes(`'${resource}'`), f.message);
    return true;
  };
}

const bearer = (token: string) => ({ otherArgs: { headers: { authorization: `Bearer ${token}` } } });
const data = (text: string) => Buffer.from(text).toString('base64');

describe('pubsub emulator with --iam', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pubsub-iam-'));
  const file = join(dir, 'access.json');
  const secret = newTokenSecret();
  const write = (policies: IamPolicy[]): void => {
    const access: AccessFile = { tokenSecret: secret, policies };
    writeFileSync(file, JSON.stringify(access));
  };
  let emulator: PubSubEmulator;
  let owner: PubSub;
  let other: PubSub;
  let base: string;
  let otherBase: string;
  let publisher: v1.PublisherClient;
  let subscriber: v1.SubscriberClient;
  const storeToken = mintToken(secret, STORE);
  const otherToken = mintToken(secret, OTHER);

  /** One REST call with an optional bearer token. */
  async function call(url: string, method: string, body?: unknown, token?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(url, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  before(async () => {
    write(POLICIES);
    emulator = await startPubSubEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      iam: { file, identities: [{ member: OTHER, port: 0 }] },
    });
    const identityPort = emulator.identityPorts.get(OTHER) as number;
    base = `${emulator.url}/v1`;
    otherBase = `http://127.0.0.1:${identityPort}/v1`;
    owner = pubsubClient(emulator.port);
    other = pubsubClient(identityPort);
    const grpcAt = { servicePath: '127.0.0.1', port: emulator.port, sslCreds: credentials.createInsecure() };
    publisher = new v1.PublisherClient(grpcAt);
    subscriber = new v1.SubscriberClient(grpcAt);
    const [topic] = await owner.createTopic('orders');
    await topic.createSubscription('orders-sub');
    await owner.createTopic('audit');
  });

  after(async () => {
    await Promise.all([owner.close(), other.close(), publisher.close(), subscriber.close()]);
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the owner (no token, the main port) do everything', async () => {
    const id = await owner.topic('audit').publishMessage({ data: Buffer.from('by the owner') });
    assert.match(id, /^\d+$/);
    const [subs] = await owner.getSubscriptions();
    assert.deepEqual(
      subs.map((s) => s.name),
      [SUB],
    );
  });

  it("allows a token's member what its grants give: publish, pull and ack over gRPC", async () => {
    const [published] = await publisher.publish(
      { topic: TOPIC, messages: [{ data: Buffer.from('granted') }] },
      bearer(storeToken),
    );
    assert.equal(published.messageIds?.length, 1);
    const [pulled] = await subscriber.pull({ subscription: SUB, maxMessages: 10 }, bearer(storeToken));
    const received = pulled.receivedMessages ?? [];
    assert.deepEqual(
      received.map((m) => Buffer.from(m.message?.data as Uint8Array).toString()),
      ['granted'],
    );
    await subscriber.acknowledge(
      { subscription: SUB, ackIds: received.map((m) => m.ackId as string) },
      bearer(storeToken),
    );
  });

  it("refuses what a token's member is not granted with PERMISSION_DENIED over gRPC", async () => {
    const audit = `projects/${PROJECT}/topics/audit`;
    await assert.rejects(
      publisher.publish({ topic: audit, messages: [{ data: Buffer.from('x') }] }, bearer(storeToken)),
      (e: unknown) => {
        deniedOver('pubsub.topics.publish', audit)(e);
        // The ErrorInfo travels in grpc-status-details-bin; Google's client reads it.
        assert.deepEqual((e as GrpcFailure).errorInfoMetadata, {
          permission: 'pubsub.topics.publish',
          resource: audit,
          principal: STORE,
        });
        return true;
      },
    );
    // Creating a subscription needs subscriptions.create on the project, not only the topic's grant.
    await assert.rejects(
      subscriber.createSubscription(
        { name: `projects/${PROJECT}/subscriptions/mine`, topic: TOPIC },
        bearer(storeToken),
      ),
      deniedOver('pubsub.subscriptions.create', `projects/${PROJECT}`),
    );
  });

  it('acts as the identity port member without a token, and refuses what it is not granted', async () => {
    await assert.rejects(
      other.topic('orders').publishMessage({ data: Buffer.from('x') }),
      deniedOver('pubsub.topics.publish', TOPIC),
    );
    await assert.rejects(other.getTopics(), deniedOver('pubsub.topics.list', `projects/${PROJECT}`));
    const r = await call(`${otherBase}/projects/${PROJECT}/topics/orders:publish`, 'POST', {
      messages: [{ data: data('x') }],
    });
    assert.equal(r.status, 403);
    assert.match(String((r.body['error'] as { message: string }).message), new RegExp(OTHER));
  });

  it('knows a gRPC caller by the port it came in on, never by its client port', async () => {
    // Linux lets two connections share a client port when they go to different server ports. A
    // caller on the main port (the owner, as the CLI is locally) from the same client port as a
    // member's connection on its identity port is still the owner, and a caller cannot name the
    // port it came in on.
    const clientPort = await freePort();
    const getTopic = Buffer.concat([Buffer.from([0x0a, TOPIC.length]), Buffer.from(TOPIC)]);
    const path = '/google.pubsub.v1.Publisher/GetTopic';
    const asMember = await rawUnary(emulator.identityPorts.get(OTHER) as number, clientPort, path, getTopic);
    try {
      assert.equal(asMember.status, '7');
      const asOwner = await rawUnary(emulator.port, clientPort, path, getTopic);
      asOwner.session.close();
      assert.equal(asOwner.status, '0');
    } finally {
      asMember.session.close();
    }
    const [published] = await publisher.publish(
      { topic: TOPIC, messages: [{ data: Buffer.from('named port') }] },
      { otherArgs: { headers: { 'x-emulator-local-port': String(emulator.identityPorts.get(OTHER)) } } },
    );
    assert.equal(published.messageIds?.length, 1);
  });

  it('ends an ungranted streaming subscriber with an error event of code 7', async () => {
    const subscription = other.subscription('orders-sub');
    const failure = await new Promise<GrpcFailure>((resolve) => {
      subscription.on('message', () => assert.fail('no message may reach an ungranted subscriber'));
      subscription.once('error', (e: GrpcFailure) => resolve(e));
    });
    await subscription.close();
    deniedOver('pubsub.subscriptions.consume', SUB)(failure);
  });

  it('answers a REST refusal with 403 and the ErrorInfo naming the permission and the resource', async () => {
    const r = await call(
      `${base}/projects/${PROJECT}/topics/orders:publish`,
      'POST',
      { messages: [{ data: data('x') }] },
      otherToken,
    );
    const denial = { principal: OTHER, permission: 'pubsub.topics.publish', resource: TOPIC };
    assert.deepEqual(r, {
      status: 403,
      body: {
        error: {
          code: 403,
          message: `User not authorized to perform this action. Permission 'pubsub.topics.publish' denied on resource '${TOPIC}' for ${OTHER} (or it may not exist).`,
          status: 'PERMISSION_DENIED',
          details: [denialInfo('pubsub.googleapis.com', denial)],
        },
      },
    });
    const ok = await call(
      `${base}/projects/${PROJECT}/topics/orders:publish`,
      'POST',
      { messages: [{ data: data('rest') }] },
      storeToken,
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  it('checks each REST route on its resource', async () => {
    const p = `projects/${PROJECT}`;
    const cases: [string, string, unknown, string, string][] = [
      ['GET', `${p}/topics/orders`, undefined, 'pubsub.topics.get', TOPIC],
      ['GET', `${p}/topics`, undefined, 'pubsub.topics.list', p],
      ['GET', `${p}/topics/orders/subscriptions`, undefined, 'pubsub.topics.get', TOPIC],
      ['PUT', `${p}/topics/new`, {}, 'pubsub.topics.create', p],
      ['DELETE', `${p}/topics/orders`, undefined, 'pubsub.topics.delete', TOPIC],
      ['PUT', `${p}/subscriptions/new`, { topic: TOPIC }, 'pubsub.subscriptions.create', p],
      ['GET', `${p}/subscriptions/orders-sub`, undefined, 'pubsub.subscriptions.get', SUB],
      ['POST', `${p}/subscriptions/orders-sub:pull`, { maxMessages: 1 }, 'pubsub.subscriptions.consume', SUB],
      ['POST', `${p}/subscriptions/orders-sub:detach`, {}, 'pubsub.topics.detachSubscription', TOPIC],
      ['PUT', `${p}/snapshots/snap`, { subscription: SUB }, 'pubsub.snapshots.create', p],
      ['GET', `${p}/schemas`, undefined, 'pubsub.schemas.list', p],
    ];
    for (const [method, path, body, permission, resource] of cases) {
      const r = await call(`${base}/${path}`, method, body, otherToken);
      const e = r.body['error'] as { status: string; details: unknown[] };
      assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(
        e.details,
        [denialInfo('pubsub.googleapis.com', { principal: OTHER, permission, resource })],
        `${method} ${path}`,
      );
    }
    // A subscriber may consume its subscription but not create one attached to another topic.
    const r = await call(
      `${base}/${p}/subscriptions/orders-sub:pull`,
      'POST',
      { maxMessages: 1 },
      storeToken,
    );
    assert.equal(r.status, 200);
  });

  it('answers testIamPermissions with the permissions the caller holds', async () => {
    const asked = ['pubsub.topics.publish', 'pubsub.topics.get'];
    const [held] = await owner.topic('orders').iam.testPermissions(asked, bearer(storeToken));
    assert.deepEqual(held, { 'pubsub.topics.publish': true, 'pubsub.topics.get': false });
    const [none] = await other.topic('orders').iam.testPermissions(asked);
    assert.deepEqual(none, { 'pubsub.topics.publish': false, 'pubsub.topics.get': false });
  });

  it("grants what a topic's own policy (setIamPolicy) grants, with the access file's", async () => {
    const url = `${base}/projects/${PROJECT}/topics/audit`;
    const ask = { permissions: ['pubsub.topics.publish', 'pubsub.topics.delete'] };
    const publish = { messages: [{ data: data('by other') }] };
    assert.deepEqual(await call(`${url}:testIamPermissions`, 'POST', ask, otherToken), {
      status: 200,
      body: {},
    });
    assert.equal((await call(`${url}:publish`, 'POST', publish, otherToken)).status, 403);
    // A grant to allUsers, as Google's Cloud Storage test makes on its notifications' topic.
    await owner
      .topic('audit')
      .iam.setPolicy({ bindings: [{ role: 'roles/pubsub.publisher', members: ['allUsers'] }] });
    try {
      assert.deepEqual(await call(`${url}:testIamPermissions`, 'POST', ask, otherToken), {
        status: 200,
        body: { permissions: ['pubsub.topics.publish'] },
      });
      assert.equal((await call(`${url}:publish`, 'POST', publish, otherToken)).status, 200);
      assert.equal((await call(url, 'DELETE', undefined, otherToken)).status, 403);
    } finally {
      await owner.topic('audit').iam.setPolicy({ bindings: [] });
    }
    assert.equal((await call(`${url}:publish`, 'POST', publish, otherToken)).status, 403);
    // Deleting the topic deletes its policy: a new topic of the name grants nothing.
    await owner.topic('audit').iam.setPolicy({
      bindings: [{ role: 'roles/pubsub.publisher', members: ['allUsers'] }],
    });
    await owner.topic('audit').delete();
    await owner.createTopic('audit');
    assert.equal((await call(`${url}:publish`, 'POST', publish, otherToken)).status, 403);
    const missing = await call(
      `${base}/projects/${PROJECT}/topics/nope:testIamPermissions`,
      'POST',
      ask,
      otherToken,
    );
    assert.equal(missing.status, 404);
  });

  it('refuses a bad or expired token with UNAUTHENTICATED (REST 401, gRPC 16)', async () => {
    const tokens = [
      mintToken(secret, STORE, -10),
      mintToken(newTokenSecret(), STORE),
      'ya29.not-ours',
      `${storeToken}x`,
    ];
    for (const token of tokens) {
      const r = await call(`${base}/projects/${PROJECT}/topics/orders`, 'GET', undefined, token);
      assert.deepEqual(r, {
        status: 401,
        body: { error: { code: 401, message: UNAUTHENTICATED_MESSAGE, status: 'UNAUTHENTICATED' } },
      });
    }
    await assert.rejects(publisher.getTopic({ topic: TOPIC }, bearer(tokens[0] as string)), (e: unknown) => {
      const f = e as GrpcFailure;
      assert.equal(f.code, 16);
      assert.ok(f.message.includes(UNAUTHENTICATED_MESSAGE), f.message);
      return true;
    });
  });

  it('applies a rewritten access file without a restart', async () => {
    await assert.rejects(
      other.topic('orders').publishMessage({ data: Buffer.from('x') }),
      deniedOver('pubsub.topics.publish', TOPIC),
    );
    write([
      ...POLICIES,
      { resource: TOPIC, bindings: [{ role: 'roles/pubsub.publisher', members: [OTHER] }] },
    ]);
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    await sleep(250); // the file's modification time is looked at no more than every 200 ms
    const id = await other.topic('orders').publishMessage({ data: Buffer.from('granted late') });
    assert.match(id, /^\d+$/);
  });
});

describe('pubsub emulator without --iam', () => {
  let run: Running;
  before(async () => {
    run = await start();
    await run.client.createTopic('open');
  });
  after(async () => {
    await run.stop();
  });

  it('checks nothing: calls with and without a token both work', async () => {
    await run.client.topic('open').publishMessage({ data: Buffer.from('no token') });
    const raw = new v1.PublisherClient({
      servicePath: '127.0.0.1',
      port: run.emulator.port,
      sslCreds: credentials.createInsecure(),
    });
    const topic = `projects/${PROJECT}/topics/open`;
    await raw.publish({ topic, messages: [{ data: Buffer.from('a token') }] }, bearer('ya29.anything'));
    await raw.close();
    const res = await fetch(`${run.emulator.url}/v1/${topic}:publish`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ya29.anything' },
      body: JSON.stringify({ messages: [{ data: data('rest') }] }),
    });
    assert.equal(res.status, 200);
    assert.equal(run.emulator.identityPorts.size, 0);
  });
});

/** A port free now on loopback, to bind client sockets to. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * One unary gRPC call on its own HTTP/2 connection from `clientPort` (bound with SO_REUSEADDR, as
 * Node binds), left open; its grpc-status, from the trailers or a trailers-only answer.
 */
async function rawUnary(serverPort: number, clientPort: number, path: string, message: Buffer) {
  const session = http2.connect(`http://127.0.0.1:${serverPort}`, {
    createConnection: () =>
      net.connect({ host: '127.0.0.1', port: serverPort, localAddress: '127.0.0.1', localPort: clientPort }),
  });
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(message.length, 1);
  const stream = session.request({
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.end(Buffer.concat([frame, message]));
  const status = await new Promise<string>((resolve, reject) => {
    let found: string | undefined;
    const take = (headers: http2.IncomingHttpHeaders) => {
      const s = headers['grpc-status'];
      if (typeof s === 'string') found = s;
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', () => {});
    stream.on('error', reject);
    stream.on('close', () => (found === undefined ? reject(new Error('no grpc-status')) : resolve(found)));
  });
  return { status, session };
}
