/**
 * The store path, pure: a classic push body (or a pulled dead letter) in, warehouse rows
 * out. Valid events become `events` rows whose insertId is the event's payload digest (its
 * identity with event_id, core/identity.ts); everything else becomes
 * an `invalid_events` row with every error, so nothing that reached the bus is dropped.
 * The writer and the after-store hook are injected, so this module does no I/O itself.
 */

import type { Settings } from '../../schemas/settings.ts';
import { UNVERIFIED_ATTRIBUTE, unverifiedOf } from '../decision/unverified.ts';
import type { DefinedEvent, DefinedEvents } from '../definitions/defined-events.ts';
import { type Enricher, withEnrichment } from '../enrich/index.ts';
import type { StoredEvent } from '../event.ts';
import {
  lastIso,
  type NormalizedEvent,
  type NormalizeOptions,
  normalizeEvent,
  normalizeOptions,
  SERVER_FIELDS_ATTRIBUTE,
  type ServerField,
  serverFieldsOf,
} from '../event.ts';
import { identityDigest, payloadDigest } from '../identity.ts';
import { applyPiiPolicy, type PiiPolicy, scrubText, sha256 } from '../pii.ts';
import {
  backlogSubscriptionName,
  deadLetterLedgerSubscriptionName,
  type Plan,
  POISON_ATTEMPTS,
} from '../plan.ts';
import { decodePushBody } from '../push.ts';
import { SENDER_ATTRIBUTE, senderOf } from '../sender.ts';
import { type Suppression, stripIdentifiers, suppressionVerdict } from '../suppression/erased.ts';
import { traceIdOf } from '../tracing/trace-context.ts';
import type { FieldViolation } from '../validation.ts';
import type { InsertRow, RowRejection, RowWriter } from '../warehouse/rows.ts';
import { TABLES } from '../warehouse/warehouse.ts';
import { callIdentity, callPolicy, invalidCallErrors, invalidCallOf, strippedCall } from './invalid-call.ts';

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

/** Pub/Sub's attribute on a dead letter: when the message was first published. */
export const DEAD_LETTER_PUBLISH_TIME = 'CloudPubSubDeadLetterSourceTopicPublishTime';

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

/** Why a message landed in `invalid_events` (the `reason` column). */
export type InvalidReason =
  | 'invalid_event'
  | 'not_json'
  | 'malformed_push'
  | 'rejected_by_warehouse'
  | 'poison';

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

