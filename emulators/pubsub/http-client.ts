/**
 * A lean HTTP/1.1 client for push delivery to plain-http endpoints. node:http's client cost
 * ~250 µs of CPU per push (request object, agent queue, header bookkeeping, response stream)
 * and capped the whole local pipeline, whose store and forward functions are push targets.
 * This one keeps a pool of keep-alive sockets per origin, writes each request as one buffer
 * and reads only what delivery needs: the status, and where the response ends so the socket
 * can be reused. One request per socket at a time (no pipelining).
 */
import net from 'node:net';

/** What a push got back: an HTTP status (a 102 Processing counts as the answer), or 0 for none. */
export type PushStatus = number;

interface Pending {
  readonly head: string;
  readonly body: string | Buffer;
  readonly timeoutMs: number;
  resolve(status: PushStatus): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const MAX_HEAD = 64 * 1024;

/** One keep-alive socket and the response it is reading. */
class Connection {
  readonly socket: net.Socket;
  private readonly pool: OriginPool;
  private current: Pending | undefined;
  private timer: NodeJS.Timeout | undefined;
  private buf: Buffer = Buffer.alloc(0);
  // Response parse state: -1 = reading the head; otherwise the body is being skipped.
  private status = -1;
  private remaining = 0;
  private chunked = false;
  private untilClose = false;
  private keepAlive = true;
  ready = false;

  constructor(pool: OriginPool, host: string, port: number) {
    this.pool = pool;
    this.socket = net.connect({ host, port, noDelay: true, keepAlive: true });
    this.socket.on('connect', () => {
      this.ready = true;
      if (this.current) this.write(this.current);
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => this.onClose());
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  start(p: Pending): void {
    this.current = p;
    this.status = -1;
    this.timer = setTimeout(() => {
      // No answer within the deadline: nack, and drop the socket (its late answer would
      // otherwise be read as the next request's).
      this.socket.destroy();
      this.settle(0);
    }, p.timeoutMs);
    if (this.ready) this.write(p);
  }

  private write(p: Pending): void {
    // One write per request; a binary body (push without wrapper) is joined as bytes.
    this.socket.write(
      typeof p.body === 'string' ? p.head + p.body : Buffer.concat([Buffer.from(p.head), p.body]),
    );
  }

  private settle(status: PushStatus): void {
    const p = this.current;
    if (!p) return;
    this.current = undefined;
    clearTimeout(this.timer);
    this.buf = Buffer.alloc(0);
    p.resolve(status);
  }

  private fail(): void {
    this.socket.destroy();
    this.settle(0);
  }

  private onClose(): void {
    // A response delimited by the end of the connection is complete now.
    if (this.current && this.untilClose && this.status >= 0) this.settle(this.status);
    else this.settle(0);
    this.pool.remove(this);
  }

  private onData(chunk: Buffer): void {
    if (!this.current) {
      // Bytes nobody asked for: the connection is out of step; do not reuse it.
      this.socket.destroy();
      return;
    }
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      this.parse();
    } catch {
      this.fail();
    }
  }

  private parse(): void {
    for (;;) {
      if (this.status < 0) {
        const end = this.buf.indexOf(CRLFCRLF);
        if (end < 0) {
          if (this.buf.length > MAX_HEAD) throw new Error('response head too large');
          return;
        }
        const head = this.buf.toString('latin1', 0, end);
        this.buf = this.buf.subarray(end + 4);
        if (!this.readHead(head)) continue; // an informational answer other than 102
        if (this.status === 102) {
          // 102 Processing acks (docs/google-wire.md §3); the rest of this exchange is not needed.
          const s = this.status;
          this.socket.destroy();
          this.settle(s);
          return;
        }
      }
      if (this.untilClose) {
        this.buf = Buffer.alloc(0);
        return;
      }
      if (this.chunked) {
        if (!this.skipChunks()) return;
      } else {
        const take = Math.min(this.remaining, this.buf.length);
        this.remaining -= take;
        this.buf = this.buf.subarray(take);
        if (this.remaining > 0) return;
      }
      this.finish();
      return;
    }
  }

  /** Reads a status line and headers; false for a 1xx answer to skip (100 Continue). */
  private readHead(head: string): boolean {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) throw new Error('not an HTTP/1 response');
    const status = Number(m[2]);
    if (status >= 100 && status < 200 && status !== 102) return false;
    this.status = status;
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value)) throw new Error('bad content-length');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.toLowerCase().endsWith('chunked');
      else if (name === 'connection') connection = value.toLowerCase();
    }
    this.keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.chunked = false;
    this.untilClose = false;
    this.remaining = 0;
    if (status === 204 || status === 304 || status === 102) return true;
    if (chunked) this.chunked = true;
    else if (length !== undefined) this.remaining = length;
    else {
      this.untilClose = true;
      this.keepAlive = false;
    }
    return true;
  }

  /** Skips chunked body bytes; true once the last chunk and the trailers are read. */
  private skipChunks(): boolean {
    for (;;) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, this.buf.length);
        this.remaining -= take;
        this.buf = this.buf.subarray(take);
        if (this.remaining > 0) return false;
      }
      const eol = this.buf.indexOf('\r\n');
      if (eol < 0) return false;
      const line = this.buf.toString('latin1', 0, eol);
      if (line === '') {
        // The CRLF after a chunk's data.
        this.buf = this.buf.subarray(2);
        continue;
      }
      const size = Number.parseInt(line, 16);
      if (!Number.isFinite(size) || size < 0) throw new Error('bad chunk size');
      if (size === 0) {
        // Last chunk: trailers (usually none) end with an empty line.
        const end = this.buf.indexOf(CRLFCRLF, eol);
        if (end === eol) {
          this.buf = this.buf.subarray(eol + 4);
          return true;
        }
        if (end < 0) return false;
        this.buf = this.buf.subarray(end + 4);
        return true;
      }
      this.buf = this.buf.subarray(eol + 2);
      this.remaining = size;
    }
  }

  private finish(): void {
    const status = this.status;
    const reuse = this.keepAlive && this.buf.length === 0;
    if (!reuse) this.socket.destroy();
    this.settle(status);
    if (reuse) this.pool.idle(this);
  }
}

