/**
 * What a user of a platform types where nothing suggests a value, and what the platform answers
 * (issue #95; docs/catalog-destinations.md, "Deliverable"): both read from Segment's own test input
 * for that destination, the committed conformance data the CI tier replays
 * (test/fixtures/segment-conformance/replay.jsonl: each passing case's settings, mapping and event,
 * the answers its `nock` mocks gave, the requests Segment's code sent). Nothing here names a
 * destination: every value comes from that data, by slug, action and field.
 *
 * - A setting: the value the destination's tests configure (their account's instance URL, region or id).
 * - A mapping field: the value the tests map it to; a directive (`{"@path": "$.properties.To"}`)
 *   is resolved against that test's own event, so the user types the value itself.
 * - A `when`: the subscription the test ran the action under (the call type of its event).
 * - An answer: for a request of the same method to the same host and path, the first 2xx answer a
 *   test's mock gave to that request (the documented shape: a record looked up, a datafile).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { documentedAnswer, splitCapturedPath } from '../../local/platforms/capture.ts';
import { REPO } from './local-start.ts';

/** One replayed case, the parts read here. */
interface Case {
  readonly slug: string;
  readonly destination?: {
    readonly config?: Readonly<Record<string, unknown>>;
    readonly actions: readonly {
      readonly action: string;
      readonly when?: string;
      readonly mapping?: Readonly<Record<string, unknown>>;
    }[];
  };
  readonly event?: Record<string, unknown>;
  readonly events?: readonly Record<string, unknown>[];
  readonly answers?: readonly {
    readonly status: number;
    readonly headers?: readonly (readonly [string, string])[];
    readonly text: string;
  }[];
  readonly segment?: readonly { readonly method: string; readonly url: string }[];
}

/** Where the CI tier's conformance data is (from the repository's root). */
export const REPLAY_DATA = 'test/fixtures/segment-conformance/replay.jsonl';

/** mapping-kit's resolution, from actions-core's CommonJS build (the one the runtime and destinations load). */
const { transform } = createRequire(import.meta.url)('@segment/actions-core') as {
  transform: (mapping: Record<string, unknown>, data: unknown) => Record<string, unknown>;
};

/** A mapping value resolved against a Segment event (undefined when it cannot be). */
export function resolved(value: unknown, event: unknown): unknown {
  try {
    return transform({ value }, event).value;
  } catch {
    return undefined;
  }
}

let cases: Map<string, Case[]> | undefined;
/**
 * The data's cases of one destination, in the data's order, those whose run reached the platform
 * (Segment's own code sent a request) and was refused nothing (no answer of 400 or more) first,
 * then those reached but refused: the values a user types are those of a set-up that delivers,
 * before those a test types to see a refusal (LinkedIn Audiences' snapshot case turns off both
 * identifiers it may send, to see the action refuse; HubSpot's names an object type its account
 * lacks, to see the 400).
 */
