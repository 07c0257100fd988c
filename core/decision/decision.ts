/**
 * The decision layer (docs/architecture.md §2): pure rules that say, for each destination of an
 * environment and one stored event, whether the event is sent or skipped, and why.
 * It runs in `store` after the warehouse write succeeded; every skip becomes a ledger row.
 */
import { lookupEvent } from '../../schemas/catalogue.ts';
import type { Condition, ConsentPurpose, Destination, Settings } from '../../schemas/settings.ts';
import { patternMatches } from '../conditions.ts';
import { AUDIENCE_ENTRY_CONSENT, type StoredEvent } from '../event.ts';
import { isMappedType, isNativeEvent, unroutedReason } from '../platforms/mappings.ts';
import { DEFAULT_CONSENT, IDENTITY_NEEDS } from '../platforms/requirements.ts';
import {
  type Missing,
  segmentActionMaps,
  segmentActionVerdict,
  segmentCallOf,
} from '../platforms/segment-action/subscription.ts';
import { consentRefusal } from './consent.ts';
import { unverifiedSkip } from './unverified.ts';

/** What the decision layer says about one destination for one event. */
export type Decision =
  | { readonly destination: string; readonly action: 'send' }
  | { readonly destination: string; readonly action: 'skip'; readonly reason: string };

/** The standard catalogue decides what is a known event. */
export const CATALOGUE_OPTIONS: DecisionOptions = Object.freeze({
  isKnownEvent: (name: string) => lookupEvent(name) !== undefined,
});

export interface DecisionOptions {
  /**
   * Whether an event name belongs to the standard catalogue (the caller passes the
   * catalogue's check; unknown events are never forwarded without a mapping, docs/architecture.md §3).
   */
  readonly isKnownEvent: (eventName: string) => boolean;
  /**
   * Whether a defined event's definition version (`name@major.minor`) maps it for a destination
   * type (its `spec.mappings`). Absent: definitions' mappings are not considered.
   */
  readonly definitionMaps?: (stamp: string, type: Destination['type']) => boolean;
  /** Whether Global Privacy Control opts out of ad destinations (`producers.honor_gpc`; default true). */
  readonly honorGpc?: boolean;
}

/** Decides send or skip (with a reason) for every destination of the settings, in settings order. */
export function decide(
  settings: Readonly<Settings>,
  event: StoredEvent,
  options: DecisionOptions = CATALOGUE_OPTIONS,
): Decision[] {
  const honorGpc = settings.producers?.honor_gpc ?? true;
  const opts = honorGpc === (options.honorGpc ?? true) ? options : { ...options, honorGpc };
  return (settings.destinations ?? []).map((d) => decideOne(d, event, opts));
}

/**
 * Decides for one destination. Rules run cheapest and most explicit first, so the reason
 * names the first rule that stopped the event: disabled, deny list, allow list, bots, unknown
 * event without a mapping, an event no action of a segment_action destination subscribes to, an
 * event the settings route nowhere, an unverified money event (ad platforms), consent (fail
 * closed per purpose), a platform's missing device id (GA4's client id), conditions, sampling.
 */
