/**
 * The two request forms a producer may send, turned into Pub/Sub messages: plain events
 * (`/v1/topics/{topic}`, one or an array) and the Pub/Sub `:publish` form (a plain event or
 * an envelope of base64 messages with attributes). Pure: every event is normalised with the
 * same code as `store`, and every violation of every event is reported at once.
 */
import type { OutgoingMessage } from '../adapters/publisher.ts';
import { isMoneyEvent, UNVERIFIED_ATTRIBUTE } from '../core/decision/unverified.ts';
import type { DefinedEvents, Deprecated } from '../core/definitions/defined-events.ts';
import { DELIVERY_ATTRIBUTES } from '../core/delivery/message.ts';
import { withViolations } from '../core/errors.ts';
import {
  CREDENTIAL_ATTRIBUTE,
  fieldPath,
  type NormalizeContext,
  type NormalizedEvent,
  type NormalizeOptions,
  normalizeEvent,
  SERVER_FIELDS_ATTRIBUTE,
} from '../core/event.ts';
import type { Limits } from '../core/json-limits.ts';
import { isStandardBase64 } from '../core/push.ts';
import { HOPS_ATTRIBUTE, ORIGIN_ATTRIBUTE } from '../core/rules/rules.ts';
import { SENDER_ATTRIBUTE } from '../core/sender.ts';
import { fail, type Step } from '../core/step.ts';
import {
  INVALID_ERRORS_ATTRIBUTE,
  invalidAttribute,
  invalidErrorsAttribute,
} from '../core/store/invalid-call.ts';
import { TRACE_ATTRIBUTES } from '../core/tracing/trace-context.ts';
import { withTraitsSplit } from '../core/translate/traits.ts';
import type { FieldViolation } from '../core/validation.ts';
import type { ClientHints } from '../schemas/context.ts';
import { decodeJson } from './body.ts';
import { kindOf, truncate } from './step.ts';

/** What one request asks to publish, before auth-dependent checks. */
export interface Parsed {
  readonly topic: string;
  /** One message per distinct event_id of the request. */
  readonly messages: OutgoingMessage[];
  /** Every event's name, duplicates included (scopes are checked on all of them). */
  readonly eventNames: string[];
  /**
   * For each event of the request, in order, the index of its message in `messages`; -1 for an
   * event kept aside as invalid (the tag's form).
   */
  readonly order: number[];
  /**
   * The tag's form only (`tag=1`): the events refused, each as an `{"invalid_call": …}` message
   * with its reasons (the store keeps it in invalid_events), published after `messages`.
   */
  readonly invalid?: OutgoingMessage[];
  /** The tag's form only: the refused events' violations, named by their index (`[2].content_name`). */
  readonly violations?: FieldViolation[];
  /** The soonest-ending grace period an event of the request was accepted under, if any. */
  readonly deprecated?: Deprecated;
}

/**
 * The tag's form (`tag=1`) and what it needs besides the body: the write key's event list, when
 * the key has one. An event outside it is refused as an invalid one is (kept for invalid_events
 * with the reason), not the whole batch with a 403 the tag would take as final.
 */
export interface TagForm {
  readonly keyEvents?: { readonly id: string; readonly names: readonly string[] } | undefined;
}

/** What parsing needs besides the body: limits, normalising options, and the request's client. */
export interface EnvelopeContext {
  readonly limits: Limits;
  readonly options: NormalizeOptions;
  /** When the request was received (ms since the epoch). */
  readonly received: number;
  /**
   * Who sent the request (its `sender` attribute) and, for a browser, its address, user agent and
   * Sec-CH-UA* headers (gateway/runtime.ts, clientOf); normalizeEvent fills the device from a
   * browser's only (core/sender.ts).
   */
  readonly client: NonNullable<NormalizeContext['client']> & {
    /** The kind of credential the request came with (`token`, `key`…): the `credential` attribute. */
    readonly credential?: string | undefined;
    /** The request said `Sec-GPC: 1`: an event whose consent does not say gpc gets `consent.gpc: true`. */
    readonly gpc?: boolean | undefined;
    /**
     * A write key without the money allowance: its money events get the `unverified` attribute
     * (core/decision/unverified.ts).
     */
    readonly unverifiedMoney?: boolean;
    /**
     * A page's batch with a GA4 destination: GA4's client id for an event (the page's `_ga`, or one
     * derived from its anonymous id), where its consent lets `_ga` be stored (gateway/id-cookies.ts, gaClientIds); it
     * fills `campaign.ga_client_id` when the event has none, as a server field.
     */
    readonly gaClientId?: ((event: NormalizedEvent) => string | undefined) | undefined;
  };
  readonly newId: () => string;
  /** The registry's event definitions: defined events are validated against them and stamped. */
  readonly defined?: DefinedEvents;
  /** The request's trace context as message attributes (adapters/tracing.ts), set on every event's message. */
  readonly trace?: Readonly<Record<string, string>> | undefined;
}

