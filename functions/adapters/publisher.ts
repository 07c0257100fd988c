/**
 * Publishing a request's events in ONE Publish call (so a batch is all-or-nothing,
 * GCP-WIRE.md §7), with our own short timeout and retry so a bus that is down gives the caller
 * a 503 within seconds instead of the library's 600 s retries.
 *
 * The call goes through a bare @grpc/grpc-js client with the request encoded here (the
 * PublishRequest wire format is three fields): the generated v1.PublisherClient costs ~7 µs of
 * protobufjs work per message plus gax's promise, retry and timeout layers per call, which was
 * most of the gateway's publish CPU. Channel, TLS, reconnects and Google credentials are still
 * grpc-js's and google-auth-library's, wired the way google-gax wires them.
 */

import type { Client, Metadata, ServiceError } from '@grpc/grpc-js';

export interface OutgoingMessage {
  readonly data: Buffer;
  readonly attributes: Readonly<Record<string, string>>;
}

/** What the gateway needs from the bus; tests inject a fake. */
export interface EventPublisher {
  /** Resolves with one message id per message, in order, once Pub/Sub acknowledged them. */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<string[]>;
  close(): Promise<void>;
  /** Loads the client ahead of the first publish (the gateway calls it once it listens). */
  warm?(): Promise<void>;
}

/** The bus did not acknowledge in time (or said UNAVAILABLE): the caller should retry later. */
export class PublishUnavailableError extends Error {
  override readonly name = 'PublishUnavailableError';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface PublisherOptions {
  readonly project: string;
  /**
   * Publish calls in flight per topic. Requests that arrive while all are busy wait and then
   * share ONE call (each request whole, never split: still all-or-nothing per request); at low
   * load every request is sent at once, alone. Default 4.
   */
  readonly maxInFlight?: number;
  /** `host:port` of an emulator (plaintext gRPC, no auth); production when absent. */
  readonly emulatorHost?: string;
  /** Whole-call deadline including retries (default 5000 ms). */
  readonly totalTimeoutMs?: number;
}

// gRPC codes that mean "not now": the call is retried within the deadline, then reported as 503.
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const ABORTED = 10;
const RETRYABLE = [UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED];

const PUBLISH_METHOD = '/google.pubsub.v1.Publisher/Publish';
const PRODUCTION_ADDRESS = 'pubsub.googleapis.com:443';
const SCOPES = ['https://www.googleapis.com/auth/cloud-platform', 'https://www.googleapis.com/auth/pubsub'];

interface Channel {
  readonly client: Client;
  readonly metadata: typeof Metadata;
}

/** Creates the publisher over a bare grpc-js client (one Publish per call, retried by us). */
export function createPublisher(options: PublisherOptions): EventPublisher {
  const total = options.totalTimeoutMs ?? 5000;
  const attemptMs = Math.min(total, 3000);
  // grpc-js (and google-auth-library in production) load on first use or by warm(), not at
  // import: they are most of the gateway's cold start, and the server can listen before.
  let loading: Promise<Channel> | undefined;
  const channel = (): Promise<Channel> => {
    loading ??= (async () => {
      const grpc = await import('@grpc/grpc-js');
      const channelOptions = {
        // Our requests can be 10 MB (GCP-WIRE.md §7: the default 4 MiB would fail large batches).
        'grpc.max_send_message_length': 11 * 1024 * 1024,
        'grpc.max_receive_message_length': 11 * 1024 * 1024,
        'grpc.initial_reconnect_backoff_ms': 1000, // as google-gax sets it
      };
      if (options.emulatorHost) {
        // An emulator needs no credentials and speaks plaintext.
        const [host, port] = options.emulatorHost.replace(/^https?:\/\//, '').split(':');
        const address = `${host}:${Number(port ?? 8085)}`;
        return {
          client: new grpc.Client(address, grpc.credentials.createInsecure(), channelOptions),
          metadata: grpc.Metadata,
        };
      }
      const { GoogleAuth } = await import('google-auth-library');
      const auth = new GoogleAuth({ scopes: SCOPES });
      const callCredentials = grpc.credentials.createFromGoogleCredential({
        // grpc-js wants a plain header object; google-auth-library 10 returns a Headers.
        getRequestHeaders: async (url?: string) => {
          const headers = await (await auth.getClient()).getRequestHeaders(url);
          const plain: Record<string, string> = {};
          headers.forEach((value, key) => {
            plain[key] = value;
          });
          return plain;
        },
      } as unknown as Parameters<typeof grpc.credentials.createFromGoogleCredential>[0]);
      const credentials = grpc.credentials.combineChannelCredentials(
        grpc.credentials.createSsl(),
        callCredentials,
      );
      return {
        client: new grpc.Client(PRODUCTION_ADDRESS, credentials, channelOptions),
        metadata: grpc.Metadata,
      };
    })();
    loading.catch(() => {
      loading = undefined; // a failed load is tried again on the next publish
    });
    return loading;
  };

  /** One attempt: resolves with the ids, rejects with the grpc-js ServiceError. */
  const attempt = (ch: Channel, topic: string, body: Buffer, deadline: number) =>
    new Promise<string[]>((resolve, reject) => {
      const metadata = new ch.metadata();
      // Routing header, as the generated client sends it.
      metadata.set('x-goog-request-params', `topic=${encodeURIComponent(topic)}`);
      ch.client.makeUnaryRequest<Buffer, string[]>(
        PUBLISH_METHOD,
        identity,
        decodePublishResponse,
        body,
        metadata,
        { deadline },
        (err, ids) => (err ? reject(err) : resolve(ids ?? [])),
      );
    });

  const send = async (topic: string, messages: readonly OutgoingMessage[]): Promise<string[]> => {
    const started = Date.now();
    const path = `projects/${options.project}/topics/${topic}`;
    const body = encodePublishRequest(path, messages);
    let delay = 100;
    for (;;) {
      try {
        const ch = await channel();
        const remaining = total - (Date.now() - started);
        const ids = await attempt(ch, path, body, Date.now() + Math.max(1, Math.min(attemptMs, remaining)));
        if (ids.length !== messages.length) {
          throw new Error(`Publish returned ${ids.length} ids for ${messages.length} messages`);
        }
        return ids;
      } catch (err) {
        const code = (err as Partial<ServiceError>).code;
        const retryable = code !== undefined && RETRYABLE.includes(code);
        // Same backoff as before (100 ms doubling to 1 s) within the whole-call deadline.
        if (retryable && Date.now() - started + delay < total) {
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 1000);
          continue;
        }
        if (code === undefined || retryable || code === RESOURCE_EXHAUSTED) {
          throw new PublishUnavailableError(`Pub/Sub did not acknowledge: ${(err as Error).message}`, 2);
        }
        throw err;
      }
    }
  };
  const coalesce = coalescing(send, options.maxInFlight ?? 4);
  return {
    publish: coalesce,
    close: async () => {
      if (loading) (await loading).client.close();
    },
    warm: async () => {
      await channel();
    },
  };
}

const identity = (b: Buffer) => b;

const varintSize = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n > 0x7f) {
    buf[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[at++] = n;
  return at;
}

/**
 * UTF-8 length of an attribute key or value. Short ASCII strings (event names, ids) are
 * counted in JS: a Buffer.byteLength call costs more than the loop.
 */
function utf8Length(s: string): number {
  if (s.length > 64) return Buffer.byteLength(s);
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s);
  return s.length;
}

