/**
 * The bookkeeping of one sync run (docs/syncs.md), the pure part the schedule function's steps
 * (functions/schedule/sync-steps.ts) share: the cursor the lock carries from chunk to chunk, how
 * big a page is for a destination, how a sent page moves the cursor, and the rows a run writes to
 * `sync_runs` and `sync_failed_rows`.
 */
import type { SyncSpec } from '../../schemas/sync.ts';
import { CUSTOMER_MATCH_MAX_MEMBERS } from '../platforms/google-ads/audience.ts';
import { AUDIENCE_MAX_ROWS } from '../platforms/meta/audience.ts';
import type { Change, SyncVersion } from './syncs.ts';
import { destinationLabel } from './syncs.ts';

/** Rows a page holds unless the sync says `batch_size` (and the destination allows it). */
export const DEFAULT_BATCH = 500;

/** How many request ids a run keeps for `sync_runs.request_ids` (a run of 200 pages keeps its last 50). */
export const MAX_REQUEST_IDS = 50;

/** Where a run stands between chunks: kept in the lock (core/scheduler/dispatch.ts) as JSON. */
export interface SyncCursor {
  readonly planned: number;
  readonly removals: number;
  /** Change rows sent and committed so far. */
  readonly done: number;
  readonly pages: number;
  readonly sent: number;
  readonly removed: number;
  /** Rows the destination refused or that could not go (sync_failed_rows); absent in older cursors. */
  readonly failed?: number;
  readonly started_at: string;
  readonly cursor_from?: string | null;
  readonly cursor_to?: string | null;
  /** Data Manager's ids of the run's Customer Match requests (the newest MAX_REQUEST_IDS). */
  readonly request_ids?: readonly string[];
}

/** A change a destination could not take, and why (a row of `sync_failed_rows`). */
export interface FailedChange {
  readonly change: Change;
  readonly reason: string;
}

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A run's first cursor, from the plan's last statement's row (planned, removals, cursor bounds). */
export function plannedCursor(
  spec: SyncSpec,
  row: Readonly<Record<string, unknown>> | undefined,
  startedAt: Date,
): SyncCursor {
  return {
    planned: Number(row?.['planned'] ?? 0),
    removals: Number(row?.['removals'] ?? 0),
    done: 0,
    pages: 0,
    sent: 0,
    removed: 0,
    failed: 0,
    started_at: startedAt.toISOString(),
    ...(spec.cursor
      ? { cursor_from: textOrNull(row?.['cursor_from']), cursor_to: textOrNull(row?.['cursor_to']) }
      : {}),
  };
}

/** Rows per page: the sync's `batch_size` (500 by default), at most what one request of the platform takes. */
export function pageSize(spec: SyncSpec): number {
  const d = spec.destination;
  const limit =
    'meta_audience' in d
      ? AUDIENCE_MAX_ROWS
      : 'google_ads_audience' in d
        ? CUSTOMER_MATCH_MAX_MEMBERS
        : Number.POSITIVE_INFINITY;
  return Math.min(spec.batch_size ?? DEFAULT_BATCH, limit);
}

/** What one page did: how many change rows it read, which it sent, how many failed, the request ids. */
export interface PageDone {
  readonly rows: number;
  readonly sent: readonly Change[];
  readonly failed: number;
  readonly requestIds: readonly string[];
}

/** The cursor after a page: past every row read, counting what was sent, removed and failed. */
export function advanceCursor(cursor: SyncCursor, page: PageDone): SyncCursor {
  const removed = page.sent.filter((x) => x.op === 'delete').length;
  return {
    ...cursor,
    done: cursor.done + page.rows,
    pages: cursor.pages + 1,
    sent: cursor.sent + page.sent.length - removed,
    removed: cursor.removed + removed,
    failed: (cursor.failed ?? 0) + page.failed,
    ...(page.requestIds.length > 0
      ? { request_ids: [...(cursor.request_ids ?? []), ...page.requestIds].slice(-MAX_REQUEST_IDS) }
      : {}),
  };
}

/** The changes of a page that were sent: all but the failed ones (only those enter the state). */
export function sentChanges(changes: readonly Change[], failed: readonly FailedChange[]): Change[] {
  const failedNs = new Set(failed.map((f) => f.change.n));
  return changes.filter((x) => !failedNs.has(x.n));
}

/**
 * A webhook's refusal that will not change on retry (a 4xx other than 408 and 429): its rows
 * fail and the run goes on. Anything else (no answer, 5xx, 408, 429) retries the page.
 */
export const refusedForGood = (http: number | null): boolean =>
  http !== null && http >= 400 && http < 500 && http !== 408 && http !== 429;

/** How a finished run ended: nothing planned, some rows failed, or all sent. */
export function runStatus(cursor: SyncCursor): 'nothing_to_send' | 'partial' | 'succeeded' {
  if (cursor.planned === 0) return 'nothing_to_send';
  return (cursor.failed ?? 0) > 0 ? 'partial' : 'succeeded';
}

/** The run a `sync_runs` row describes: its key, trigger, chunks so far and when it was planned. */
export interface RunOf {
  readonly runId: string;
  readonly trigger: string;
  /** The chunk being run (0 plans). */
  readonly chunk: number;
  readonly now: Date;
}

/** A `sync_runs` row without its status (a run given up has no cursor when its plan failed). */
export function runRow(
  sync: SyncVersion,
  run: RunOf,
  cursor: SyncCursor | null,
  finishedAt: Date,
): Record<string, unknown> {
  return {
    sync: sync.name,
    version: sync.version,
    run_id: run.runId,
    trigger: run.trigger,
    mode: sync.spec.mode,
    destination: destinationLabel(sync.spec),
    rows_planned: cursor?.planned ?? 0,
    rows_sent: cursor?.sent ?? 0,
    rows_removed: cursor?.removed ?? 0,
    rows_failed: cursor?.failed ?? 0,
    chunks: run.chunk + 1,
    started_at: cursor?.started_at ?? run.now.toISOString(),
    finished_at: finishedAt.toISOString(),
    ...(cursor?.cursor_from ? { cursor_from: cursor.cursor_from } : {}),
    ...(cursor?.cursor_to ? { cursor_to: cursor.cursor_to } : {}),
    ...(cursor?.request_ids?.length ? { request_ids: cursor.request_ids.join(' ') } : {}),
  };
}

/** The `sync_failed_rows` rows of a page, each with its insertId (run and change number). */
export function failedRows(
  sync: string,
  runId: string,
  failed: readonly FailedChange[],
  at: Date,
): { readonly insertId: string; readonly row: Record<string, unknown> }[] {
  const failedAt = at.toISOString();
  return failed.map((f) => ({
    insertId: `${runId}#${f.change.n}`,
    row: {
      sync,
      run_id: runId,
      key: JSON.stringify(f.change.key),
      op: f.change.op,
      reason: f.reason,
      failed_at: failedAt,
    },
  }));
}