const ENVELOPE_KEYS = new Set(['messages']);
const MESSAGE_KEYS = new Set(['data', 'attributes', 'orderingKey', 'messageId', 'publishTime']);
/**
 * Attribute names a producer may not set: `goog…` Pub/Sub itself refuses, and `CloudPubSub…`
 * are the names Pub/Sub writes on dead letters (source subscription, delivery count), which a
 * producer must not be able to imitate.
 */
const RESERVED_ATTRIBUTE_PREFIXES = ['goog', 'CloudPubSub'] as const;
/** The attribute naming the translator that made an event (gateway/translate.ts sets it). */
export const TRANSLATOR_ATTRIBUTE = 'translator';
/**
 * Attribute names the pipeline itself writes and trusts (docs/security.md, "Reserved message
 * attributes"): a rule's provenance (`origin`) and loop guard (`hops`), the translator that made
 * an event, a replay's mark and its `--force`. A producer that could set them could stop rules from firing or forge
 * provenance, so any credential's request naming one is refused with a 400 naming it.
 */
export const RESERVED_ATTRIBUTES: readonly string[] = Object.freeze([
  ORIGIN_ATTRIBUTE,
  HOPS_ATTRIBUTE,
  TRANSLATOR_ATTRIBUTE,
  DELIVERY_ATTRIBUTES.replay,
  DELIVERY_ATTRIBUTES.force,
  DELIVERY_ATTRIBUTES.first,
  DELIVERY_ATTRIBUTES.sightedAt,
  DELIVERY_ATTRIBUTES.destination,
  DELIVERY_ATTRIBUTES.payloadDigest,
  SERVER_FIELDS_ATTRIBUTE,
]);
/** Attributes the gateway sets from the event itself; a producer's values for them are ignored. */
export const OUR_ATTRIBUTES = [
  'event_name',
  'event_id',
  'schema_version',
  'source',
  'definition_version',
  // Set only when the gateway filled a field in; counted so a producer's attributes leave room.
  SERVER_FIELDS_ATTRIBUTE,
  // Which kind of credential the request came with: the identity graph trusts a write key's less.
  CREDENTIAL_ATTRIBUTE,
  // Who sent it (browser, server, translator): the drivers' default action_source follows it.
  SENDER_ATTRIBUTE,
  // A write key's money event without the allowance: no ad platform's conversion.
  UNVERIFIED_ATTRIBUTE,
  // The request's trace context (core/trace-context.ts): a producer's own values are dropped.
  TRACE_ATTRIBUTES.traceparent,
  TRACE_ATTRIBUTES.tracestate,
] as const;

/**
 * The `/v1/topics/{topic}` form: one plain event, or an array of them. `tag`: the tag's form
 * (`?tag=1`, docs/gateway.md): each event's `traits` split into its `user` group
 * (core/translate/traits.ts), and a refused event kept aside for invalid_events instead of
 * refusing the request; an event outside the write key's list among the refused.
 */
export function parseTopicsForm(
  value: unknown,
  topic: string,
  pathEventName: string | undefined,
  ctx: EnvelopeContext,
  tag?: TagForm,
): Step<Parsed> {
  const { limits } = ctx;
  if (Array.isArray(value)) {
    if (value.length === 0) return fail('EMPTY_BATCH');
    if (value.length > limits.maxEventsPerRequest) {
      return fail('TOO_MANY_EVENTS', { count: value.length, max: limits.maxEventsPerRequest });
    }
    return buildMessages(
      value.map((raw, i) => ({ raw, prefix: batchPrefix(i) })),
      topic,
      pathEventName,
      ctx,
      tag,
    );
  }
  if (value === null || typeof value !== 'object') {
    return fail('NOT_AN_EVENT', { expected: 'an event object or an array of them', got: kindOf(value) });
  }
  return buildMessages([{ raw: value, prefix: '' }], topic, pathEventName, ctx, tag);
}

