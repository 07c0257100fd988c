/**
 * What a mirror sync to an audience keeps of each member, and how it removes one by it
 * (docs/syncs.md, "What a sync keeps"), pure: the member's identifiers exactly as they were sent —
 * normalised and hashed by the platform's own code (core/platforms/meta/audience.ts,
 * core/platforms/google-ads/audience.ts) — so the state holds no e-mail or phone, and a member
 * that leaves the model is removed by the same hashes that added it.
 *
 * The platforms' request builders take rows; a removal has only the kept hashes. So a removal is
 * built by the platform's builder around a stand-in row (one identifier that needs no hashing),
 * and the identifiers of the request it returns are then replaced by the kept ones: the path, the
 * session, the destinations and the batching stay the platform's.
 */

import type { SyncSpec } from '../../schemas/sync.ts';
import {
  type CustomerMatchTarget,
  customerMatchIdentifiers,
  customerMatchRequests,
} from '../platforms/google-ads/audience.ts';
import { type AudiencePayload, audiencePage, audienceRequests } from '../platforms/meta/audience.ts';
import type { AudiencePageInput } from '../platforms/platform.ts';
import { keptForExit } from './audience-events.ts';
import { keptForm } from './sync-sql.ts';
import type { Change } from './syncs.ts';

type Platform = 'meta_audience' | 'google_ads_audience';

/** Identifiers Customer Match takes per member (customerMatchRequests keeps as many). */
const MAX_MEMBER_IDENTIFIERS = 10;

/** Meta's kept member: `[schema key, value]` pairs, as its payload carried them. */
type MetaMember = readonly (readonly [string, string])[];

/** Each change's identifiers as Meta receives them (by change number; none without one). */
function metaMembers(changes: readonly Change[]): Map<number, MetaMember> {
  const page = audiencePage(changes.map((c) => ({ ...c, op: 'upsert' as const })));
  const out = new Map<number, MetaMember>();
  const add = page.add;
  add?.changes.forEach((c, i) => {
    const values = add.payload.data[i] ?? [];
    const pairs = add.payload.schema.map((k, j) => [k, values[j] ?? ''] as const);
    out.set(
      c.n,
      pairs.filter(([, v]) => v !== ''),
    );
  });
  return out;
}

/** Each change's `userIdentifiers` as Customer Match receives them (by change number; none without one). */
function customerMatchMembers(changes: readonly Change[]): Map<number, readonly unknown[]> {
  const out = new Map<number, readonly unknown[]>();
  for (const c of changes) {
    const ids = customerMatchIdentifiers(c.data).slice(0, MAX_MEMBER_IDENTIFIERS);
    if (ids.length > 0) out.set(c.n, ids);
  }
  return out;
}

const platformOf = (spec: SyncSpec): Platform | undefined =>
  'meta_audience' in spec.destination
    ? 'meta_audience'
    : 'google_ads_audience' in spec.destination
      ? 'google_ads_audience'
      : undefined;

/**
 * What the state keeps of each committed upsert (by change number, as JSON): an audience
 * member's identifiers as they were sent, when the sync's deletions will need them
 * (sync-sql.ts's `keptForm`); nothing for any other sync.
 */
export function keptMembers(spec: SyncSpec, changes: readonly Change[]): Map<number, string> {
  if ('audience' in spec.destination) return keptForExit(spec, changes);
  const platform = platformOf(spec);
  if (!platform || keptForm(spec) !== 'identifiers') return new Map();
  const upserts = changes.filter((c) => c.op === 'upsert');
  const members = platform === 'meta_audience' ? metaMembers(upserts) : customerMatchMembers(upserts);
  return new Map([...members].map(([n, m]) => [n, JSON.stringify(m)]));
}

/**
 * A page's deletions with the member each removes: the kept identifiers, or for a row an earlier
 * version kept whole, its identifiers computed now. A deletion with none was never added (a row
 * without identifiers fails and is not committed): nothing is sent for it and it leaves the state.
 */
function removals<M>(
  changes: readonly Change[],
  parse: (kept: unknown) => M | undefined,
  compute: (changes: readonly Change[]) => Map<number, M>,
): Map<number, M> {
  const deletes = changes.filter((c) => c.op === 'delete');
  const computed = compute(deletes.filter((c) => c.kept === undefined));
  const out = new Map<number, M>();
  for (const c of deletes) {
    const member = c.kept === undefined ? computed.get(c.n) : parse(parseJson(c.kept));
    if (member !== undefined) out.set(c.n, member);
  }
  return out;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const metaMember = (v: unknown): MetaMember | undefined =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string'))
    ? (v as MetaMember)
    : undefined;

const customerMatchMember = (v: unknown): readonly unknown[] | undefined =>
  Array.isArray(v) && v.length > 0 ? v : undefined;

/** The page's changes for the platform's builder: upserts as they are, removals as stand-ins. */
function withStandIns<M>(
  changes: readonly Change[],
  members: ReadonlyMap<number, M>,
  standIn: Readonly<Record<string, unknown>>,
): Change[] {
  return changes.flatMap((c) =>
    c.op === 'upsert' ? [c] : members.has(c.n) ? [{ ...c, data: standIn }] : [],
  );
}

/**
 * A page's requests to a Meta audience (core/platforms/meta/audience.ts's `audienceRequests`),
 * each removal carrying the identifiers the member was added with.
 */
export function metaAudiencePageRequests(input: AudiencePageInput<Change>) {
  const members = removals(input.changes, metaMember, metaMembers);
  // EXTERN_ID is sent as it is: the stand-in row needs no hashing, and is replaced below.
  const built = audienceRequests({
    ...input,
    changes: withStandIns(input.changes, members, { external_id: '-' }),
  });
  return {
    failed: built.failed,
    requests: built.requests.map((r) =>
      r.changes[0]?.op === 'delete'
        ? { ...r, body: { ...r.body, payload: metaPayload(r.changes.map((c) => members.get(c.n) ?? [])) } }
        : r,
    ),
  };
}

/** Kept Meta members as one payload: the keys any of them has, '' where one has none. */
function metaPayload(members: readonly MetaMember[]): AudiencePayload {
  const schema = [...new Set(members.flatMap((m) => m.map(([k]) => k)))];
  return {
    schema,
    data: members.map((m) => {
      const byKey = new Map(m);
      return schema.map((k) => byKey.get(k) ?? '');
    }),
  };
}

/**
 * A page's requests to a Customer Match list (core/platforms/google-ads/audience.ts's
 * `customerMatchRequests`), each removal carrying the identifiers the member was added with.
 */
export function customerMatchPageRequests(target: CustomerMatchTarget, changes: readonly Change[]) {
  const members = removals(changes, customerMatchMember, customerMatchMembers);
  // A SHA-256 hex e-mail passes the builder unchanged; it is replaced below.
  const built = customerMatchRequests(target, withStandIns(changes, members, { email: '0'.repeat(64) }));
  return {
    failed: built.failed,
    requests: built.requests.map((r) =>
      r.changes[0]?.op === 'delete'
        ? {
            ...r,
            body: {
              ...r.body,
              audienceMembers: r.changes.map((c) => ({
                userData: { userIdentifiers: members.get(c.n) ?? [] },
              })),
            },
          }
        : r,
    ),
  };
}
