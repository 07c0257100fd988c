/**
 * An erasure at the platforms (issue #61; docs/privacy.md, "Erasure today"), the pure part: given the
 * settings, the registry's syncs and one person's raw identifiers, the HTTP requests that ask each
 * platform holding the person to delete them, and the destinations that hold them but offer no
 * way to ask. The schedule function sends the requests (functions/schedule/erasure-platforms.ts).
 *
 * - A delivery destination whose platform fills the erasure slot (PlatformSpec.erasure; GA4's
 *   user deletion, core/platforms/ga4/erasure.ts): the requests the slot builds.
 * - Customer Match lists and Meta custom audiences (audience syncs): one removal of the person's
 *   e-mails and phones, a member (a row) per identifier, built by the sync's own request builders
 *   (core/platforms/google-ads/audience.ts, core/platforms/meta/audience.ts), so they are
 *   normalised and hashed exactly as the sync added them.
 * - Every other delivery destination: `unsupported`, with the reason.
 * - Syncs to files or a webhook: `unsupported`, each named with what the erasure leaves there (the
 *   files' `gs://` folder and the command that deletes them; the webhook's host). Syncs to a topic
 *   give nothing (the warehouse and Pub/Sub the erasure itself covers).
 *
 * Disabled destinations and syncs are included: they may hold the person from before.
 */
import type { Destination, Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import {
  distinctIds,
  ERASURE_TIMEOUT_MS,
  type ErasedPerson,
  type ErasureGap,
  type PlatformErasureRequest,
} from '../platforms/erasure.ts';
import { customerMatchRequests } from '../platforms/google-ads/audience.ts';
import { CREDENTIALS_ROLE, DATA_MANAGER_SCOPE } from '../platforms/google-ads/driver.ts';
import { audienceRequests } from '../platforms/meta/audience.ts';
import { PLATFORMS } from '../platforms/platforms.ts';
import {
  customerMatchPageRequests,
  keptMembers,
  metaAudiencePageRequests,
} from '../syncs/audience-members.ts';
import { type Change, customerMatchTarget } from '../syncs/syncs.ts';

export type {
  ErasedPerson,
  ErasureAuth,
  ErasureGap,
  ErasureHttpRequest,
  PlatformErasureRequest,
} from '../platforms/erasure.ts';

/** A sync as the registry holds it: its name and spec. */
export interface NamedSync {
  readonly name: string;
  readonly spec: SyncSpec;
}

export interface PlatformErasure {
  readonly requests: readonly PlatformErasureRequest[];
  /** Destinations that hold the person but have no deletion API (or none configured). */
  readonly unsupported: readonly ErasureGap[];
  /** Audience syncs that have one but cannot be asked: their connection is missing or incomplete. */
  readonly blocked: readonly ErasureGap[];
}

/**
 * Why a delivery destination whose platform has no erasure slot cannot be asked: a platform sent the stored event
 * (a webhook) is the business's own system; the others have no deletion API for what they received.
 */
function noDeletionApi(d: Readonly<Destination>): ErasureGap {
  return {
    platform: d.type,
    target: d.id,
    reason:
      PLATFORMS[d.type].payload.kind === 'stored'
        ? `a ${d.type} receiver is the business’s own system, with no deletion protocol of ours: erase the person there`
        : `${d.type} offers no API to delete a person from the events it received: ask the platform through its own privacy tools`,
  };
}

/** The person as audience rows, one identifier each (what the syncs' builders take). */
function audienceRows(person: ErasedPerson): { op: 'delete'; data: Record<string, string> }[] {
  return [
    ...distinctIds(person.emails).map((email) => ({ op: 'delete' as const, data: { email } })),
    ...distinctIds(person.phones).map((phone) => ({ op: 'delete' as const, data: { phone } })),
  ];
}

/**
 * The person's identifiers as a mirror audience sync sent them (normalised and hashed by the
 * platform's own builder: what its state keeps of a member), to find the state rows that hold
 * the person; empty for a sync whose state keeps no member (not mirror mode, not an audience).
 */
export function personMemberHashes(spec: SyncSpec, person: ErasedPerson): string[] {
  const changes: Change[] = audienceRows(person).map((r, n) => ({ n, op: 'upsert', key: {}, data: r.data }));
  const hashes = new Set<string>();
  const collect = (v: unknown): void => {
    if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) hashes.add(v);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) collect(x);
  };
  for (const kept of keptMembers(spec, changes).values()) collect(JSON.parse(kept));
  return [...hashes].sort();
}

