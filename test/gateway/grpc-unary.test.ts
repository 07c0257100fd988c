/**
 * The gateway's gRPC unary client (adapters/grpc-unary.ts) and the publisher over it: against the
 * real Pub/Sub emulator (read back with Google's own client), and against a bare `node:http2`
 * server in the test that answers chosen gRPC failures, so the codes and the publisher's retries
 * (then PublishUnavailableError) are checked on real sockets.
 */
import assert from 'node:assert/strict';
import {
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import { createUnaryClient, GrpcError } from '../../adapters/grpc-unary.ts';
import { createPublisher, PublishUnavailableError } from '../../adapters/publisher.ts';
import { until } from '../support/until.ts';
import { type Bus, startBus } from './emulator-support.ts';

process.env['METADATA_SERVER_DETECTION'] = 'none';

const PUBLISH = '/google.pubsub.v1.Publisher/Publish';

/** A framed PublishResponse with these message ids. */
function publishResponse(ids: readonly string[]): Buffer {
  const fields = ids.map((id) =>
    Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(id)]), Buffer.from(id)]),
  );
  const body = Buffer.concat(fields);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

type Handler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, n: number) => void;

/** A plaintext HTTP/2 server whose every stream is answered by `handler` (the nth call counted from 1). */
async function fakeServer(handler: Handler) {
  const seen: IncomingHttpHeaders[] = [];
  const bodies: Buffer[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const server: Http2Server = createServer();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    seen.push(headers);
    const n = seen.length;
    stream.on('error', () => {});
    // The request is read whole before answering, as a server would.
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      handler(stream, headers, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    seen,
    bodies,
    sessions,
    close: async () => {
      for (const s of sessions) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const ok =
  (ids: readonly string[]): Handler =>
  (stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(publishResponse(ids));
  };

const call = (host: string, deadlineMs = 1000) =>
  createUnaryClient({ origin: `http://${host}`, maxMessageBytes: 1024 }).call({
    path: PUBLISH,
    body: Buffer.from('request'),
    deadline: Date.now() + deadlineMs,
  });

const codeOf = async (p: Promise<unknown>): Promise<GrpcError> => {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof GrpcError, String(err));
    return err;
  }
  throw new Error('the call succeeded');
};

describe('gRPC unary client on node:http2: the real Pub/Sub emulator', () => {
  let bus: Bus;
  before(async () => {
    bus = await startBus('test-project', ['events']);
  });
  after(async () => {
    await bus.close();
  });

  it('publishes data and attributes that Google’s client pulls back under the ids it answered', async () => {
    const publisher = createPublisher({ project: 'test-project', emulatorHost: bus.host });
    const [host, port] = bus.host.split(':');
    const subscriber = new v1.SubscriberClient({
      servicePath: host,
      port: Number(port),
      sslCreds: credentials.createInsecure(),
      universeDomain: 'googleapis.com',
    } as ConstructorParameters<typeof v1.SubscriberClient>[0]);
    try {
      await publisher.warm?.();
      const ids = await publisher.publish('events', [
        { data: Buffer.from('{"n":1}'), attributes: { event_id: 'e1', kind: 'ünïcode' } },
        { data: Buffer.from('{"n":2}'), attributes: {} },
      ]);
      assert.equal(ids.length, 2);
      const more = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          publisher.publish('events', [{ data: Buffer.from(`c${i}`), attributes: { i: String(i) } }]),
        ),
      );
      const [pulled] = await subscriber.pull({
        subscription: 'projects/test-project/subscriptions/events-test',
        maxMessages: 100,
      });
      const got = new Map(
        (pulled.receivedMessages ?? []).map((r) => [
          r.message?.messageId,
          {
            data: Buffer.from(r.message?.data as Uint8Array).toString(),
            attributes: r.message?.attributes ?? {},
          },
        ]),
      );
      assert.equal(got.size, 22);
      assert.deepEqual(got.get(ids[0]), { data: '{"n":1}', attributes: { event_id: 'e1', kind: 'ünïcode' } });
      assert.deepEqual(got.get(ids[1]), { data: '{"n":2}', attributes: {} });
      for (const [i, [id]] of more.entries())
        assert.deepEqual(got.get(id), { data: `c${i}`, attributes: { i: String(i) } });
    } finally {
      await subscriber.close();
      await publisher.close();
    }
  });
});

