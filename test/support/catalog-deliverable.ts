/**
 * What "verified means deliverable" sends and how (issue #95; docs/catalog-destinations.md,
 * "Deliverable"), shared by the driver's run (test/delivery/catalog-deliverable.test.ts) and the
 * gateway's (test/slow/catalog-deliverable.test.ts): the verified destinations, each set up as a
 * user sets it up without writing a mapping, and the fixed set of ordinary events a site sends.
 *
 * - Its presets when Segment's app enables some for it (the automatic ones the runtime runs), else
 *   those of its verified actions the settings check takes as they are (no mapping, no `when`),
 *   under their default subscriptions; and an action whose batching Segment forces that those
 *   leave out (HubSpot's `upsertObject`), set up as its user sets it up (batchingForced).
 * - Each required setting a stand-in shaped as the destination's schema asks: its default, its
 *   first choice, a UUID where the format is uuid, an https URL where it is a URI, else a word.
 * - An OAuth access token, and each secret Segment keeps in its environment that every request
 *   needs (Google Ads' developer token, Dynamic Yield's client secret).
 * - Each ordinary event its subscriptions take (as `store` judges: core/platforms/segment-action/
 *   subscription.ts); an event none takes is skipped, as the decision layer skips it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { normalizeEvent, normalizeOptions, type StoredEvent } from '../../core/event.ts';
import {
  type CatalogAction,
  type CatalogSetting,
  catalogEntry,
} from '../../core/platforms/segment-action/catalog.ts';
import { segmentActionProblems } from '../../core/platforms/segment-action/check.ts';
import { environmentRoles } from '../../core/platforms/segment-action/environment.ts';
import { compileFql } from '../../core/platforms/segment-action/fql.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import { subscriptionOf } from '../../core/platforms/segment-action/presets.ts';
import { CALL_TYPES, segmentEventOf } from '../../core/platforms/segment-action/segment-event.ts';
import {
  type DefaultSubscriptions,
  segmentActionTakes,
} from '../../core/platforms/segment-action/subscription.ts';
import { suggestAction } from '../../core/platforms/segment-action/suggest.ts';
import { type AudienceDestination, audienceEvents, keptForExit } from '../../core/syncs/audience-events.ts';
import type { SyncVersion } from '../../core/syncs/syncs.ts';
import type { Connection, Destination, SegmentActionSetting, Settings } from '../../schemas/settings.ts';
import { REPO } from './local-start.ts';
import {
  resolved,
  typedAudience,
  typedEventValue,
  typedField,
  typedSettings,
  typedWhen,
} from './user-supplied.ts';

export interface Verified {
  readonly slug: string;
  /** The actions every runnable case of which passed. */
  readonly actions: readonly string[];
}
interface Entry {
  readonly slug: string;
  readonly auth: string;
  readonly authFields?: readonly CatalogSetting[];
  /** One of each rule's settings must be given (GA4: a Measurement ID or a Firebase App ID). */
  readonly settingRules?: readonly { readonly anyOf: readonly string[] }[];
  /** The settings each audience connected to it must give (Segment's `audienceFields`). */
  readonly audienceFields?: readonly CatalogSetting[];
}
/** What is read of a Segment destination's definition (its module in @segment/action-destinations). */
interface Definition {
  readonly authentication?: { readonly fields?: Record<string, { readonly format?: string }> };
  readonly actions: Record<
    string,
    {
      readonly defaultSubscription?: string;
      readonly performBatch?: unknown;
      readonly fields: Record<
        string,
        {
          readonly required?: boolean;
          readonly default?: unknown;
          readonly unsafe_hidden?: boolean;
          readonly properties?: Record<string, { readonly format?: string }>;
        }
      >;
    }
  >;
}

const read = (path: string): unknown => JSON.parse(readFileSync(join(REPO, path), 'utf8'));

/** The destinations the conformance run verified, with their verified actions. */
export const VERIFIED: readonly Verified[] = (
  read('docs/data/segment-conformance.json') as {
    destinations: { slug: string; actions: { action: string; runnable: number; passing: number }[] }[];
  }
).destinations
  .map((d) => ({
    slug: d.slug,
    actions: d.actions.filter((a) => a.runnable > 0 && a.runnable === a.passing).map((a) => a.action),
  }))
  .filter((d) => d.actions.length > 0);

