/**
 * The `Erasure` job of the scheduler (docs/privacy.md "Erasure"): every minute while requests are
 * pending in the registry bucket (`erasures/<id>.json`, written by `eventbus erase` or the studio),
 * one pass per due request. A pass widens the identifiers once, publishes the suppression list
 * (store and forward drop or strip the person's later events), tells the platforms once, then runs
 * the DML of core/privacy/erasure.ts table by table. A statement BigQuery refuses because the rows
 * are still in its streaming buffer leaves its table waiting for the next pass (1, 2, 4, 8, then
 * every 15 minutes); the audit row in `erasures` says what was removed and what waits. The request
 * is complete when a pass finds no table waiting, at least `SUPPRESSION_SETTLE_MS` after the
 * suppression list was published (so no event stored meanwhile escapes), and its object is deleted.
 * Locally (30 s streaming buffer, ticks every minute) a request completes on its second pass.
 */

import { SUPPRESSION_REFRESH_MS } from '../../adapters/suppression-list.ts';
import {
  AUDIT_PARAM_TYPES,
  auditSql,
  ERASURE_PARAM_TYPES,
  type ErasureOptions,
  type ErasureRequest,
  type ErasureStatement,
  type ErasureStatus,
  erasureStatements,
  failedTargets,
  noticeKey,
  PLATFORM_ATTEMPTS,
  type PlatformNotice,
  requestHashes,
  retryDelayMs,
  suppressionSql,
} from '../../core/privacy/erasure.ts';
import { expandSql, needlePatterns } from '../../core/privacy/person.ts';
import type { Job } from './runner.ts';

export const ERASURE_KIND = 'Erasure';

/**
 * How long after the suppression list is published a pass may call a request complete: the list
 * is re-read by store and forward every `SUPPRESSION_REFRESH_MS`, and an event being stored at
 * that moment must land before the last pass looks.
 */
export const SUPPRESSION_SETTLE_MS = SUPPRESSION_REFRESH_MS + 15_000;

/**
 * A request whose next pass is due within this much counts as due: the job runs once a minute,
 * and a pass planned 60 s after the last must not miss the next tick by a fraction of a second.
 */
const DUE_SLACK_MS = 15_000;

/** The raw identifiers a platform's deletion API takes. */
export interface ErasedPerson {
  readonly emails: readonly string[];
  readonly phones: readonly string[];
  readonly userIds: readonly string[];
  readonly anonymousIds: readonly string[];
}