/** `[0]`, `[1]`, …: each made once for the life of the process, not once per event of each batch. */
const BATCH_PREFIXES: string[] = [];
function batchPrefix(i: number): string {
  let p = BATCH_PREFIXES[i];
  if (p === undefined) {
    // Filled in order: a batch asks for 0…n-1, so every index below i is there already.
    for (let k = BATCH_PREFIXES.length; k <= i; k++) BATCH_PREFIXES.push(`[${k}]`);
    p = BATCH_PREFIXES[i] as string;
  }
  return p;
}

/** The `:publish` form: a plain event, or a Pub/Sub envelope of base64 messages. */
export function parsePublishForm(value: unknown, topic: string, ctx: EnvelopeContext): Step<Parsed> {
  const { limits } = ctx;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('NOT_AN_EVENT', { expected: 'an event object or a publish envelope', got: kindOf(value) });
  }
  const obj = value as Record<string, unknown>;
  if (!Object.hasOwn(obj, 'messages') || Object.hasOwn(obj, 'event_name'))
    return buildMessages([{ raw: obj, prefix: '' }], topic, undefined, ctx);
  const unknown = Object.keys(obj).find((k) => !ENVELOPE_KEYS.has(k));
  if (unknown)
    return fail('INVALID_ENVELOPE', {
      detail: `Unknown name ${JSON.stringify(truncate(unknown))}: Cannot find field.`,
    });
  const list = obj['messages'];
  if (!Array.isArray(list)) return fail('INVALID_ENVELOPE', { detail: '"messages" must be an array.' });
  if (list.length === 0) return fail('EMPTY_BATCH');
  if (list.length > limits.maxEventsPerRequest) {
    return fail('TOO_MANY_EVENTS', { count: list.length, max: limits.maxEventsPerRequest });
  }
  const events: { raw: unknown; prefix: string; attributes: Record<string, string> }[] = [];
  for (let i = 0; i < list.length; i++) {
    const field = `messages[${i}]`;
    const m = list[i] as Record<string, unknown>;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) {
      return fail('INVALID_ENVELOPE', { detail: `${field} must be an object.` }, [
        { field, description: 'expected object' },
      ]);
    }
    const unknownField = Object.keys(m).find((k) => !MESSAGE_KEYS.has(k));
    if (unknownField) {
      return fail('INVALID_ENVELOPE', {
        detail: `Unknown name ${JSON.stringify(truncate(unknownField))} at '${field}': Cannot find field.`,
      });
    }
    const attrs = checkAttributes(m['attributes'], field, limits.maxAttributes - OUR_ATTRIBUTES.length);
    if (!attrs.ok) return attrs;
    const data = m['data'];
    if (data === undefined || data === '') {
      if (Object.keys(attrs.value).length === 0) return fail('EMPTY_MESSAGE');
      return fail('INVALID_EVENT', { count: 1 }, [
        { field: `${field}.data`, description: 'is required: it carries the event as base64 JSON' },
      ]);
    }
    if (typeof data !== 'string' || !isStandardBase64(data)) {
      return fail('BAD_BASE64', { field: `${field}.data` }, [
        { field: `${field}.data`, description: 'is not standard base64' },
      ]);
    }
    const bytes = Buffer.from(data, 'base64');
    const decoded = decodeJson(bytes, limits.maxDepth);
    if (!decoded.ok) {
      const e = decoded.error;
      return {
        ok: false,
        error: withViolations(e, [{ field: `${field}.data`, description: e.body.error.message }]),
      };
    }
    events.push({ raw: decoded.value, prefix: `${field}.data`, attributes: attrs.value });
  }
  return buildMessages(events, topic, undefined, ctx);
}

/** One event normalised into its Pub/Sub message, or its violations. */
export type EventMessage =
  | {
      readonly ok: true;
      readonly eventName: string;
      readonly eventId: string;
      readonly message: OutgoingMessage;
      readonly deprecated?: Deprecated;
    }
  | { readonly ok: false; readonly violations: readonly FieldViolation[]; readonly tooLarge?: number };

/**
 * Normalises one event (every check `store` makes, plus its definition when it has one) and
 * builds its message: the event as JSON data, and our attributes (name, id, catalogue schema
 * version, source, the definition version it was validated against) over the producer's.
 */
