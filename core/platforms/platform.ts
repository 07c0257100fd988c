/**
 * What one platform is, in one value: each folder (meta/, ga4/, tiktok/, webhook/) exports a
 * `Platform` from its `index.ts`, platforms.ts lists them, and every table the rest of the code
 * reads (requirements, default consent, drivers, mappings, standard events) is derived from that
 * list (docs/architecture.md, "Platforms"). The driver the forward function calls is built here
 * from the platform's parts, so its secrets, its mapping and its reading of answers cannot
 * drift from what the platform declares.
 */
import type { ConsentPurpose, Destination, DestinationType } from '../../schemas/settings.ts';
import { type ResolvedPurposes, resolvePurposes } from '../consent/resolve.ts';
import type { StoredEvent } from '../event.ts';
import type { MappedEvent } from '../linkage/engine.ts';
import type { FieldViolation } from '../validation.ts';
import type { CountReads, CountsJoin } from './counts.ts';
import type {
  DestinationRequirements,
  Driver,
  DriverContext,
  InboundResponse,
  OAuthNeeds,
  OutboundRequest,
  Prepared,
  PreparedBatch,
} from './driver.ts';
import type { ErasureSlot } from './erasure.ts';
import { type MappingDefaults, mappingDefaults, resolveWith } from './mapping-resolve.ts';
import type { PlatformMapping } from './mapping-vocabulary.ts';
import { type BuiltEvent, chunk, configProblem, mapForDestination } from './prepare.ts';
import { classify, type ResponseTable, readAnswer } from './responses.ts';
import { formatViolations } from './target-common.ts';

/**
 * The event's consent, as the resolver states it for the destination (`consent`: every purpose,
 * every signal of the event weighed, a refusal winning), written as the platform's own privacy
 * fields (docs/linkage.md, "Consent signals"); says what it left out, if anything. A field the
 * mapping set is replaced only by a refusal.
 */
export type ConsentSignals = (
  platformEvent: Record<string, unknown>,
  destination: Readonly<Destination>,
  event: StoredEvent,
  consent: ResolvedPurposes,
) => string | undefined;

/** What the studio's creator offers for a mapped platform (data only: it runs in the browser too). */
export interface StandardEvents {
  /** The platform's own event names a custom event can be sent as. */
  readonly standardEvents: readonly string[];
  /** Where the platform's event carries a value and its currency (target fields). */
  readonly valueTargets: { readonly value: string; readonly currency: string };
  /** Where the platform's event says where the conversion happened (Meta's `action_source`), if it does. */
  readonly actionSourceTarget?: string;
  /** What the platform says matters most for matching people, shown beside the match shares. */
  readonly matchGuidance?: string;
}

/**
 * A URL parameter carrying the platform's click id (lower-cased: Snapchat writes `ScCid`): the
 * enrichment step and the tag fill the `campaign` field of the same name from a landing URL, and
 * a click means `channel` (docs/enrichment.md, "Attribution").
 */
export interface ClickIdFact {
  readonly param: string;
  readonly channel: 'paid_search' | 'social';
}

/** What a cookie the gateway sets for a platform is made from (gateway/id-cookies.ts). */
export interface CookieInput {
  /** The event's `campaign` group (the page's click ids and cookies as the tag read them). */
  readonly campaign: Readonly<Record<string, unknown>>;
  /** A cookie of the request, by name. */
  cookie(name: string): string | undefined;
  /** The domain index the platforms count (labels of the cookie's domain less one; 1 on an IP). */
  readonly index: number;
  /** The batch's time, in ms since the epoch. */
  readonly now: number;
  /** A random integer in [min, max). */
  random(min: number, max: number): number;
}

/**
 * A first-party cookie the platform reads and the gateway sets on a page's batch (docs/browser.md,
 * "Ids the server sets"), after storage (`analytics`) is granted.
 */
export interface PlatformCookie {
  readonly name: string;
  /** The purposes it needs beyond storage. */
  readonly purposes: readonly ConsentPurpose[];
  /** Set only when the settings have a destination of the platform. */
  readonly withDestination: boolean;
  /** Its value: the page's own when it is well formed, else a new one; undefined sets none. */
  value(input: CookieInput): string | undefined;
}

/**
 * A cookie a platform's pixel sets on the site that the tag copies into the `campaign` field
 * `field` (gateway/tag/context.ts), without the prefix `strip` its value starts with (Microsoft's
 * `_uetmsclkid` holds `_uet<msclkid>`).
 */
export interface PageCookie {
  readonly cookie: string;
  readonly field: string;
  readonly strip?: string;
}

