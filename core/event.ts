/**
 * Normalising one event: the single piece of code that turns what a producer sent into the
 * canonical stored form, used by the gateway (before publishing) and by the store function
 * (for events published natively to Pub/Sub). Pure: the clock, the id generator and the
 * client's address come in through the context; the address is used only for a browser's events
 * (core/sender.ts).
 */
import Type from 'typebox';
import { eventNameProblem, lookupEvent, nearCatalogueName } from '../schemas/catalogue.ts';
import type { ClientHints, Enriched, RegionDefault } from '../schemas/context.ts';
import {
  type Campaign,
  CONTEXT_FIELDS,
  type Consent,
  Context,
  type Device,
  type Page,
  RFC3339_PATTERN,
  type User,
} from '../schemas/context.ts';
import type { EventType } from '../schemas/events/common.ts';
import type { Settings } from '../schemas/settings.ts';
import {
  type DefinedEvent,
  type DefinedEvents,
  type Deprecated,
  parseStamp,
} from './definitions/defined-events.ts';
import { inspectJson } from './json-limits.ts';
import type { Sender } from './sender.ts';
import { compileValidator, type FieldViolation, type Validator } from './validation.ts';

/** The canonical event: context at the top level, event-specific fields in `event_data`. */
export interface NormalizedEvent {
  event_name: string;
  event_id: string;
  /** RFC 3339, milliseconds, UTC (`2026-01-02T03:04:05.678Z`). */
  event_time: string;
  user_id?: string;
  anonymous_id?: string;
  session_id?: string;
  source?: string;
  user?: User;
  page?: Page;
  device?: Device;
  campaign?: Campaign;
  consent?: Consent;
  event_data: Record<string, unknown>;
}

/** The settings the normaliser reads, resolved once (at cold start) from the environment's settings. */
export interface NormalizeOptions {
  readonly unknownEvents: 'store' | 'reject';
  readonly collectIp: 'full' | 'truncated' | 'none';
  readonly collectUserAgent: boolean;
  readonly eventTimePastMs: number;
  readonly eventTimeFutureMs: number;
}

/** Resolves normaliser options from settings, with the defaults of docs/architecture.md §3. */
export function normalizeOptions(settings: Readonly<Settings>): NormalizeOptions {
  return Object.freeze({
    unknownEvents: settings.unknown_events ?? 'store',
    collectIp: settings.producers?.collect_ip ?? 'full',
    collectUserAgent: settings.producers?.collect_user_agent ?? true,
    eventTimePastMs: (settings.limits?.event_time_past_days ?? 1826) * 86_400_000,
    eventTimeFutureMs: (settings.limits?.event_time_future_hours ?? 24) * 3_600_000,
  });
}

export interface NormalizeContext {
  readonly options: NormalizeOptions;
  /** When the event was received (epoch ms): the default event_time and the window's anchor. */
  readonly now: number;
  /** Mints an event_id when absent: a UUIDv7 in the gateway, the messageId in `store`. */
  readonly newId: () => string;
  /**
   * The HTTP request, when there is one (the gateway). Its address, user agent and client hints
   * become the event's device only when its sender is a browser (core/sender.ts): a server's or a
   * translator's request is a machine's, never the person's, so their events keep only what they
   * sent. A browser's observed address also wins over a device.ip the event claims (a page's
   * caller can claim any address): the event's own value is discarded, not merely checked.
   */
  readonly client?: {
    /** Who sent the request; absent: nobody's device (nothing is filled). */
    readonly sender?: Sender | undefined;
    readonly ip?: string | undefined;
    readonly userAgent?: string | undefined;
    /** The request's Sec-CH-UA* headers, raw (only those present): fill device.client_hints. */
    readonly hints?: ClientHints | undefined;
    /**
     * A cookieless page's session key (gateway/session-key.ts): fills session_id where the event
     * has none, for a browser's events only.
     */
    readonly sessionKey?: string | undefined;
  };
  /** The event name given by the path alias (`POST /v1/topics/view_content`). */
  readonly pathEventName?: string | undefined;
  /** Field-path prefix for violations, e.g. `[2]` for the third event of a batch. */
  readonly prefix?: string;
  /** Whether to enforce the event_time window (store skips it for replays of old messages). */
  readonly checkWindow?: boolean;
  /** The registry's event definitions; without them every custom event is stored as it comes. */
  readonly defined?: DefinedEvents | undefined;
  /** The definition version the gateway validated this event against (`name@major.minor`). */
  readonly stamp?: string;
}