const CATALOG = new Map(
  (read('core/platforms/segment-action/catalog.json') as { destinations: Entry[] }).destinations.map((e) => [
    e.slug,
    e,
  ]),
);
const SUBSCRIPTIONS = read(
  'core/platforms/segment-action/default-subscriptions.json',
) as DefaultSubscriptions;

const require = createRequire(import.meta.url);
/** The destination's definition, as the runtime loads it. */
export function definitionOf(slug: string): Definition {
  return (require(`@segment/action-destinations/dist/destinations/${slug}`) as { default: Definition })
    .default;
}

/** Whether Segment's app enables presets the runtime runs (the automatic ones) when the destination is added. */
export function runsPresets(slug: string): boolean {
  return (SUBSCRIPTIONS[slug]?.presets ?? []).length > 0;
}

/** Where a required field is read from Engage's audience computation (`$.context.personas…`). */
const ENGAGE = /context\.personas|Audience (Entered|Exited)|audience_membership/i;

/**
 * An audience destination (Engage): every verified action takes Engage's audience events — its
 * required fields are read from `context.personas`, which only Segment's audience computation
 * writes or its subscription is an audience's entry or exit. No ordinary event is for it. (An action
 * with no subscription of its own, Facebook Custom Audiences' `sync`, counts as one that needs a
 * `when`: the definition does not say it is Engage's alone.)
 */
export function audienceOnly(v: Verified): boolean {
  const definition = definitionOf(v.slug);
  return v.actions.every((name) => {
    const action = definition.actions[name];
    if (action === undefined) return false;
    if (ENGAGE.test(action.defaultSubscription ?? '')) return true;
    return Object.values(action.fields).some(
      (f) => f.required && ENGAGE.test(JSON.stringify(f.default ?? '')),
    );
  });
}

/**
 * The ordinary events (of `kinds`) that a run Segment sends in batches by default takes: a run of
 * the destination as `setUp` sets it up (its presets, else its actions under their default
 * subscriptions) whose action has a `performBatch` and `enable_batching` true by default.
 */
export function batchedKinds(
  destination: Destination,
  kinds: readonly string[],
  eventOf: (kind: string) => StoredEvent | undefined = ordinaryOf,
): string[] {
  const slug = destination.destination ?? '';
  const definition = definitionOf(slug);
  const table = SUBSCRIPTIONS[slug];
  const runs =
    destination.actions === undefined
      ? (table?.presets ?? []).map((p) => ({ action: p.action, subscribe: p.subscribe }))
      : destination.actions.map((setting) => ({
          action: setting.action,
          subscribe: subscriptionOf(setting, table?.defaults[setting.action] ?? undefined),
        }));
  const batching = runs.filter(({ action }) => {
    const a = definition.actions[action];
    return typeof a?.performBatch === 'function' && a.fields['enable_batching']?.default === true;
  });
  return kinds.filter((kind) => {
    const stored = eventOf(kind);
    if (stored === undefined) return false;
    const event = segmentEventOf(stored);
    return batching.some((r) => r.subscribe !== undefined && compileFql(r.subscribe).takes(event));
  });
}

/**
 * Whether Segment forces `action` of `slug` to batch (docs/catalog-destinations.md, "Batches"): it
 * has a `performBatch` and its `enable_batching` is on by default and hidden in Segment's app
 * (`unsafe_hidden`), so its user cannot send its events one by one. Thirteen verified destinations
 * have one (HubSpot's `upsertObject`, LinkedIn Conversions' `streamConversion`, TikTok Audiences'…).
 */
export function batchingForced(slug: string, action: string): boolean {
  const a = definitionOf(slug).actions[action];
  const field = a?.fields['enable_batching'];
  return typeof a?.performBatch === 'function' && field?.default === true && field.unsafe_hidden === true;
}

/** An ordinary event of a kind, as batchedKinds judges it. */
function ordinaryOf(kind: string): StoredEvent | undefined {
  const ordinary = ORDINARY.find((o) => o.kind === kind);
  return ordinary === undefined ? undefined : ordinaryEvent(ordinary, mintedId(), new Date(0));
}