/** Writes a string whose UTF-8 length is `len`; short ASCII ones byte by byte, for the same reason. */
function writeString(buf: Buffer, at: number, s: string, len: number): number {
  if (len !== s.length || len > 64) return at + buf.write(s, at);
  for (let i = 0; i < len; i++) buf[at + i] = s.charCodeAt(i);
  return at + len;
}

/**
 * Encodes a google.pubsub.v1.PublishRequest: `topic` (field 1) and `messages` (field 2, each a
 * PubsubMessage with `data` = field 1 and the `attributes` map = field 2, map entries being
 * key = 1, value = 2). Sizes first, then one buffer written in place.
 */
export function encodePublishRequest(topic: string, messages: readonly OutgoingMessage[]): Buffer {
  const topicLen = Buffer.byteLength(topic);
  let size = 1 + varintSize(topicLen) + topicLen;
  // Per message: its length and, per attribute, key and value lengths (reused when writing).
  const lens: number[] = [];
  for (const m of messages) {
    let len = m.data.length > 0 ? 1 + varintSize(m.data.length) + m.data.length : 0;
    const at = lens.length;
    lens.push(0);
    for (const k in m.attributes) {
      const kl = utf8Length(k);
      const vl = utf8Length(m.attributes[k] as string);
      const entry = 1 + varintSize(kl) + kl + 1 + varintSize(vl) + vl;
      lens.push(kl, vl, entry);
      len += 1 + varintSize(entry) + entry;
    }
    lens[at] = len;
    size += 1 + varintSize(len) + len;
  }
  const buf = Buffer.allocUnsafe(size);
  let o = writeVarint(buf, 0, 0x0a);
  o = writeVarint(buf, o, topicLen);
  o += buf.write(topic, o);
  let li = 0;
  for (const m of messages) {
    buf[o++] = 0x12;
    o = writeVarint(buf, o, lens[li++] as number);
    if (m.data.length > 0) {
      buf[o++] = 0x0a;
      o = writeVarint(buf, o, m.data.length);
      o += m.data.copy(buf, o);
    }
    for (const k in m.attributes) {
      const kl = lens[li++] as number;
      const vl = lens[li++] as number;
      buf[o++] = 0x12;
      o = writeVarint(buf, o, lens[li++] as number);
      buf[o++] = 0x0a;
      o = writeVarint(buf, o, kl);
      o = writeString(buf, o, k, kl);
      buf[o++] = 0x12;
      o = writeVarint(buf, o, vl);
      o = writeString(buf, o, m.attributes[k] as string, vl);
    }
  }
  if (o !== size) throw new Error(`PublishRequest encoding wrote ${o} of ${size} bytes`);
  return buf;
}