/**
 * A field of an event that the server filled in rather than the producer: the receive time as
 * `event_time`, the request's address, user agent and client hints as `device.*`, a cookieless
 * page's session key as `session_id`, and GA4's client id from the page's `_ga` cookie (or a new
 * one, gateway/id-cookies.ts) as `campaign.ga_client_id`. None of
 * them is the producer's content, so none enters the event's identity (core/identity.ts). A
 * minted `event_id` is named too, but stays in the identity: without an id of the producer's,
 * two equal bodies are two events (nothing says they are one), so such an event needs no fold.
 */
export type ServerField =
  | 'event_id'
  | 'event_time'
  | 'device.ip'
  | 'device.user_agent'
  | 'device.client_hints'
  | 'session_id'
  | 'campaign.ga_client_id';
export const SERVER_FIELDS: readonly ServerField[] = Object.freeze([
  'event_id',
  'event_time',
  'device.ip',
  'device.user_agent',
  'device.client_hints',
  'session_id',
  'campaign.ga_client_id',
]);

/**
 * The message attribute naming the server fields of an event's data (comma-separated), set by the
 * gateway, which fills them before publishing, and read by `store`, which cannot tell them from
 * the producer's own once they are in the data. A producer publishing natively could set it, and
 * would only make its own events' identity ignore those fields.
 */
export const SERVER_FIELDS_ATTRIBUTE = 'server_fields';

/**
 * The message attribute naming the kind of credential the gateway took an event under (`token`,
 * `key`, `google`, `signature`), set by the gateway over any value a producer sent and stored with
 * the event's attributes. The identity graph lets a write key's events (`key`: public, in a page's
 * source) attach an anonymous id to a person but never join two persons (docs/sessions.md). A
 * native publish has none: its producer is trusted by IAM.
 */
export const CREDENTIAL_ATTRIBUTE = 'credential';

/** The value of CREDENTIAL_ATTRIBUTE for a write key's events. */
export const WRITE_KEY_CREDENTIAL = 'key';

/** The server fields an attribute value names (unknown names are ignored). */
export function serverFieldsOf(value: string | undefined): ServerField[] {
  if (!value) return [];
  return value.split(',').filter((f): f is ServerField => (SERVER_FIELDS as readonly string[]).includes(f));
}

export type NormalizeResult =
  | {
      readonly ok: true;
      readonly event: NormalizedEvent;
      /** The fields the server filled in (absent when the producer sent them all). */
      readonly serverFields?: readonly ServerField[];
      /** Schema version of the catalogue entry; 0 for custom events. */
      readonly version: number;
      /** Whether the name is in the standard catalogue. */
      readonly known: boolean;
      /** The definition version a defined (custom) event was validated against. */
      readonly definition?: DefinedEvent;
      /** Set when it was accepted under a previous major still in its grace period. */
      readonly deprecated?: Deprecated;
    }
  | { readonly ok: false; readonly violations: readonly FieldViolation[] };

/**
 * Context without its `additionalProperties: false`: the object checked holds only
 * CONTEXT_FIELDS keys, so that rule can never fail here, and compiled it tested every key of
 * every event against a regular expression of the known names.
 */
const contextValidator = compileValidator<Context>(Type.Object(Context.properties));
const dataValidators = new Map<string, Validator<Record<string, unknown>>>();

