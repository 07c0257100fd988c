/**
 * The store path, pure: a classic push body (or a pulled dead letter) in, warehouse rows
 * out. Valid events become `events` rows whose insertId is the event's payload digest (its
 * identity with event_id, core/identity.ts); everything else becomes
 * an `invalid_events` row with every error, so nothing that reached the bus is dropped.
 * The writer and the after-store hook are injected, so this module does no I/O itself.
 */

import type { Settings } from '../../schemas/settings.ts';
import { UNVERIFIED_ATTRIBUTE, unverifiedOf } from '../decision/unverified.ts';
import type { DefinedEvents } from '../definitions/defined-events.ts';
import { type Enricher, withEnrichment } from '../enrich/index.ts';
import type { StoredEvent } from '../event.ts';
import {
  lastIso,
  type NormalizeOptions,
  normalizeEvent,
  normalizeOptions,
  SERVER_FIELDS_ATTRIBUTE,
  type ServerField,
  serverFieldsOf,
} from '../event.ts';
import { identityDigest, payloadDigest } from '../identity.ts';
import type { PiiPolicy } from '../pii.ts';
import {
  backlogSubscriptionName,
  deadLetterLedgerSubscriptionName,
  type Plan,
  POISON_ATTEMPTS,
} from '../plan.ts';
import { SENDER_ATTRIBUTE, senderOf } from '../sender.ts';
import { type Suppression, stripIdentifiers, suppressionVerdict } from '../suppression/erased.ts';
import type { FieldViolation } from '../validation.ts';
import type { InsertRow, RowRejection, RowWriter } from '../warehouse/rows.ts';
import { TABLES } from '../warehouse/warehouse.ts';
import {
  type AlreadyStored,
  type ClaimIdentity,
  type EventEntry,
  lateCopy,
  type Parsed,
  settleCopies,
} from './copies.ts';
import { callIdentity, invalidCallErrors, invalidCallOf, strippedCall } from './invalid-call.ts';
import { DEAD_LETTER_PUBLISH_TIME, DEAD_LETTER_SOURCE, type PubSubMessage } from './message.ts';
import { eventRow, type InvalidReason, invalidRow, payloadText, utf8 } from './rows.ts';

/** What the store path reads from the environment, resolved once at cold start. */
export interface StoreConfig extends PiiPolicy {
  readonly normalize: NormalizeOptions;
  /** Subscription id → the events topic it reads (from plan()). */
  readonly topics: ReadonlyMap<string, string>;
  /** Context fields stored as SHA-256 hex in the warehouse (`user.email`…). */
  readonly hashInWarehouse: readonly string[];
  /** Context fields never stored. */
  readonly drop: readonly string[];
  /** Subscription ids whose messages are poison (core/plan.ts): kept raw, never read as events. */
  readonly poison: ReadonlySet<string>;
  /** Subscription ids on the events topics' dead-letter topics (their `-ledger` and `-backlog`). */
  readonly deadLetters: ReadonlySet<string>;
  /** The enrichment step (core/enrich/), when the settings ask for one; set by the entry point. */
  readonly enrich?: Enricher;
  /** The erased persons' list as it is now (adapters/suppression-list.ts); set by the entry point. */
  readonly suppression?: () => Suppression | undefined;
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
    poison: new Set(plan.subscriptions.filter((s) => s.kind === 'poison').map((s) => s.name)),
    deadLetters: new Set(
      plan.subscriptions
        .filter((s) => s.kind === 'store' && s.deadLetterPolicy)
        .flatMap((s) => {
          const dl = (s.deadLetterPolicy as { deadLetterTopic: string }).deadLetterTopic;
          return [backlogSubscriptionName(dl), deadLetterLedgerSubscriptionName(dl)];
        }),
    ),
  });
}
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

/**
 * When the producer's message was published: its publishTime, or for a dead letter (a message on
 * a dead-letter subscription the plan knows, where Pub/Sub sets the attribute) the original one,
 * so a dead letter stored late gets the same event_time, received_at and identity as the copy an
 * earlier attempt may have written.
 */
