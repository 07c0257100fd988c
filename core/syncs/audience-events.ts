/**
 * Audiences from the warehouse (docs/syncs.md, "Audience events"): what an `audience` sync
 * destination publishes for a page of changes, pure. Each row of the model is a member of the
 * audience; a row that enters the model (an upsert) is the member's entry, a key that leaves it
 * (a deletion, `mirror` mode) the member's exit. Each becomes the audience event Segment's Engage
 * sends its destinations, as Segment's public documentation of Engage audience events describes
 * it (segment.com/docs/engage/using-engage-data/#audience-events, "identify" and "track"):
 *
 * - `identify` (the default): `traits.<audience_key>` true on entry, false on exit;
 * - `track`: `Audience Entered` / `Audience Exited`, with `properties.audience_key` and
 *   `properties.<audience_key>` true / false;
 *
 * both with `context.personas` = `{computation_class: "audience", computation_id,
 * computation_key, namespace, space_id}` (and `external_audience_id`, `audience_settings` where
 * the sync gives them), the person's ids (`user_id`, `anonymous_id`) and traits (`email`,
 * `phone`…) from the row's columns, the row's other columns as further traits or properties
 * (Engage's "additional traits"), and its `consent` column as the event's consent.
 *
 * They are published into the pipeline like any event, so each is stored first, decided
 * (consent, rules, each destination's subscriptions) and forwarded — to the destinations the
 * audience is connected to alone (`destinations`, carried as `event_data.audience_destinations`,
 * which the decision layer reads), as Engage sends an audience only to those. In our event they are
 * `user_identified` (the identify call) or `audience_entered` / `audience_exited` (segment-event.ts'
 * AUDIENCE_EVENT_NAMES), with
 * `event_data.personas`, which segment-event.ts writes as `context.personas`. An event's id is
 * derived from the sync, the audience, the member's key, entry or exit, and the run's slot: a run
 * retried (a chunk run again, the function killed mid-page) publishes the same ids, which `store`
 * folds into one event each.
 */
import { createHash } from 'node:crypto';
import type { SyncSpec } from '../../schemas/sync.ts';
import { AUDIENCE_ENTRY_CONSENT } from '../event.ts';
import type { FailedChange } from './sync-run.ts';
import { type Change, MEMBER_COLUMNS, type SyncVersion } from './syncs.ts';

export type AudienceDestination = Extract<SyncSpec['destination'], { audience: unknown }>['audience'];

/** The columns that say who the member is: the event's ids, and the person's traits (the event's `user`). */
export const ID_COLUMNS = ['user_id', 'anonymous_id'] as const;
export const PERSON_COLUMNS = [
  'email',
  'phone',
  'first_name',
  'last_name',
  'date_of_birth',
  'gender',
  'city',
  'region',
  'postal_code',
  'country',
  'external_id',
] as const;

/** The space an audience belongs to when the sync names none. */
export const DEFAULT_SPACE = 'eventbus';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The audience's id (`computation_id`): the sync's, else derived from the sync's name and the key. */
export function computationId(syncName: string, d: AudienceDestination): string {
  return d.id ?? `aud_${digest(`Sync/${syncName}\n${d.key}`).slice(0, 24)}`;
}

