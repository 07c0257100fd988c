/**
 * Requests node's HTTP parser rejects before any routing (the `clientError` path): they get
 * our JSON error envelope, not node's bare `400 Bad Request`, nothing is published, and the
 * gateway keeps serving. Sent over raw sockets, since a well-behaved client cannot send them.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { FakePublisher, post, startTestGateway, type TestGateway } from './support.ts';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the envelope is read as plain JSON
  readonly body: any;
}

/** Writes bytes as they are and reads the whole answer (the gateway closes after a parse error). */
function raw(port: number, bytes: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (c) => chunks.push(c));
    // The server may close while we still write (a header that is too large): keep what came.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
      if (!status) {
        reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status, headers, body: JSON.parse(rest.join('\r\n\r\n')) });
    });
    socket.write(bytes);
  });
}

describe('gateway: malformed HTTP gets the error envelope (MALFORMED_REQUEST)', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let port: number;
  before(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub });
    port = Number(new URL(g.url).port);
  });
  after(() => g.close());

  const body = JSON.stringify({ event_name: 'page_view' });
  const malformed = (a: RawAnswer) => {
    assert.equal(a.status, 400);
    assert.match(a.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(a.body, {
      error: {
        code: 400,
        message: 'Malformed HTTP request.',
        status: 'INVALID_ARGUMENT',
        details: a.body.error.details,
      },
    });
    assert.ok(
      a.body.error.details.some((d: { reason?: string }) => d.reason === 'MALFORMED_REQUEST'),
      JSON.stringify(a.body),
    );
  };

  it('answers a garbage request line with 400 INVALID_ARGUMENT', async () => {
    malformed(await raw(port, 'GARBAGE\r\n\r\n'));
    malformed(await raw(port, '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n'));
  });

  it('answers Content-Length together with chunked transfer coding with 400 (request smuggling)', async () => {
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    malformed(
      await raw(
        port,
        `POST /v1/topics/events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${g.token}\r\ncontent-type: application/json\r\ncontent-length: ${chunked.length}\r\ntransfer-encoding: chunked\r\n\r\n${chunked}`,
      ),
    );
  });

  it('answers a 20 KB header with 413 REQUEST_TOO_LARGE (node caps headers at 16 KiB)', async () => {
    const a = await raw(
      port,
      `POST /v1/topics/events HTTP/1.1\r\nhost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    assert.equal(a.status, 413);
    assert.equal(a.body.error.status, 'INVALID_ARGUMENT');
    assert.match(a.body.error.message, /16384 bytes/);
  });

  it('publishes nothing for them and keeps serving', async () => {
    assert.equal(pub.published, 0);
    const ok = await post(
      `${g.url}/v1/topics/events`,
      { event_name: 'page_view' },
      {
        authorization: `Bearer ${g.token}`,
      },
    );
    assert.equal(ok.status, 200);
    assert.equal(pub.published, 1);
  });
});