/** A UUID for settings whose format is uuid (Friendbuy's MAPI key). */
const STANDIN_UUID = '7d9f3c2e-5b1a-4e8f-9c3d-2a6b8e4f1c07';

/** A stand-in value for a required setting, shaped as its schema asks. */
export function standInValue(f: CatalogSetting, format: string | undefined): string | number | boolean {
  if (f.default !== undefined) return f.default;
  const first = f.choices?.[0]?.value;
  if (first !== undefined) return first;
  if (f.type === 'number' || f.type === 'integer') return 1;
  if (f.type === 'boolean') return true;
  if (format === 'uuid') return STANDIN_UUID;
  if (format === 'uri' || format === 'url' || /url|uri|endpoint/i.test(f.key))
    return 'https://standin.example.com';
  if (format === 'email') return 'standin@example.com';
  return `standin-${f.key}`;
}

/**
 * The destination as a user sets it up who writes no mapping of their own but accepts every
 * suggestion (core/platforms/segment-action/suggest.ts), and its settings' secret values (by
 * settings key; an OAuth connection's by role, `oauth_<role>`). Without presets, the verified
 * actions the settings check takes once their suggestions are accepted (a suggested mapping entry
 * for each required field without a default, a suggested `when` for an action without a
 * subscription); `usable` says whether any is left, `questions` which fields of the others only the
 * user can fill. An action whose batching Segment forces (batchingForced) that the suggestions
 * leave out is set up as its user sets it up even so — a `when` and the values its required fields
 * need, typed from Segment's tests of it (userTyped) — the destination's other actions as they are:
 * its user cannot switch its batching off, so it is how its events reach the platform in batches.
 */