describe('gRPC unary client on node:http2: answers of a bare HTTP/2 server', () => {
  it('sends a gRPC request: path, content type, te, timeout, routing and client headers', async () => {
    const server = await fakeServer(ok(['id-1']));
    const publisher = createPublisher({ project: 'p', emulatorHost: server.host });
    try {
      assert.deepEqual(await publisher.publish('events', [{ data: Buffer.from('x'), attributes: {} }]), [
        'id-1',
      ]);
      const h = server.seen[0] as IncomingHttpHeaders;
      assert.equal(h[':method'], 'POST');
      assert.equal(h[':path'], PUBLISH);
      assert.equal(h['content-type'], 'application/grpc');
      assert.equal(h['te'], 'trailers');
      assert.match(String(h['grpc-timeout']), /^\d{1,8}m$/);
      assert.ok(Number.parseInt(String(h['grpc-timeout']), 10) <= 3000);
      assert.equal(h['x-goog-request-params'], 'topic=projects%2Fp%2Ftopics%2Fevents');
      assert.match(String(h['x-goog-api-client']), /^gl-node\/\d+\.\d+\.\d+ eventbus-gateway\/1$/);
      assert.equal(h['authorization'], undefined, 'an emulator gets no credentials');
      assert.equal(h['grpc-encoding'], undefined);
    } finally {
      await publisher.close();
      await server.close();
    }
  });

  it('frames the message as flag 0, 4-byte big-endian length, bytes; carries the credentials’ headers', async () => {
    const server = await fakeServer(ok(['a']));
    const client = createUnaryClient({
      origin: `http://${server.host}`,
      maxMessageBytes: 1 << 20,
      credentials: { headers: () => ({ authorization: 'Bearer t0k' }), invalidate: () => {} },
    });
    try {
      const reply = await client.call({
        path: PUBLISH,
        body: Buffer.from('hello'),
        deadline: Date.now() + 1000,
      });
      assert.deepEqual(reply, Buffer.from([0x0a, 1, 0x61]));
      assert.equal(server.seen[0]?.['authorization'], 'Bearer t0k');
      assert.deepEqual(server.bodies[0], Buffer.from([0, 0, 0, 0, 5, ...Buffer.from('hello')]));
      // A large message (sent as prefix and body apart) arrives as one frame all the same.
      const large = Buffer.alloc(100_000, 7);
      await client.call({ path: PUBLISH, body: large, deadline: Date.now() + 1000 });
      assert.equal(server.bodies[1]?.readUInt32BE(1), large.length);
      assert.deepEqual(server.bodies[1]?.subarray(5), large);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('reads a Trailers-Only UNAVAILABLE from the response headers', async () => {
    const server = await fakeServer((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'down' },
        { endStream: true },
      ),
    );
    try {
      const err = await codeOf(call(server.host));
      assert.equal(err.code, 14);
      assert.equal(err.details, 'down');
    } finally {
      await server.close();
    }
  });

  it('reads grpc-status from the trailers and percent-decodes grpc-message', async () => {
    const server = await fakeServer((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': '3', 'grpc-message': 'bad%20topic%3A%20%C3%A9t%C3%A9 100%25' }),
      );
      stream.end();
    });
    try {
      const err = await codeOf(call(server.host));
      assert.equal(err.code, 3);
      assert.equal(err.details, 'bad topic: été 100%');
    } finally {
      await server.close();
    }
  });

  it('maps an HTTP error without grpc-status by gRPC’s table (503 → UNAVAILABLE, 401, 404, 400, 500)', async () => {
    const answers = [503, 401, 404, 400, 500, 429];
    const server = await fakeServer((stream, _h, n) =>
      stream.respond(
        { ':status': answers[n - 1] as number, 'content-type': 'text/plain' },
        { endStream: true },
      ),
    );
    try {
      const codes: number[] = [];
      for (const _ of answers) codes.push((await codeOf(call(server.host))).code);
      assert.deepEqual(codes, [14, 16, 12, 13, 2, 14]);
    } finally {
      await server.close();
    }
  });

  it('fails with DEADLINE_EXCEEDED when no answer comes in time, and cancels the stream', async () => {
    let reset: Promise<number> | undefined;
    const server = await fakeServer((stream) => {
      reset = new Promise((r) => stream.on('close', () => r(stream.rstCode)));
    });
    try {
      const started = Date.now();
      const err = await codeOf(call(server.host, 200));
      assert.equal(err.code, 4);
      assert.ok(Date.now() - started < 1000);
      assert.equal(await reset, constants.NGHTTP2_CANCEL);
    } finally {
      await server.close();
    }
  });

  it('fails a call whose session is destroyed with UNAVAILABLE, and the next call opens a new session', async () => {
    const server = await fakeServer((stream, _h, n) => {
      if (n === 1) stream.session?.destroy();
      else ok(['after'])(stream, {}, n);
    });
    const client = createUnaryClient({ origin: `http://${server.host}`, maxMessageBytes: 1024 });
    const once = () => client.call({ path: PUBLISH, body: Buffer.from('r'), deadline: Date.now() + 1000 });
    try {
      assert.equal((await codeOf(once())).code, 14);
      assert.deepEqual(await once(), Buffer.from([0x0a, 5, ...Buffer.from('after')]));
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('closes a session idle for idleCloseMs, and the next call opens a new one', async () => {
    const server = await fakeServer(ok(['1']));
    try {
      const client = createUnaryClient({
        origin: `http://${server.host}`,
        maxMessageBytes: 1024,
        idleCloseMs: 150,
      });
      const once = () => client.call({ path: PUBLISH, body: Buffer.from('r'), deadline: Date.now() + 1000 });
      await once();
      assert.equal(server.sessions.size, 1);
      const first = [...server.sessions][0];
      // Polled, not slept: the session goes once idle 150 ms; 5 s bounds a loaded machine.
      await until(
        'the idle session to close',
        async () => (server.sessions.size === 0 ? true : undefined),
        5_000,
        10,
      );
      assert.equal(server.sessions.size, 0, 'the idle session was closed');
      await once();
      assert.equal(server.sessions.size, 1);
      assert.notEqual([...server.sessions][0], first);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('after a GOAWAY, later calls go on a new session', async () => {
    const server = await fakeServer((stream, _h, n) => {
      ok([`n${n}`])(stream, {}, n);
      if (n === 1) stream.session?.goaway(constants.NGHTTP2_NO_ERROR, 1);
    });
    const client = createUnaryClient({ origin: `http://${server.host}`, maxMessageBytes: 1024 });
    const once = () => client.call({ path: PUBLISH, body: Buffer.from('r'), deadline: Date.now() + 1000 });
    try {
      assert.deepEqual(await once(), Buffer.from([0x0a, 2, ...Buffer.from('n1')]));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await once(), Buffer.from([0x0a, 2, ...Buffer.from('n2')]));
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('publisher: a session destroyed mid-call is retried and the publish succeeds', async () => {
    const server = await fakeServer((stream, _h, n) => {
      if (n === 1) stream.session?.destroy();
      else ok(['id-ok'])(stream, {}, n);
    });
    const publisher = createPublisher({ project: 'p', emulatorHost: server.host, totalTimeoutMs: 3000 });
    try {
      assert.deepEqual(await publisher.publish('events', [{ data: Buffer.from('x'), attributes: {} }]), [
        'id-ok',
      ]);
      assert.equal(server.seen.length, 2);
    } finally {
      await publisher.close();
      await server.close();
    }
  });

  it('publisher: UNAVAILABLE until the deadline becomes PublishUnavailableError; INVALID_ARGUMENT is not retried', async () => {
    const unavailable = await fakeServer((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14' },
        { endStream: true },
      ),
    );
    const invalid = await fakeServer((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '3', 'grpc-message': 'no' },
        { endStream: true },
      ),
    );
    const p1 = createPublisher({ project: 'p', emulatorHost: unavailable.host, totalTimeoutMs: 800 });
    const p2 = createPublisher({ project: 'p', emulatorHost: invalid.host, totalTimeoutMs: 800 });
    try {
      const started = Date.now();
      await assert.rejects(
        p1.publish('events', [{ data: Buffer.from('x'), attributes: {} }]),
        PublishUnavailableError,
      );
      assert.ok(Date.now() - started < 2000);
      assert.ok(unavailable.seen.length >= 3, `retried: ${unavailable.seen.length} calls`);
      await assert.rejects(
        p2.publish('events', [{ data: Buffer.from('x'), attributes: {} }]),
        (err: unknown) => err instanceof GrpcError && err.code === 3,
      );
      assert.equal(invalid.seen.length, 1);
    } finally {
      await p1.close();
      await p2.close();
      await unavailable.close();
      await invalid.close();
    }
  });

  it('publisher: a server that never answers gives PublishUnavailableError within the whole-call deadline', async () => {
    const server = await fakeServer(() => {});
    const publisher = createPublisher({ project: 'p', emulatorHost: server.host, totalTimeoutMs: 600 });
    try {
      const started = Date.now();
      await assert.rejects(
        publisher.publish('events', [{ data: Buffer.from('x'), attributes: {} }]),
        PublishUnavailableError,
      );
      assert.ok(Date.now() - started < 1500);
    } finally {
      await publisher.close();
      await server.close();
    }
  });

  it('refuses to send a message over the size limit (RESOURCE_EXHAUSTED), and refuses a larger answer', async () => {
    const server = await fakeServer((stream) => ok(['x'.repeat(100)])(stream, {}, 0));
    const client = createUnaryClient({ origin: `http://${server.host}`, maxMessageBytes: 50 });
    try {
      const big = client.call({ path: PUBLISH, body: Buffer.alloc(51), deadline: Date.now() + 1000 });
      assert.equal((await codeOf(big)).code, 8);
      assert.equal(server.seen.length, 0);
      const answer = client.call({ path: PUBLISH, body: Buffer.alloc(10), deadline: Date.now() + 1000 });
      assert.equal((await codeOf(answer)).code, 8);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('gRPC client on node:http2: a server-streaming answer read whole', () => {
  const framed = (text: string): Buffer => {
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(Buffer.byteLength(text), 1);
    return Buffer.concat([prefix, Buffer.from(text)]);
  };
  /** Answers each message in its own write (the last one split across two), then the status. */
  const streaming =
    (messages: readonly string[], status: string, message = ''): Handler =>
    (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': status, ...(message ? { 'grpc-message': message } : {}) }),
      );
      const frames = messages.map(framed);
      const last = frames.pop();
      for (const f of frames) stream.write(f);
      if (last) {
        stream.write(last.subarray(0, 3));
        stream.end(last.subarray(3));
      } else stream.end();
    };
  const stream = (host: string, max = 1024) =>
    createUnaryClient({ origin: `http://${host}`, maxMessageBytes: max }).stream({
      path: '/google.bigtable.v2.Bigtable/ReadRows',
      body: Buffer.from('request'),
      deadline: Date.now() + 1000,
    });

  it('every message in order once the trailers say OK; none is an answer too', async () => {
    const server = await fakeServer(streaming(['one', '', 'three'], '0'));
    const none = await fakeServer(streaming([], '0'));
    try {
      const got = await stream(server.host);
      assert.deepEqual(
        got.map((b) => b.toString()),
        ['one', '', 'three'],
      );
      assert.deepEqual(await stream(none.host), []);
    } finally {
      await server.close();
      await none.close();
    }
  });

  it('messages then a failed status reject (no partial answer); too many bytes are RESOURCE_EXHAUSTED', async () => {
    const failing = await fakeServer(streaming(['one', 'two'], '14', 'going%20away'));
    const large = await fakeServer(streaming(['x'.repeat(40), 'y'.repeat(40)], '0'));
    try {
      const err = await codeOf(stream(failing.host));
      assert.equal(err.code, 14);
      assert.equal(err.details, 'going away');
      assert.equal((await codeOf(stream(large.host, 80))).code, 8, 'the messages together are over 80 bytes');
      assert.equal((await stream(large.host, 90)).length, 2);
    } finally {
      await failing.close();
      await large.close();
    }
  });
});