function eventRow(
  event: NormalizedEvent & Pick<StoredEvent, 'enriched'>,
  meta: {
    digest: string;
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
    payload_digest: meta.digest,
    // The trace the event travelled under (core/trace-context.ts), for SQL joins to the traces.
    trace_id: traceIdOf(meta.attributes),
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
  if (!isObject(value)) return scrubText(payload);
  // A refused call keeps its fields where the sender put them (traits, Segment's names).
  const call = invalidCallOf(value);
  if (call) return JSON.stringify({ ...value, invalid_call: applyPiiPolicy(call, callPolicy(pii)) });
  return JSON.stringify(applyPiiPolicy(value, rawPaths(pii)));
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

/**
 * An `invalid_events` row; event_id and event_name are kept when they can be read (a refused
 * call's own, not its wrapper's).
 */
export function invalidRow(input: InvalidInput): InsertRow {
  const raw = invalidCallOf(input.raw) ?? (isObject(input.raw) ? input.raw : {});
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
  /** Producers' copies of events already stored: no row written; fanned out, and folded by each destination's send-once claim. */
  readonly copies?: number;
}

/**
 * How long BigQuery (and the emulator) are counted on to fold a repeated insertId. Past it, a
 * redelivery asks the warehouse whether its row is there before writing it again.
 */
export const INSERT_ID_WINDOW_MS = 55_000;

/** What a late redelivery asks the warehouse: is the row of this identity stored? */
export interface StoredQuestion {
  readonly event_id: string;
  readonly event_time: string;
  readonly payload_digest: string;
}

/**
 * Answers a StoredQuestion. Rejects when it cannot tell (the query failed or took too long):
 * storeMessages then fails the push, so Pub/Sub brings it back later. "Not stored" is never a
 * guess, since it means writing and fanning out again.
 */
export type AlreadyStored = (question: StoredQuestion) => Promise<boolean>;

/**
 * The first sighting of an identity whose time the server stamped (adapters/identity-claims.ts):
 * the first copy claims it with its event_time; a later copy learns the first one's time and
 * message. Only such events need it: a producer's own event_time makes every copy's row alike.
 */
export interface IdentityClaim {
  readonly digest: string;
  readonly event_time: string;
  readonly message_id: string;
}
export type ClaimAnswer =
  | { readonly first: true }
  | {
      readonly first: false;
      /** The first copy's event_time and message, as it claimed them. */
      readonly event_time: string;
      readonly message_id: string;
      /** When the first copy claimed it (epoch ms). */
      readonly claimed_at: number;
    };
export type ClaimIdentity = (claim: IdentityClaim) => Promise<ClaimAnswer>;

/**
 * How long a copy waits for the first copy's row: while the first one is younger and not stored,
 * the copy's push fails and comes back later (the first is in flight, or retrying). Past it the
 * copy is written under the first one's time (the same row, so it still folds) and fanned out.
 */
export const COPY_SETTLE_MS = 10 * 60_000;

/** Why storeMessages failed a push on purpose (the handler logs it as a warning). */
export class NotYet extends Error {}

/**
 * A message that may have been stored already by an earlier push of the same content, beyond the
 * insertId window: a redelivery (attempt > 1) published more than a window ago, or a dead letter.
 * A redelivery that an older release may have stored under its own digest is asked at once.
 */
function lateCopy(message: PubSubMessage, now: number, legacy: boolean): boolean {
  if (message.attributes[DEAD_LETTER_SOURCE] !== undefined) return true;
  if (message.deliveryAttempt <= 1) return false;
  return legacy || now - Date.parse(message.publishTime) > INSERT_ID_WINDOW_MS;
}

type EventEntry = { row: InsertRow; event: StoredEvent; message: PubSubMessage };
type Parsed = EventEntry & { serverFields?: readonly ServerField[]; legacyDigest?: string };

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

/**
 * How store saw each event it fanned out (core/claims/send-once.ts): the first fan-out of an
 * identity holds the send-once claim for its destinations; any other (a copy, a redelivery) does
 * not. Kept beside the events, not in them: the fan-out reads it (core/delivery/fan-out.ts).
 */
const sightings = new WeakMap<StoredEvent, Sighting>();

/** How store saw an event's identity when it fanned it out. */
export interface Sighting {
  /**
   * This fan-out is the identity's first: its messages hold the send-once claim. True only for a
   * push that wrote the row now (no earlier push wrote it, so none fanned it out).
   */
  readonly first: boolean;
  /**
   * When this push saw the identity (epoch ms). Another fan-out's messages were published at most
   * one store push after it: the send-once claim's horizon counts from here.
   */
  readonly at: number;
  /**
   * This push's message holds the identity (its first sighting, or that message back after a
   * crash, or its dead letter): false for a producer's copy, a new message of an identity another
   * message claimed. Only the holder writes the `skipped` rows, so copies add none. Absent: held.
   */
  readonly owner?: boolean;
}

/** How store saw this stored event's identity, when it claimed it. */
export function sightingOf(event: StoredEvent): Sighting | undefined {
  return sightings.get(event);
}

/** Marks an event with how its identity was seen, and hands it on. */
function seen<E extends EventEntry>(entry: E, first: boolean, at: number, owner = true): E {
  sightings.set(entry.event, { first, at, owner });
  return entry;
}

/** The copy's row and event under the first copy's time. */
function withTime(entry: Parsed, time: string): Parsed {
  return {
    ...entry,
    row: { ...entry.row, json: { ...entry.row.json, event_time: time } },
    event: { ...entry.event, event_time: time },
  };
}

/**
 * Sorts late copies and claimed events into what to write and what is stored already (fanned out
 * again: a redelivery's earlier attempt may have stopped before its fan-out; a producer's copy
 * is folded by each destination's send-once claim), counting producers' copies. Rejects with NotYet while a copy's first one is young and not stored yet.
 */
async function settleCopies(
  late: readonly Parsed[],
  claimed: readonly Parsed[],
  deps: { readonly alreadyStored?: AlreadyStored; readonly claim?: ClaimIdentity },
  now: number,
): Promise<{ write: EventEntry[]; present: EventEntry[]; copies: number }> {
  const write: EventEntry[] = [];
  const present: EventEntry[] = [];
  let copies = 0;
  const ask = deps.alreadyStored;
  const stored = async (e: Parsed): Promise<string | undefined> => {
    if (!ask) return undefined;
    const q = { event_id: e.event.event_id, event_time: e.event.event_time };
    const digests = [e.event.payload_digest as string, ...(e.legacyDigest ? [e.legacyDigest] : [])];
    const found = await Promise.all(digests.map((d) => ask({ ...q, payload_digest: d })));
    return digests[found.indexOf(true)];
  };
  /** Stored under a legacy digest: the fan-out names the row that is there. */
  const named = (e: Parsed, digest: string): EventEntry =>
    digest === e.event.payload_digest ? e : { ...e, event: { ...e.event, payload_digest: digest } };
  const claim = deps.claim as ClaimIdentity;
  await Promise.all([
    ...late.map(async (e) => {
      const digest = await stored(e);
      (digest ? present : write).push(digest ? named(e, digest) : e);
    }),
    ...claimed.map(async (e) => {
      const answer = await claim({
        digest: e.event.payload_digest as string,
        event_time: e.event.event_time,
        message_id: e.message.messageId,
      });
      // The first sighting: written at once, unless it may have been written before (a late copy).
      if (answer.first) {
        const digest = lateCopy(e.message, now, e.legacyDigest !== undefined) ? await stored(e) : undefined;
        if (digest) present.push(seen(named(e, digest), false, now));
        else write.push(seen(e, true, now));
        return;
      }
      // The first copy itself, back (a crash between the write and the acknowledgement, a
      // redelivery), or its dead letter (a new message, the same event): its row may be there
      // already, whatever the attempt says, so the warehouse is asked first.
      if (
        answer.message_id === e.message.messageId ||
        e.message.attributes[DEAD_LETTER_SOURCE] !== undefined
      ) {
        const digest = await stored(e);
        // Not stored: no earlier attempt wrote it, so none fanned it out, and this is the first.
        if (digest) present.push(seen(named(e, digest), false, now));
        else write.push(seen(e, true, now));
        return;
      }
      // A producer's copy: one row, the first one's. It is fanned out again, so each destination's
      // send-once claim records it as folded (core/claims/send-once.ts), and sends nothing twice.
      const copy = withTime(e, answer.event_time);
      const digest = await stored(copy);
      if (digest) {
        copies++;
        present.push(seen(named(copy, digest), false, now, false));
      } else if (now - answer.claimed_at < COPY_SETTLE_MS)
        throw new NotYet(
          `event ${e.event.event_id} is a copy of message ${answer.message_id}, whose row is not stored yet: trying again later`,
        );
      else write.push(seen(copy, false, now, false));
    }),
  ]);
  return { write, present, copies };
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