/** The state rows (`__row`: a kept member) of a mirror audience sync holding any of `@hashes`. */
export function heldMembersSql(stateTable: string): string {
  return [
    `SELECT __row FROM \`${stateTable}\``,
    'WHERE __row IS NOT NULL AND EXISTS (SELECT 1 FROM UNNEST(@hashes) AS h WHERE STRPOS(__row, h) > 0)',
  ].join('\n');
}

/** Kept members as deletions for the syncs' page builders: each removes what it was added with. */
const keptDeletions = (kept: readonly string[]): Change[] =>
  kept.map((k, n) => ({ n, op: 'delete', key: {}, data: {}, kept: k }));

/** A note on the identifiers a builder could not use (never the identifiers themselves). */
function unusedNote(rows: readonly { data: Readonly<Record<string, unknown>> }[]): string | undefined {
  if (rows.length === 0) return undefined;
  const kinds = [...new Set(rows.flatMap((r) => Object.keys(r.data)))].join(' and ');
  return `${rows.length} identifier(s) (${kinds}) not sent: the sync's normalisation cannot use them as given (a phone needs its country code)`;
}

type Of<K extends string> = Extract<SyncSpec['destination'], Record<K, unknown>>;

function customerMatchErasure(
  settings: Readonly<Settings>,
  name: string,
  d: Of<'google_ads_audience'>,
  person: ErasedPerson,
  held: readonly string[] | undefined,
): PlatformErasureRequest[] | ErasureGap {
  const list = d.google_ads_audience;
  const c = (settings.connections ?? []).find((x) => x.id === list.connection);
  if (!c)
    return {
      platform: 'google_ads_audience',
      target: name,
      reason: `connection ${list.connection} is not in the settings`,
    };
  const credentialsSecret = c.secrets?.[CREDENTIALS_ROLE];
  const target = customerMatchTarget(list, c);
  const built = held
    ? customerMatchPageRequests(target, keptDeletions(held))
    : customerMatchRequests(target, audienceRows(person));
  const note = unusedNote(built.failed.map((f) => f.change));
  return built.requests.map((r) => ({
    platform: 'google_ads_audience',
    target: name,
    request: {
      method: 'POST',
      url: r.path,
      body: r.body,
      auth: {
        kind: 'google_oauth',
        scope: DATA_MANAGER_SCOPE,
        ...(credentialsSecret ? { credentialsSecret } : {}),
      },
      timeoutMs: c.timeout_ms ?? ERASURE_TIMEOUT_MS,
    },
    asks: `removal of ${r.changes.length} identifier(s)`,
    receipt: 'requestId',
    ...(note ? { note } : {}),
  }));
}

function metaAudienceErasure(
  settings: Readonly<Settings>,
  name: string,
  d: Of<'meta_audience'>,
  person: ErasedPerson,
  key: string,
  held: readonly string[] | undefined,
): PlatformErasureRequest[] | ErasureGap {
  const audience = d.meta_audience;
  const c = (settings.connections ?? []).find((x) => x.id === audience.connection);
  const tokenSecret = c?.secrets?.['access_token'];
  if (!c || !tokenSecret)
    return {
      platform: 'meta_audience',
      target: name,
      reason: c
        ? `connection ${c.id} has no access_token secret`
        : `connection ${audience.connection} is not in the settings`,
    };
  const rows = audienceRows(person);
  const page = {
    ...(c.url ? { origin: c.url } : {}),
    audienceId: audience.audience_id,
    // Names the upload session; hashed by the builder, never sent as it is.
    runKey: `erasure:${key}:${name}`,
    page: 1,
    last: true,
  };
  const built = held
    ? metaAudiencePageRequests({ ...page, planned: held.length, changes: keptDeletions(held) })
    : audienceRequests({ ...page, planned: rows.length, changes: rows });
  const note = unusedNote(built.failed.map((f) => f.change));
  return built.requests.map((r) => ({
    platform: 'meta_audience',
    target: name,
    request: {
      method: r.method,
      url: r.path,
      body: r.body,
      auth: { kind: 'meta_token', tokenSecret },
      timeoutMs: c.timeout_ms ?? ERASURE_TIMEOUT_MS,
    },
    asks: `removal of ${r.changes.length} identifier(s)`,
    receipt: 'num_received',
    ...(note ? { note } : {}),
  }));
}