export function eventMessage(
  raw: unknown,
  prefix: string,
  ctx: EnvelopeContext,
  extra: EventExtra = NO_EXTRA,
): EventMessage {
  const { options, received, client, newId, defined } = ctx;
  // One object of a fixed shape per event (absent options as undefined): spreading optional
  // fields into it was a tenth of this function under 1000-event batches.
  const r = normalizeEvent(raw, {
    options,
    now: received,
    newId,
    client,
    prefix,
    pathEventName: extra.pathEventName || undefined,
    defined,
  });
  if (!r.ok) return r;
  // Global Privacy Control sent by the browser (docs/delivery.md, "Consent"), unless the event says.
  if (client.gpc === true && r.event.consent?.gpc === undefined)
    r.event.consent = { ...r.event.consent, gpc: true };
  let serverFields = r.serverFields;
  const ga = r.event.campaign?.ga_client_id === undefined ? client.gaClientId?.(r.event) : undefined;
  if (ga !== undefined) {
    r.event.campaign = { ...r.event.campaign, ga_client_id: ga };
    serverFields = [...(serverFields ?? []), 'campaign.ga_client_id'];
  }
  const data = Buffer.from(JSON.stringify(r.event));
  if (data.length > ctx.limits.maxEventBytes) return { ok: false, violations: [], tooLarge: data.length };
  const ours: Record<string, string> = {
    event_name: r.event.event_name,
    event_id: r.event.event_id,
    schema_version: String(r.version),
    source: r.event.source ?? 'gateway',
  };
  // store re-validates against this exact (immutable) version and stores it.
  if (r.definition) ours['definition_version'] = r.definition.stamp;
  // Which fields of the data the gateway filled in, so `store` leaves them out of the identity.
  if (serverFields) ours[SERVER_FIELDS_ATTRIBUTE] = serverFields.join(',');
  if (client.credential) ours[CREDENTIAL_ATTRIBUTE] = client.credential;
  if (client.sender) ours[SENDER_ATTRIBUTE] = client.sender;
  if (client.unverifiedMoney && isMoneyEvent(r.event.event_name)) ours[UNVERIFIED_ATTRIBUTE] = 'money';
  if (ctx.trace) Object.assign(ours, ctx.trace);
  const attributes: Record<string, string> = extra.attributes ? { ...extra.attributes, ...ours } : ours;
  const message = { data, attributes };
  const { event_name: eventName, event_id: eventId } = r.event;
  return r.deprecated
    ? { ok: true, eventName, eventId, message, deprecated: r.deprecated }
    : { ok: true, eventName, eventId, message };
}

/** What an event may carry besides its body: the path's event name, the producer's attributes. */
interface EventExtra {
  readonly pathEventName?: string | undefined;
  readonly attributes?: Record<string, string> | undefined;
}
const NO_EXTRA: EventExtra = Object.freeze({});

/** The bytes a message counts for in Pub/Sub's request limit: data and attributes. */
export function messageBytes(m: OutgoingMessage): number {
  let total = m.data.length;
  for (const k in m.attributes) total += Buffer.byteLength(k) + Buffer.byteLength(m.attributes[k] as string);
  return total;
}

/**
 * At least messageBytes(m), without measuring UTF-8: a character is at most 3 bytes (a surrogate
 * pair, 2 characters, is 4). A request whose bound is within the limit is within it exactly.
 */
function messageBytesBound(m: OutgoingMessage): number {
  let chars = 0;
  for (const k in m.attributes) chars += k.length + (m.attributes[k] as string).length;
  return m.data.length + 3 * chars;
}

/**
 * Normalises events and builds the Pub/Sub messages; every violation of every event at once.
 * `tag`: the tag's form (parseTopicsForm): the refused events become invalid messages instead.
 */
