/**
 * The store path, pure: a classic push body (or a pulled dead letter) in, warehouse rows
 * out. Valid events become `events` rows with insertId = event_id; everything else becomes
 * an `invalid_events` row with every error, so nothing that reached the bus is dropped.
 * The writer and the after-store hook are injected, so this module does no I/O itself.
 */
import type { Settings } from '../schemas/settings.ts';
import type { DefinedEvent, DefinedEvents } from './defined-events.ts';
import type { StoredEvent } from './event.ts';
import {
  lastIso,
  type NormalizedEvent,
  type NormalizeOptions,
  normalizeEvent,
  normalizeOptions,
} from './event.ts';
import { applyPiiPolicy, type PiiPolicy, scrubText, sha256 } from './pii.ts';
import { backlogSubscriptionName, deadLetterLedgerSubscriptionName, type Plan } from './plan.ts';
import { decodePushBody } from './push.ts';
import type { InsertRow, RowRejection, RowWriter } from './rows.ts';
import type { FieldViolation } from './validation.ts';
import { TABLES } from './warehouse.ts';

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

/** What the store path reads from the environment, resolved once at cold start. */
export interface StoreConfig extends PiiPolicy {
  readonly normalize: NormalizeOptions;
  /** Subscription id → the events topic it reads (from plan()). */
  readonly topics: ReadonlyMap<string, string>;
  /** Context fields stored as SHA-256 hex in the warehouse (`user.email`…). */
  readonly hashInWarehouse: readonly string[];
  /** Context fields never stored. */
  readonly drop: readonly string[];
}

/**
 * Subscription id → events topic, for every subscription whose messages reach the store path:
 * the store subscriptions (pushed) and the backlogs of their dead-letter topics (pulled by
 * `eventbus replay`). Known from the plan, so provenance never depends on an attribute.
 */
function storeTopics(plan: Plan): Map<string, string> {
  const topics = new Map<string, string>();
  for (const s of plan.subscriptions) {
    if (s.kind !== 'store') continue;
    topics.set(s.name, s.topic);
    const dlTopic = s.deadLetterPolicy?.deadLetterTopic;
    if (dlTopic) {
      topics.set(backlogSubscriptionName(dlTopic), s.topic);
      topics.set(deadLetterLedgerSubscriptionName(dlTopic), s.topic);
    }
  }
  return topics;
}

/** Resolves the store path's configuration from settings and their plan. */
export function storeConfig(settings: Readonly<Settings>, plan: Plan): StoreConfig {
  return Object.freeze({
    normalize: normalizeOptions(settings),
    topics: storeTopics(plan),
    hashInWarehouse: settings.pii?.hash_in_warehouse ?? [],
    drop: settings.pii?.drop ?? [],
  });
}

/**
 * Attribute Pub/Sub sets on dead-lettered messages: the subscription they came from. Only ever
 * informative: a producer can set any attribute Pub/Sub does not reserve (the gateway refuses
 * this family, but the native path cannot), so the store path never derives the topic from it.
 */
export const DEAD_LETTER_SOURCE = 'CloudPubSubDeadLetterSourceSubscription';

const lastSegment = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/**
 * The events topic a message was published to, from the subscription that delivered it (a
 * push body names only the subscription; Pub/Sub sets it, not the publisher), looked up in the
 * plan. A subscription the plan does not know keeps its own name, minus a `-store` suffix.
 */
export function topicOf(message: PubSubMessage, config: StoreConfig): string {
  const sub = lastSegment(message.subscription);
  const known = config.topics.get(sub);
  if (known) return known;
  return sub.endsWith('-store') ? sub.slice(0, -'-store'.length) : sub;
}

/** Why a message landed in `invalid_events` (the `reason` column). */
export type InvalidReason = 'invalid_event' | 'not_json' | 'malformed_push' | 'rejected_by_warehouse';