export function decideOne(
  destination: Readonly<Destination>,
  event: StoredEvent,
  options: DecisionOptions,
): Decision {
  const skip = (reason: string): Decision => ({ destination: destination.id, action: 'skip', reason });
  const name = event.event_name;

  if (destination.enabled === false) return skip('destination disabled');
  const deny = destination.events?.deny;
  if (deny?.includes(name)) return skip(`event ${name} is in events.deny`);
  const allow = destination.events?.allow;
  if (allow && !allow.includes(name)) return skip(`event ${name} is not in events.allow`);
  const connected = audienceDestinations(event);
  if (connected !== undefined && !connected.includes(destination.id))
    return skip(
      `an audience event of ${audienceSync(event)}, whose audience is not connected to this destination (its destination.audience.destinations)`,
    );
  if (event.enriched?.bot === true && botPolicy(destination) === 'skip')
    return skip('bot: the user agent is a known crawler (enriched.bot; destination bots: send to keep it)');

  if (
    !options.isKnownEvent(name) &&
    !hasMapping(destination, name) &&
    !definedFor(destination, event, options)
  ) {
    return skip(unknownReason(destination, name));
  }
  // A catalogue destination's actions say which events it takes (their subscriptions): one no
  // action takes is not published to it, as one its allow list leaves out.
  if (destination.type === 'segment_action') {
    const verdict = segmentActionVerdict(destination, event);
    if (verdict.takes === false) return skip(notSubscribed(destination, name, verdict.missing));
  }

  // A platform that routes each event to an object the settings name (a Google Ads conversion
  // action) skips an event routed nowhere, saying which setting would route it. A defined event
  // may be routed by its definition's mapping, which the forward function resolves instead.
  const unrouted = event.definition_version === undefined ? unroutedReason(destination, name) : undefined;
  if (unrouted !== undefined) return skip(unrouted);
  // A money event a page's write key sent without the allowance is no conversion (unverified.ts).
  const unverified = unverifiedSkip(destination, event);
  if (unverified !== undefined) return skip(unverified);

  const required = requiredConsent(destination);
  const refused = consentRefusal(destination, event, required, options.honorGpc ?? true);
  const entry = entryConsent(event);
  if (entry !== undefined) {
    // A withdrawal's exit (core/syncs/audience-events.ts): for the destinations its entry's
    // consent let the member into and the new consent keeps out; the others take its entry.
    const before = consentRefusal(
      destination,
      { ...event, consent: entry },
      required,
      options.honorGpc ?? true,
    );
    if (before !== undefined)
      return skip(`a withdrawal's exit for a member this destination never had: ${before}`);
    if (refused === undefined)
      return skip(
        "a withdrawal's exit where the new consent still lets the member in: its entry goes instead",
      );
  } else if (refused !== undefined) return skip(refused);

  // A platform that cannot tell whose device an event is (GA4 without a client id) would refuse
  // it: skipped with the platform's reason, unless the destination maps that field itself.
  const identity = IDENTITY_NEEDS[destination.type];
  if (identity && !identity.anyOf.some((f) => present(event, f)) && !mapsIdentity(destination, name))
    return skip(identity.reason);

  for (const [i, condition] of (destination.conditions ?? []).entries()) {
    if (!evaluateCondition(condition, event))
      return skip(`condition ${i} (${describeCondition(condition)}) false`);
  }

  if (destination.sampling !== undefined && destination.sampling < 1) {
    if (sampleBucket(event.event_id) >= destination.sampling) {
      return skip(`sampled out (sampling ${destination.sampling})`);
    }
  }
  return { destination: destination.id, action: 'send' };
}

/** Whether a top-level field of the event holds a value. */
/**
 * The destinations an audience sync's event is for (`event_data.audience_destinations`, written
 * by core/syncs/audience-events.ts): only those the audience is connected to get it, as Engage
 * sends an audience to the destinations connected to it. Undefined for any other event.
 */
function audienceDestinations(event: StoredEvent): readonly string[] | undefined {
  const list = event.event_data['audience_destinations'];
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : undefined;
}

/** The consent a withdrawal's exit says its member entered with; undefined on any other event. */
function entryConsent(event: StoredEvent): StoredEvent['consent'] {
  if (audienceDestinations(event) === undefined) return undefined;
  const entry = event.event_data[AUDIENCE_ENTRY_CONSENT];
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry)
    ? (entry as StoredEvent['consent'])
    : undefined;
}

/** The audience an audience event is of, for a skip's reason. */
function audienceSync(event: StoredEvent): string {
  const personas = event.event_data['personas'] as { computation_key?: unknown } | undefined;
  return typeof personas?.computation_key === 'string' ? personas.computation_key : 'an audience';
}

function present(event: StoredEvent, field: string): boolean {
  const v = (event as unknown as Record<string, unknown>)[field];
  return v !== undefined && v !== null && v !== '';
}

/** Whether the destination's own mapping of the event says where its client id comes from. */
function mapsIdentity(destination: Readonly<Destination>, eventName: string): boolean {
  const fields = destination.mappings?.[eventName]?.fields;
  return fields !== undefined && Object.hasOwn(fields, 'client_id');
}

/** A defined event goes to webhooks as it is, and to a platform when its definition maps it there. */
function definedFor(
  destination: Readonly<Destination>,
  event: StoredEvent,
  options: DecisionOptions,
): boolean {
  const stamp = event.definition_version;
  if (stamp === undefined) return false;
  return !isMappedType(destination.type) || options.definitionMaps?.(stamp, destination.type) === true;
}

/**
 * What a destination does with events flagged as bots (docs/enrichment.md): its own `bots`, or
 * skip for the ad and analytics platforms (a crawler's page views are not conversions and harm
 * their matching) and send for webhooks (they receive the stored event, flag included).
 */
export function botPolicy(destination: Readonly<Destination>): 'skip' | 'send' {
  // A platform with a mapping skips them; a destination sent the stored event receives them.
  return destination.bots ?? (isMappedType(destination.type) ? 'skip' : 'send');
}

/** The consent purposes a destination needs: its own list, or its type's default. */
export function requiredConsent(destination: Readonly<Destination>): readonly ConsentPurpose[] {
  return destination.consent ?? DEFAULT_CONSENT[destination.type];
}

/**
 * An unknown (custom) event may go to a platform only with a mapping for it; a webhook
 * sends the stored event as it is, so naming the event in its allow list is its mapping; a
 * catalogue destination writes identify, group and alias calls itself, and takes a custom track
 * event that an action's `when` names (subscription.ts).
 */