function casesOf(slug: string): readonly Case[] {
  if (cases === undefined) {
    cases = new Map();
    for (const line of readFileSync(join(REPO, REPLAY_DATA), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const c = JSON.parse(line) as Case;
      if (c.slug === undefined || c.destination === undefined) continue;
      cases.set(c.slug, [...(cases.get(c.slug) ?? []), c]);
    }
    // Reached and answered without a refusal, then reached but refused (HubSpot's test of an
    // object type its account lacks: a 400), then not reached.
    const sent = (c: Case) =>
      (c.segment ?? []).length === 0 ? 2 : (c.answers ?? []).every((a) => a.status < 400) ? 0 : 1;
    for (const [slug, list] of cases)
      cases.set(
        slug,
        list.toSorted((a, b) => sent(a) - sent(b)),
      );
  }
  return cases.get(slug) ?? [];
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** A value as the user types it: a directive resolved against the test's event, else as it is. */
function typed(value: unknown, event: Record<string, unknown> | undefined): unknown {
  if (event === undefined || typeof value !== 'object' || value === null) return value;
  return resolved(value, event);
}

/** Whether a mapping value is a mapping-kit directive (`{"@path": …}`, `{"@template": …}`). */
const isDirective = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value)[0]?.startsWith('@') === true;

/**
 * A test's mapping value as the user types it for an action that takes `events`: a directive that
 * reads a value from each of them as it is (the user maps the same place), else the value it reads
 * from the test's own event; an object's entries each so (HubSpot's `object_details`: the object
 * type typed, its record's id read from the person's id as the test maps it).
 */
function typedFor(
  value: unknown,
  event: Record<string, unknown> | undefined,
  events: readonly unknown[],
): unknown {
  if (isDirective(value))
    return events.length > 0 && events.every((e) => !absent(resolved(value, e)))
      ? value
      : typed(value, event);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return typed(value, event);
  const entries = Object.entries(value).map(([k, v]) => [k, typedFor(v, event, events)] as const);
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
}

/**
 * The audience key a test's event carries, where Engage writes it: `context.personas.computation_key`,
 * else a track's `properties.audience_key`.
 */
function audienceKeyOf(event: Record<string, unknown> | undefined): unknown {
  const personas = resolved({ '@path': '$.context.personas.computation_key' }, event);
  return absent(personas) ? resolved({ '@path': '$.properties.audience_key' }, event) : personas;
}

/**
 * The value the destination's tests give `field` of `action` (undefined when none does): a
 * directive that reads a value from each of `events` (the events the action will take) as it is —
 * the user maps the same place — else the value it reads from the test's own event, typed.
 * With `audienceKey` (the key of the user's own audience, the sync's): a field some test fills with
 * its own event's audience key (Braze Cohorts' `personas_audience_key`, "the `audience_key` of the
 * Engage audience you want to sync") is that key, so the user types their audience's key — never
 * the other test audience's word another case typed to see a mismatch refused. With `reads` (the
 * field's default directive) and no test mapping the field: the scalar that directive reads from a
 * test's own event (Pinterest's `app_name`, which its tests' mobile events carry as
 * `context.app.name`), typed as it is — what the user types where their events carry none.
 */
export function typedField(
  slug: string,
  action: string,
  field: string,
  events: readonly unknown[] = [],
  audienceKey?: string,
  reads?: unknown,
): unknown {
  const mappedIn = (c: Case) => c.destination?.actions.find((a) => a.action === action)?.mapping?.[field];
  if (
    audienceKey !== undefined &&
    casesOf(slug).some((c) => {
      const value = mappedIn(c);
      return typeof value === 'string' && value !== '' && value === audienceKeyOf(c.event ?? c.events?.[0]);
    })
  )
    return audienceKey;
  for (const c of casesOf(slug)) {
    const value = mappedIn(c);
    if (absent(value)) continue;
    const mine = typedFor(value, c.event ?? c.events?.[0], events);
    if (!absent(mine)) return mine;
  }
  // No test maps it: what the field's own default (`reads`) takes from a test's event, typed.
  if (typeof reads === 'object' && reads !== null)
    for (const c of casesOf(slug)) {
      const mine = typed(reads, c.event ?? c.events?.[0]);
      if (!absent(mine) && typeof mine !== 'object') return mine;
    }
  return undefined;
}

/**
 * What the destination's tests' events carry at `path` (a mapping-kit path into the event,
 * `$.userId`, `$.properties.vwo_uuid`): the first value of their events that is present and
 * `fits` (a UUID where the field's format is one), else undefined. What a user's own events carry
 * there when their site sends what the destination reads: the visitor id VWO's script sets, a
 * person id of the shape the platform keys its users by.
 */
export function typedEventValue(
  slug: string,
  path: string,
  fits: (value: unknown) => boolean = () => true,
): unknown {
  for (const c of casesOf(slug))
    for (const event of c.events ?? (c.event === undefined ? [] : [c.event])) {
      const value = resolved({ '@path': path }, event);
      if (!absent(value) && fits(value)) return value;
    }
  return undefined;
}

/** The settings the destination's tests configure, scalars only (the first case that gives each). */
export function typedSettings(slug: string): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const c of casesOf(slug))
    for (const [key, value] of Object.entries(c.destination?.config ?? {}))
      if (
        !(key in out) &&
        (typeof value === 'string' ? value !== '' : ['number', 'boolean'].includes(typeof value))
      )
        out[key] = value as string | number | boolean;
  return out;
}

/** The subscription the destination's tests run `action` under. */
export function typedWhen(slug: string, action: string): string | undefined {
  for (const c of casesOf(slug)) {
    const when = c.destination?.actions.find((a) => a.action === action)?.when;
    if (when !== undefined) return when;
  }
  return undefined;
}

/** An answer a capture server gives: status, body text, content type. */
export interface RecordedAnswer {
  readonly status: number;
  readonly text: string;
  readonly contentType?: string;
}