export function setUp(
  v: Verified,
  base: string,
  supplied = false,
): {
  destination: Destination;
  secrets: Record<string, string>;
  usable: boolean;
  questions: string[];
  /**
   * With `supplied`: the settings and `<action>.<field>` the user typed, the `when`s they wrote,
   * and (`event.<path>`) what their events carry that the ordinary ones do not.
   */
  typed: string[];
  /**
   * Without `supplied`: what the user typed (`<action>.when`, `<action>.<field>`) into the actions
   * whose batching Segment forces (batchingForced) that the suggestions alone leave out.
   */
  forced: string[];
  /** With `supplied`: what the user's events carry (by Segment path), for withEventValues. */
  events: Record<string, unknown>;
} {
  const entry = CATALOG.get(v.slug);
  const formats = definitionOf(v.slug).authentication?.fields ?? {};
  const config: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  const typed: string[] = [];
  // The first setting of each "one of these" rule counts as required (the web stream's, for GA4).
  const ruled = new Set((entry?.settingRules ?? []).flatMap((r) => r.anyOf.slice(0, 1)));
  // The user types their account's settings where the destination's tests give one.
  const own = supplied ? typedSettings(v.slug) : {};
  for (const f of entry?.authFields ?? []) {
    const mine = own[f.key];
    if (mine === undefined && !f.required && !ruled.has(f.key)) continue;
    const value = mine ?? standInValue(f, formats[f.key]?.format);
    if (mine !== undefined) typed.push(f.key);
    if (f.type === 'password' || f.secret) secrets[f.key] = String(value);
    else config[f.key] = value;
  }
  const oauth = entry?.auth === 'oauth2' || entry?.auth === 'oauth-managed';
  if (oauth)
    for (const role of Object.values(OAUTH_ROLES)) secrets[role] = `standin-${role.replace('oauth_', '')}`;
  // What Segment keeps in its own environment and every request needs (Google Ads' developer
  // token, Dynamic Yield's client secret): a secret of the destination, as the settings check asks.
  for (const { role, required } of environmentRoles(v.slug))
    if (required) secrets[role] = `standin-${role.replaceAll('_', '-')}`;
  const base_ = {
    id: v.slug,
    type: 'segment_action',
    destination: v.slug,
    base_url: base,
    config,
  } as Destination;
  if (runsPresets(v.slug) && !supplied)
    return { destination: base_, secrets, usable: true, questions: [], typed, forced: [], events: {} };
  // An audience destination's actions are judged against its audience's events, not a site's.
  const audience = audienceOnly(v) ? userAudience(v.slug, supplied) : undefined;
  // What the user's own events carry where the actions read them (their person ids' shape, the
  // visitor id a platform's script sets): as the destination's tests' events carry it.
  const events = supplied && audience === undefined ? eventValues(v) : {};
  typed.push(...Object.keys(events).map((path) => `event.${path.replace(/^\$\./, '')}`));
  // What the settings check asks of each action alone (a connection is judged by the environment).
  const named = { ...base_, secrets: Object.fromEntries(Object.keys(secrets).map((k) => [k, 'NAME'])) };
  const actions: SegmentActionSetting[] = [];
  const forced: string[] = [];
  const questions = new Set<string>();
  for (const key of v.actions) {
    const action = catalogEntry(v.slug)?.actions.find((a) => a.key === key);
    if (action === undefined) continue;
    const suggested = suggestAction(action);
    /** The action's setting with what the user typed (`mine`), if the settings check takes it. */
    const taken = (mine: ReturnType<typeof userTyped>): SegmentActionSetting | undefined => {
      // A user leaves out an action with a required field they have nothing to type into.
      if (!mine.complete) return undefined;
      const when = suggested.when ?? mine.when;
      const mapping = { ...suggested.mapping, ...mine.mapping };
      const setting: SegmentActionSetting = {
        action: key,
        ...(when === undefined ? {} : { when }),
        ...(Object.keys(mapping).length > 0 ? { mapping } : {}),
      };
      const problems = segmentActionProblems({ ...named, actions: [setting] });
      return problems.every((p) => !p.startsWith('destination.actions[')) ? setting : undefined;
    };
    const mine = supplied
      ? userTyped(v.slug, action, suggested, audience, events)
      : { mapping: {}, typed: [], complete: true };
    const setting = taken(mine);
    if (setting !== undefined) {
      actions.push(setting);
      typed.push(...mine.typed);
      continue;
    }
    // An action whose batching Segment forces, which the suggestions leave out, is set up as its
    // user sets it up: a `when` and its required fields, typed from Segment's tests of it.
    if (!supplied && batchingForced(v.slug, key)) {
      const own = userTyped(v.slug, action, suggested, audience, events);
      const typedSetting = taken(own);
      if (typedSetting !== undefined) {
        actions.push(typedSetting);
        forced.push(...own.typed);
        continue;
      }
    }
    for (const q of suggested.questions) questions.add(q);
  }
  return {
    destination: { ...base_, actions } as Destination,
    secrets,
    usable: actions.length > 0,
    questions: actions.length > 0 ? [] : [...questions],
    typed,
    forced,
    events,
  };
}

/**
 * What a user types into one action where no suggestion fills it (test/support/user-supplied.ts,
 * from the destination's own tests): each required field (or one its description says is
 * required) the suggestions leave to the user, or
 * whose value (its default, or the suggestion) is empty on every ordinary event the action takes;
 * a `when` for an action that takes none of them as it is; and its hooks' saved results.
 * `complete` is false when a required field stays empty: the user leaves that action out.
 */
