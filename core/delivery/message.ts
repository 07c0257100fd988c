/**
 * Messages on the `deliveries` topic and the push bodies that bring them to `forward`.
 * One message per permitted destination: attribute `destination=<id>` (the only attribute
 * subscriptions filter on, GCP-WIRE.md §7), data = the stored event as JSON.
 */
import type { StoredEvent } from '../event.ts';

/** Attribute names on `deliveries` messages. */
export const DELIVERY_ATTRIBUTES = Object.freeze({
  destination: 'destination',
  eventName: 'event_name',
  eventId: 'event_id',
  /** "true" on messages published by `replay`: their ledger rows carry replay = true. */
  replay: 'replay',
});

/** A message to publish on `deliveries`. */
export interface DeliveryMessage {
  readonly data: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Builds the `deliveries` message that sends one stored event to one destination. */
export function deliveryMessage(event: StoredEvent, destination: string, replay = false): DeliveryMessage {
  return {
    data: JSON.stringify(event),
    attributes: {
      [DELIVERY_ATTRIBUTES.destination]: destination,
      [DELIVERY_ATTRIBUTES.eventName]: event.event_name,
      [DELIVERY_ATTRIBUTES.eventId]: event.event_id,
      ...(replay ? { [DELIVERY_ATTRIBUTES.replay]: 'true' } : {}),
    },
  };
}

/** A classic push body, decoded (GCP-WIRE.md §3). */
export interface PushedMessage {
  readonly messageId: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The message data, decoded from base64 as UTF-8 text. */
  readonly data: string;
  readonly subscription: string;
  /** 1-based; Pub/Sub sends it only when the subscription has a dead-letter policy. */
  readonly deliveryAttempt: number;
}

export type PushDecode =
  | { readonly ok: true; readonly push: PushedMessage }
  | { readonly ok: false; readonly reason: string };

/** Decodes a classic push body; anything else is a reason, never a throw. */
export function decodePush(body: unknown): PushDecode {
  if (!isObject(body)) return { ok: false, reason: 'body is not a Pub/Sub push envelope (object expected)' };
  const message = body['message'];
  if (!isObject(message)) return { ok: false, reason: 'push envelope has no `message` object' };
  const messageId = message['messageId'] ?? message['message_id'];
  if (typeof messageId !== 'string' || messageId === '')
    return { ok: false, reason: 'push message has no messageId' };
  const rawAttributes = message['attributes'] ?? {};
  if (!isObject(rawAttributes)) return { ok: false, reason: 'push message attributes are not an object' };
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttributes)) {
    if (typeof v !== 'string') return { ok: false, reason: `push message attribute ${k} is not a string` };
    attributes[k] = v;
  }
  const rawData = message['data'] ?? '';
  if (typeof rawData !== 'string') return { ok: false, reason: 'push message data is not base64 text' };
  const attempt = body['deliveryAttempt'];
  return {
    ok: true,
    push: {
      messageId,
      attributes,
      data: Buffer.from(rawData, 'base64').toString('utf8'),
      subscription: typeof body['subscription'] === 'string' ? body['subscription'] : '',
      deliveryAttempt: typeof attempt === 'number' && Number.isInteger(attempt) && attempt > 0 ? attempt : 1,
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