export interface ErasureDeps {
  /** What the statements work on (the registry's syncs, read each pass). */
  readonly options: () => Promise<ErasureOptions>;
  /** The pending requests' object names. */
  readonly pending: () => Promise<readonly string[]>;
  readonly read: (name: string) => Promise<ErasureRequest | undefined>;
  readonly write: (name: string, request: ErasureRequest) => Promise<void>;
  readonly remove: (name: string) => Promise<void>;
  /** A query's rows. */
  readonly select: (
    sql: string,
    params: Readonly<Record<string, unknown>>,
    types: Readonly<Record<string, readonly string[]>>,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** A DML statement's affected rows; throws BigQuery's error. */
  readonly dml: (
    sql: string,
    params: Readonly<Record<string, unknown>>,
    types: Readonly<Record<string, readonly string[]>>,
  ) => Promise<number>;
  /** Publishes the suppression list (second-order hashes). */
  readonly writeSuppression: (hashes: readonly string[]) => Promise<void>;
  /**
   * Tells the platforms with a deletion API: all of them on the first pass, then only the targets
   * in `only` (`noticeKey`), those whose deletion failed, until PLATFORM_ATTEMPTS.
   */
  readonly notify?: (person: ErasedPerson, only?: ReadonlySet<string>) => Promise<readonly PlatformNotice[]>;
  readonly now?: () => Date;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
}

/** At most this many requests in one chunk (the rest wait for the next tick). */
const REQUESTS_PER_CHUNK = 10;

const isBufferRefusal = (err: unknown) => /streaming buffer/i.test(String((err as Error)?.message ?? err));
const isNotFound = (err: unknown) =>
  (err as { code?: unknown }).code === 404 ||
  /not found: table/i.test(String((err as Error)?.message ?? err));

/** The raw identifiers of a request, by kind (e-mails and phones as the person gave them). */
export function erasedPerson(request: ErasureRequest): ErasedPerson {
  const ids = request.expanded ?? request.identifiers;
  const values = (kind: string) =>
    ids.filter((i) => i.startsWith(`${kind}:`)).map((i) => i.slice(kind.length + 1));
  return {
    emails: request.raw.filter((r) => r.includes('@')),
    phones: request.raw.filter((r) => !r.includes('@')),
    userIds: values('user_id'),
    anonymousIds: values('anonymous_id'),
  };
}

interface PassOutcome {
  readonly request: ErasureRequest;
  readonly complete: boolean;
}

/** Runs each statement; a table refused for the streaming buffer waits (and so do the events after one). */
async function runStatements(
  deps: ErasureDeps,
  statements: readonly ErasureStatement[],
  params: Readonly<Record<string, unknown>>,
): Promise<{ removed: Record<string, number>; waiting: string[] }> {
  const removed: Record<string, number> = {};
  const waiting: string[] = [];
  let beforeEventsWaiting = false;
  for (const s of statements) {
    if (!s.beforeEvents && beforeEventsWaiting && s.table.endsWith('.events')) {
      waiting.push(s.table);
      continue;
    }
    try {
      const n = await deps.dml(s.sql, params, ERASURE_PARAM_TYPES);
      removed[s.table] = (removed[s.table] ?? 0) + n;
    } catch (err) {
      if (s.optional && isNotFound(err)) continue;
      if (!isBufferRefusal(err))
        deps.log?.({
          severity: 'ERROR',
          component: 'schedule',
          table: s.table,
          error: (err as Error).message,
        });
      waiting.push(s.table);
      if (s.beforeEvents) beforeEventsWaiting = true;
    }
  }
  return { removed, waiting: [...new Set(waiting)] };
}

/** One pass over one request. */
export async function erasurePass(
  deps: ErasureDeps,
  request: ErasureRequest,
  now: Date,
): Promise<PassOutcome> {
  const options = await deps.options();
  let current = request;
  if (!current.expanded) {
    const rows = await deps.select(
      expandSql(options),
      { identifiers: [...current.identifiers] },
      { identifiers: ['STRING'] },
    );
    const found = rows.map((r) => String(r['identifier']));
    const expanded = [...new Set([...current.identifiers.filter((i) => i.includes(':')), ...found])].sort();
    current = { ...current, expanded };
  }
  const hashes = requestHashes(current);
  const audit = (status: ErasureStatus, r: ErasureRequest) =>
    deps.dml(
      auditSql(options.project, options.ops),
      {
        erasure_id: r.erasure_id,
        requested_at: r.requested_at,
        requested_by: r.requested_by,
        hashes,
        status,
        removed: JSON.stringify(r.removed ?? {}),
        waiting: [...(r.waiting ?? [])],
        platforms: JSON.stringify(r.platforms ?? []),
        passes: r.passes ?? 0,
      },
      AUDIT_PARAM_TYPES,
    );
  if (!current.next_pass_at) {
    // First pass: the audit row and the suppression list before any row goes.
    await audit('pending', current);
    const all = await deps.select(suppressionSql(options.project, options.ops), {}, {});
    await deps.writeSuppression(all.map((r) => String(r['h'])));
  }
  if (deps.notify) current = await askPlatforms(deps.notify, current);
  const expanded = current.expanded ?? [];
  const params = { identifiers: [...expanded], patterns: needlePatterns(expanded, current.raw) };
  const { removed, waiting } = await runStatements(deps, erasureStatements(options), params);
  const total = { ...(current.removed ?? {}) };
  for (const [t, n] of Object.entries(removed)) total[t] = (total[t] ?? 0) + n;
  const settled =
    now.getTime() - Date.parse(current.suppressed_at ?? now.toISOString()) >= SUPPRESSION_SETTLE_MS;
  const passes = (current.passes ?? 0) + 1;
  const failing = failedTargets(current.platforms ?? []).size > 0;
  // A failed platform deletion keeps the request pending while it has attempts left.
  const askAgain = failing && (current.platform_attempts ?? 1) < PLATFORM_ATTEMPTS;
  const complete = waiting.length === 0 && settled && !askAgain;
  current = {
    ...current,
    removed: total,
    waiting,
    passes,
    suppressed_at: current.suppressed_at ?? now.toISOString(),
    next_pass_at: new Date(
      now.getTime() +
        (waiting.length > 0
          ? retryDelayMs(passes)
          : askAgain
            ? retryDelayMs(current.platform_attempts ?? 1)
            : SUPPRESSION_SETTLE_MS),
    ).toISOString(),
  };
  await audit(complete ? (failing ? 'complete_with_failures' : 'complete') : 'pending', current);
  return { request: current, complete };
}

/**
 * The platforms' step of a pass: on the first, every platform is asked; on a later one, only the
 * targets whose deletion failed, while attempts are left; their new notices replace the failed ones.
 */
async function askPlatforms(
  notify: NonNullable<ErasureDeps['notify']>,
  request: ErasureRequest,
): Promise<ErasureRequest> {
  const person = erasedPerson(request);
  if (!request.platforms) return { ...request, platforms: await notify(person), platform_attempts: 1 };
  const failed = failedTargets(request.platforms);
  const attempts = request.platform_attempts ?? 1;
  if (failed.size === 0 || attempts >= PLATFORM_ATTEMPTS) return request;
  const again = await notify(person, failed);
  return {
    ...request,
    platforms: [...request.platforms.filter((n) => !failed.has(noticeKey(n))), ...again],
    platform_attempts: attempts + 1,
  };
}

export function erasureJob(deps: ErasureDeps): Job {
  const clock = deps.now ?? (() => new Date());
  return {
    kind: ERASURE_KIND,
    async scheduled() {
      const names = await deps.pending();
      return names.length > 0 ? [{ kind: ERASURE_KIND, name: 'erasures', schedule: { every: '1m' } }] : [];
    },
    async chunk(ctx) {
      const names = (await deps.pending()).slice(0, REQUESTS_PER_CHUNK);
      const now = clock();
      const summary: Record<string, string> = {};
      for (const name of names) {
        const request = await deps.read(name);
        if (!request) continue;
        if (request.next_pass_at && Date.parse(request.next_pass_at) > now.getTime() + DUE_SLACK_MS) continue;
        await ctx.fence();
        const outcome = await erasurePass(deps, request, now);
        if (outcome.complete) await deps.remove(name);
        else await deps.write(name, outcome.request);
        summary[request.erasure_id] = outcome.complete
          ? failedTargets(outcome.request.platforms ?? []).size > 0
            ? 'complete_with_failures'
            : 'complete'
          : `waiting: ${outcome.request.waiting?.join(', ') || (failedTargets(outcome.request.platforms ?? []).size > 0 ? 'platform deletions to retry' : 'suppression settling')}`;
      }
      return { done: true, summary };
    },
  };
}