function userTyped(
  slug: string,
  action: CatalogAction,
  suggested: ReturnType<typeof suggestAction>,
  audience?: UserAudience,
  values: Readonly<Record<string, unknown>> = {},
): { mapping: Record<string, unknown>; when?: string; typed: string[]; complete: boolean } {
  const mapping: Record<string, unknown> = {};
  const typed: string[] = [];
  let complete = true;
  const all =
    audience?.events ??
    ORDINARY.map((o) => segmentEventOf(withEventValues(ordinaryEvent(o, mintedId(), new Date(0)), values)));
  const taken = (subscription: string | undefined) =>
    subscription === undefined ? [] : all.filter((e) => compileFql(subscription).takes(e));
  // An action that takes none of the ordinary events as it is gets the `when` its tests run it under.
  const own = suggested.when ?? action.defaultSubscription;
  const when = taken(own).length === 0 ? typedWhen(slug, action.key) : undefined;
  if (when !== undefined) typed.push(`${action.key}.when`);
  const takes = taken(when ?? own);
  const events = takes.length > 0 ? takes : all;
  for (const f of action.fields) {
    // Required, or required in words (`One of email or LinkedIn UUID … is required`).
    if (!(f.required && !f.conditional) && !/\bis required\b/i.test(f.description ?? '')) continue;
    const given = suggested.mapping[f.key] ?? f.default;
    const empty = events.every((e) => {
      const value = resolved(given, e);
      return value === undefined || value === null || value === '';
    });
    if (!suggested.questions.includes(f.key) && !empty) continue;
    // What no site's event carries where the default reads it (an app's name: `context.app.name`),
    // Engage's audience fields aside, the user types as the tests' events give it.
    const path = pathOf(given);
    const uncarried = path !== undefined && !ENGAGE.test(path) && !carried(path) ? given : undefined;
    const value = typedField(slug, action.key, f.key, events, audience?.key, uncarried);
    if (value === undefined) {
      if (f.required && !f.conditional) complete = false;
      continue;
    }
    // Typed into a number field, a number (Segment's tests give some as text: `"1335"`).
    const numeric = (f.type === 'integer' || f.type === 'number') && typeof value === 'string';
    mapping[f.key] = numeric && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    typed.push(`${action.key}.${f.key}`);
  }
  // A hook's result, which Segment's app saves into the mapping (the conversion rule, the list).
  for (const hook of action.hooks ?? []) {
    const value = typedField(slug, action.key, hook);
    if (value === undefined) continue;
    mapping[hook] = value;
    typed.push(`${action.key}.${hook}`);
  }
  return { mapping, ...(when === undefined ? {} : { when }), typed, complete };
}

/** The user's own audience, as an audience destination's actions see it. */
interface UserAudience {
  /** Its key: what the user types where a field must repeat it. */
  readonly key: string;
  /** A member's entry and exit, as each call (identify, track) writes them, in Segment's form. */
  readonly events: readonly ReturnType<typeof segmentEventOf>[];
}

/** The audience the user connects to an audience destination (audienceOf), and its events. */
function userAudience(slug: string, supplied: boolean): UserAudience {
  const calls = ['identify', 'track'] as const;
  const events = calls.flatMap((call) => {
    const sync = audienceSync(slug, audienceOf(slug, supplied, call));
    return AUDIENCE_KINDS.map((kind) =>
      segmentEventOf(memberEvent(sync, kind, memberRow('u-1', 'jane@example.com'), new Date(0))),
    );
  });
  return { key: audienceOf(slug, supplied, 'identify').key, events };
}

/**
 * What every ordinary event carries besides its name and data, as a site's tag sends it: the
 * person (identified, with the traits sites collect), consent, the page and the browser.
 */
export const PERSON = {
  user_id: 'u-1',
  anonymous_id: 'a-1',
  user: { email: 'jane@example.com', phone: '+14155552671', first_name: 'Jane', last_name: 'Doe' },
  consent: { analytics: 'granted', ads: 'granted' },
  page: {
    url: 'https://shop.example.com/mugs/blue',
    title: 'Blue mug',
    referrer: 'https://www.example.org/',
  },
  device: {
    ip: '203.0.113.7',
    user_agent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15',
    locale: 'en-US',
  },
} as const;

/**
 * The ordinary events, each with the fields a producer sends: an order, an identify, a page view,
 * a product added to the cart (the named track most presets after the order take) and a group
 * call. `id` makes each event's id (and is the event's kind in the results).
 */
export const ORDINARY: readonly {
  readonly kind: string;
  readonly event_name: string;
  readonly event_data: Readonly<Record<string, unknown>>;
}[] = [
  {
    kind: 'purchase',
    event_name: 'purchase',
    event_data: {
      value: 10,
      currency: 'USD',
      transaction_id: 'o-1',
      items: [{ item_id: 'SKU-1', item_name: 'Mug', price: 10, quantity: 1 }],
    },
  },
  { kind: 'identify', event_name: 'user_identified', event_data: {} },
  { kind: 'page', event_name: 'page_view', event_data: {} },
  {
    kind: 'add_to_cart',
    event_name: 'add_to_cart',
    event_data: {
      value: 10,
      currency: 'USD',
      items: [{ item_id: 'SKU-1', item_name: 'Mug', price: 10, quantity: 1 }],
    },
  },
  { kind: 'group', event_name: 'user_grouped', event_data: { group_id: 'g-1', traits: { name: 'Acme' } } },
];

