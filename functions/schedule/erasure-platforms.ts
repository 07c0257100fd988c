/**
 * An erasure sent to the platforms (issue #61): the requests core/privacy/platform-erasure.ts
 * builds — GA4 user deletions, Customer Match and Meta audience removals — sent with the same
 * `send`, `secret` and `accessToken` the sync destinations use (sync-destinations.ts), and one
 * notice per request and per destination that cannot be asked: `sent` (a 2xx, with the platform's
 * answer in short), `failed` (the status and the platform's message; a network error, a missing
 * secret or token too) or `unsupported`. Nothing is retried here but a Google call refused with
 * 401, once with a fresh token (as the syncs do); one platform's failure never stops the others,
 * and the returned promise never rejects. A notice never holds the person's identifiers.
 */
import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { graphError } from '../../core/platforms/meta/audience-answers.ts';
import { parseJson, snippet } from '../../core/platforms/responses.ts';
import { noticeKey } from '../../core/privacy/erasure.ts';
import {
  type ErasedPerson,
  type ErasureAuth,
  type ErasureGap,
  type ErasureHttpRequest,
  type PlatformErasureRequest,
  personMemberHashes,
  platformErasure,
} from '../../core/privacy/platform-erasure.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import type { ConnectionDeps } from './connections.ts';

/** What one platform was asked, and how it went. */
export interface PlatformNotice {
  readonly platform: string;
  /** The destination's id or the sync's name. */
  readonly target: string;
  readonly status: 'sent' | 'failed' | 'unsupported';
  readonly detail: string;
  /** When the answer came (or the request could not be made), ISO 8601. */
  readonly at: string;
}

export interface PlatformErasureDeps extends ConnectionDeps {
  readonly settings: Readonly<Settings>;
  /** The registry's syncs (the schedule function's reader; `fresh`: read now). */
  readonly syncs: (fresh?: boolean) => Promise<Snapshot>;
  /** OAuth access tokens (credentials '' = the function's own account); absent: Google cannot be asked. */
  readonly accessToken?: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
  /**
   * The kept members (`__row`) of a sync's state rows holding any of `hashes` (the person as the
   * sync hashed them: core/privacy/platform-erasure.ts `heldMembersSql`). Absent, or failing for a
   * sync: that sync is asked by the person's e-mail and phone, as its state cannot tell.
   */
  readonly heldMembers?: (sync: string, hashes: readonly string[]) => Promise<readonly string[]>;
  /** The clock of the notices (default: the real one). */
  readonly now?: () => Date;
}

/** Requests in flight at once: an erasure is a handful of calls, not a batch. */
const CONCURRENCY = 4;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The part of a 2xx answer worth recording: the platform's own receipt. */
function receipt(field: string, body: string): string {
  const value = ((parseJson(body) ?? {}) as Record<string, unknown>)[field];
  return value === undefined ? snippet(body) || 'no body' : `${field} ${String(value)}`;
}