function buildMessages(
  events: readonly { raw: unknown; prefix: string; attributes?: Record<string, string> }[],
  topic: string,
  pathEventName: string | undefined,
  ctx: EnvelopeContext,
  tag?: TagForm,
): Step<Parsed> {
  const { limits } = ctx;
  const keyEvents = tag?.keyEvents;
  const violations: FieldViolation[] = [];
  const invalid: OutgoingMessage[] = [];
  const messages: OutgoingMessage[] = [];
  const eventNames: string[] = [];
  const order: number[] = [];
  // An event_id given twice in one request is one event: published once, and every copy is
  // answered with that message's id (otherwise each copy became its own delivery downstream).
  const firstById = new Map<string, number>();
  let bound = 0;
  let deprecated: Deprecated | undefined;
  const extra: EventExtra = pathEventName ? { pathEventName } : NO_EXTRA;
  for (const item of events) {
    const r = tag
      ? tagEventMessage(item.raw, item.prefix, ctx, extra)
      : eventMessage(
          item.raw,
          item.prefix,
          ctx,
          item.attributes ? { ...extra, attributes: item.attributes } : extra,
        );
    if (!r.ok && r.tooLarge !== undefined && (tag || violations.length === 0)) {
      return fail('EVENT_TOO_LARGE', {
        field: item.prefix || '(root)',
        size: r.tooLarge,
        max: limits.maxEventBytes,
      });
    }
    // The tag's form: an event, valid or not, whose name the write key's list lacks is refused.
    const name = r.ok ? r.eventName : nameOf(item.raw, pathEventName);
    const outside = keyEvents && !(name !== undefined && keyEvents.names.includes(name));
    const refusal = outside
      ? [
          {
            field: fieldPath(item.prefix, 'event_name'),
            description: `${name ?? 'an event without a name'} is not among the events of write key ${keyEvents.id} (key create --event)`,
          },
        ]
      : !r.ok && tag
        ? r.violations
        : undefined;
    if (refusal) {
      // A refused event is bounded as a valid one is: over the limit, the request is refused whole.
      const kept = invalidEventMessage(item.raw, item.prefix, refusal, ctx);
      const size = kept.data.length - INVALID_WRAPPER_BYTES;
      if (size > limits.maxEventBytes)
        return fail('EVENT_TOO_LARGE', { field: item.prefix || '(root)', size, max: limits.maxEventBytes });
      violations.push(...refusal);
      invalid.push(kept);
      order.push(-1);
      continue;
    }
    if (!r.ok) {
      violations.push(...r.violations);
      continue;
    }
    if (violations.length > 0 && !tag) continue;
    deprecated = soonest(deprecated, r.deprecated);
    eventNames.push(r.eventName);
    const seen = firstById.get(r.eventId);
    if (seen !== undefined) {
      order.push(seen);
      continue;
    }
    bound += messageBytesBound(r.message);
    firstById.set(r.eventId, messages.length);
    order.push(messages.length);
    messages.push(r.message);
  }
  if (violations.length > 0 && !tag) return fail('INVALID_EVENT', { count: violations.length }, violations);
  for (const m of invalid) bound += messageBytesBound(m);
  // Measured exactly only when the cheap bound does not settle it.
  if (bound > limits.maxRequestBytes && totalBytes([...messages, ...invalid]) > limits.maxRequestBytes)
    return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });
  return {
    ok: true,
    value: {
      topic,
      messages,
      eventNames,
      order,
      ...(deprecated ? { deprecated } : {}),
      ...(tag && invalid.length > 0 ? { invalid, violations } : {}),
    },
  };
}

/**
 * One event of the tag's form: its traits split (core/translate/traits.ts), then normalised. An
 * event refused for its `event_time` alone (a device clock days off) is taken with the time it
 * was received, as when the tag sent it again without one.
 */
function tagEventMessage(
  raw: unknown,
  prefix: string,
  ctx: EnvelopeContext,
  extra: EventExtra,
): EventMessage {
  const event = withTraitsSplit(raw);
  const r = eventMessage(event, prefix, ctx, extra);
  const time = fieldPath(prefix, 'event_time');
  if (r.ok || r.violations.length === 0 || !r.violations.every((v) => v.field === time)) return r;
  const { event_time: _late, ...rest } = event as Record<string, unknown>;
  return eventMessage(rest, prefix, ctx, extra);
}

/** An event's name as sent (or its path's), before it is normalised; undefined when it has none. */
function nameOf(raw: unknown, pathEventName: string | undefined): string | undefined {
  const name =
    typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['event_name'] : undefined;
  return typeof name === 'string' ? name : pathEventName;
}

/** The bytes `{"invalid_call": …}` adds to a refused event's JSON. */
const INVALID_WRAPPER_BYTES = Buffer.byteLength(JSON.stringify({ invalid_call: null })) - 'null'.length;

/**
 * A refused event of the tag's form as the store keeps it in invalid_events: the event as sent,
 * wrapped as `{"invalid_call": …}` (core/store/invalid-call.ts), its violations (without the
 * batch index) as the row's errors, and the sender's attributes as a valid event's.
 */