/**
 * How the creator's step 3 asks whether a new event goes to the platform (studio/web/creator.ts):
 * a choice among its standard events, or the id its conversions are sent to (a pattern the field
 * accepts, `numeric` for a number pad).
 */
export type Step3Control =
  | { readonly kind: 'events'; readonly label: string }
  | { readonly kind: 'id'; readonly label: string; readonly pattern: string; readonly numeric?: boolean };

/**
 * A platform's facts as data (`<platform>/facts.ts`), importing nothing at run time: the studio's
 * browser bundle loads them (core/platforms/facts.ts lists them) as well as the platform's value,
 * which spreads them. Every table about platforms — the decision layer's consent, the gateway's
 * cookies, enrichment's click ids, the creator's step 3 and consent warning, the docs — is derived
 * from them (docs/architecture.md, "Platforms").
 */
export interface PlatformFacts {
  /** The destination type in the settings (schemas/settings.ts `DestinationType`). */
  readonly type: DestinationType;
  /** How the docs and pages name it: `short` in prose, `heading` its section of docs/platforms.md. */
  readonly names: { readonly short: string; readonly heading: string };
  /** The consent purposes the type needs unless a destination's settings say otherwise. */
  readonly consent: readonly ConsentPurpose[];
  /**
   * The platform's vendor id on the IAB TCF Global Vendor List, whose consent a TC string must
   * give (with its source in the folder's facts.ts); absent where none is confirmed.
   */
  readonly tcfVendor?: number | undefined;
  /**
   * What the person's data (hashed e-mail, phone, names, external id) needs besides the event
   * being sent (docs/delivery.md, "Consent"): `granted` — only where a signal grants
   * `ad_user_data`; refused or unstated, it is left out and the ledger says so. `not_denied` — left
   * out only where a signal refuses it. Absent: `granted` (fail closed).
   */
  readonly userData?: 'granted' | 'not_denied';
  /** The URL parameters carrying its click ids. */
  readonly clickIds?: readonly ClickIdFact[];
  /** The first-party cookies it reads that the gateway sets. */
  readonly cookies?: readonly PlatformCookie[];
  /** The first-party cookies its own pixel sets that the tag reads into the event's `campaign`. */
  readonly pageCookies?: readonly PageCookie[];
  /** The creator's step-3 control; absent for a platform a new event is not offered to. */
  readonly step3?: Step3Control;
  /** A mapped platform's standard events, value targets and match guidance (its standard-events.ts). */
  readonly events?: StandardEvents;
  /** The API version its requests carry, with the platform's sunset for it (its api-version.ts). */
  readonly apiVersion: ApiVersion;
  /** Where its own count of the events it received is read, or why none is (docs/delivery.md). */
  readonly counts: CountsFact;
  /** How the warehouse counts the platform's events itself, from tables it writes there (GA4's export). */
  readonly countsJoin?: CountsJoin;
  /**
   * How old an event the platform still takes, by its own documentation (the folder's
   * age-limit.ts): a replay or backfill skips older ones, naming this limit. Absent where the
   * platform publishes none.
   */
  readonly ageLimit?: AgeLimit;
}

/** A platform's documented limit on how old an event it is sent may be (its age-limit.ts). */
export interface AgeLimit {
  /** The oldest an event may be when sent, in hours since its `event_time`. */
  readonly hours: number;
  /** What the limit is about, in words: "web events", "click conversions". */
  readonly applies: string;
  /** The public page that says so. */
  readonly source: string;
  /** A longer limit where a destination's config says so (Meta's `action_source: physical_store`). */
  readonly longer?: {
    readonly config: string;
    readonly value: string;
    readonly hours: number;
    readonly applies: string;
  };
}

/**
 * The platform's own count of what it received (docs/delivery.md, "Counted by the platform"):
 * `reads` names the reporting API the scheduler's PlatformCounts job asks, `none` says why no
 * count is read; `doc` is the public page the fact comes from.
 */
export type CountsFact =
  | { readonly reads: string; readonly doc: string }
  | { readonly none: string; readonly doc: string };

