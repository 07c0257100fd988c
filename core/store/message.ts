/**
 * The Pub/Sub message as the store path reads it, pushed or pulled: its shape, the decoding of a
 * classic push body, and the attributes Pub/Sub sets on a dead letter.
 */

import { decodePushBody } from '../push.ts';
import type { FieldViolation } from '../validation.ts';

/** A Pub/Sub message as the store path needs it, whether pushed or pulled. */
export interface PubSubMessage {
  readonly messageId: string;
  /** RFC 3339, as Pub/Sub sets it when it accepts the publish. */
  readonly publishTime: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly data: Uint8Array;
  readonly orderingKey?: string;
  /** Full name (`projects/p/subscriptions/s`) or id of the subscription that delivered it. */
  readonly subscription: string;
  /** 1-based; Pub/Sub sends it only when the subscription has a dead-letter policy. */
  readonly deliveryAttempt: number;
}

export type PushDecode =
  | { readonly ok: true; readonly message: PubSubMessage }
  | { readonly ok: false; readonly violations: readonly FieldViolation[] };

/**
 * Decodes a classic push body for the store path (core/push.ts), which also needs the
 * publishTime (the fallback event_time) and the subscription (the event's topic).
 */
export function decodeStorePush(body: unknown): PushDecode {
  const decoded = decodePushBody(body);
  if (!decoded.ok) return decoded;
  const { publishTime, subscription } = decoded.message;
  const problems: FieldViolation[] = [];
  if (publishTime === undefined)
    problems.push({ field: 'message.publishTime', description: 'is required, as an RFC 3339 timestamp' });
  if (subscription === '') problems.push({ field: 'subscription', description: 'is required' });
  if (problems.length > 0) return { ok: false, violations: problems };
  return { ok: true, message: { ...decoded.message, publishTime: publishTime as string } };
}
/**
 * Attribute Pub/Sub sets on dead-lettered messages: the subscription they came from. Only ever
 * informative: a producer can set any attribute Pub/Sub does not reserve (the gateway refuses
 * this family, but the native path cannot), so the store path never derives the topic from it.
 */
export const DEAD_LETTER_SOURCE = 'CloudPubSubDeadLetterSourceSubscription';

/** Pub/Sub's attribute on a dead letter: when the message was first published. */
export const DEAD_LETTER_PUBLISH_TIME = 'CloudPubSubDeadLetterSourceTopicPublishTime';