/** Keep-alive sockets to one origin, at most `maxSockets`, and the requests waiting for one. */
class OriginPool {
  private readonly host: string;
  private readonly port: number;
  private readonly maxSockets: number;
  private readonly all = new Set<Connection>();
  private readonly free: Connection[] = [];
  private readonly queue: Pending[] = [];
  private queueHead = 0;

  constructor(host: string, port: number, maxSockets: number) {
    this.host = host;
    this.port = port;
    this.maxSockets = maxSockets;
  }

  submit(p: Pending): void {
    const c = this.free.pop();
    if (c) c.start(p);
    else if (this.all.size < this.maxSockets) {
      const fresh = new Connection(this, this.host, this.port);
      this.all.add(fresh);
      fresh.start(p);
    } else this.queue.push(p);
  }

  /** A connection finished its exchange and may take the next waiting request. */
  idle(c: Connection): void {
    const next = this.take();
    if (next) c.start(next);
    else this.free.push(c);
  }

  remove(c: Connection): void {
    if (!this.all.delete(c)) return;
    const i = this.free.indexOf(c);
    if (i >= 0) this.free.splice(i, 1);
    // A waiting request takes the freed slot on a new socket.
    const next = this.take();
    if (next) this.submit(next);
  }

  private take(): Pending | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const p = this.queue[this.queueHead++];
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return p;
  }

  destroy(): void {
    for (const p of this.queue.slice(this.queueHead)) p.resolve(0);
    this.queue.length = 0;
    this.queueHead = 0;
    for (const c of [...this.all]) c.socket.destroy();
  }
}

/** Pools per `host:port`; `post` sends one JSON POST and resolves with the status (0: none). */
export class PushHttpClient {
  private readonly pools = new Map<string, OriginPool>();
  private readonly maxSockets: number;

  constructor(maxSockets: number) {
    this.maxSockets = maxSockets;
  }

  /**
   * POSTs `body` to `url` (http: only). `headers` are written as given (names and values must
   * not contain CR or LF; the caller builds them from its own data). Never rejects.
   */
  post(
    url: URL,
    headers: Readonly<Record<string, string | number>>,
    body: string | Buffer,
    timeoutMs: number,
  ) {
    const port = Number(url.port || 80);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const key = `${host}:${port}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new OriginPool(host, port, this.maxSockets);
      this.pools.set(key, pool);
    }
    let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += '\r\n';
    const target = pool;
    return new Promise<PushStatus>((resolve) => target.submit({ head, body, timeoutMs, resolve }));
  }

  destroy(): void {
    for (const p of this.pools.values()) p.destroy();
    this.pools.clear();
  }
}
