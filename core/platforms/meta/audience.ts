/**
 * A sync to a Meta customer list custom audience (docs/syncs.md#meta-custom-audience), the pure
 * part: each row's identifiers normalised and hashed by the Conversions API's own transforms
 * (core/linkage/transforms.ts), a page as the `payload` Meta's `/{audience_id}/users` takes —
 * `{schema: [...], data: [[...], ...]}`, at most 10,000 rows a request — added with POST and, in
 * mirror mode, removed with DELETE, in one upload session per run. Generic over the change a
 * sync carries (core/syncs/syncs.ts's `Change`), which it hands back untouched with each request.
 */
import * as t from '../../linkage/transforms.ts';
import type { AudienceChange, AudiencePageInput, AudienceSync } from '../platform.ts';
import { META_API_VERSION, META_BASE_URL } from './driver.ts';

/** Meta's limit on rows per `/users` request. */
export const AUDIENCE_MAX_ROWS = 10_000;

/**
 * The row columns a sync may give (after `fields`), the audience schema key each becomes, and its
 * normalisation (Meta's customer-file rules, the same as the Conversions API's user_data).
 */
const IDENTIFIERS: readonly {
  readonly column: string;
  readonly key: string;
  readonly normalise: (v: string, row: Readonly<Record<string, unknown>>) => string | undefined;
  readonly hashed: boolean;
}[] = [
  { column: 'email', key: 'EMAIL', normalise: (v) => v.trim().toLowerCase() || undefined, hashed: true },
  {
    column: 'phone',
    key: 'PHONE',
    normalise: (v, row) => t.phone(v, 'digits', text(row['country'])),
    hashed: true,
  },
  { column: 'first_name', key: 'FN', normalise: t.personName, hashed: true },
  { column: 'last_name', key: 'LN', normalise: t.personName, hashed: true },
  { column: 'city', key: 'CT', normalise: t.city, hashed: true },
  { column: 'state', key: 'ST', normalise: t.state, hashed: true },
  { column: 'zip', key: 'ZIP', normalise: (v, row) => t.zip(v, text(row['country'])), hashed: true },
  { column: 'country', key: 'COUNTRY', normalise: t.country, hashed: true },
  { column: 'gender', key: 'GEN', normalise: t.gender, hashed: true },
  // Meta matches an advertiser's own id as it is sent, unhashed.
  { column: 'external_id', key: 'EXTERN_ID', normalise: (v) => v.trim() || undefined, hashed: false },
];

export const AUDIENCE_COLUMNS: readonly string[] = IDENTIFIERS.map((i) => i.column);

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

export interface AudiencePayload {
  readonly schema: readonly string[];
  readonly data: readonly (readonly string[])[];
}

/** A page's changes as the users to add and the users to remove, and the rows that cannot go. */
export interface AudiencePage<C extends AudienceChange = AudienceChange> {
  readonly add?: { readonly payload: AudiencePayload; readonly changes: readonly C[] };
  readonly remove?: { readonly payload: AudiencePayload; readonly changes: readonly C[] };
  readonly failed: readonly { readonly change: C; readonly reason: string }[];
}

/** One row's identifiers, normalised (and hashed where Meta wants them hashed), by schema key. */
function identifiersOf(row: Readonly<Record<string, unknown>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of IDENTIFIERS) {
    const raw = text(row[id.column]);
    if (raw === undefined) continue;
    const v = id.normalise(raw, row);
    if (v !== undefined) out.set(id.key, id.hashed ? t.sha256(v) : v);
  }
  return out;
}

function payloadOf(rows: readonly Map<string, string>[]): AudiencePayload {
  // Only the keys some row has, in Meta's documented order.
  const schema = IDENTIFIERS.map((i) => i.key).filter((k) => rows.some((r) => r.has(k)));
  return { schema, data: rows.map((r) => schema.map((k) => r.get(k) ?? '')) };
}

/**
 * A page as Meta requests. A deletion carries the row as it was last sent (the state keeps it),
 * so a removed user is matched by the same identifiers they were added with. A row without any
 * identifier Meta can match is a failed row with the reason, not a request.
 */
export function audiencePage<C extends AudienceChange>(changes: readonly C[]): AudiencePage<C> {
  const failed: { change: C; reason: string }[] = [];
  const add: { change: C; ids: Map<string, string> }[] = [];
  const remove: { change: C; ids: Map<string, string> }[] = [];
  for (const change of changes) {
    const ids = identifiersOf(change.data);
    if (ids.size === 0) {
      failed.push({
        change,
        reason: `no identifier Meta can match: give one of ${AUDIENCE_COLUMNS.join(', ')} (after normalisation none was usable)`,
      });
      continue;
    }
    (change.op === 'delete' ? remove : add).push({ change, ids });
  }
  return {
    ...(add.length > 0
      ? { add: { payload: payloadOf(add.map((a) => a.ids)), changes: add.map((a) => a.change) } }
      : {}),
    ...(remove.length > 0
      ? { remove: { payload: payloadOf(remove.map((r) => r.ids)), changes: remove.map((r) => r.change) } }
      : {}),
    failed,
  };
}

/**
 * The upload session of a run: one id per run (a 64-bit integer Meta wants), pages numbered from 1,
 * the last one flagged, with the run's planned total as the estimate.
 */
export function audienceSession(runKey: string, page: number, last: boolean, planned: number) {
  const id = Number.parseInt(t.sha256(runKey).slice(0, 13), 16);
  return { session_id: id, batch_seq: page, last_batch_flag: last, estimated_num_total: planned };
}

/** One `/users` request of a page, without the token (the sender adds it to the URL). */
export interface AudienceRequest<C extends AudienceChange = AudienceChange> {
  readonly method: 'POST' | 'DELETE';
  /** `<origin>/<version>/<audience>/users`. */
  readonly path: string;
  readonly body: { readonly payload: AudiencePayload; readonly session: ReturnType<typeof audienceSession> };
  /** The changes it carries (they fail together if Meta refuses it). */
  readonly changes: readonly C[];
}

/**
 * A page's requests to an audience — users added (POST), then removed (DELETE), each in its own
 * upload session of the run — and the rows that cannot go: what the schedule function sends and
 * what `sync run --dry-run` prints.
 */
export function audienceRequests<C extends AudienceChange>(
  input: AudiencePageInput<C>,
): { readonly requests: readonly AudienceRequest<C>[]; readonly failed: AudiencePage<C>['failed'] } {
  const built = audiencePage(input.changes);
  const path = `${(input.origin ?? META_BASE_URL).replace(/\/+$/, '')}/${META_API_VERSION}/${input.audienceId}/users`;
  const requests: AudienceRequest<C>[] = [];
  for (const [method, part, session] of [
    ['POST', built.add, input.runKey],
    ['DELETE', built.remove, `${input.runKey}#remove`],
  ] as const) {
    if (!part) continue;
    requests.push({
      method,
      path,
      body: {
        payload: part.payload,
        session: audienceSession(session, input.page, input.last, input.planned),
      },
      changes: part.changes,
    });
  }
  return { requests, failed: built.failed };
}

/** Meta's customer-list custom audiences, as the platform value carries them. */
export const META_AUDIENCES: AudienceSync = {
  maxRows: AUDIENCE_MAX_ROWS,
  columns: AUDIENCE_COLUMNS,
  requests: audienceRequests,
};