/**
 * An event id as a site's events carry one: a UUID, as the browser tag mints it for each call
 * (gateway/tag/storage.ts, v4) and the gateway for an event that comes without one (gateway/ids.ts,
 * v7). Segment's `messageId` is that id, and actions that send it as the event's id may require a
 * UUID (Attentive's `externalEventId`).
 */
export const mintedId = (): string => randomUUID();

/** One ordinary event as stored, with its own id (mintedId). */
export function ordinaryEvent(kind: (typeof ORDINARY)[number], eventId: string, time: Date): StoredEvent {
  return {
    event_name: kind.event_name,
    event_id: eventId,
    event_time: time.toISOString(),
    ...structuredClone(PERSON),
    event_data: structuredClone(kind.event_data),
  } as unknown as StoredEvent;
}

/**
 * The ordinary event as a user's site sends it when it carries `values` (by Segment path, from
 * eventValues): `$.userId` as the person's id, `$.properties.<name>` as a field of a track's or a
 * page's data, `$.traits.<name>` as a trait of an identify call — where a site's tag puts them.
 */
export function withEventValues(stored: StoredEvent, values: Readonly<Record<string, unknown>>): StoredEvent {
  const out = structuredClone(stored) as StoredEvent & { user_id?: string };
  const data = out.event_data as Record<string, unknown>;
  const call = CALL_TYPES[out.event_name] ?? 'track';
  for (const [path, value] of Object.entries(values)) {
    const m = /^\$\.(properties|traits)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
    if (path === '$.userId') out.user_id = String(value);
    else if (m?.[1] === 'properties' && m[2] !== undefined && (call === 'track' || call === 'page'))
      data[m[2]] = value;
    else if (m?.[1] === 'traits' && m[2] !== undefined && call === 'identify')
      data['traits'] = { ...(data['traits'] as object | undefined), [m[2]]: value };
  }
  return out;
}

/** Whether a site's event can carry a value at `path` (withEventValues puts it where it is read). */
function carried(path: string): boolean {
  const probe = 'carried-probe';
  return ORDINARY.some(
    (o) =>
      resolved(
        { '@path': path },
        segmentEventOf(withEventValues(ordinaryEvent(o, mintedId(), new Date(0)), { [path]: probe })),
      ) === probe,
  );
}

/** The path of a mapping-kit `@path` directive given alone, else undefined. */
function pathOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Object.keys(value).length !== 1) return undefined;
  const path = (value as Record<string, unknown>)['@path'];
  return typeof path === 'string' ? path : undefined;
}

/** A name without case and separators: `orderId`, `order_id` and `OrderID` are one. */
const bare = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Whether the events carry what `path` reads under another spelling (`$.properties.orderId` beside
 * the `order_id` they have): that is the user's mapping to write, not a value their site adds.
 */
function spelledOtherwise(path: string, events: readonly unknown[]): boolean {
  const at = path.lastIndexOf('.');
  const parent = path.slice(0, at);
  const name = bare(path.slice(at + 1));
  return events.some((e) => {
    const siblings = resolved({ '@path': parent }, e);
    return (
      typeof siblings === 'object' && siblings !== null && Object.keys(siblings).some((k) => bare(k) === name)
    );
  });
}

/** RFC 9562's text form, as JSON Schema's `uuid` format (ajv-formats) takes it. */
const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
/** Whether a value fits a field's format: only `uuid` is judged (an id the platform keys by). */
const fits = (format: string | undefined) => (value: unknown) =>
  format !== 'uuid' || (typeof value === 'string' && UUID.test(value));