/** A refusal in words: the status and the platform's message (a Graph error, or Google's envelope). */
function refusal(auth: ErasureAuth, status: number, body: string): string {
  if (auth.kind === 'meta_token') return `HTTP ${status}: Meta: ${graphError(body).message}`;
  const error = (parseJson(body) as { error?: { status?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.message !== 'string') return `HTTP ${status}: ${snippet(body)}`;
  const rpc = typeof error.status === 'string' ? ` ${error.status}` : '';
  return `HTTP ${status}${rpc}: ${error.message}`;
}

/** Sends one request with its credential; the answer, or why none came. */
async function sendOne(deps: PlatformErasureDeps, r: ErasureHttpRequest): Promise<InboundResponse> {
  const auth = r.auth;
  const body = JSON.stringify(r.body);
  if (auth.kind === 'meta_token') {
    const token = (await deps.secret(auth.tokenSecret))?.trim();
    if (!token) throw new Error(`secret ${auth.tokenSecret} has no value`);
    const request: OutboundRequest = {
      method: r.method,
      url: `${r.url}?access_token=${encodeURIComponent(token)}`,
      redactedUrl: `${r.url}?access_token=REDACTED`,
      headers: { 'content-type': 'application/json' },
      body,
    };
    return deps.send(request, r.timeoutMs);
  }
  const tokens = deps.accessToken;
  if (!tokens) throw new Error('no OAuth token source in this function');
  const credentials = auth.credentialsSecret === undefined ? '' : await deps.secret(auth.credentialsSecret);
  if (auth.credentialsSecret !== undefined && !credentials)
    throw new Error(`secret ${auth.credentialsSecret} has no value`);
  const call = async (fresh: boolean) => {
    const token = await tokens(credentials ?? '', auth.scope, fresh);
    return deps.send(
      {
        method: r.method,
        url: r.url,
        redactedUrl: r.url,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body,
      },
      r.timeoutMs,
    );
  };
  const first = await call(false);
  return first.kind === 'response' && first.status === 401 ? call(true) : first;
}

/** One request's notice; never rejects. */
async function notice(deps: PlatformErasureDeps, r: PlatformErasureRequest): Promise<PlatformNotice> {
  const now = deps.now ?? (() => new Date());
  const note = r.note ? `; ${r.note}` : '';
  const of = (status: PlatformNotice['status'], detail: string): PlatformNotice => ({
    platform: r.platform,
    target: r.target,
    status,
    detail: `${r.asks}: ${detail}${note}`,
    at: now().toISOString(),
  });
  try {
    const res = await sendOne(deps, r.request);
    if (res.kind === 'network_error') return of('failed', `network error: ${res.message}`);
    if (res.kind === 'refused') return of('failed', res.reason);
    if (res.status >= 200 && res.status < 300) return of('sent', receipt(r.receipt, res.body));
    return of('failed', refusal(r.request.auth, res.status, res.body));
  } catch (err) {
    return of('failed', messageOf(err));
  }
}

/** Runs `work` over `items`, at most `limit` at once; results in the items' order. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The erasure job's platform step: `(person) => notices`, one per request sent (in the order
 * built: GA4 destinations, then audience syncs) and one per destination that cannot be asked.
 * The syncs are read afresh, so a sync applied a moment ago is asked too; when they cannot be
 * read, one failed notice says so and the destinations are still asked.
 */
export function createPlatformErasure(
  deps: PlatformErasureDeps,
): (person: ErasedPerson, only?: ReadonlySet<string>) => Promise<PlatformNotice[]> {
  return async (person, only) => {
    const at = (deps.now ?? (() => new Date()))().toISOString();
    let syncs: { name: string; spec: SyncSpec }[] = [];
    const unread: PlatformNotice[] = [];
    try {
      syncs = currentSpecs<SyncSpec>(await deps.syncs(true));
    } catch (err) {
      unread.push({
        ...REGISTRY_TARGET,
        status: 'failed',
        detail: `the syncs could not be read, so no audience was asked: ${messageOf(err)}`,
        at,
      });
    }
    // The state is read on the first ask only: by a retry the erasure has cleaned it, and the
    // sync that failed (it was asked, so it held the person) is asked by e-mail and phone.
    const held = only ? new Map<string, readonly string[]>() : await heldBySync(deps, syncs, person);
    const plan = platformErasure(deps.settings, syncs, person, at, held);
    // A retry asks only the targets that failed; the registry unread before, every audience sync.
    const wanted = (x: { platform: string; target: string }): boolean =>
      !only ||
      only.has(noticeKey(x)) ||
      (only.has(noticeKey(REGISTRY_TARGET)) && syncs.some((s) => s.name === x.target));
    const sent = await pooled(plan.requests.filter(wanted), CONCURRENCY, (r) => notice(deps, r));
    const gap =
      (status: 'failed' | 'unsupported') =>
      (g: ErasureGap): PlatformNotice => ({
        platform: g.platform,
        target: g.target,
        status,
        detail: g.reason,
        at,
      });
    return [
      ...sent,
      ...plan.blocked.map(gap('failed')).filter(wanted),
      ...(only ? [] : plan.unsupported.map(gap('unsupported'))),
      ...unread,
    ];
  };
}

/**
 * Which mirror audience syncs hold the person, with the members to remove (every identifier each
 * was added with): a sync that holds none is not asked at all. Syncs whose state keeps no member,
 * or whose state cannot be read, are left out of the map (asked by e-mail and phone).
 */
async function heldBySync(
  deps: PlatformErasureDeps,
  syncs: readonly { name: string; spec: SyncSpec }[],
  person: ErasedPerson,
): Promise<Map<string, readonly string[]>> {
  const held = new Map<string, readonly string[]>();
  const lookup = deps.heldMembers;
  if (!lookup) return held;
  for (const { name, spec } of syncs) {
    const hashes = personMemberHashes(spec, person);
    if (hashes.length === 0) continue;
    try {
      held.set(name, await lookup(name, hashes));
    } catch {
      // Not known: the sync is asked as before.
    }
  }
  return held;
}

/** The notice of syncs that could not be read (no audience asked). */
const REGISTRY_TARGET = { platform: 'syncs', target: 'registry' } as const;
