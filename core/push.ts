/**
 * The one decoder of Pub/Sub's classic push body (docs: google-wire §3), shared by `store`
 * and `forward`. It keeps what the CloudEvent conversion drops (deliveryAttempt, subscription,
 * orderingKey), accepts both spellings of the ids, and reports anything that is not a push
 * body as field violations, never as a throw. Each function adds only its own requirements
 * (`store` needs publishTime and the subscription; `forward` reads the data as text).
 */
import Type from 'typebox';
import { compileValidator, type FieldViolation } from './validation.ts';

/** A classic push body, decoded. */
export interface PushedBody {
  readonly messageId: string;
  /** RFC 3339, as Pub/Sub sets it when it accepts the publish (always sent by Pub/Sub). */
  readonly publishTime?: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly data: Uint8Array;
  readonly orderingKey?: string;
  /** Full name (`projects/p/subscriptions/s`) or id; empty when the body carries none. */
  readonly subscription: string;
  /** 1-based; Pub/Sub sends it only when the subscription has a dead-letter policy. */
  readonly deliveryAttempt: number;
}

export type PushBodyDecode =
  | { readonly ok: true; readonly message: PushedBody }
  | { readonly ok: false; readonly violations: readonly FieldViolation[] };

const PushBody = Type.Object(
  {
    message: Type.Object({
      data: Type.Optional(Type.String()),
      attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
      messageId: Type.Optional(Type.String({ minLength: 1 })),
      message_id: Type.Optional(Type.String({ minLength: 1 })),
      publishTime: Type.Optional(Type.String({ minLength: 1 })),
      publish_time: Type.Optional(Type.String({ minLength: 1 })),
      orderingKey: Type.Optional(Type.String()),
    }),
    subscription: Type.Optional(Type.String()),
    deliveryAttempt: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { description: 'Pub/Sub classic push body' },
);
const pushValidator = compileValidator(PushBody);

/** 1 for each character of the standard base64 alphabet (RFC 4648 §4), by char code. */
const ALPHABET = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  ALPHABET[c.charCodeAt(0)] = 1;

/**
 * Whether `text` is standard base64 with its padding (Pub/Sub's `data`), checked before
 * decoding, since Buffer.from(…, 'base64') skips what it does not understand. The same language
 * as /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, by a table loop: that
 * regular expression cost ~3 µs for a 600-character event, on every push of every function.
 */
export function isStandardBase64(text: string): boolean {
  const n = text.length;
  if (n % 4 !== 0) return false;
  if (n === 0) return true;
  // The last group may end in "=" or "==": the last two characters are checked on their own.
  for (let i = 0; i < n - 2; i++) if (ALPHABET[text.charCodeAt(i)] !== 1) return false;
  const a = text.charCodeAt(n - 2);
  const b = text.charCodeAt(n - 1);
  if (b === 0x3d) return a === 0x3d || ALPHABET[a] === 1; // "x=" or "=="
  return ALPHABET[a] === 1 && ALPHABET[b] === 1;
}

/** Decodes a classic push body. */
export function decodePushBody(body: unknown): PushBodyDecode {
  const violations = pushValidator.violations(body);
  if (violations.length > 0) return { ok: false, violations };
  const push = body as {
    message: {
      data?: string;
      attributes?: Record<string, string>;
      messageId?: string;
      message_id?: string;
      publishTime?: string;
      publish_time?: string;
      orderingKey?: string;
    };
    subscription?: string;
    deliveryAttempt?: number;
  };
  const m = push.message;
  const messageId = m.messageId ?? m.message_id;
  const publishTime = m.publishTime ?? m.publish_time;
  const problems: FieldViolation[] = [];
  if (messageId === undefined) problems.push({ field: 'message.messageId', description: 'is required' });
  if (publishTime !== undefined && Number.isNaN(Date.parse(publishTime))) {
    problems.push({ field: 'message.publishTime', description: 'is not an RFC 3339 timestamp' });
  }
  const data = m.data ?? '';
  if (!isStandardBase64(data))
    problems.push({ field: 'message.data', description: 'is not standard base64' });
  if (problems.length > 0) return { ok: false, violations: problems };
  return {
    ok: true,
    message: {
      messageId: messageId as string,
      ...(publishTime !== undefined ? { publishTime } : {}),
      attributes: m.attributes ?? {},
      data: Buffer.from(data, 'base64'),
      ...(m.orderingKey ? { orderingKey: m.orderingKey } : {}),
      subscription: push.subscription ?? '',
      // Without a dead-letter policy Pub/Sub sends 0 or nothing: count the delivery as the first.
      deliveryAttempt: Math.max(1, push.deliveryAttempt ?? 1),
    },
  };
}
