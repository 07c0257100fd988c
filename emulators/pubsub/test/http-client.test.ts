/**
 * The lean push client against raw sockets answering in every framing a receiver may use, and
 * the hand-written push body against JSON.stringify of its object form.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { PushHttpClient } from '../http-client.ts';
import { pushBody } from '../push.ts';
import type { Delivery } from '../types.ts';

/** A server that answers each request (head + content-length body) with `answer(n)`, n = request number. */
async function rawServer(
  answer: (n: number, socket: net.Socket) => string | undefined,
): Promise<{ url: URL; requests: string[]; connections: () => number; close(): Promise<void> }> {
  const requests: string[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        requests.push(buf.slice(0, end + 4 + length));
        buf = buf.slice(end + 4 + length);
        const text = answer(requests.length, socket);
        if (text !== undefined) socket.write(text);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: new URL(`http://127.0.0.1:${port}/push?x=1`),
    requests,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const headers = (body: string) => ({ 'content-type': 'application/json', 'content-length': body.length });

describe('pubsub emulator push client', () => {
  const clients: PushHttpClient[] = [];
  const client = () => {
    const c = new PushHttpClient(4);
    clients.push(c);
    return c;
  };
  after(() => {
    for (const c of clients) c.destroy();
  });

  it('reads content-length, chunked and empty answers, reusing one keep-alive socket', async () => {
    const srv = await rawServer((n) =>
      n === 1
        ? 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello'
        : n === 2
          ? 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n'
          : n === 3
            ? 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'
            : 'HTTP/1.1 500 Internal Server Error\r\ncontent-length: 2\r\n\r\nno',
    );
    const c = client();
    const body = '{"a":1}';
    const got: number[] = [];
    for (let i = 0; i < 4; i++) got.push(await c.post(srv.url, headers(body), body, 2000));
    assert.deepEqual(got, [200, 201, 204, 500]);
    assert.equal(srv.connections(), 1);
    assert.match(srv.requests[0] as string, /^POST \/push\?x=1 HTTP\/1\.1\r\n/);
    assert.match(srv.requests[0] as string, /\r\ncontent-length: 7\r\n/);
    assert.ok((srv.requests[0] as string).endsWith('\r\n\r\n{"a":1}'));
    await srv.close();
  });

  it('takes 102 as the answer, reads a close-delimited body, and opens a new socket after connection: close', async () => {
    const srv = await rawServer((n, socket) => {
      if (n === 1) return 'HTTP/1.1 102 Processing\r\n\r\n';
      socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end');
      return undefined;
    });
    const c = client();
    assert.equal(await c.post(srv.url, headers('{}'), '{}', 2000), 102);
    assert.equal(await c.post(srv.url, headers('{}'), '{}', 2000), 200);
    assert.equal(srv.connections(), 2);
    await srv.close();
  });

  it('gives 0 for no answer within the timeout, a refused connection, and garbage', async () => {
    const silent = await rawServer(() => undefined);
    const c = client();
    assert.equal(await c.post(silent.url, headers('{}'), '{}', 100), 0);
    await silent.close();
    assert.equal(await c.post(silent.url, headers('{}'), '{}', 2000), 0); // closed: refused
    const garbage = await rawServer(() => 'SSH-2.0-nope\r\n\r\n');
    assert.equal(await c.post(garbage.url, headers('{}'), '{}', 2000), 0);
    await garbage.close();
  });

  it('queues beyond its socket limit and serves every request', async () => {
    const srv = await rawServer(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    const c = client();
    const all = await Promise.all(
      Array.from({ length: 50 }, () => c.post(srv.url, headers('{}'), '{}', 2000)),
    );
    assert.deepEqual(new Set(all), new Set([204]));
    assert.equal(srv.requests.length, 50);
    assert.ok(srv.connections() <= 4);
    await srv.close();
  });

  it('writes the push body exactly as JSON.stringify of its object form', () => {
    const delivery = (over: Partial<Delivery['message']>, attempt = 1): Delivery => ({
      ackId: '1-1',
      deliveryAttempt: 0,
      attempt,
      message: {
        id: 42,
        publishTime: 1_767_225_600_123,
        data: Buffer.from('{"event_name":"x"}'),
        attributes: {},
        orderingKey: '',
        size: 0,
        ...over,
      },
    });
    const reference = (sub: string, d: Delivery): string => {
      const m = d.message;
      const t = new Date(m.publishTime).toISOString();
      const message: Record<string, unknown> = {};
      if (Object.keys(m.attributes).length > 0) message['attributes'] = m.attributes;
      message['data'] = m.data.toString('base64');
      message['messageId'] = String(m.id);
      message['message_id'] = String(m.id);
      message['publishTime'] = t;
      message['publish_time'] = t;
      if (m.orderingKey) message['orderingKey'] = m.orderingKey;
      return JSON.stringify({ message, subscription: sub, deliveryAttempt: d.attempt });
    };
    const cases = [
      delivery({}),
      delivery({ attributes: { event_name: 'view_content', 'q"uote': 'é\n\u2028' } }, 3),
      delivery({ orderingKey: 'user "1"', publishTime: 1_767_225_600_999 }),
      delivery({ data: Buffer.alloc(0), attributes: { a: 'b' } }),
    ];
    for (const d of cases) {
      assert.equal(pushBody('projects/p/subscriptions/s', d), reference('projects/p/subscriptions/s', d));
    }
  });
});