function invalidEventMessage(
  raw: unknown,
  prefix: string,
  violations: readonly FieldViolation[],
  ctx: EnvelopeContext,
): OutgoingMessage {
  const own = violations.map((v) => ({
    field: v.field.slice(prefix.length).replace(/^\./, '') || '(event)',
    description: v.description,
  }));
  const attributes: Record<string, string> = {
    invalid: invalidAttribute(own),
    [INVALID_ERRORS_ATTRIBUTE]: invalidErrorsAttribute(own),
  };
  if (ctx.client.credential) attributes[CREDENTIAL_ATTRIBUTE] = ctx.client.credential;
  if (ctx.client.sender) attributes[SENDER_ATTRIBUTE] = ctx.client.sender;
  if (ctx.trace) Object.assign(attributes, ctx.trace);
  return { data: Buffer.from(JSON.stringify({ invalid_call: raw ?? null })), attributes };
}

function totalBytes(messages: readonly OutgoingMessage[]): number {
  let total = 0;
  for (const m of messages) total += messageBytes(m);
  return total;
}

/** Of two grace periods, the one that ends first. */
export function soonest(a: Deprecated | undefined, b: Deprecated | undefined): Deprecated | undefined {
  if (!a || !b) return a ?? b;
  return b.untilMs < a.untilMs ? b : a;
}

/**
 * The headers that tell a producer it used a definition major in its grace period: `Deprecation`
 * (RFC 9745, `@<epoch seconds>` of the new major) and `Sunset` (RFC 8594, when it stops).
 */
export function deprecationHeaders(d: Deprecated | undefined): Record<string, string> {
  if (!d) return {};
  return {
    deprecation: `@${Math.floor(d.sinceMs / 1000)}`,
    sunset: new Date(d.untilMs).toUTCString(),
  };
}

function checkAttributes(value: unknown, field: string, max: number): Step<Record<string, string>> {
  if (value === undefined) return { ok: true, value: {} };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('INVALID_ENVELOPE', { detail: `${field}.attributes must be a map of strings.` });
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > max) {
    return fail('INVALID_ENVELOPE', {
      detail: `${field}.attributes has ${entries.length} entries; at most ${max} are allowed.`,
    });
  }
  // No prototype: an attribute named `__proto__` is kept as one, not swallowed by the setter.
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of entries) {
    const where = `${field}.attributes[${JSON.stringify(truncate(k))}]`;
    if (typeof v !== 'string') return fail('INVALID_ENVELOPE', { detail: `${where} must be a string.` });
    if (k === '' || Buffer.byteLength(k) > 256 || !k.isWellFormed()) {
      return fail('INVALID_ENVELOPE', { detail: `${where}: keys are 1–256 bytes.` });
    }
    const reserved = RESERVED_ATTRIBUTE_PREFIXES.find((p) => k.startsWith(p));
    if (reserved) {
      return fail('INVALID_ENVELOPE', {
        detail: `${where}: keys starting with "${reserved}" are reserved for Pub/Sub.`,
      });
    }
    if (RESERVED_ATTRIBUTES.includes(k)) {
      return fail('INVALID_ENVELOPE', {
        detail: `${where}: "${k}" is reserved: the pipeline sets it (docs/security.md).`,
      });
    }
    if (Buffer.byteLength(v) > 1024 || !v.isWellFormed()) {
      return fail('INVALID_ENVELOPE', { detail: `${where}: values are at most 1024 bytes.` });
    }
    if ((OUR_ATTRIBUTES as readonly string[]).includes(k)) continue; // set by the gateway from the event
    out[k] = v;
  }
  return { ok: true, value: out };
}

/** The User-Agent Client Hints headers the gateway carries, by their field in device.client_hints. */
const HINT_HEADERS: readonly (readonly [string, keyof ClientHints])[] = [
  ['sec-ch-ua', 'ua'],
  ['sec-ch-ua-mobile', 'mobile'],
  ['sec-ch-ua-platform', 'platform'],
  ['sec-ch-ua-platform-version', 'platform_version'],
  ['sec-ch-ua-model', 'model'],
  ['sec-ch-ua-full-version-list', 'full_version_list'],
];

/**
 * The client hints among a request's headers, raw, or undefined when it sent none (a server, a
 * browser other than Chromium's). Six property reads and no parsing: the gateway's CPU budget
 * (docs/gateway.md) is spent on the event itself; the store function's enrichment parses them.
 */
export function clientHintsOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): ClientHints | undefined {
  let out: { -readonly [K in keyof ClientHints]: ClientHints[K] } | undefined;
  for (const [header, field] of HINT_HEADERS) {
    const v = headers[header];
    if (typeof v !== 'string') continue;
    out ??= {};
    out[field] = v;
  }
  return out;
}
