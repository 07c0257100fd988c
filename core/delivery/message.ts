/**
 * Messages on the `deliveries` topic and the push bodies that bring them to `forward`.
 * One message per permitted destination: attribute `destination=<id>` (the only attribute
 * subscriptions filter on, docs/google-wire.md §7), data = the stored event as JSON.
 */
import type { StoredEvent } from '../event.ts';
import { decodePushBody } from '../push.ts';
import type { Sighting } from '../store/copies.ts';

/** Attribute names on `deliveries` messages. */
export const DELIVERY_ATTRIBUTES = Object.freeze({
  destination: 'destination',
  eventName: 'event_name',
  eventId: 'event_id',
  /** The event row's payload digest: with event_id, the stored event's identity. */
  payloadDigest: 'payload_digest',
  /** "true" on messages published by `replay`: their ledger rows carry replay = true. */
  replay: 'replay',
  /**
   * "true" on a slice replay's messages of events stored before the destination went live (a
   * backfill, core/delivery/backfill.ts): their ledger rows carry backfill = true.
   */
  backfill: 'backfill',
  /** "true" on messages of `replay --force`: sent again over a delivered send-once claim. */
  force: 'force',
  /** "true" on the first fan-out of an identity (core/claims/send-once.ts): it holds the claim. */
  first: 'first',
  /** When `store` first sighted the event's identity (epoch ms): until when a first fan-out may send. */
  sightedAt: 'sighted_at',
});

/** A message to publish on `deliveries`. */
export interface DeliveryMessage {
  readonly data: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/**
 * Builds the `deliveries` message that sends one stored event to one destination; `force` (a
 * replay only) sends it again over a delivered send-once claim (core/claims/send-once.ts).
 */
export function deliveryMessage(
  event: StoredEvent,
  destination: string,
  replay = false,
  force = false,
  sighting?: Sighting,
  backfill = false,
): DeliveryMessage {
  return {
    data: JSON.stringify(event),
    attributes: {
      [DELIVERY_ATTRIBUTES.destination]: destination,
      [DELIVERY_ATTRIBUTES.eventName]: event.event_name,
      [DELIVERY_ATTRIBUTES.eventId]: event.event_id,
      ...(event.payload_digest ? { [DELIVERY_ATTRIBUTES.payloadDigest]: event.payload_digest } : {}),
      ...(replay ? { [DELIVERY_ATTRIBUTES.replay]: 'true' } : {}),
      ...(replay && force ? { [DELIVERY_ATTRIBUTES.force]: 'true' } : {}),
      ...(replay && backfill ? { [DELIVERY_ATTRIBUTES.backfill]: 'true' } : {}),
      ...(sighting?.first && !replay ? { [DELIVERY_ATTRIBUTES.first]: 'true' } : {}),
      ...(sighting ? { [DELIVERY_ATTRIBUTES.sightedAt]: String(sighting.at) } : {}),
    },
  };
}

/**
 * The message of an event decided again once its page view's consent platform answered
 * (core/delivery/consent-wait.ts): not the first fan-out's, so it takes the send-once claim, and
 * seen at 0, since no first fan-out sent it to this destination (its decision was a skip) and
 * there is nothing to wait for.
 */
export function reevaluatedMessage(event: StoredEvent, destination: string): DeliveryMessage {
  return deliveryMessage(event, destination, false, false, { first: false, at: 0 });
}

/** A classic push body, decoded (docs/google-wire.md §3). */
export interface PushedMessage {
  readonly messageId: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The message data, decoded from base64 as UTF-8 text. */
  readonly data: string;
  readonly subscription: string;
  /** 1-based; Pub/Sub sends it only when the subscription has a dead-letter policy. */
  readonly deliveryAttempt: number;
  /** When Pub/Sub took the message (RFC 3339), when the push says. */
  readonly publishTime?: string;
}

export type PushDecode =
  | { readonly ok: true; readonly push: PushedMessage }
  | { readonly ok: false; readonly reason: string };

/** Decodes a classic push body (core/push.ts) for `forward`; anything else is a reason, never a throw. */
export function decodePush(body: unknown): PushDecode {
  const decoded = decodePushBody(body);
  if (!decoded.ok) {
    const reason = decoded.violations.map((v) => `${v.field} ${v.description}`).join('; ');
    return { ok: false, reason: `not a Pub/Sub push body: ${reason}` };
  }
  const m = decoded.message;
  return {
    ok: true,
    push: {
      messageId: m.messageId,
      attributes: m.attributes,
      data: Buffer.from(m.data).toString('utf8'),
      subscription: m.subscription,
      deliveryAttempt: m.deliveryAttempt,
      ...(m.publishTime !== undefined ? { publishTime: m.publishTime } : {}),
    },
  };
}

/** Parses a delivery message's data back into a stored event (shape checked, not the catalogue). */
export function parseStoredEvent(
  data: string,
): { ok: true; event: StoredEvent } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (err) {
    return { ok: false, reason: `message data is not JSON: ${(err as Error).message}` };
  }
  if (!isObject(value)) return { ok: false, reason: 'message data is not a JSON object' };
  if (typeof value['event_id'] !== 'string' || value['event_id'] === '')
    return { ok: false, reason: 'stored event has no event_id' };
  if (typeof value['event_name'] !== 'string' || value['event_name'] === '')
    return { ok: false, reason: 'stored event has no event_name' };
  if (typeof value['event_time'] !== 'string') return { ok: false, reason: 'stored event has no event_time' };
  if (value['event_data'] !== undefined && !isObject(value['event_data']))
    return { ok: false, reason: 'stored event event_data is not an object' };
  const event = { ...value, event_data: value['event_data'] ?? {} } as unknown as StoredEvent;
  return { ok: true, event };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
