/**
 * Dead letters in the ledger (docs/delivery.md): Pub/Sub moves a delivery to its destination's
 * dead-letter topic after the subscription's last attempt, counting pushes that never reached
 * `forward` (a refused connection while it restarted, a push deadline). A second subscription on
 * each of those topics pushes every dead letter back to `forward`, which records it here: one
 * `dead_lettered` row per dead letter, with the attempts Pub/Sub counted. `forward`'s own rows
 * for the attempts it saw are `failed`.
 */
import type { ForwardResult } from './forward.ts';
import { attemptEntry } from './ledger.ts';
import { DELIVERY_ATTRIBUTES, type PushedMessage } from './message.ts';

/** Attributes Pub/Sub adds to a message it dead-letters. */
export const DEAD_LETTER_ATTRIBUTES = Object.freeze({
  count: 'CloudPubSubDeadLetterSourceDeliveryCount',
  subscription: 'CloudPubSubDeadLetterSourceSubscription',
  publishTime: 'CloudPubSubDeadLetterSourceTopicPublishTime',
});

export function isDeadLetter(push: PushedMessage): boolean {
  return push.attributes[DEAD_LETTER_ATTRIBUTES.subscription] !== undefined;
}

/** The event's id and name from the attributes, or from the data when a producer left them out. */
function eventOf(push: PushedMessage): { event_id: string; event_name: string; payload_digest?: string } {
  const a = push.attributes;
  let id = a[DELIVERY_ATTRIBUTES.eventId];
  let name = a[DELIVERY_ATTRIBUTES.eventName];
  let digest = a[DELIVERY_ATTRIBUTES.payloadDigest];
  if (id === undefined || name === undefined || digest === undefined) {
    try {
      const data = JSON.parse(push.data) as {
        event_id?: unknown;
        event_name?: unknown;
        payload_digest?: unknown;
      };
      if (typeof data.event_id === 'string') id ??= data.event_id;
      if (typeof data.event_name === 'string') name ??= data.event_name;
      if (typeof data.payload_digest === 'string') digest ??= data.payload_digest;
    } catch {
      // Not JSON: recorded under the message id below.
    }
  }
  return {
    event_id: id ?? `message:${push.messageId}`,
    event_name: name ?? '(unknown)',
    ...(digest !== undefined ? { payload_digest: digest } : {}),
  };
}

/**
 * The ledger row of one dead letter. Its insertId comes from the dead letter's own message id, so
 * a redelivered push of it writes the same row; it is acknowledged once the row is written.
 */
export function recordDeadLetter(push: PushedMessage, now: Date): ForwardResult {
  const a = push.attributes;
  const destination = a[DELIVERY_ATTRIBUTES.destination] ?? '(unknown)';
  const count = Number(a[DEAD_LETTER_ATTRIBUTES.count]);
  const attempts = Number.isSafeInteger(count) && count > 0 ? count : 0;
  const source = a[DEAD_LETTER_ATTRIBUTES.subscription] ?? 'its subscription';
  const event = eventOf(push);
  const reason = `dead-lettered by Pub/Sub after ${attempts} delivery attempts on ${source} (the failed rows are the attempts forward saw; the others never reached it); replay it from the backlog`;
  const entry = attemptEntry({
    ...event,
    destination,
    status: 'dead_lettered',
    reason,
    attempt: attempts,
    replay: a[DELIVERY_ATTRIBUTES.replay] === 'true',
    backfill: a[DELIVERY_ATTRIBUTES.backfill] === 'true',
    messageId: push.messageId,
    now,
  });
  return {
    ack: true,
    entries: [entry],
    summary: `${event.event_id} → ${destination}: dead-lettered after ${attempts} attempts`,
  };
}