function dataValidator(type: EventType): Validator<Record<string, unknown>> {
  let v = dataValidators.get(type.name);
  if (!v) {
    v = compileValidator<Record<string, unknown>>(type.schema);
    dataValidators.set(type.name, v);
  }
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function at(prefix: string, field: string): string {
  if (prefix === '') return field;
  if (field === '(root)') return prefix;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

/** A field's name in a violation, under a batch's prefix (`[2].event_time`; `event_time` alone). */
export { at as fieldPath };

/**
 * Splits, validates and completes one event. Context fields are read from the top level;
 * every other top-level field, and the content of a nested `event_data` object, is event
 * data. Returns the canonical event, or every violation with its field path.
 */
export function normalizeEvent(raw: unknown, ctx: NormalizeContext): NormalizeResult {
  const prefix = ctx.prefix ?? '';
  if (!isObject(raw)) {
    return {
      ok: false,
      violations: [
        { field: prefix || '(root)', description: `expected an event object, got ${kindOf(raw)}` },
      ],
    };
  }
  const problem = inspectJson(raw);
  if (problem) {
    const description =
      problem.kind === 'forbidden_key'
        ? `the key "${problem.key}" is not allowed`
        : problem.kind === 'lone_surrogate'
          ? 'contains a lone UTF-16 surrogate'
          : 'is a number too large to represent';
    return { ok: false, violations: [{ field: at(prefix, problem.field), description }] };
  }

  const violations: FieldViolation[] = [];
  const context: Record<string, unknown> = {};
  const data: Record<string, unknown> = {};
  // The fields given inside event_data (their violations are reported there): made only when there are some.
  let nested: Set<string> | undefined;
  // for…in, not entries (an array per field): V8 reads each value through the object's enum
  // cache. A parsed object has no inherited enumerable keys (isClean walks it the same way).
  for (const key in raw) {
    if (CONTEXT_FIELDS.has(key)) context[key] = raw[key];
    else if (key !== 'event_data') data[key] = raw[key];
  }
  // Own keys only: `in` also sees Object.prototype (valueOf, toString, …) on producer data.
  if (Object.hasOwn(raw, 'event_data')) {
    const inner = raw['event_data'];
    if (!isObject(inner)) {
      violations.push({
        field: at(prefix, 'event_data'),
        description: `expected object, got ${kindOf(inner)}`,
      });
    } else {
      nested = new Set();
      for (const [key, value] of Object.entries(inner)) {
        if (Object.hasOwn(data, key)) {
          violations.push({
            field: at(prefix, `event_data.${key}`),
            description: 'is given both at the top level and in event_data',
          });
        } else {
          data[key] = value;
          nested.add(key);
        }
      }
    }
  }

  if (ctx.pathEventName !== undefined) {
    if (context['event_name'] === undefined) context['event_name'] = ctx.pathEventName;
    else if (context['event_name'] !== ctx.pathEventName) {
      violations.push({
        field: at(prefix, 'event_name'),
        description: `does not match the event name in the path ("${ctx.pathEventName}")`,
      });
    }
  }

  violations.push(...contextValidator.violations(context, prefix));
  const name = context['event_name'];
  if (typeof name === 'string') {
    // A name the schema refuses (AddToCart, page-view) may still say which event was meant.
    const i = violations.findIndex((v) => v.field === at(prefix, 'event_name'));
    // Read only when found: violations[-1] is a named-property lookup through the prototypes.
    const v = i >= 0 ? violations[i] : undefined;
    const near = v ? nearCatalogueName(name) : undefined;
    if (near && v)
      violations[i] = { field: v.field, description: `${v.description}; did you mean "${near}"?` };
  }
  let type: EventType | undefined;
  let defined: DefinedEvent | undefined;
  let deprecated: Deprecated | undefined;
  if (typeof name === 'string' && !violations.some((v) => v.field === at(prefix, 'event_name'))) {
    type = lookupEvent(name);
    if (!type && ctx.defined) {
      // store re-validates against the version the gateway stamped (immutable), else the current one.
      const stamped = ctx.stamp !== undefined && parseStamp(ctx.stamp)?.name === name;
      defined = (stamped ? ctx.defined.exact(ctx.stamp as string) : undefined) ?? ctx.defined.current(name);
    }
    const known = type !== undefined || defined !== undefined;
    const nameProblem = known ? undefined : eventNameProblem(name);
    const near = known ? undefined : (nearCatalogueName(name) ?? ctx.defined?.near(name));
    if (nameProblem)
      violations.push({
        field: at(prefix, 'event_name'),
        description: near ? `${nameProblem}; did you mean "${near}"?` : nameProblem,
      });
    else if (near) {
      // A typo of a known name would be stored as a custom event and never forwarded.
      violations.push({
        field: at(prefix, 'event_name'),
        description: `"${name}" is not a known event; did you mean "${near}"? (a custom event's name must not be this close to a catalogue or defined event's; define it to use it)`,
      });
    } else if (!known && ctx.options.unknownEvents === 'reject') {
      violations.push({
        field: at(prefix, 'event_name'),
        description: `"${name}" is neither in the event catalogue nor defined, and this environment rejects unknown events`,
      });
    }
    let dataViolations = type ? dataValidator(type).violations(data) : defined ? defined.validate(data) : [];
    // During a major's grace period an event still valid under the previous major is accepted
    // as that version, and the producer is told (Deprecation, Sunset; docs/versioning.md).
    const previous = defined?.previous;
    if (dataViolations.length > 0 && previous && ctx.now < previous.untilMs) {
      if (previous.event.validate(data).length === 0) {
        deprecated = previous;
        defined = previous.event;
        dataViolations = [];
      }
    }
    for (const v of dataViolations) {
      const first = /^[A-Za-z_$][\w$]*/.exec(v.field)?.[0];
      const field = first !== undefined && nested?.has(first) ? `event_data.${v.field}` : v.field;
      violations.push({
        field: at(prefix, field),
        description: defined ? `${v.description} (${defined.stamp})` : v.description,
      });
    }
  }

  let eventTime = ctx.now;
  const rawTime = context['event_time'];
  // What the server fills in: made only when it fills something (most producers send a time).
  let filled: ServerField[] | undefined = rawTime === undefined ? ['event_time'] : undefined;
  if (context['event_id'] === undefined) filled = filled ? ['event_id', 'event_time'] : ['event_id'];
  if (rawTime !== undefined && !violations.some((v) => v.field === at(prefix, 'event_time'))) {
    const parsed = parseEventTime(rawTime as string | number);
    if (parsed === undefined) {
      violations.push({ field: at(prefix, 'event_time'), description: 'is not a valid date and time' });
    } else if (
      ctx.checkWindow !== false &&
      (parsed < ctx.now - ctx.options.eventTimePastMs || parsed > ctx.now + ctx.options.eventTimeFutureMs)
    ) {
      violations.push({
        field: at(prefix, 'event_time'),
        description: windowViolation(rawTime, parsed, ctx),
      });
    } else eventTime = parsed;
  }

  const device = completeDevice(context['device'] as Device | undefined, ctx, prefix, violations, (f) => {
    if (filled) filled.push(f);
    else filled = [f];
  });
  if (violations.length > 0) return { ok: false, violations: dedupe(violations) };

  const c = context as Context;
  // Built field by field in the canonical order (context first, event_data last).
  const event = {
    event_name: c.event_name,
    event_id: c.event_id ?? ctx.newId(),
    event_time: isoTime(eventTime),
  } as NormalizedEvent;
  if (c.user_id !== undefined) event.user_id = c.user_id;
  if (c.anonymous_id !== undefined) event.anonymous_id = c.anonymous_id;
  if (c.session_id !== undefined) event.session_id = c.session_id;
  else if (ctx.client?.sender === 'browser' && ctx.client.sessionKey) {
    // A cookieless page's session key; another day's retry has another, so it is a server field.
    event.session_id = ctx.client.sessionKey;
    if (filled) filled.push('session_id');
    else filled = ['session_id'];
  }
  if (c.source !== undefined) event.source = c.source;
  if (c.user !== undefined) event.user = c.user;
  if (c.page !== undefined) event.page = c.page;
  if (device !== undefined) event.device = device;
  if (c.campaign !== undefined) event.campaign = c.campaign;
  if (c.consent !== undefined) event.consent = c.consent;
  event.event_data = data;
  const version = type?.version ?? 0;
  const known = type !== undefined;
  // Without spreads: this runs for every event of a batch. Deprecated implies defined.
  if (!defined)
    return filled
      ? { ok: true, event, version, known, serverFields: filled }
      : { ok: true, event, version, known };
  const out = deprecated
    ? { ok: true as const, event, version, known, definition: defined, deprecated }
    : { ok: true as const, event, version, known, definition: defined };
  return filled ? { ...out, serverFields: filled } : out;
}

/**
 * An RFC 3339 formatter that remembers its last answer: the times it is given repeat (the
 * events of a batch mostly share the receive time; rows of one push share a millisecond).
 */
export function lastIso(): (ms: number) => string {
  let last = Number.NaN;
  let text = '';
  return (ms) => {
    if (ms !== last) {
      text = new Date(ms).toISOString();
      last = ms;
    }
    return text;
  };
}

const isoTime = lastIso();

/**
 * Why an event time is refused, in the producer's terms: the time as read, which side of the window
 * it fell on, and for an epoch number the unit it was read in (seconds sent as milliseconds land in
 * 1970, the usual mistake); an RFC 3339 text is never told about epochs.
 */
function windowViolation(raw: unknown, parsed: number, ctx: NormalizeContext): string {
  const window = `${days(ctx.options.eventTimePastMs)} days back to ${hours(ctx.options.eventTimeFutureMs)} hours ahead`;
  const side = parsed < ctx.now ? 'too far in the past' : 'too far in the future';
  const epoch = typeof raw === 'number' ? ', read as epoch milliseconds (send seconds × 1000)' : '';
  return `is ${side}: ${new Date(parsed).toISOString()}${epoch}; the accepted window is ${window}`;
}

function completeDevice(
  given: Device | undefined,
  ctx: NormalizeContext,
  prefix: string,
  violations: FieldViolation[],
  fill: (field: ServerField) => void,
): Device | undefined {
  if (given !== undefined && !isObject(given)) return undefined; // the schema already reported it
  // Only a browser's request is the person's device (core/sender.ts).
  const browser = ctx.client?.sender === 'browser' ? ctx.client : undefined;
  if (given === undefined && browser === undefined) return undefined;
  const device: Device = { ...given };
  if (browser) delete device.ip;
  const before = { ip: device.ip, ua: device.user_agent, hints: device.client_hints };
  const { collectIp, collectUserAgent } = ctx.options;
  if (device.ip !== undefined && typeof device.ip === 'string') {
    const ip = parseIp(device.ip);
    if (!ip)
      violations.push({ field: at(prefix, 'device.ip'), description: 'is not an IPv4 or IPv6 address' });
    else if (collectIp === 'none') delete device.ip;
    else if (collectIp === 'truncated') device.ip = truncateIp(ip);
  } else if (collectIp !== 'none' && browser?.ip) {
    const ip = clientIp(browser.ip, collectIp);
    if (ip) device.ip = ip;
  }
  const sentUa = device.user_agent;
  if (sentUa === undefined && collectUserAgent && browser?.userAgent) {
    device.user_agent = browser.userAgent.slice(0, 2048);
  }
  // The hints describe the browser that made the request: they join the event only when its user
  // agent is that browser's (absent, or the request's own), not another user agent the page sent.
  const hints = browser?.hints;
  if (
    hints &&
    device.client_hints === undefined &&
    collectUserAgent &&
    (sentUa === undefined || sentUa === browser?.userAgent)
  ) {
    device.client_hints = boundedHints(hints);
  }
  if (before.ip === undefined && device.ip !== undefined) fill('device.ip');
  if (before.ua === undefined && device.user_agent !== undefined) fill('device.user_agent');
  if (before.hints === undefined && device.client_hints !== undefined) fill('device.client_hints');
  return Object.keys(device).length > 0 ? device : undefined;
}

/** Each hint cut to the contract's length (schemas/context.ts), as the user agent is. */
const HINT_LENGTHS: Readonly<Record<keyof ClientHints, number>> = {
  ua: 1024,
  mobile: 8,
  platform: 128,
  platform_version: 128,
  model: 256,
  full_version_list: 1024,
};
function boundedHints(hints: ClientHints): ClientHints {
  const out: { -readonly [K in keyof ClientHints]: ClientHints[K] } = {};
  for (const k of Object.keys(hints) as (keyof ClientHints)[]) {
    const v = hints[k];
    if (v !== undefined) out[k] = v.slice(0, HINT_LENGTHS[k]);
  }
  return out;
}

// One request's events share the client address: remember the last one formatted.
let lastClient = { raw: '', mode: '', out: undefined as string | undefined };
function clientIp(raw: string, mode: 'full' | 'truncated'): string | undefined {
  if (lastClient.raw !== raw || lastClient.mode !== mode) {
    const ip = parseIp(raw);
    lastClient = { raw, mode, out: ip ? (mode === 'truncated' ? truncateIp(ip) : formatIp(ip)) : undefined };
  }
  return lastClient.out;
}

const rfc3339 = new RegExp(RFC3339_PATTERN);

/**
 * Parses an RFC 3339 string or epoch milliseconds to epoch milliseconds, or undefined when
 * the value is not a real instant (month 13, 30 February, offset +25:00…). Fractions beyond
 * milliseconds are truncated.
 */
export function parseEventTime(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (!rfc3339.test(value)) return undefined;
  // The pattern fixed every position up to the seconds: digits read in place (this runs for
  // every event the gateway and store see).
  const Y = digits(value, 0, 4);
  const M = digits(value, 5, 2);
  const D = digits(value, 8, 2);
  const H = digits(value, 11, 2);
  const Mi = digits(value, 14, 2);
  const S = digits(value, 17, 2);
  let at = 19;
  let ms = 0;
  if (value.charCodeAt(at) === 46 /* . */) {
    at++;
    const start = at;
    while (at < value.length && value.charCodeAt(at) >= 48 && value.charCodeAt(at) <= 57) at++;
    // Milliseconds: the first three digits of the fraction, padded (.5 is 500 ms).
    for (let i = start; i < start + 3; i++) ms = ms * 10 + (i < at ? value.charCodeAt(i) - 48 : 0);
  }
  let offsetMin = 0;
  const sign = value.charCodeAt(at);
  if (sign === 43 /* + */ || sign === 45 /* - */) {
    const oh = digits(value, at + 1, 2);
    const om = digits(value, at + 4, 2);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (sign === 45 ? -1 : 1) * (oh * 60 + om);
  }
  if (M < 1 || M > 12 || D < 1 || D > daysInMonth(Y, M) || H > 23 || Mi > 59 || S > 59) return undefined;
  return (daysFromCivil(Y, M, D) * 86_400 + H * 3600 + Mi * 60 + S) * 1000 + ms - offsetMin * 60_000;
}

/** The number written by `length` ASCII digits at `from` (the caller knows they are digits). */
function digits(text: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (any year; Date.UTC maps 0–99 to 19xx). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** A parsed IP address: 4 bytes or 8 16-bit groups. */
export type Ip =
  | { readonly v: 4; readonly parts: readonly number[] }
  | { readonly v: 6; readonly parts: readonly number[] };

/** Parses an IPv4 or IPv6 address (IPv4-mapped IPv6 becomes IPv4); undefined when it is not one. */
export function parseIp(text: string): Ip | undefined {
  const v4 = parseV4(text);
  if (v4) return { v: 4, parts: v4 };
  if (text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const pieces = s.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i] as string;
      if (i === pieces.length - 1 && p.includes('.')) {
        const tail = parseV4(p);
        if (!tail) return undefined;
        out.push(
          ((tail[0] as number) << 8) | (tail[1] as number),
          ((tail[2] as number) << 8) | (tail[3] as number),
        );
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(p)) out.push(Number.parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  let parts: number[];
  if (halves.length === 2) {
    if (head.length + tail.length > 7) return undefined;
    parts = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length !== 8) return undefined;
    parts = head;
  }
  // ::ffff:a.b.c.d is an IPv4 client seen through a dual-stack socket.
  if (parts.slice(0, 5).every((p) => p === 0) && parts[5] === 0xffff) {
    const hi = parts[6] as number;
    const lo = parts[7] as number;
    return { v: 4, parts: [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff] };
  }
  return { v: 6, parts };
}

function parseV4(text: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : undefined;
}

/** Formats an IP address canonically (IPv6 lower case with the longest zero run as `::`). */
export function formatIp(ip: Ip): string {
  if (ip.v === 4) return ip.parts.join('.');
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (ip.parts[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && ip.parts[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = ip.parts.map((p) => p.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Truncates an address for privacy: IPv4 to its /24, IPv6 to its /48. */
export function truncateIp(ip: Ip): string {
  if (ip.v === 4) return formatIp({ v: 4, parts: [...ip.parts.slice(0, 3), 0] });
  return formatIp({ v: 6, parts: [...ip.parts.slice(0, 3), 0, 0, 0, 0, 0] });
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function dedupe(violations: readonly FieldViolation[]): FieldViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    if (seen.has(v.field)) return false;
    seen.add(v.field);
    return true;
  });
}

const days = (ms: number) => Math.round(ms / 86_400_000);
const hours = (ms: number) => Math.round(ms / 3_600_000);

/** An event as stored in the warehouse and carried on `deliveries` (nested `event_data`). */
export interface StoredEvent {
  readonly event_name: string;
  readonly event_id: string;
  /** RFC 3339 with milliseconds, UTC. */
  readonly event_time: string;
  readonly received_at?: string;
  readonly topic?: string;
  /**
   * Who sent it (core/sender.ts), from the gateway's `sender` attribute: carried to the drivers,
   * whose default `action_source` follows it. Not a warehouse column (the attribute is kept in
   * `attributes`); absent for a native publish and for an event rebuilt from a warehouse row.
   */
  readonly sender?: Sender;
  /**
   * `money`: a money event a browser write key without the money allowance sent, from the
   * gateway's `unverified` attribute (core/decision/unverified.ts): stored, never an ad
   * platform's conversion. Not a warehouse column (the attribute is kept in `attributes`).
   */
  readonly unverified?: 'money';
  /** For a defined event: the definition version it was validated against (`name@major.minor`). */
  readonly definition_version?: string;
  /**
   * SHA-256 of the canonical event (core/identity.ts): with event_id, the stored event's identity,
   * carried to every ledger row so each delivery names the exact row it came from.
   */
  readonly payload_digest?: string;
  readonly user_id?: string;
  readonly anonymous_id?: string;
  readonly session_id?: string;
  readonly source?: string;
  readonly user?: Readonly<Record<string, string | undefined>>;
  readonly page?: Readonly<Record<string, string | undefined>>;
  readonly device?: {
    readonly ip?: string | undefined;
    readonly user_agent?: string | undefined;
    readonly locale?: string | undefined;
    readonly client_hints?: Readonly<ClientHints> | undefined;
  };
  readonly campaign?: Readonly<Record<string, string | undefined>>;
  /** Purposes and signals (strings, flags), and Consent Mode's region defaults (a list). */
  readonly consent?: Readonly<Record<string, string | boolean | readonly RegionDefault[] | undefined>>;
  /** What the store function derived (core/enrich/): attribution, device, bot flag, geography. */
  readonly enriched?: Enriched;
  readonly event_data: Readonly<Record<string, unknown>>;
}

/**
 * Where an audience sync's exit of a withdrawal carries the consent its member entered with
 * (`event_data.audience_entry_consent`, core/syncs/audience-events.ts): the decision layer sends it
 * only to the destinations that consent let the member into and the new one keeps it out of
 * (core/decision/decision.ts).
 */
export const AUDIENCE_ENTRY_CONSENT = 'audience_entry_consent';