/** A platform whose payload comes from a mapping (Meta, GA4, TikTok). */
export interface MappedPayload extends StandardEvents {
  readonly kind: 'mapped';
  /** The built-in mapping: the envelope every event gets, and each catalogue event's fields. */
  readonly mapping: PlatformMapping;
  /** Why a target event name breaks the platform's rules (checked when settings load), if it does. */
  readonly eventNameProblem?: (name: string) => string | undefined;
  readonly consentSignals: ConsentSignals;
  /** The platform event made of the mapped event (its name, the payload, what the mapping left open). */
  shape(mapped: MappedEvent, event: StoredEvent, ctx: DriverContext): Record<string, unknown>;
  /** Leaves out the parts the platform would refuse but the event can do without; says what. */
  trim?(platformEvent: Record<string, unknown>, now: Date): string | undefined;
  /** The target check: the platform's schema and limits, as field violations. */
  check(platformEvent: Record<string, unknown>, now: Date): FieldViolation[];
  /** The request carrying some platform events (at most `maxEvents`). */
  request(events: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest;
  /** Events per request; above 1 the driver also prepares batches. */
  readonly maxEvents: number;
}

/** A platform that receives the stored event itself (the webhook). */
export interface StoredPayload {
  readonly kind: 'stored';
  prepare(event: StoredEvent, ctx: DriverContext): Prepared;
}

/** A change a sync sends to an audience: a row added (or updated) or removed. */
export interface AudienceChange {
  readonly op: 'upsert' | 'delete';
  readonly data: Readonly<Record<string, unknown>>;
}

/** One page of a sync run to an audience. */
export interface AudiencePageInput<C extends AudienceChange> {
  /** The connection's `url`, or the platform's API. */
  readonly origin?: string;
  readonly audienceId: string;
  /** Names the run: its upload sessions are derived from it. */
  readonly runKey: string;
  readonly page: number;
  readonly last: boolean;
  /** The run's planned total of rows. */
  readonly planned: number;
  readonly changes: readonly C[];
}

/** Customer lists a sync can fill (Meta's custom audiences; docs/syncs.md). */
export interface AudienceSync {
  /** Rows per request. */
  readonly maxRows: number;
  /** The row columns the platform matches people by. */
  readonly columns: readonly string[];
  /** A page's requests (the token left out) and the rows that cannot go. */
  requests<C extends AudienceChange>(
    input: AudiencePageInput<C>,
  ): {
    readonly requests: readonly {
      readonly method: 'POST' | 'DELETE';
      readonly path: string;
      readonly changes: readonly C[];
    }[];
    readonly failed: readonly { readonly change: C; readonly reason: string }[];
  };
}

/**
 * The platform API version a folder's requests carry, declared once (`<platform>/api-version.ts`)
 * with the sunset the platform publishes for it: the driver reads the version from it, `settings
 * check` warns ahead of the sunset (core/plan-warnings/api-sunset.ts), and docs/platforms.md and
 * the README list every platform's (`npm run docs`).
 */
export interface ApiVersion {
  /** The version as the requests carry it, or null for an API without versions. */
  readonly version: string | null;
  /** Where the requests carry it: a path segment, a header (named in `header`), or nowhere. */
  readonly carrier: 'path' | 'header' | 'none';
  /** The header carrying it (lower case), when `carrier` is `header`. */
  readonly header?: string;
  /** The day the platform stops serving the version (ISO date), or null when it publishes none. */
  readonly sunset: string | null;
  /** The page that publishes the version and its sunset, or says versions are not dated. */
  readonly source: string;
  /** The destination `config` key that sends another version instead, where there is one. */
  readonly override?: string;
}

/** What a platform's folder writes: its facts (facts.ts, spread in) and its parts. */
export interface PlatformSpec extends PlatformFacts {
  /** Config keys, secret roles, URL and test code the platform cannot work without. */
  readonly requirements: DestinationRequirements;
  /** How an event becomes the platform's request. */
  readonly payload: MappedPayload | StoredPayload;
  /** How the platform's answers are read. */
  readonly responses: ResponseTable;
  /**
   * Secret roles the scheduler reads too, for work on the platform after delivery (Google Ads'
   * request diagnostics): core/plan.ts gives the schedule function those secrets.
   */
  readonly scheduledSecrets?: readonly string[];
  readonly audiences?: AudienceSync;
  /**
   * How the platform deletes a person from what it received (an erasure, docs/privacy.md):
   * endpoint, auth, identifier kinds and the requests; absent for a platform with no deletion API.
   */
  readonly erasure?: ErasureSlot;
  /** OAuth credentials exchanged for an access token before each call (Google's APIs). */
  readonly oauth?: OAuthNeeds;
  /** How the platform's own count of a day's events is asked for (its counts.ts); absent: none is. */
  readonly countReads?: CountReads;
  /**
   * Why a catalogue event is not sent to a destination whose settings route it nowhere (Google
   * Ads: no conversion action named for it): the decision layer skips it with this reason.
   * `mapped` is the event name its resolved mapping sends, undefined when it has no mapping.
   */
  readonly unrouted?: (eventName: string, mapped: string | undefined) => string | undefined;
  /**
   * Event fields one of which the platform needs to tell whose device an event is (GA4's
   * client_id comes from `anonymous_id`, else from `user_id`): an event with none is skipped with
   * `reason` by the decision layer, before any request, so the ledger says what to carry. Never
   * filled with a made-up id (docs/sources/README.md, "GA4 client id").
   */
  readonly identity?: { readonly anyOf: readonly string[]; readonly reason: string };
}

/** A platform with what is derived from its parts: the driver, and its mapping's defaults. */
export interface Platform extends PlatformSpec {
  readonly driver: Driver;
  /** The built-in mapping, merged once (undefined for a platform sent the stored event). */
  readonly defaults: MappingDefaults | undefined;
}

/** A platform from its folder's parts: the driver and the mapping defaults derived once. */
export function definePlatform(spec: PlatformSpec): Platform {
  const { payload } = spec;
  const base = {
    type: spec.type,
    // The secrets a driver checks before sending are the ones the platform requires: one list.
    requiredSecrets: spec.requirements.secrets,
    ...(spec.oauth ? { oauth: spec.oauth } : {}),
    interpret: (response: InboundResponse, ctx: DriverContext) => classify(spec.responses, response, ctx),
    answer: (response: InboundResponse, ctx: DriverContext) => readAnswer(spec.responses, response, ctx),
  };
  if (payload.kind === 'stored')
    return Object.freeze({
      ...spec,
      driver: Object.freeze({ ...base, prepare: payload.prepare }),
      defaults: undefined,
    });
  const defaults = mappingDefaults(payload.mapping);
  const driver: Driver = { ...base, ...mappedPrepare(spec, payload, defaults) };
  return Object.freeze({ ...spec, driver: Object.freeze(driver), defaults });
}

/**
 * `prepare` (and `prepareBatch` for platforms taking many events per request) of a mapped
 * platform: each event is mapped with the destination's resolved mapping, shaped, given its
 * consent signals, trimmed and checked alone, so one bad event is rejected by itself instead of
 * failing the request; the rest go in requests of at most `maxEvents`.
 */
function mappedPrepare(
  spec: PlatformSpec,
  payload: MappedPayload,
  defaults: MappingDefaults,
): Pick<Driver, 'prepare' | 'prepareBatch'> {
  const problem = (ctx: DriverContext) => configProblem(ctx, spec.requirements);
  const build = (event: StoredEvent, ctx: DriverContext): BuiltEvent => {
    const mapping = resolveWith(defaults, ctx.destination, event.event_name);
    const m = mapForDestination(mapping, ctx.destination, event);
    if (!m.ok) return m;
    const platformEvent = payload.shape(m.mapped, event, ctx);
    // The same verdict the decision layer reached: what the platform is told follows it.
    const consent = resolvePurposes(event, spec.tcfVendor, ctx.honorGpc ?? true);
    const dropped =
      [
        payload.consentSignals(platformEvent, ctx.destination, event, consent),
        payload.trim?.(platformEvent, ctx.now),
      ]
        .filter(Boolean)
        .join('; ') || undefined;
    const violations = payload.check(platformEvent, ctx.now);
    if (violations.length > 0)
      return { ok: false, reason: formatViolations(`${ctx.destination.type} payload refused`, violations) };
    return dropped ? { ok: true, event: platformEvent, dropped } : { ok: true, event: platformEvent };
  };
  const prepare = (event: StoredEvent, ctx: DriverContext): Prepared => {
    const p = problem(ctx);
    if (p) return { ok: false, reason: p };
    const built = build(event, ctx);
    if (!built.ok) return built;
    const request = payload.request([built.event], ctx);
    return built.dropped ? { ok: true, request, dropped: built.dropped } : { ok: true, request };
  };
  if (payload.maxEvents <= 1) return { prepare };
  const prepareBatch = (events: readonly StoredEvent[], ctx: DriverContext): PreparedBatch => {
    const p = problem(ctx);
    if (p) return { requests: [], rejected: events.map((e) => ({ eventId: e.event_id, reason: p })) };
    const good: { id: string; event: Record<string, unknown> }[] = [];
    const rejected: { eventId: string; reason: string }[] = [];
    for (const e of events) {
      const built = build(e, ctx);
      if (built.ok) good.push({ id: e.event_id, event: built.event });
      else rejected.push({ eventId: e.event_id, reason: built.reason });
    }
    const requests = chunk(good, payload.maxEvents).map((c) => ({
      request: payload.request(
        c.map((g) => g.event),
        ctx,
      ),
      eventIds: c.map((g) => g.id),
    }));
    return { requests, rejected };
  };
  return { prepare, prepareBatch };
}