/** One message's fate: an event row (and the stored event for the decision layer), or an invalid row. */
export type MessageRows =
  | { readonly kind: 'event'; readonly row: InsertRow; readonly event: StoredEvent }
  | { readonly kind: 'invalid'; readonly row: InsertRow };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function payloadText(data: Uint8Array): { text: string; base64: boolean } {
  try {
    return { text: utf8.decode(data), base64: false };
  } catch {
    return { text: Buffer.from(data).toString('base64'), base64: true };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** stored_at and received_at alternate, so each has its own memory. */
const iso = lastIso();
const isoReceived = lastIso();

/**
 * Turns one Pub/Sub message into its warehouse row. On the native path a missing event_id
 * becomes the messageId and a missing event_time the publishTime, so a redelivery produces
 * the same row; the event_time window is checked against the publishTime for the same reason.
 */
export function messageRows(
  message: PubSubMessage,
  config: StoreConfig,
  now: number,
  defined?: DefinedEvents,
): MessageRows {
  const topic = topicOf(message, config);
  const publishMs = Date.parse(message.publishTime);
  const receivedAt = isoReceived(publishMs);
  const payload = payloadText(message.data);
  const invalid = (reason: InvalidReason, errors: readonly FieldViolation[], raw?: unknown): MessageRows => ({
    kind: 'invalid',
    row: invalidRow({
      insertId: `${message.messageId}/invalid`,
      receivedAt,
      now,
      reason,
      topic,
      subscription: message.subscription,
      messageId: message.messageId,
      raw,
      payload: payload.text,
      attributes: message.attributes,
      pii: config,
      errors: payload.base64
        ? [...errors, { field: '(payload)', description: 'is not UTF-8; stored as base64' }]
        : errors,
    }),
  });

  if (payload.base64)
    return invalid('not_json', [{ field: '(root)', description: 'message data is not UTF-8 text' }]);
  let value: unknown;
  try {
    value = JSON.parse(payload.text);
  } catch (err) {
    return invalid('not_json', [
      { field: '(root)', description: `message data is not JSON: ${(err as Error).message}` },
    ]);
  }
  const stamp = message.attributes['definition_version'];
  const result = normalizeEvent(value, {
    options: config.normalize,
    now: publishMs,
    newId: () => message.messageId,
    ...(defined ? { defined } : {}),
    ...(stamp !== undefined ? { stamp } : {}),
  });
  if (!result.ok) return invalid('invalid_event', result.violations, value);

  const event: StoredEvent = {
    ...result.event,
    received_at: receivedAt,
    topic,
    ...(result.definition ? { definition_version: result.definition.stamp } : {}),
  };
  return {
    kind: 'event',
    event,
    row: {
      insertId: event.event_id,
      json: eventRow(result.event, {
        receivedAt,
        now,
        topic,
        messageId: message.messageId,
        version: result.version,
        definition: result.definition,
        attributes: message.attributes,
        config,
      }),
    },
  };
}

function eventRow(
  event: NormalizedEvent,
  meta: {
    receivedAt: string;
    now: number;
    topic: string;
    messageId: string;
    version: number;
    definition: DefinedEvent | undefined;
    attributes: Readonly<Record<string, string>>;
    config: StoreConfig;
  },
): Record<string, unknown> {
  // A definition's `pii` fields are hashed like the settings' hash_in_warehouse paths (unless the
  // settings drop them).
  const extra = meta.definition?.piiPaths.filter((p) => !meta.config.drop.includes(p)) ?? [];
  const { event_data, ...context } = applyPiiPolicy(event, {
    hashInWarehouse:
      extra.length > 0 ? [...meta.config.hashInWarehouse, ...extra] : meta.config.hashInWarehouse,
    drop: meta.config.drop,
  });
  return {
    ...context,
    received_at: meta.receivedAt,
    stored_at: iso(meta.now),
    topic: meta.topic,
    message_id: meta.messageId,
    schema_version: meta.version,
    // JSON columns take JSON text in insertAll.
    event_data: JSON.stringify(event_data),
    attributes: JSON.stringify(meta.attributes),
    ...(meta.definition ? { definition_version: meta.definition.stamp } : {}),
  };
}

interface InvalidInput {
  readonly insertId: string;
  readonly receivedAt: string;
  readonly now: number;
  readonly reason: InvalidReason;
  readonly topic?: string | undefined;
  readonly subscription?: string | undefined;
  readonly messageId?: string | undefined;
  /** The parsed payload, when it parsed: event_id / event_name are read from it. */
  readonly raw?: unknown;
  readonly payload: string;
  readonly attributes?: Readonly<Record<string, string>> | undefined;
  readonly errors: readonly FieldViolation[];
  /** The warehouse's PII policy, applied to the payload too (it is kept for debugging, not for PII). */
  readonly pii?: PiiPolicy | undefined;
}

/**
 * The raw payload as the warehouse may keep it: when it is a JSON object, the PII policy's
 * fields are hashed or dropped and the rest keeps its shape (re-serialised); other text, whose
 * fields cannot be found, has emails and international phone numbers replaced.
 */
function keptPayload(payload: string, pii: PiiPolicy | undefined): string {
  if (!pii || (pii.hashInWarehouse.length === 0 && pii.drop.length === 0)) return payload;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return scrubText(payload);
  }
  return isObject(value) ? JSON.stringify(applyPiiPolicy(value, rawPaths(pii))) : scrubText(payload);
}

/**
 * The policy for a payload as the producer sent it: an event field (`event_data.x`) may sit at
 * the top level there, so each such path also applies without its `event_data.` prefix.
 */
function rawPaths(pii: PiiPolicy): PiiPolicy {
  const both = (paths: readonly string[]) =>
    paths.flatMap((p) => (p.startsWith('event_data.') ? [p, p.slice('event_data.'.length)] : [p]));
  return { hashInWarehouse: both(pii.hashInWarehouse), drop: both(pii.drop) };
}

/** An `invalid_events` row; event_id and event_name are kept when they can be read. */
export function invalidRow(input: InvalidInput): InsertRow {
  const raw = isObject(input.raw) ? input.raw : {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, 1024) : null);
  return {
    insertId: input.insertId,
    json: {
      received_at: input.receivedAt,
      stored_at: iso(input.now),
      reason: input.reason,
      topic: input.topic ?? null,
      subscription: input.subscription ?? null,
      message_id: input.messageId ?? null,
      event_id: text(raw['event_id']),
      event_name: text(raw['event_name']),
      payload: keptPayload(input.payload, input.pii),
      attributes: input.attributes ? JSON.stringify(input.attributes) : null,
      errors: input.errors.map((e) => ({ path: e.field, message: e.description })),
    },
  };
}

