/**
 * However a request's body reaches the gateway — with its headers in one write (as autocannon,
 * Node's own client and most SDKs send it), after them, in pieces, or followed at once by the
 * next request on the same connection — each request publishes exactly its own event and is
 * answered in order on a connection kept alive. gateway/body.ts takes a body of exactly its
 * declared length as soon as the parser has handed it over; these pin that it is never taken
 * short, never mixed with the next request, and never leaves the connection stuck.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakePublisher, startTestGateway, type TestGateway } from './support.ts';

/** A keep-alive connection that reads answers one by one (Content-Length framed). */
class Connection {
  readonly #socket: Socket;
  #buffered = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  #closed = false;
  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (c: Buffer) => {
      this.#buffered = Buffer.concat([this.#buffered, c]);
      this.#wake?.();
    });
    this.#socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
  }
  write(bytes: string): void {
    this.#socket.write(bytes);
  }
  /** The next whole answer: its status and JSON body. */
  async answer(): Promise<{ status: number; body: { messageIds?: string[] } }> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const text = this.#buffered.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end >= 0) {
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1]);
        if (this.#buffered.length >= end + 4 + length) {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
          const body = this.#buffered.subarray(end + 4, end + 4 + length).toString('utf8');
          this.#buffered = this.#buffered.subarray(end + 4 + length);
          return { status, body: JSON.parse(body) };
        }
      }
      if (this.#closed) throw new Error(`connection closed; had ${JSON.stringify(text)}`);
      if (Date.now() > deadline) throw new Error(`no whole answer within 5 s; had ${JSON.stringify(text)}`);
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, 100);
      });
    }
  }
  get open(): boolean {
    return !this.#closed;
  }
  close(): void {
    this.#socket.destroy();
  }
}

describe('gateway: however the body arrives, each request publishes its own event', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub });
  });
  after(() => g.close());
  beforeEach(() => {
    pub.calls.length = 0;
  });

  const body = (n: number) => JSON.stringify({ event_name: 'page_view', event_id: `arrival-${n}`, n });
  const head = (b: string) =>
    `POST /v1/topics/events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${g.token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n`;
  /** The `n` of each published event, in the order published. */
  const publishedNs = () => pub.calls.flatMap((c) => c.messages.map((m) => dataOf(m.data).n));
  /** A published event's own fields (custom ones are kept under event_data). */
  const dataOf = (data: Buffer | undefined) =>
    (JSON.parse(data?.toString('utf8') ?? '{}') as { event_data?: { n?: number; name?: string } })
      .event_data ?? {};

  it('headers and body in one write, three times on one kept connection', async () => {
    const c = new Connection(g.port);
    try {
      for (const n of [1, 2, 3]) {
        c.write(head(body(n)) + body(n));
        const a = await c.answer();
        assert.equal(a.status, 200, JSON.stringify(a.body));
        assert.equal(a.body.messageIds?.length, 1);
      }
      assert.deepEqual(publishedNs(), [1, 2, 3]);
      assert.ok(c.open, 'the connection is kept alive');
    } finally {
      c.close();
    }
  });

  it('the body after its headers, and in two pieces', async () => {
    const c = new Connection(g.port);
    try {
      c.write(head(body(4)));
      await sleep(30);
      c.write(body(4));
      assert.equal((await c.answer()).status, 200);
      const b = body(5);
      c.write(head(b) + b.slice(0, 10));
      await sleep(30);
      c.write(b.slice(10));
      assert.equal((await c.answer()).status, 200);
      assert.deepEqual(publishedNs(), [4, 5]);
    } finally {
      c.close();
    }
  });

  it('two requests in one write: neither body takes bytes of the other', async () => {
    const c = new Connection(g.port);
    try {
      c.write(head(body(6)) + body(6) + head(body(7)) + body(7));
      const first = await c.answer();
      const second = await c.answer();
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.notDeepEqual(first.body.messageIds, second.body.messageIds);
      assert.deepEqual(publishedNs().sort(), [6, 7]);
    } finally {
      c.close();
    }
  });

  it('a multi-byte body is taken by its declared byte length, not its characters', async () => {
    const c = new Connection(g.port);
    try {
      const b = JSON.stringify({ event_name: 'page_view', n: 8, name: 'Schuhé 👟' });
      c.write(head(b) + b);
      assert.equal((await c.answer()).status, 200);
      assert.deepEqual(publishedNs(), [8]);
      assert.equal(dataOf(pub.calls[0]?.messages[0]?.data).name, 'Schuhé 👟');
    } finally {
      c.close();
    }
  });
});
