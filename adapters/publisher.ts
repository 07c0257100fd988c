/**
 * Publishing a request's events in ONE Publish call (so a batch is all-or-nothing,
 * docs/google-wire.md §7) on the gRPC channel of the raw `v1.PublisherClient`, which sets up the
 * credentials, endpoint and emulator: the request is encoded by hand (adapters/publish-wire.ts)
 * and sent on the client's stub, with our own short timeout and retry so a bus that is down gives
 * the caller a 503 within seconds instead of the library's 600 s retries.
 */

import type { v1 } from '@google-cloud/pubsub';
import { decodePublishResponse, encodePublishRequest } from './publish-wire.ts';

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

/** Creates the publisher over a raw v1.PublisherClient (one Publish per request). */
export function createPublisher(options: PublisherOptions): EventPublisher {
  const total = options.totalTimeoutMs ?? 5000;
  const clientOptions: Record<string, unknown> = {
    projectId: options.project,
    // Our requests can be 10 MB (docs/google-wire.md §7: the default 4 MiB would fail large batches).
    'grpc.max_send_message_length': 11 * 1024 * 1024,
    'grpc.max_receive_message_length': 11 * 1024 * 1024,
  };
  // Google's client is loaded on first use (or by warm()), not at import: it is most of the
  // gateway's cold start, and the server can listen before it is needed.
  let loading: Promise<{ client: v1.PublisherClient; stub: UnaryStub }> | undefined;
  const client = (): Promise<{ client: v1.PublisherClient; stub: UnaryStub }> => {
    loading ??= (async () => {
      const [{ v1: api }, { credentials }, { OAuth2Client }] = await Promise.all([
        import('@google-cloud/pubsub'),
        import('@grpc/grpc-js'),
        import('google-auth-library'),
      ]);
      if (options.emulatorHost) {
        const [host, port] = options.emulatorHost.replace(/^https?:\/\//, '').split(':');
        Object.assign(clientOptions, {
          servicePath: host,
          port: Number(port ?? 8085),
          sslCreds: credentials.createInsecure(),
          // An emulator needs no credentials: a bare client stops gax probing the metadata server
          // for the universe domain on the first call (seconds offline).
          authClient: new OAuth2Client(),
        });
      }
      const c = new api.PublisherClient(
        clientOptions as ConstructorParameters<typeof api.PublisherClient>[0],
      );
      // The client's gRPC stub: its channel, with the credentials (or the emulator's insecure
      // ones) the client set up. Publish goes through it directly (publishOnce), not through
      // the client's call wrappers and generated encoder.
      const stub = (await c.initialize()) as unknown as UnaryStub;
      return { client: c, stub };
    })();
    loading.catch(() => {
      loading = undefined; // a failed load is tried again on the next publish
    });
    return loading;
  };
  const rpcTimeout = Math.min(total, 3000);
  const send = async (topic: string, messages: readonly OutgoingMessage[]): Promise<string[]> => {
    try {
      const { stub } = await client();
      // The deadline starts once the client is loaded (its first load can take seconds), as the
      // client's own call timeout did.
      const deadline = Date.now() + total;
      const request = encodePublishRequest(`projects/${options.project}/topics/${topic}`, messages);
      // Retried like the client's own settings were (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED;
      // 100 ms doubling to 1 s), each attempt at most 3 s, all within the whole-call deadline.
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        try {
          const ids = await publishOnce(stub, request, Math.min(deadline, Date.now() + rpcTimeout));
          if (ids.length !== messages.length) {
            throw new Error(`Publish returned ${ids.length} ids for ${messages.length} messages`);
          }
          return ids;
        } catch (err) {
          const code = (err as { code?: number }).code;
          if (code === undefined || !RETRYABLE.includes(code) || Date.now() + delay >= deadline) throw err;
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === undefined || [...RETRYABLE, RESOURCE_EXHAUSTED].includes(code)) {
        throw new PublishUnavailableError(`Pub/Sub did not acknowledge: ${(err as Error).message}`, 2);
      }
      throw err;
    }
  };
  const coalesce = coalescing(send, options.maxInFlight ?? 4);
  return {
    publish: coalesce,
    close: async () => {
      if (loading) await (await loading).client.close();
    },
    warm: async () => {
      await client();
    },
  };
}

/** The part of a grpc-js client (the Publisher stub) a unary call needs. */
interface UnaryStub {
  makeUnaryRequest(
    method: string,
    serialize: (value: Buffer) => Buffer,
    deserialize: (bytes: Buffer) => string[],
    argument: Buffer,
    options: { deadline: number },
    callback: (err: (Error & { code?: number }) | null, value?: string[]) => void,
  ): unknown;
}

const PUBLISH_METHOD = '/google.pubsub.v1.Publisher/Publish';
const asIs = (bytes: Buffer) => bytes;

/** One Publish attempt with the request already encoded (adapters/publish-wire.ts). */
function publishOnce(stub: UnaryStub, request: Buffer, deadline: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    stub.makeUnaryRequest(PUBLISH_METHOD, asIs, decodePublishResponse, request, { deadline }, (err, ids) =>
      err ? reject(err) : resolve(ids ?? []),
    );
  });
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