/**
 * What the user's own events carry that the ordinary ones do not, by Segment path: for each
 * field of a verified action (or property of an object field) that reads the event at one path
 * (`{"@path": "$.properties.vwo_uuid"}`) and that is required but empty on every ordinary event
 * the action takes, mapped by none of the tests and carried by them under no other spelling
 * (spelledOtherwise), or given there a value its format refuses (a
 * user id that is not a UUID),
 * the value the destination's tests' events carry at that path (test/support/user-supplied.ts),
 * where a site's event can carry it (carried); none for an action that takes no ordinary event as
 * it is (its events are Engage's audiences, or its `when` is typed). A site that sends VWO's
 * visitor id, or whose user ids are UUIDs, sends these.
 */
function eventValues(v: Verified): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const definition = definitionOf(v.slug);
  const ordinary = ORDINARY.map((o) => segmentEventOf(ordinaryEvent(o, mintedId(), new Date(0))));
  for (const key of v.actions) {
    const action = catalogEntry(v.slug)?.actions.find((a) => a.key === key);
    if (action === undefined) continue;
    const suggested = suggestAction(action);
    const own = suggested.when ?? action.defaultSubscription;
    // Only for the events an action takes as it is: a site sends nothing for Engage's audiences.
    const events = own === undefined ? [] : ordinary.filter((e) => compileFql(own).takes(e));
    if (events.length === 0) continue;
    for (const f of action.fields) {
      const given = suggested.mapping[f.key] ?? f.default;
      const reads: { path: string | undefined; format?: string; required: boolean }[] = [
        {
          path: pathOf(given),
          ...(f.format ? { format: f.format } : {}),
          required: f.required && !f.conditional,
        },
      ];
      if (pathOf(given) === undefined && typeof given === 'object' && given !== null)
        for (const [k, sub] of Object.entries(given)) {
          const format = definition.actions[key]?.fields[f.key]?.properties?.[k]?.format;
          reads.push({ path: pathOf(sub), ...(format ? { format } : {}), required: false });
        }
      for (const { path, format, required } of reads) {
        if (path === undefined || path in out) continue;
        const values = events.map((e) => resolved({ '@path': path }, e));
        const present = values.filter((x) => x !== undefined && x !== null && x !== '');
        // A required field the tests map is typed as they map it (userTyped), not carried.
        const empty =
          required &&
          present.length === 0 &&
          !spelledOtherwise(path, events) &&
          typedField(v.slug, key, f.key, events) === undefined;
        if (!(empty || present.some((x) => !fits(format)(x))) || !carried(path)) continue;
        const value = typedEventValue(v.slug, path, fits(format));
        if (value !== undefined) out[path] = value;
      }
    }
  }
  return out;
}