/** `context.personas` of the audience's events. */
export function personasOf(syncName: string, d: AudienceDestination): Record<string, unknown> {
  const space = d.space_id ?? DEFAULT_SPACE;
  return {
    computation_class: 'audience',
    computation_id: computationId(syncName, d),
    computation_key: d.key,
    namespace: `spa_${space}`,
    space_id: space,
    ...(d.external_audience_id === undefined ? {} : { external_audience_id: d.external_audience_id }),
    ...(d.settings === undefined ? {} : { audience_settings: d.settings }),
  };
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A `consent` column as an object: a record, or JSON text of one (a JSON or STRING column). */
function consentOf(v: unknown): Record<string, unknown> | string | undefined {
  if (v === undefined || v === null) return undefined;
  if (isObject(v)) return v;
  if (typeof v === 'string')
    try {
      const parsed: unknown = JSON.parse(v);
      if (isObject(parsed)) return parsed;
    } catch {
      // Reported below.
    }
  return 'the consent column must be an object of purposes ({"analytics": "granted", …}) or its JSON';
}

/** One published event and what it is published with. */
export interface AudienceEvent {
  readonly body: Record<string, unknown>;
  readonly attributes: Record<string, string>;
}

/**
 * The audience events of a page of changes, and the rows that cannot be one (no column names the
 * person; a consent column that is not an object), which fail with the reason.
 */
export function audienceEvents(
  sync: SyncVersion,
  changes: readonly Change[],
  slot: string,
): { readonly events: AudienceEvent[]; readonly failed: FailedChange[] } {
  const d = sync.spec.destination;
  if (!('audience' in d)) return { events: [], failed: [] };
  const audience = d.audience;
  const personas = personasOf(sync.name, audience);
  const events: AudienceEvent[] = [];
  const failed: FailedChange[] = [];
  for (const change of changes) {
    const withdrawal = change.op === 'upsert' ? withdrawnExit(change) : undefined;
    if (withdrawal !== undefined)
      events.push(eventOf(sync.name, audience, personas, withdrawal, change, slot));
    const member = change.op === 'delete';
    // An exit knows the member by what the state kept of it (its key and consent): the row has
    // left the model.
    const kept = member ? exitOf(change) : undefined;
    if (member && kept === undefined) {
      failed.push({ change, reason: 'the sync’s state keeps no member for this exit' });
      continue;
    }
    const row: Readonly<Record<string, unknown>> = kept ?? change.data;
    if (!MEMBER_COLUMNS.some((c) => isText(row[c]))) {
      failed.push({
        change,
        reason: `no column names the member: one of ${MEMBER_COLUMNS.join(', ')} is needed${member ? ' in the primary key (an exit knows the member by its key)' : ''}`,
      });
      continue;
    }
    const consent = consentOf(row['consent']);
    if (typeof consent === 'string') {
      failed.push({ change, reason: consent });
      continue;
    }
    events.push(eventOf(sync.name, audience, personas, { row, consent, entered: !member }, change, slot));
  }
  return { events, failed };
}

/** A member as one event tells it: its columns, its consent, entry or exit. */
interface Member {
  readonly row: Readonly<Record<string, unknown>>;
  readonly consent: Record<string, unknown> | undefined;
  readonly entered: boolean;
  /** A withdrawal's exit: the consent the member entered with (AUDIENCE_ENTRY_CONSENT). */
  readonly entryConsent?: Record<string, unknown>;
}

const granted = (v: unknown) => v === 'granted' || v === true;

/**
 * A member whose row changed and whose consent withdraws a purpose it entered with: its exit, known
 * by its kept key, with the new consent and the one it entered with. Its entry with the new
 * consent is published beside it; per destination the decision layer sends one of the two.
 */
function withdrawnExit(change: Change): Member | undefined {
  const kept = exitOf(change);
  if (kept === undefined || !MEMBER_COLUMNS.some((c) => isText(kept[c]))) return undefined;
  const before = kept['consent'];
  const now = consentOf(change.data['consent']);
  if (!isObject(before) || typeof now === 'string') return undefined;
  const withdrawn = Object.entries(before).some(([p, v]) => granted(v) && !granted(now?.[p]));
  if (!withdrawn) return undefined;
  const key = Object.fromEntries(Object.entries(kept).filter(([column]) => column !== 'consent'));
  return { row: key, consent: now, entered: false, entryConsent: before };
}

/** One audience event: the member's ids and traits, its consent, `context.personas`. */
function eventOf(
  syncName: string,
  audience: AudienceDestination,
  personas: Record<string, unknown>,
  member: Member,
  change: Change,
  slot: string,
): AudienceEvent {
  const { row, consent, entered } = member;
  const user: Record<string, string> = {};
  const extra: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined || value === null || column === 'consent') continue;
    if ((ID_COLUMNS as readonly string[]).includes(column)) continue;
    if ((PERSON_COLUMNS as readonly string[]).includes(column)) {
      if (isText(value)) user[column] = value;
      else if (typeof value === 'number') user[column] = String(value);
      continue;
    }
    // The membership itself is the audience key's; a column of that name does not override it.
    if (column !== audience.key && column !== 'audience_key') extra[column] = value;
  }
  const direction = entered ? 'entered' : 'exited';
  const track = audience.call === 'track';
  const body: Record<string, unknown> = {
    event_name: track ? `audience_${direction}` : 'user_identified',
    event_id: digest(
      `Sync/${syncName}\n${audience.key}\n${JSON.stringify(change.key)}\n${direction}${member.entryConsent === undefined ? '' : '\nwithdrawn'}\n${slot}`,
    ),
    event_time: slot,
    ...(isText(row['user_id']) ? { user_id: row['user_id'] } : {}),
    ...(isText(row['anonymous_id']) ? { anonymous_id: row['anonymous_id'] } : {}),
    ...(Object.keys(user).length > 0 ? { user } : {}),
    ...(consent === undefined ? {} : { consent }),
    ...(track
      ? { properties: { ...extra, audience_key: audience.key, [audience.key]: entered } }
      : { traits: { ...extra, [audience.key]: entered } }),
    personas,
    audience_destinations: [...audience.destinations],
    ...(member.entryConsent === undefined ? {} : { [AUDIENCE_ENTRY_CONSENT]: member.entryConsent }),
  };
  return { body, attributes: { origin: `Sync/${syncName}`, hops: '1' } };
}

/**
 * What the state keeps of each member entered (mirror mode: sync-sql.ts' `identifiers` form), for
 * its exit: its key and its consent, as a JSON list `[key, consent]` (a list, not an object, as
 * every audience's kept members are).
 */
export function keptForExit(spec: SyncSpec, changes: readonly Change[]): Map<number, string> {
  if (spec.mode !== 'mirror') return new Map();
  return new Map(
    changes
      .filter((c) => c.op === 'upsert')
      .map((c) => {
        const consent = consentOf(c.data['consent']);
        return [c.n, JSON.stringify([c.key, typeof consent === 'object' ? consent : null])];
      }),
  );
}

/** A member's exit as the state kept it: its key's columns and its consent. */
function exitOf(change: Change): Record<string, unknown> | undefined {
  if (change.kept === undefined) return undefined;
  try {
    const [key, consent] = JSON.parse(change.kept) as [unknown, unknown];
    if (!isObject(key)) return undefined;
    return { ...key, ...(isObject(consent) ? { consent } : {}) };
  } catch {
    return undefined;
  }
}