function firstPublishMs(message: PubSubMessage, config: StoreConfig): number {
  const own = Date.parse(message.publishTime);
  if (!config.deadLetters.has(lastSegment(message.subscription))) return own;
  const original = Date.parse(message.attributes[DEAD_LETTER_PUBLISH_TIME] ?? '');
  return Number.isNaN(original) ? own : original;
}
/** One message's fate: an event row (and the stored event for the decision layer), or an invalid row. */
export type MessageRows =
  | {
      readonly kind: 'event';
      readonly row: InsertRow;
      readonly event: StoredEvent;
      /** The fields the server filled in (gateway or store), absent when there are none. */
      readonly serverFields?: readonly ServerField[];
      /**
       * The digest an older release gave this message (of the whole event, server fields
       * included), when it differs from the identity digest: a redelivery may find its row
       * stored under it (storeMessages asks for both).
       */
      readonly legacyDigest?: string;
    }
  | { readonly kind: 'invalid'; readonly row: InsertRow }
  /** An erased person's event, dropped (`privacy.erased_events: drop`): acknowledged, never stored. */
  | { readonly kind: 'suppressed' };
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
  const publishMs = firstPublishMs(message, config);
  const receivedAt = isoReceived(publishMs);
  let payload = payloadText(message.data);
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

  if (config.poison.has(lastSegment(message.subscription))) return poisonRow(message, invalid);
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
  // An erased person's event (docs/privacy.md): dropped, or kept without what identifies them —
  // the payload kept for an invalid row too. A refused call (`{"invalid_call": …}`) is judged by
  // the call inside, its traits and Segment's names read as the event's.
  const call = invalidCallOf(value);
  const verdict = suppressionVerdict(call ? callIdentity(call) : value, config.suppression?.());
  if (verdict === 'drop') return { kind: 'suppressed' };
  if (verdict === 'strip') {
    value = call ? { ...(value as object), invalid_call: strippedCall(call) } : stripIdentifiers(value);
    payload = { text: JSON.stringify(value), base64: false };
  }
  const stamp = message.attributes['definition_version'];
  const result = normalizeEvent(value, {
    options: config.normalize,
    now: publishMs,
    newId: () => message.messageId,
    ...(defined ? { defined } : {}),
    ...(stamp !== undefined ? { stamp } : {}),
  });
  // A Segment call the gateway could not translate: its own reasons, not the wrapper's.
  if (!result.ok)
    return invalid('invalid_event', invalidCallErrors(value, message.attributes) ?? result.violations, value);

  // The digest of what the producer sent, before the PII policy and without what the server
  // filled in (core/identity.ts): the same content always gives the same insertId, and a reused
  // event_id with other content another one. The gateway names the fields it filled in an
  // attribute; store names those it fills itself (a native publish's time and id).
  const named = serverFieldsOf(message.attributes[SERVER_FIELDS_ATTRIBUTE]);
  const serverFields = mergeFields(named, result.serverFields);
  const digest = identityDigest(result.event, serverFields);
  const legacy = serverFields ? payloadDigest(result.event) : digest;
  // A field store filled in itself is named in the stored attributes, as the gateway names its own.
  const attributes =
    serverFields && serverFields.length > named.length
      ? { ...message.attributes, [SERVER_FIELDS_ATTRIBUTE]: serverFields.join(',') }
      : message.attributes;
  // Enrichment after the digest (it never changes an event's identity) and before the PII policy
  // (geography is read from the full IP): docs/enrichment.md. The sender rides to the drivers.
  const sender = senderOf(message.attributes[SENDER_ATTRIBUTE]);
  const unverified = unverifiedOf(message.attributes[UNVERIFIED_ATTRIBUTE]);
  const event: StoredEvent = withEnrichment(
    {
      ...result.event,
      received_at: receivedAt,
      topic,
      ...(sender ? { sender } : {}),
      ...(unverified ? { unverified } : {}),
      ...(result.definition ? { definition_version: result.definition.stamp } : {}),
      payload_digest: digest,
    },
    config.enrich,
  );
  return {
    kind: 'event',
    event,
    ...(serverFields ? { serverFields } : {}),
    ...(legacy !== digest ? { legacyDigest: legacy } : {}),
    row: {
      insertId: digest,
      json: eventRow(event.enriched ? { ...result.event, enriched: event.enriched } : result.event, {
        digest,
        receivedAt,
        now,
        topic,
        messageId: message.messageId,
        version: result.version,
        definition: result.definition,
        attributes,
        config,
      }),
    },
  };
}

/** The server fields of a message: those its attribute names and those store filled in. */
function mergeFields(
  named: readonly ServerField[],
  filled: readonly ServerField[] | undefined,
): readonly ServerField[] | undefined {
  if (!filled) return named.length > 0 ? named : undefined;
  if (named.length === 0) return filled;
  return [...new Set([...named, ...filled])];
}

/**
 * A poison message (core/plan.ts, POISON_TOPIC): a dead letter its `-ledger` subscription could
 * not record. Kept as it came, never parsed as an event, so nothing in it can fail again.
 */