/** A settings key's secret name in an environment (`DLV_<SLUG>_<KEY>`). */
export const secretName = (slug: string, key: string): string =>
  `DLV_${slug}_${key}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/**
 * The destination as its settings say it (ids start with a letter: `d-<slug>`): secrets by
 * name, an OAuth destination's credentials on its own `oauth2` connection (`c-<slug>`), as
 * `eventbus connect` writes one; and each secret name's value.
 */
export function saved(
  destination: Destination,
  secrets: Readonly<Record<string, string>>,
): { destination: Destination; connections: Connection[]; values: Map<string, string> } {
  const slug = destination.destination ?? '';
  const values = new Map<string, string>();
  const named: Record<string, string> = {};
  const roles: Record<string, string> = {};
  const oauthRoles = new Set<string>(Object.values(OAUTH_ROLES));
  for (const [key, value] of Object.entries(secrets)) {
    const name = secretName(slug, key);
    values.set(name, value);
    if (oauthRoles.has(key)) roles[key.replace(/^oauth_/, '')] = name;
    else named[key] = name;
  }
  const connection = Object.keys(roles).length > 0 ? `c-${slug}` : undefined;
  return {
    destination: {
      ...destination,
      id: `d-${slug}`,
      ...(Object.keys(named).length > 0 ? { secrets: named } : {}),
      ...(connection ? { connection } : {}),
    } as Destination,
    connections: connection ? [{ id: connection, type: 'oauth2', secrets: roles } as Connection] : [],
    values,
  };
}

/**
 * Audiences from the warehouse (docs/syncs.md, "Audience events"): an audience destination is
 * given its members as a user gives them, by an `audience` sync over a warehouse table of members
 * (mirror mode, keyed by the member's id and e-mail, so an exit names both), whose entries and
 * exits are Engage's audience events (core/syncs/audience-events.ts), stored, decided and
 * forwarded as any event.
 */
export const AUDIENCE_KINDS = ['audience_entered', 'audience_exited'] as const;

/** A member's row of the warehouse table: the person's ids, traits and consent, as PERSON's. */
export const memberRow = (user: string, email: string): Record<string, unknown> => ({
  user_id: user,
  anonymous_id: `${user}-anon`,
  email,
  phone: PERSON.user.phone,
  // Each member's own name: a platform that takes only hashed names sees ten people, not one.
  first_name: `${PERSON.user.first_name} ${user}`,
  last_name: PERSON.user.last_name,
  consent: { ...PERSON.consent },
});

/**
 * The sync's audience, connected to the destination: the user's own key and a stand-in for the
 * audience's id at the platform (as for a required setting), or (`supplied`) the audience the
 * destination's tests name; and each audience setting the destination requires (its
 * `audienceFields`: Dynamic Yield's `audience_name`) that those leave out, a stand-in shaped as
 * its schema asks, by the rule for required settings (standInValue), as applying the sync asks.
 */
export function audienceOf(slug: string, supplied: boolean, call: 'identify' | 'track'): AudienceDestination {
  const typed = supplied ? typedAudience(slug) : {};
  const given: Record<string, unknown> = { ...(typed.settings ?? {}) };
  for (const f of CATALOG.get(slug)?.audienceFields ?? [])
    if (f.required && [undefined, null, ''].includes(given[f.key] as never))
      given[f.key] = standInValue(f, undefined);
  return {
    key: 'vip_customers',
    external_audience_id: '1234567890',
    ...typed,
    ...(Object.keys(given).length > 0 ? { settings: given } : {}),
    call,
    destinations: [`d-${slug}`],
  };
}

/** The audience sync of a destination, over `model`. */
export function audienceSync(
  slug: string,
  audience: AudienceDestination,
  model = 'crm.members',
): SyncVersion {
  return {
    name: `audience-${slug}`,
    version: '1',
    spec: {
      model,
      primary_key: ['user_id', 'email'],
      mode: 'mirror',
      schedule: { manual: true },
      destination: { audience },
    },
  };
}

const NORMALIZE = normalizeOptions({} as Settings);

/** A member's entry or exit (`kind`) at `slot` as `store` keeps it: the sync's event, normalised. */
export function memberEvent(
  sync: SyncVersion,
  kind: string,
  row: Record<string, unknown>,
  slot: Date,
): StoredEvent {
  const entry = {
    n: 1,
    op: 'upsert' as const,
    key: { user_id: row['user_id'], email: row['email'] },
    data: row,
  };
  // An exit as a run reads it: the key's digest, and what the state kept when the member entered.
  const kept = keptForExit(sync.spec, [entry]).get(1);
  const change =
    kind === 'audience_exited'
      ? { n: 1, op: 'delete' as const, key: { key_sha256: '' }, data: {}, ...(kept ? { kept } : {}) }
      : entry;
  const [event] = audienceEvents(sync, [change], slot.toISOString()).events;
  const normalized = normalizeEvent(event?.body, {
    options: NORMALIZE,
    now: slot.getTime(),
    newId: () => '',
  });
  if (!normalized.ok)
    throw new Error(`an audience event store refuses: ${JSON.stringify(normalized.violations)}`);
  return normalized.event as StoredEvent;
}

/**
 * The call a user picks for an audience destination's sync: an identify when one of its actions
 * takes the member's entry as one (as `store` judges), else a track (`Audience Entered`); undefined
 * when none takes either.
 */
export function audienceCall(
  destination: Destination,
  slug: string,
  supplied: boolean,
): 'identify' | 'track' | undefined {
  return (['identify', 'track'] as const).find((call) => {
    const sync = audienceSync(slug, audienceOf(slug, supplied, call));
    return (
      segmentActionTakes(
        destination,
        memberEvent(sync, 'audience_entered', memberRow('u-1', 'jane@example.com'), new Date(0)),
      ) === true
    );
  });
}
