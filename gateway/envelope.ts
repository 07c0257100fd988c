/**
 * The two request forms a producer may send, turned into Pub/Sub messages: plain events
 * (`/v1/topics/{topic}`, one or an array) and the Pub/Sub `:publish` form (a plain event or
 * an envelope of base64 messages with attributes). Pure: every event is normalised with the
 * same code as `store`, and every violation of every event is reported at once.
 */
import type { OutgoingMessage } from '../adapters/publisher.ts';
import { withViolations } from '../core/errors.ts';
import { type NormalizeOptions, normalizeEvent } from '../core/event.ts';
import type { Limits } from '../core/json-limits.ts';
import type { FieldViolation } from '../core/validation.ts';
import { decodeJson } from './body.ts';
import { fail, kindOf, type Step, truncate } from './step.ts';

/** What one request asks to publish, before auth-dependent checks. */
export interface Parsed {
  readonly topic: string;
  /** One message per distinct event_id of the request. */
  readonly messages: OutgoingMessage[];
  /** Every event's name, duplicates included (scopes are checked on all of them). */
  readonly eventNames: string[];
  /** For each event of the request, in order, the index of its message in `messages`. */
  readonly order: number[];
}

/** What parsing needs besides the body: limits, normalising options, and the request's client. */
export interface EnvelopeContext {
  readonly limits: Limits;
  readonly options: NormalizeOptions;
  /** When the request was received (ms since the epoch). */
  readonly received: number;
  readonly client: {
    readonly ip: string | undefined;
    readonly userAgent: string | undefined;
    /** The observed address replaces a device.ip the event carries (write keys). */
    readonly observedIpWins?: boolean;
  };
  readonly newId: () => string;
}

const ENVELOPE_KEYS = new Set(['messages']);
const MESSAGE_KEYS = new Set(['data', 'attributes', 'orderingKey', 'messageId', 'publishTime']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/**
 * Attribute names a producer may not set: `goog…` Pub/Sub itself refuses, and `CloudPubSub…`
 * are the names Pub/Sub writes on dead letters (source subscription, delivery count), which a
 * producer must not be able to imitate.
 */
const RESERVED_ATTRIBUTE_PREFIXES = ['goog', 'CloudPubSub'] as const;
/** Attributes the gateway sets from the event itself; a producer's values for them are ignored. */
export const OUR_ATTRIBUTES = ['event_name', 'event_id', 'schema_version', 'source'] as const;

/** The `/v1/topics/{topic}` form: one plain event, or an array of them. */
export function parseTopicsForm(
  value: unknown,
  topic: string,
  pathEventName: string | undefined,
  ctx: EnvelopeContext,
): Step<Parsed> {
  const { limits } = ctx;
  if (Array.isArray(value)) {
    if (value.length === 0) return fail('EMPTY_BATCH');
    if (value.length > limits.maxEventsPerRequest) {
      return fail('TOO_MANY_EVENTS', { count: value.length, max: limits.maxEventsPerRequest });
    }
    return buildMessages(
      value.map((raw, i) => ({ raw, prefix: `[${i}]` })),
      topic,
      pathEventName,
      ctx,
    );
  }
  if (value === null || typeof value !== 'object') {
    return fail('NOT_AN_EVENT', { expected: 'an event object or an array of them', got: kindOf(value) });
  }
  return buildMessages([{ raw: value, prefix: '' }], topic, pathEventName, ctx);
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
    if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
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

/** Normalises events and builds the Pub/Sub messages; every violation of every event at once. */
function buildMessages(
  events: readonly { raw: unknown; prefix: string; attributes?: Record<string, string> }[],
  topic: string,
  pathEventName: string | undefined,
  ctx: EnvelopeContext,
): Step<Parsed> {
  const { limits, options, received, client, newId } = ctx;
  const violations: FieldViolation[] = [];
  const messages: OutgoingMessage[] = [];
  const eventNames: string[] = [];
  const order: number[] = [];
  // An event_id given twice in one request is one event: published once, and every copy is
  // answered with that message's id (otherwise each copy became its own delivery downstream).
  const firstById = new Map<string, number>();
  let total = 0;
  for (const item of events) {
    const r = normalizeEvent(item.raw, {
      options,
      now: received,
      newId,
      client,
      prefix: item.prefix,
      ...(pathEventName ? { pathEventName } : {}),
    });
    if (!r.ok) {
      violations.push(...r.violations);
      continue;
    }
    if (violations.length > 0) continue;
    eventNames.push(r.event.event_name);
    const seen = firstById.get(r.event.event_id);
    if (seen !== undefined) {
      order.push(seen);
      continue;
    }
    const data = Buffer.from(JSON.stringify(r.event));
    if (data.length > limits.maxEventBytes) {
      return fail('EVENT_TOO_LARGE', {
        field: item.prefix || '(root)',
        size: data.length,
        max: limits.maxEventBytes,
      });
    }
    const ours = {
      event_name: r.event.event_name,
      event_id: r.event.event_id,
      schema_version: String(r.version),
      source: r.event.source ?? 'gateway',
    };
    const attributes: Record<string, string> = item.attributes ? { ...item.attributes, ...ours } : ours;
    total += data.length;
    for (const k in attributes) {
      total += Buffer.byteLength(k) + Buffer.byteLength(attributes[k] as string);
    }
    firstById.set(r.event.event_id, messages.length);
    order.push(messages.length);
    messages.push({ data, attributes });
  }
  if (violations.length > 0) return fail('INVALID_EVENT', { count: violations.length }, violations);
  if (total > limits.maxRequestBytes) return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });
  return { ok: true, value: { topic, messages, eventNames, order } };
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
    if (Buffer.byteLength(v) > 1024 || !v.isWellFormed()) {
      return fail('INVALID_ENVELOPE', { detail: `${where}: values are at most 1024 bytes.` });
    }
    if ((OUR_ATTRIBUTES as readonly string[]).includes(k)) continue; // set by the gateway from the event
    out[k] = v;
  }
  return { ok: true, value: out };
}
