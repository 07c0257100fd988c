/**
 * Pulling a dead-letter backlog subscription (the replays of the CLI and the scheduler's
 * automatic re-drive): the v1 client's unary pull, messages in the store path's shape, and the
 * drain loop.
 */
import type { PubSub, v1 } from '@google-cloud/pubsub';
import type { PubSubMessage } from '../core/store/message.ts';

/** A message pulled from a backlog subscription. */
export interface Pulled {
  readonly ackId: string;
  readonly message: PubSubMessage;
}

/** The few Pub/Sub calls a replay makes (unary pull, ack, nack), so tests can fake them. */
export interface PullSource {
  pull(subscription: string, maxMessages: number): Promise<Pulled[]>;
  ack(subscription: string, ackIds: readonly string[]): Promise<void>;
  nack(subscription: string, ackIds: readonly string[]): Promise<void>;
}

/** The bound on one backlog pull, which answers at once (returnImmediately) unless Pub/Sub is slow. */
export const BACKLOG_PULL_TIMEOUT_MS = 10_000;

/** Pub/Sub's attribute with the original publish time of a dead-lettered message. */
const SOURCE_PUBLISH_TIME = 'CloudPubSubDeadLetterSourceTopicPublishTime';
const SOURCE_DELIVERY_COUNT = 'CloudPubSubDeadLetterSourceDeliveryCount';

/**
 * Pulls a backlog batch by batch and hands each batch to `handle`, until `handle` says stop,
 * `limit` messages were taken, or the backlog is empty. A unary pull may come back empty
 * while messages remain, so the backlog counts as empty after two empty answers in a row.
 */
export async function drainBacklog<T>(
  source: { pull(subscription: string, maxMessages: number): Promise<T[]> },
  subscription: string,
  options: { readonly limit: number | undefined; readonly batchSize: number },
  handle: (batch: T[]) => Promise<'continue' | 'stop'>,
): Promise<number> {
  const { limit, batchSize } = options;
  let taken = 0;
  let empty = 0;
  while (empty < 2 && (limit === undefined || taken < limit)) {
    const batch = await source.pull(
      subscription,
      limit === undefined ? batchSize : Math.min(batchSize, limit - taken),
    );
    if (batch.length === 0) {
      empty++;
      continue;
    }
    empty = 0;
    taken += batch.length;
    if ((await handle(batch)) === 'stop') break;
  }
  return taken;
}

function timestampText(t: unknown): string {
  if (typeof t === 'string') return t;
  const ts = t as { seconds?: unknown; nanos?: unknown } | null | undefined;
  const ms = Number(String(ts?.seconds ?? 0)) * 1000 + Math.floor(Number(ts?.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
}

interface ReceivedLike {
  ackId?: string | null;
  deliveryAttempt?: number | null;
  message?: {
    data?: Uint8Array | string | null;
    attributes?: Record<string, string> | null;
    messageId?: string | null;
    publishTime?: unknown;
    orderingKey?: string | null;
  } | null;
}

/** A received backlog message in the store path's shape; the original publish time is kept. */
export function fromReceived(received: ReceivedLike, subscription: string): Pulled {
  const m = received.message ?? {};
  const attributes = { ...(m.attributes ?? {}) };
  const original = attributes[SOURCE_PUBLISH_TIME];
  const publishTime =
    original && !Number.isNaN(Date.parse(original)) ? original : timestampText(m.publishTime);
  const data = typeof m.data === 'string' ? Buffer.from(m.data, 'base64') : (m.data ?? new Uint8Array());
  return {
    ackId: received.ackId ?? '',
    message: {
      messageId: m.messageId ?? '',
      publishTime,
      attributes,
      data,
      ...(m.orderingKey ? { orderingKey: m.orderingKey } : {}),
      subscription,
      deliveryAttempt: Number(attributes[SOURCE_DELIVERY_COUNT] ?? received.deliveryAttempt ?? 1),
    },
  };
}

/**
 * A PullSource over the v1 SubscriberClient, configured like the caller's PubSub client (its
 * emulator endpoint included), which the command also publishes with and closes itself.
 */
export async function pubSubPullSource(
  pubsub: PubSub,
  project: string,
): Promise<PullSource & { close(): Promise<void> }> {
  const { v1 } = await import('@google-cloud/pubsub');
  // getClientConfig() carries the emulator endpoint and insecure credentials when set; its
  // optional fields are typed looser than the constructor's under exactOptionalPropertyTypes.
  const clientOptions = (await pubsub.getClientConfig()) as ConstructorParameters<
    typeof v1.SubscriberClient
  >[0];
  const client = new v1.SubscriberClient(clientOptions);
  const path = (s: string) => `projects/${project}/subscriptions/${s}`;
  return {
    async pull(subscription, maxMessages) {
      // An empty backlog answers at once: without returnImmediately Pub/Sub may hold the pull up
      // to its deadline (DEADLINE_EXCEEDED, an ERROR line, and the scheduler billed for the
      // wait, per destination per minute). A pull that comes back empty while messages remain
      // (what Google warns returnImmediately makes likelier) is why callers ask twice, and the
      // next minute's run takes what this one left.
      const [resp] = await client.pull(
        { subscription: path(subscription), maxMessages, returnImmediately: true },
        { timeout: BACKLOG_PULL_TIMEOUT_MS },
      );
      return (resp.receivedMessages ?? []).map((r) => fromReceived(r as ReceivedLike, path(subscription)));
    },
    async ack(subscription, ackIds) {
      if (ackIds.length > 0)
        await client.acknowledge({ subscription: path(subscription), ackIds: [...ackIds] });
    },
    async nack(subscription, ackIds) {
      if (ackIds.length > 0)
        await client.modifyAckDeadline({
          subscription: path(subscription),
          ackIds: [...ackIds],
          ackDeadlineSeconds: 0,
        });
    },
    async close() {
      await client.close();
    },
  };
}