/**
 * The row for a request that is not a push body at all (a stray POST): kept with its raw
 * body so nothing is lost, with an insertId from the body's hash so a retried POST folds.
 */
export function malformedPushRow(
  body: string,
  violations: readonly FieldViolation[],
  now: number,
): InsertRow {
  return invalidRow({
    insertId: `malformed/${sha256(body)}`,
    receivedAt: iso(now),
    now,
    reason: 'malformed_push',
    payload: body,
    errors: violations,
  });
}

/** Called with the events of a batch once their rows are written (the decision layer's hook). */
export type AfterStored = (
  events: readonly StoredEvent[],
  messages: readonly PubSubMessage[],
) => Promise<unknown>;

export interface StoreOutcome {
  /** Events written to `events`, in message order. */
  readonly stored: readonly StoredEvent[];
  /** The messages those events came from (same order). */
  readonly storedMessages: readonly PubSubMessage[];
  /** Messages written to `invalid_events` (invalid, unreadable or refused by the warehouse). */
  readonly invalid: number;
}

/**
 * Writes a batch of messages: events to `events`, the rest to `invalid_events`. An event
 * row the warehouse refuses for good (it passed our schema but not the table's) is written
 * to `invalid_events` instead, with BigQuery's reason. Rejects when anything could not be
 * written, so the caller acknowledges nothing and Pub/Sub redelivers.
 *
 * Not an async function, and no write for an empty table: the functions framework runs each
 * request in a `domain`, where every promise costs ~7 µs of CPU in async hooks (measured),
 * so the usual one-message push makes one write and one continuation.
 */
