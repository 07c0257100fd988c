/**
 * Publishing a request's events in ONE Publish call (so a batch is all-or-nothing,
 * docs/google-wire.md §7) over the gateway's own gRPC unary client on `node:http2`
 * (adapters/grpc-unary.ts): the request is encoded by hand (adapters/publish-wire.ts) and sent
 * as one HTTP/2 stream on a kept session to pubsub.googleapis.com (or the emulator), with our own
 * short timeout and retry so a bus that is down gives the caller a 503 within seconds instead of
 * the library's 600 s retries. grpc-js's per-call machinery (resolving and subchannel calls,
 * filters, metadata objects) was ~15% of the gateway's CPU per single-event request.
 */

import type { CallCredentials, UnaryClient } from './grpc-unary.ts';
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
  /** Connects (and gets credentials) ahead of the first publish (the gateway calls it once it listens). */
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
  /**
   * How long a call in flight holds the next one back (group commit): requests that arrive
   * meanwhile wait for its answer and then share one call, unless it has been in flight this long,
   * when a free slot is taken. Default 10 ms, the wait Google's own client batches over.
   */
  readonly holdMs?: number;
  /** `host:port` of an emulator (plaintext gRPC, no auth); production when absent. */
  readonly emulatorHost?: string;
  /** Whole-call deadline including retries (default 5000 ms). */
  readonly totalTimeoutMs?: number;
  /** Credentials for production (default: application-default credentials, Pub/Sub scope); tests inject. */
  readonly credentials?: CallCredentials;
}

// gRPC codes that mean "not now": the call is retried within the deadline, then reported as 503.
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const ABORTED = 10;
const RETRYABLE = [UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED];

const PUBLISH_PATH = '/google.pubsub.v1.Publisher/Publish';
const ENDPOINT = 'https://pubsub.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/pubsub';
// Our requests can be 10 MB (docs/google-wire.md §7: gRPC's default 4 MiB would fail large batches).
const MAX_MESSAGE_BYTES = 11 * 1024 * 1024;

/** Creates the publisher: one Publish per (coalesced) request, on one HTTP/2 session. */
export function createPublisher(options: PublisherOptions): EventPublisher {
  const total = options.totalTimeoutMs ?? 5000;
  // An emulator is the same client on another origin, plaintext and without credentials.
  const origin = options.emulatorHost ? emulatorOrigin(options.emulatorHost) : ENDPOINT;
  // The client module is loaded on first use (or by warm()), and google-auth-library only in
  // production: neither is on the gateway's cold start.
  let loading: Promise<UnaryClient> | undefined;
  const client = (): Promise<UnaryClient> => {
    loading ??= (async () => {
      const { createUnaryClient } = await import('./grpc-unary.ts');
      const credentials = options.emulatorHost
        ? undefined
        : (options.credentials ?? (await googleCredentials()));
      return createUnaryClient({
        origin,
        maxMessageBytes: MAX_MESSAGE_BYTES,
        headers: {
          'user-agent': 'eventbus-gateway',
          // Google's usage header: the runtime, and who calls (no gax/gapic/grpc: none of them is used).
          'x-goog-api-client': `gl-node/${process.versions.node} eventbus-gateway/1`,
        },
        ...(credentials ? { credentials } : {}),
      });
    })();
    loading.catch(() => {
      loading = undefined; // a failed load is tried again on the next publish
    });
    return loading;
  };
  // The routing header Google's clients send with every Publish (gax's x-goog-request-params),
  // made once per topic.
  const routing = new Map<string, { name: string; headers: Record<string, string> }>();
  const routeOf = (topic: string) => {
    let r = routing.get(topic);
    if (!r) {
      const name = `projects/${options.project}/topics/${topic}`;
      r = { name, headers: { 'x-goog-request-params': `topic=${encodeURIComponent(name)}` } };
      routing.set(topic, r);
    }
    return r;
  };
  const rpcTimeout = Math.min(total, 3000);
  const send = async (topic: string, messages: readonly OutgoingMessage[]): Promise<string[]> => {
    try {
      const unary = await client();
      // The deadline starts once the client is loaded (its first load can take a moment).
      const deadline = Date.now() + total;
      const route = routeOf(topic);
      const body = encodePublishRequest(route.name, messages);
      // Retried like Google's client's settings (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED;
      // 100 ms doubling to 1 s), each attempt at most 3 s, all within the whole-call deadline.
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        try {
          const ids = decodePublishResponse(
            await unary.call({
              path: PUBLISH_PATH,
              body,
              deadline: Math.min(deadline, Date.now() + rpcTimeout),
              headers: route.headers,
            }),
          );
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
  const coalesce = coalescing(send, options.maxInFlight ?? 4, options.holdMs ?? DEFAULT_HOLD_MS);
  return {
    publish: coalesce,
    close: async () => {
      if (loading) await (await loading).close();
    },
    warm: async () => {
      await (await client()).connect();
    },
  };
}

/** `http://host:port` of `PUBSUB_EMULATOR_HOST` (`host:port`, a scheme tolerated; port 8085 by default). */
function emulatorOrigin(host: string): string {
  const bare = host.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  return /:\d+$/.test(bare) ? `http://${bare}` : `http://${bare}:8085`;
}

/** Application-default credentials for Pub/Sub, as cached headers (adapters/google-credentials.ts). */
async function googleCredentials(): Promise<CallCredentials> {
  const [{ GoogleAuth }, { cachedCredentials }] = await Promise.all([
    import('google-auth-library'),
    import('./google-credentials.ts'),
  ]);
  return cachedCredentials(new GoogleAuth({ scopes: [SCOPE] }));
}

/** How long a Publish call in flight holds the next one back (see PublisherOptions.holdMs). */
export const DEFAULT_HOLD_MS = 10;

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
 * While a call is in flight, new requests wait for its answer (group commit), and take a free
 * slot only once the latest call has been in flight `holdMs`: a slow or stuck call does not hold
 * everyone back, while a quick bus gets fewer, fuller calls (each call costs both sides far more
 * than a message does). Requests of one event-loop turn always go together.
 * A request is never split across calls, so it is published whole or not at all; if a shared
 * call fails, every request in it fails (and each caller gets its 503).
 */
export function coalescing(
  send: (topic: string, messages: readonly OutgoingMessage[]) => Promise<string[]>,
  maxInFlight: number,
  holdMs = 0,
): (topic: string, messages: readonly OutgoingMessage[]) => Promise<string[]> {
  const queues = new Map<string, Waiting[]>();
  const busy = new Map<string, number>();
  /** Per topic: when its latest call went out. */
  const latest = new Map<string, number>();
  /** Per topic: the timer that frees a slot once the latest call has been in flight holdMs. */
  const holding = new Map<string, NodeJS.Timeout>();
  const deferred = new Set<string>();
  /** Whether a waiting request may take a free slot now; if not yet, a timer pumps when it may. */
  const mayStart = (topic: string): boolean => {
    const inFlight = busy.get(topic) ?? 0;
    if (inFlight === 0) return true;
    if (inFlight >= maxInFlight) return false; // the next answer pumps
    const wait = (latest.get(topic) ?? 0) + holdMs - Date.now();
    if (wait <= 0) return true;
    if (!holding.has(topic)) {
      holding.set(
        topic,
        setTimeout(() => {
          holding.delete(topic);
          pump(topic);
        }, wait),
      );
    }
    return false;
  };
  const pump = (topic: string) => {
    const queue = queues.get(topic);
    while (queue && queue.length > 0 && mayStart(topic)) {
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
      latest.set(topic, Date.now());
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