function hasMapping(destination: Readonly<Destination>, eventName: string): boolean {
  if (destination.type === 'segment_action' && segmentActionMaps(destination, eventName)) return true;
  if (!isMappedType(destination.type)) return destination.events?.allow?.includes(eventName) ?? false;
  if (isNativeEvent(destination.type, eventName)) return true;
  return destination.mappings !== undefined && Object.hasOwn(destination.mappings, eventName);
}

function unknownReason(destination: Readonly<Destination>, name: string): string {
  if (destination.type === 'segment_action')
    return `unknown event ${name}: name it in an action's when (or in events.allow) to forward it to ${destination.destination ?? 'a segment_action'}`;
  // A name the platform itself refuses (GA4's reserved `session_start`) says so, not "no mapping".
  const refused = unroutedReason(destination, name);
  if (refused !== undefined) return refused;
  return isMappedType(destination.type)
    ? `unknown event ${name} has no mapping for ${destination.type}`
    : `unknown event ${name}: list it in events.allow to forward it to a ${destination.type}`;
}

/** Why a catalogue destination does not get an event: a field its action requires it cannot fill, or the Segment call it is, which no action takes. */
function notSubscribed(
  destination: Readonly<Destination>,
  name: string,
  missing: Missing | undefined,
): string {
  if (missing !== undefined)
    return `${missing.action} of ${destination.destination ?? destination.id} requires ${missing.field}, read from $.${missing.path}, which ${name} does not carry (the action would refuse it; a mapping of the field in its settings changes that)`;
  const call = segmentCallOf(name);
  const what = call.event === undefined ? `a Segment ${call.type} call` : `Segment track "${call.event}"`;
  return `no action of ${destination.destination ?? destination.id} subscribes to ${name} (${what}): an action's when takes it`;
}

/**
 * Reads a dotted path in a stored event. Context fields sit at the top level and event
 * fields in `event_data`; producers write both at the top level, so a path that is not a
 * context field is looked up in `event_data` too (`value` means `event_data.value`).
 */
export function readPath(event: StoredEvent, path: string): unknown {
  let parts = splitPaths.get(path);
  if (!parts) {
    parts = path.split('.');
    if (splitPaths.size > 4096) splitPaths.clear();
    splitPaths.set(path, parts);
  }
  const fromTop = walk(event, parts);
  if (fromTop !== undefined) return fromTop;
  const rest = parts[0] === 'event_data' ? parts.slice(1) : parts;
  return walk(event.event_data, rest);
}

/** Paths come from settings and rules: a few dozen, split once each. */
const splitPaths = new Map<string, string[]>();

function walk(root: unknown, parts: readonly string[]): unknown {
  let current: unknown = root;
  for (const part of parts) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Evaluates one condition against an event. Comparisons with mismatched types are false. */
export function evaluateCondition(condition: Readonly<Condition>, event: StoredEvent): boolean {
  const actual = readPath(event, condition.field);
  const expected = condition.value;
  switch (condition.op) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'not_exists':
      return actual === undefined || actual === null;
    case 'eq':
      return sameValue(actual, expected);
    case 'ne':
      return !sameValue(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((v) => sameValue(actual, v));
    case 'not_in':
      return Array.isArray(expected) && !expected.some((v) => sameValue(actual, v));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(condition.op, actual, expected);
    case 'between':
      return (
        Array.isArray(expected) && compare('gte', actual, expected[0]) && compare('lte', actual, expected[1])
      );
    case 'matches':
      return patternMatches(actual, expected);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Numbers arrive as strings from some producers ("19.99"); compare them as numbers.
  if (typeof a === 'number' && typeof b === 'string') return b.trim() !== '' && a === Number(b);
  if (typeof a === 'string' && typeof b === 'number') return a.trim() !== '' && Number(a) === b;
  return false;
}

function compare(op: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: unknown): boolean {
  let a: number | string;
  let b: number | string;
  if (typeof expected === 'number') {
    const n = typeof actual === 'string' && actual.trim() !== '' ? Number(actual) : actual;
    if (typeof n !== 'number' || Number.isNaN(n)) return false;
    a = n;
    b = expected;
  } else if (typeof expected === 'string' && typeof actual === 'string') {
    // Strings compare lexically: right for RFC 3339 timestamps and ISO dates.
    a = actual;
    b = expected;
  } else {
    return false;
  }
  switch (op) {
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
  }
}

function describeCondition(c: Readonly<Condition>): string {
  return c.value === undefined ? `${c.field} ${c.op}` : `${c.field} ${c.op} ${JSON.stringify(c.value)}`;
}

/**
 * A stable position in [0, 1) for an event id (FNV-1a, 32 bit): the same event is sampled
 * the same way on every retry and replay, and in every process.
 */
export function sampleBucket(eventId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) {
    hash ^= eventId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 0x1_0000_0000;
}