/** Decodes a google.pubsub.v1.PublishResponse: the repeated `message_ids` (field 1); other fields skipped. */
export function decodePublishResponse(buf: Buffer): string[] {
  const ids: string[] = [];
  let o = 0;
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      if (o >= buf.length) throw new Error('truncated PublishResponse');
      const b = buf[o++] as number;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
      if (shift > 63) throw new Error('bad varint in PublishResponse');
    }
  };
  while (o < buf.length) {
    const key = varint();
    const wire = key % 8;
    if (wire === 0) varint();
    else if (wire === 1) o += 8;
    else if (wire === 5) o += 4;
    else if (wire === 2) {
      const len = varint();
      if (o + len > buf.length) throw new Error('truncated PublishResponse');
      if (key === 0x0a) ids.push(buf.toString('utf8', o, o + len));
      o += len;
    } else throw new Error(`unexpected wire type ${wire} in PublishResponse`);
  }
  return ids;
}

/** Pub/Sub's per-call limits, with room for the request envelope. */
const MAX_CALL_MESSAGES = 1000;
const MAX_CALL_BYTES = 9_500_000;

interface Waiting {
  readonly messages: readonly OutgoingMessage[];
  readonly bytes: number;
  resolve(ids: string[]): void;
  reject(err: unknown): void;
}

const sizeOf = (messages: readonly OutgoingMessage[]) => {
  let n = 0;
  for (const m of messages) {
    n += m.data.length;
    for (const k in m.attributes) n += k.length + (m.attributes[k] as string).length;
  }
  return n;
};

/**
 * Wraps a single-call publish so that at most `maxInFlight` calls per topic run at once and the
 * requests waiting meanwhile go out together in the next call (up to 1000 messages / 9.5 MB).
 * While a call is in flight, new requests wait for the end of the event-loop turn before taking a
 * free slot, so those that arrive together go together.
 * A request is never split across calls, so it is published whole or not at all; if a shared
 * call fails, every request in it fails (and each caller gets its 503).
 */
export function coalescing(
  send: (topic: string, messages: readonly OutgoingMessage[]) => Promise<string[]>,
  maxInFlight: number,
): (topic: string, messages: readonly OutgoingMessage[]) => Promise<string[]> {
  const queues = new Map<string, Waiting[]>();
  const busy = new Map<string, number>();
  const deferred = new Set<string>();
  const pump = (topic: string) => {
    const queue = queues.get(topic);
    while (queue && queue.length > 0 && (busy.get(topic) ?? 0) < maxInFlight) {
      const group: Waiting[] = [queue.shift() as Waiting];
      let count = group[0]?.messages.length ?? 0;
      let bytes = group[0]?.bytes ?? 0;
      while (queue.length > 0) {
        const next = queue[0] as Waiting;
        if (count + next.messages.length > MAX_CALL_MESSAGES || bytes + next.bytes > MAX_CALL_BYTES) break;
        group.push(queue.shift() as Waiting);
        count += next.messages.length;
        bytes += next.bytes;
      }
      busy.set(topic, (busy.get(topic) ?? 0) + 1);
      const all = group.length === 1 ? (group[0] as Waiting).messages : group.flatMap((w) => w.messages);
      send(topic, all)
        .then(
          (ids) => {
            let at = 0;
            for (const w of group) {
              w.resolve(ids.slice(at, at + w.messages.length));
              at += w.messages.length;
            }
          },
          (err: unknown) => {
            for (const w of group) w.reject(err);
          },
        )
        .finally(() => {
          busy.set(topic, (busy.get(topic) ?? 1) - 1);
          pump(topic);
        });
    }
  };
  return (topic, messages) =>
    new Promise<string[]>((resolve, reject) => {
      let queue = queues.get(topic);
      if (!queue) {
        queue = [];
        queues.set(topic, queue);
      }
      queue.push({ messages, bytes: sizeOf(messages), resolve, reject });
      // Idle bus: send at once. A call already in flight means load: wait for the end of this
      // event-loop turn so that the requests parsed in the same turn share one call, instead of
      // each taking a free slot alone (a CPU-bound gateway otherwise sends one-message calls,
      // and every call costs both sides far more than a message does).
      if ((busy.get(topic) ?? 0) === 0) pump(topic);
      else if (!deferred.has(topic)) {
        deferred.add(topic);
        setImmediate(() => {
          deferred.delete(topic);
          pump(topic);
        });
      }
    });
}
