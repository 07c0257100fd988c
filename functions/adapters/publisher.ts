/**
 * Publishing a request's events in ONE Publish call with the raw `v1.PublisherClient` (so a
 * batch is all-or-nothing, GCP-WIRE.md §7), with our own short timeout and retry so a bus
 * that is down gives the caller a 503 within seconds instead of the library's 600 s retries.
 */

import { v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import { OAuth2Client } from 'google-auth-library';

export interface OutgoingMessage {
  readonly data: Buffer;
  readonly attributes: Readonly<Record<string, string>>;
}

/** What the gateway needs from the bus; tests inject a fake. */
export interface EventPublisher {
  /** Resolves with one message id per message, in order, once Pub/Sub acknowledged them. */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<string[]>;
  close(): Promise<void>;
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
    // Our requests can be 10 MB (GCP-WIRE.md §7: the default 4 MiB would fail large batches).
    'grpc.max_send_message_length': 11 * 1024 * 1024,
    'grpc.max_receive_message_length': 11 * 1024 * 1024,
  };
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
  const client = new v1.PublisherClient(clientOptions as ConstructorParameters<typeof v1.PublisherClient>[0]);
  const callOptions = {
    timeout: total,
    retry: {
      retryCodes: RETRYABLE,
      backoffSettings: {
        initialRetryDelayMillis: 100,
        retryDelayMultiplier: 2,
        maxRetryDelayMillis: 1000,
        initialRpcTimeoutMillis: Math.min(total, 3000),
        rpcTimeoutMultiplier: 1,
        maxRpcTimeoutMillis: Math.min(total, 3000),
        totalTimeoutMillis: total,
      },
    },
  };
  return {
    async publish(topic, messages) {
      try {
        const [response] = await client.publish(
          {
            topic: `projects/${options.project}/topics/${topic}`,
            messages: messages.map((m) => ({ data: m.data, attributes: { ...m.attributes } })),
          },
          callOptions,
        );
        const ids = response.messageIds ?? [];
        if (ids.length !== messages.length) {
          throw new Error(`Publish returned ${ids.length} ids for ${messages.length} messages`);
        }
        return ids;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === undefined || [...RETRYABLE, RESOURCE_EXHAUSTED].includes(code)) {
          throw new PublishUnavailableError(`Pub/Sub did not acknowledge: ${(err as Error).message}`, 2);
        }
        throw err;
      }
    },
    close: () => client.close(),
  };
}