/**
 * The answer Segment's tests mocked for a request of `method` to `url` (matched by host and path,
 * the query left out) at destination `slug`: the first 2xx one, else undefined.
 */
export function recordedAnswer(slug: string, method: string, url: string): RecordedAnswer | undefined {
  const where = (u: string) => {
    try {
      const parsed = new URL(u);
      return `${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
    } catch {
      return undefined;
    }
  };
  const wanted = where(url);
  if (wanted === undefined) return undefined;
  for (const c of casesOf(slug)) {
    const sent = c.segment ?? [];
    for (let i = 0; i < sent.length; i++) {
      const answer = c.answers?.[i];
      const request = sent[i];
      if (answer === undefined || request === undefined) continue;
      if (answer.status < 200 || answer.status > 299 || answer.text === '') continue;
      if (request.method.toUpperCase() !== method.toUpperCase() || where(request.url) !== wanted) continue;
      const contentType = answer.headers?.find(([k]) => k.toLowerCase() === 'content-type')?.[1];
      return { status: answer.status, text: answer.text, ...(contentType ? { contentType } : {}) };
    }
  }
  return undefined;
}

/**
 * The capture server's answer for a request to `<base>/<slug>/<host><path>` (each destination's
 * `base_url` under its own slug): the recorded answer of that destination's tests, if any.
 */
export function recordedAnswerAt(method: string, path: string): RecordedAnswer | undefined {
  const m = /^\/standin\/([a-z0-9-]+)\/(.+)$/.exec(path);
  if (m?.[1] === undefined || m[2] === undefined) return undefined;
  return recordedAnswer(m[1], method, `https://${m[2]}`);
}

/**
 * The capture server's answer as the platform answers: for a request whose answer the vendor
 * documents and an action reads (a lookup, a create that answers the object it made: the local
 * capturing stand-in's rules, local/platforms/capture.ts, each vendor page named in
 * test/fixtures/catalog/SOURCES.md), that answer; else what the destination's tests recorded
 * (recordedAnswerAt).
 */
export function platformAnswerAt(method: string, path: string, text = ''): RecordedAnswer | undefined {
  const m = /^\/standin\/[a-z0-9-]+(\/.+)$/.exec(path);
  const at = m?.[1] === undefined ? undefined : splitCapturedPath(m[1]);
  const query = Object.fromEntries(new URL(path, 'http://standin').searchParams);
  const documented =
    at === undefined ? undefined : documentedAnswer(method, at.host, at.path, bodyOf(text), query);
  if (documented === undefined) return recordedAnswerAt(method, path);
  const body = documented.body;
  return {
    status: documented.status,
    text: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** A request's JSON body, else undefined. */
function bodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a user gives an audience of theirs, as a destination's audience actions read it. */
export interface TypedAudience {
  /** The audience's key (computation_key), where a test's key is one a sync takes. */
  readonly key?: string;
  readonly external_audience_id?: string;
  readonly settings?: Readonly<Record<string, unknown>>;
}

/**
 * The audience the destination's tests send Engage's events for (their events' `context.personas`,
 * the first that gives each): its key, its id at the platform and its audience settings — what the
 * user sets on the sync's audience (docs/syncs.md, "Audience events") for their own audience there.
 */
export function typedAudience(slug: string): TypedAudience {
  let key: string | undefined;
  let external: string | undefined;
  let settings: Record<string, unknown> | undefined;
  for (const c of casesOf(slug)) {
    const context = (c.event ?? c.events?.[0])?.['context'] as
      | { personas?: Record<string, unknown> }
      | undefined;
    const p = context?.personas;
    if (p === undefined) continue;
    const k = p['computation_key'];
    if (key === undefined && typeof k === 'string' && /^[a-z][a-z0-9_]{0,99}$/.test(k)) key = k;
    const id = p['external_audience_id'];
    if (external === undefined && (typeof id === 'string' || typeof id === 'number') && String(id) !== '')
      external = String(id);
    const s = p['audience_settings'];
    if (settings === undefined && typeof s === 'object' && s !== null && !Array.isArray(s))
      settings = s as Record<string, unknown>;
  }
  return {
    ...(key === undefined ? {} : { key }),
    ...(external === undefined ? {} : { external_audience_id: external }),
    ...(settings === undefined ? {} : { settings }),
  };
}