function poisonRow(
  message: PubSubMessage,
  invalid: (reason: InvalidReason, errors: readonly FieldViolation[], raw?: unknown) => MessageRows,
): MessageRows {
  const source = message.attributes[DEAD_LETTER_SOURCE] ?? 'a dead-letter subscription';
  let raw: unknown;
  try {
    raw = JSON.parse(utf8.decode(message.data));
  } catch {
    raw = undefined; // not JSON: kept as text (or base64) all the same
  }
  return invalid(
    'poison',
    [
      {
        field: '(message)',
        description: `a dead letter that ${source} could not record after ${POISON_ATTEMPTS} attempts; kept here as received (docs/delivery.md, "Poison messages")`,
      },
    ],
    raw,
  );
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
  /** Producers' copies of events already stored: no row written; fanned out, and folded by each destination's send-once claim. */
  readonly copies?: number;
}
/**
 * Writes a batch of messages: events to `events`, the rest to `invalid_events`. An event
 * row the warehouse refused for good (it passed our schema but not the table's) is written
 * to `invalid_events` instead, with BigQuery's reason. Rejects when anything could not be
 * written, so the caller acknowledges nothing and Pub/Sub redelivers. Every event in the
 * outcome's `stored` is in the warehouse under its identity (event_id, payload_digest): written
 * now, folded by its insertId, or found by `alreadyStored` for a late copy — only those are
 * fanned out. A producer's retry of an event (a new message with the same identity) takes the first
 * copy's time; found stored, it is not written again but fanned
 * out (each destination's send-once claim folds it, with a `folded` ledger row), and counted in `copies`.
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
    /** Asked for late copies only (see lateCopy); without it they are written again. */
    readonly alreadyStored?: AlreadyStored;
    /** Claims the identities whose id the producer gave; without it, only late copies are recognised. */
    readonly claim?: ClaimIdentity;
  },
): Promise<StoreOutcome> {
  const now = deps.now();
  const events: EventEntry[] = [];
  const invalid: InsertRow[] = [];
  const late: Parsed[] = [];
  const claimed: Parsed[] = [];
  for (const m of messages) {
    const o = messageRows(m, deps.config, now, deps.defined);
    if (o.kind === 'suppressed') continue;
    if (o.kind === 'invalid') {
      invalid.push(o.row);
      continue;
    }
    const entry: Parsed = { row: o.row, event: o.event, message: m };
    if (o.serverFields) entry.serverFields = o.serverFields;
    if (o.legacyDigest) entry.legacyDigest = o.legacyDigest;
    // Every event is claimed: a producer's id finds its copies, and a first sighting (any id) is
    // what lets the first fan-out send without a send-once claim per destination.
    if (deps.claim) claimed.push(entry);
    else if (deps.alreadyStored && lateCopy(m, now, o.legacyDigest !== undefined)) late.push(entry);
    else events.push(entry);
  }
  if (late.length === 0 && claimed.length === 0)
    return writeRows(events, invalid, [], deps.writer, now, deps.config);
  return settleCopies(late, claimed, deps, now).then(({ write, present, copies }) =>
    writeRows([...events, ...write], invalid, present, deps.writer, now, deps.config).then((o) =>
      copies > 0 ? { ...o, copies } : o,
    ),
  );
}
/** The writes of storeMessages; `present` are events found already stored (no write). */
function writeRows(
  events: readonly EventEntry[],
  invalid: readonly InsertRow[],
  present: readonly EventEntry[],
  writer: RowWriter,
  now: number,
  config: StoreConfig,
): Promise<StoreOutcome> {
  const finish = (
    eventRejections: readonly RowRejection[],
    invalidRejections: readonly RowRejection[],
  ): StoreOutcome | Promise<StoreOutcome> => {
    if (invalidRejections.length > 0) {
      throw new Error(`invalid_events refused a row: ${invalidRejections[0]?.message ?? ''}`);
    }
    const all = present.length > 0 ? [...events, ...present] : events;
    if (eventRejections.length === 0) {
      return {
        stored: all.map((e) => e.event),
        storedMessages: all.map((e) => e.message),
        invalid: invalid.length,
      };
    }
    return keepRefused(events, eventRejections, invalid.length, writer, now, config).then((o) =>
      present.length === 0
        ? o
        : {
            stored: [...o.stored, ...present.map((e) => e.event)],
            storedMessages: [...o.storedMessages, ...present.map((e) => e.message)],
            invalid: o.invalid,
          },
    );
  };
  const none: readonly RowRejection[] = [];
  if (invalid.length === 0) {
    if (events.length === 0) return Promise.resolve(finish(none, none));
    return writer
      .write(
        TABLES.events,
        events.map((e) => e.row),
      )
      .then((rejections) => finish(rejections, none));
  }
  if (events.length === 0)
    return writer.write(TABLES.invalidEvents, invalid).then((rejections) => finish(none, rejections));
  return Promise.all([
    writer.write(
      TABLES.events,
      events.map((e) => e.row),
    ),
    writer.write(TABLES.invalidEvents, invalid),
  ]).then(([eventRejections, invalidRejections]) => finish(eventRejections, invalidRejections));
}

/** Event rows the warehouse refused for good go to `invalid_events` with its reason (rare). */
async function keepRefused(
  events: readonly EventEntry[],
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
      receivedAt: e.event.received_at ?? isoReceived(now),
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