/** Where a files sync's part files are, as a `gs://` prefix (core/syncs/syncs.ts `filePaths`). */
export function syncFilesPrefix(bucket: string, sync: string): string {
  return `gs://${bucket}/syncs/${sync}/`;
}

/**
 * What the erasure cannot clean for a files or webhook sync, said in the audit (#75): the files it
 * wrote (where, and the command that deletes them), or the system it posted to. Neither names the
 * person: the audit keeps no identifier in clear, so the search through the files is left to
 * whoever holds the request.
 */
function outsideSyncGap(
  settings: Readonly<Settings>,
  name: string,
  d: Of<'files'> | Of<'webhook'>,
): ErasureGap {
  const syncState =
    "the erasure removed them from the sync's state, so no later run sends a deletion for them";
  if ('files' in d) {
    const c = (settings.connections ?? []).find((x) => x.id === d.files.connection);
    const where = c?.bucket
      ? syncFilesPrefix(c.bucket, name)
      : `the bucket of connection ${d.files.connection} (not in the settings), under syncs/${name}/`;
    const format = d.files.format ?? 'jsonl';
    return {
      platform: 'files',
      target: name,
      reason: [
        `files written by this sync may hold the person's rows, and an erasure cannot edit them: ${where}`,
        `(a folder per run, dt=<day>/run-<id>/part-<n>.${format}).`,
        `Delete the parts that hold the person (search them for the identifiers of the request), or every file the sync wrote:`,
        c?.bucket ? `gcloud storage rm --recursive ${syncFilesPrefix(c.bucket, name)};` : '',
        `${syncState}; copies others took of the files are theirs to erase`,
      ]
        .filter((x) => x !== '')
        .join(' '),
    };
  }
  const c = (settings.connections ?? []).find((x) => x.id === d.webhook.connection);
  const host = c?.url ? safeHost(c.url) : undefined;
  return {
    platform: 'webhook',
    target: name,
    reason: `this sync posted the person's rows to connection ${d.webhook.connection}${host ? ` (${host})` : ''}, the business's own system with no deletion protocol of ours: erase the person there; ${syncState}`,
  };
}

/** A URL's host, or undefined for a URL that is a secret's name or does not parse. */
function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * What erasing `person` asks of the platforms: the requests to send (GA4 user deletions, audience
 * removals), the destinations that hold the person but cannot be asked (`unsupported`), and the
 * audience syncs whose connection is missing (`blocked`). `key` names this erasure (its upload
 * sessions at Meta are derived from it). A person with no identifier a platform takes gives no
 * request for it.
 */
export function platformErasure(
  settings: Readonly<Settings>,
  syncs: readonly NamedSync[],
  person: ErasedPerson,
  key: string,
  held: ReadonlyMap<string, readonly string[]> = new Map(),
): PlatformErasure {
  const requests: PlatformErasureRequest[] = [];
  const unsupported: ErasureGap[] = [];
  const blocked: ErasureGap[] = [];
  for (const d of settings.destinations ?? []) {
    const erasure = PLATFORMS[d.type].erasure;
    if (erasure === undefined) {
      unsupported.push(noDeletionApi(d));
      continue;
    }
    const asked = erasure.requests(d, person);
    if (Array.isArray(asked)) requests.push(...asked);
    else unsupported.push(asked);
  }
  for (const { name, spec } of syncs) {
    const d = spec.destination;
    const members = held.get(name);
    // A mirror sync whose state does not hold the person never had them: nothing to ask.
    if (members?.length === 0) continue;
    if ('files' in d || 'webhook' in d) {
      unsupported.push(outsideSyncGap(settings, name, d));
      continue;
    }
    const out =
      'google_ads_audience' in d
        ? customerMatchErasure(settings, name, d, person, members)
        : 'meta_audience' in d
          ? metaAudienceErasure(settings, name, d, person, key, members)
          : [];
    if (Array.isArray(out)) requests.push(...out);
    else blocked.push(out);
  }
  return { requests, unsupported, blocked };
}