export function storeMessages(
  messages: readonly PubSubMessage[],
  deps: {
    readonly writer: RowWriter;
    readonly config: StoreConfig;
    readonly now: () => number;
    /** The registry's event definitions, when the messages may carry defined events. */
    readonly defined?: DefinedEvents;
  },
): Promise<StoreOutcome> {
  const now = deps.now();
  const events: { row: InsertRow; event: StoredEvent; message: PubSubMessage }[] = [];
  const invalid: InsertRow[] = [];
  for (const m of messages) {
    const o = messageRows(m, deps.config, now, deps.defined);
    if (o.kind === 'event') events.push({ row: o.row, event: o.event, message: m });
    else invalid.push(o.row);
  }
  const finish = (
    eventRejections: readonly RowRejection[],
    invalidRejections: readonly RowRejection[],
  ): StoreOutcome | Promise<StoreOutcome> => {
    if (invalidRejections.length > 0) {
      throw new Error(`invalid_events refused a row: ${invalidRejections[0]?.message ?? ''}`);
    }
    if (eventRejections.length === 0) {
      return {
        stored: events.map((e) => e.event),
        storedMessages: events.map((e) => e.message),
        invalid: invalid.length,
      };
    }
    return keepRefused(events, eventRejections, invalid.length, deps.writer, now, deps.config);
  };
  const none: readonly RowRejection[] = [];
  if (invalid.length === 0) {
    if (events.length === 0) return Promise.resolve(finish(none, none));
    return deps.writer
      .write(
        TABLES.events,
        events.map((e) => e.row),
      )
      .then((rejections) => finish(rejections, none));
  }
  if (events.length === 0)
    return deps.writer.write(TABLES.invalidEvents, invalid).then((rejections) => finish(none, rejections));
  return Promise.all([
    deps.writer.write(
      TABLES.events,
      events.map((e) => e.row),
    ),
    deps.writer.write(TABLES.invalidEvents, invalid),
  ]).then(([eventRejections, invalidRejections]) => finish(eventRejections, invalidRejections));
}

/** Event rows the warehouse refused for good go to `invalid_events` with its reason (rare). */
async function keepRefused(
  events: readonly { row: InsertRow; event: StoredEvent; message: PubSubMessage }[],
  eventRejections: readonly RowRejection[],
  invalidCount: number,
  writer: RowWriter,
  now: number,
  pii: PiiPolicy,
): Promise<StoreOutcome> {
  const refused = new Set(eventRejections.map((r) => r.index));
  const fallback = eventRejections.map((r) => {
    const e = events[r.index] as (typeof events)[number];
    return invalidRow({
      insertId: `${e.message.messageId}/refused`,
      receivedAt: e.event.received_at ?? iso(now),
      now,
      reason: 'rejected_by_warehouse',
      topic: e.event.topic,
      subscription: e.message.subscription,
      messageId: e.message.messageId,
      raw: e.event,
      payload: payloadText(e.message.data).text,
      attributes: e.message.attributes,
      pii,
      errors: [{ field: '(row)', description: `${r.reason}: ${r.message}` }],
    });
  });
  const again = await writer.write(TABLES.invalidEvents, fallback);
  if (again.length > 0) throw new Error(`invalid_events refused a row: ${again[0]?.message ?? ''}`);
  const kept = events.filter((_, i) => !refused.has(i));
  return {
    stored: kept.map((e) => e.event),
    storedMessages: kept.map((e) => e.message),
    invalid: invalidCount + refused.size,
  };
}
