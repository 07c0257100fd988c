/**
 * The steps of one chunk of a sync run (docs/syncs.md), each a function of the one `SyncRun`
 * value and a small input: read the sync → (chunk 0) check the model's SQL, diff the model
 * against the sync's state inside BigQuery → (later chunks) read a page of changes, send it
 * (sync-destinations.ts), record the rows that failed, commit the sent ones to the state → finish
 * (the files' manifest, the model cursor, the `sync_runs` row, the changes table emptied). The
 * bookkeeping and the SQL are pure (core/syncs/sync-run.ts, sync-sql.ts); what is done to the
 * warehouse, the bucket and the platforms is here.
 */
import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import { publishTargetProblem } from '../../core/rules/publish-topic.ts';
import { scheduleProblem } from '../../core/scheduler/cadence.ts';
import { keptMembers } from '../../core/syncs/audience-members.ts';
import {
  advanceCursor,
  type FailedChange,
  failedRows,
  pageSize,
  plannedCursor,
  runRow,
  runStatus,
  type SyncCursor,
  sentChanges,
} from '../../core/syncs/sync-run.ts';
import {
  clearChangesStatement,
  commitStatements,
  cursorAdvanceStatement,
  legacyCommitStatement,
  planStatements,
  syncTables,
} from '../../core/syncs/sync-sql.ts';
import { type Change, changesOf, filePaths, modelSelect, type SyncVersion } from '../../core/syncs/syncs.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import type { ChunkContext, ChunkResult } from './runner.ts';
import { deliverPage } from './sync-destinations.ts';
import { connectionOf, type Page, type SyncJobDeps, type SyncRun } from './sync-runtime.ts';

/** Syncs that are on and whose schedule is valid. */
export function enabledSyncs(s: Snapshot): SyncVersion[] {
  return currentSpecs<SyncSpec>(s).filter(
    (x) => x.spec.enabled !== false && scheduleProblem(x.spec.schedule ?? {}) === undefined,
  );
}

/**
 * Step 1: the sync a run message names, if it is still there and on. A sync applied a moment ago
 * and run at once may not be in the registry's copy yet: then it is read afresh.
 */
export async function readSync(deps: SyncJobDeps, name: string): Promise<SyncVersion | undefined> {
  const named = async (fresh: boolean) => enabledSyncs(await deps.syncs(fresh)).find((s) => s.name === name);
  return (await named(false)) ?? (await named(true));
}

/**
 * Step 2 (chunk 0): the model must be one SELECT (a dry run), and the destination must not be one
 * of the service's own topics (refused at apply; a sync stored before that check is stopped here).
 */
export async function checkModel(run: SyncRun): Promise<void> {
  const d = run.sync.spec.destination;
  const [key, topic] =
    'topic' in d ? ['topic', d.topic.topic] : 'audience' in d ? ['audience', d.audience.topic] : [];
  const internal = topic === undefined ? undefined : publishTargetProblem(topic);
  if (internal) throw new Error(`destination.${key}.topic: ${internal}`);
  await run.deps.assertSelect(modelSelect(run.sync.spec.model));
}

/**
 * Step 3 (chunk 0): snapshot the model and diff it against the sync's state inside BigQuery,
 * while this runner holds the lock; the run's first cursor from the counts.
 */
export async function diffAgainstState(run: SyncRun): Promise<SyncCursor> {
  const { deps, sync, ctx } = run;
  const statements = planStatements(sync.spec, deps.ops, sync.name);
  await ctx.fence();
  for (const sql of statements.slice(0, -1)) await deps.run(sql);
  const [row] = await deps.run(statements.at(-1) as string);
  return plannedCursor(sync.spec, row, ctx.now);
}

/** Step 4 (later chunks): the next page of the changes table, from the first row not committed. */
export async function readPage(run: SyncRun, cursor: SyncCursor): Promise<Page | undefined> {
  const { deps, sync } = run;
  const rows = await deps.page(syncTables(deps.ops, sync.name).changesId, cursor.done, pageSize(sync.spec));
  if (rows.length === 0) return undefined;
  return {
    number: cursor.pages + 1,
    last: cursor.done + rows.length >= cursor.planned,
    changes: changesOf(sync.spec, rows),
    cursor,
    ...(rows.some((r) => '__pk' in r) ? {} : { legacy: true }),
  };
}

/** Step 6: the rows the destination refused or that could not go, in `sync_failed_rows`. */
export async function recordFailures(run: SyncRun, failed: readonly FailedChange[]): Promise<void> {
  if (failed.length === 0) return;
  await run.deps.writeFailedRows(failedRows(run.sync.name, run.ctx.runId, failed, new Date()));
}

/**
 * Step 7: the sent changes (and the page's restates) enter the sync's state, with what the state
 * keeps of them (an audience member's identifiers as sent: core/syncs/audience-members.ts). The
 * state moves only past what was sent, and only while this runner holds the lock: a row that
 * failed stays out of it, so the next run's diff sends it again. Returns the changes sent.
 */
export async function commitSent(
  run: SyncRun,
  page: Page,
  failed: readonly FailedChange[],
): Promise<Change[]> {
  const { deps, sync, ctx } = run;
  const sent = sentChanges(
    page.changes.filter((x) => !x.restate),
    failed,
  );
  const committed = [...sent, ...page.changes.filter((x) => x.restate)];
  const ns = committed.map((x) => x.n);
  await ctx.fence();
  if (committed.length > 0) {
    const statements = page.legacy
      ? [legacyCommitStatement(deps.ops, sync.name, ns)]
      : commitStatements(sync.spec, deps.ops, sync.name, ns, keptMembers(sync.spec, committed));
    for (const sql of statements) await deps.run(sql);
  }
  return sent;
}

const nothingDelivered = { failed: [], requestIds: [] } as const;

/**
 * Steps 4–7 of a later chunk: read a page, send it, record what failed, commit what was sent;
 * the run finishes once every planned row has been through.
 */
export async function sendPage(run: SyncRun, cursor: SyncCursor): Promise<ChunkResult> {
  const page = await readPage(run, cursor);
  if (!page) return finishRun(run, cursor);
  // Restates are committed, never sent.
  const outgoing = page.changes.filter((x) => !x.restate);
  const { failed, requestIds } =
    outgoing.length > 0 ? await deliverPage(run, { ...page, changes: outgoing }) : nothingDelivered;
  await recordFailures(run, failed);
  const sent = await commitSent(run, page, failed);
  const next = advanceCursor(cursor, { rows: page.changes.length, sent, failed: failed.length, requestIds });
  if (next.done >= next.planned) return finishRun(run, next);
  return {
    done: false,
    cursor: next,
    summary: { page: page.number, rows: page.changes.length, failed: failed.length },
  };
}

/** Steps 2–3: plan the run; a run with nothing to send finishes at once. */
export async function planRun(run: SyncRun): Promise<ChunkResult> {
  await checkModel(run);
  const cursor = await diffAgainstState(run);
  if (cursor.planned === 0) return finishRun(run, cursor);
  return { done: false, cursor, summary: { planned: cursor.planned, removals: cursor.removals } };
}

/**
 * Step 8: the end of a run. A files destination gets its `_SUCCESS` manifest last (a reader that
 * sees it sees every part); the model's cursor moves only after a clean run (a failed row must be
 * read again next time); the outcome is a `sync_runs` row; then the changes table, the one place
 * the model's rows were kept while the run sent them, is emptied (docs/syncs.md, "What a sync
 * keeps"). A chunk that repeats this step reads an empty page and ends the same way.
 */
export async function finishRun(run: SyncRun, cursor: SyncCursor): Promise<ChunkResult> {
  const { deps, sync, ctx } = run;
  const d = sync.spec.destination;
  const failed = cursor.failed ?? 0;
  if ('files' in d && cursor.pages > 0) {
    const c = connectionOf(deps.settings, d.files.connection);
    const paths = filePaths(sync.name, ctx.run.slot, ctx.runId, d.files.format ?? 'jsonl');
    await deps.writeFile(
      c.bucket as string,
      paths.success,
      JSON.stringify({
        sync: sync.name,
        version: sync.version,
        run_id: ctx.runId,
        parts: cursor.pages,
        rows: cursor.done,
      }),
      'application/json',
    );
  }
  if (sync.spec.cursor && failed === 0 && cursor.planned > 0) {
    await ctx.fence();
    await deps.run(cursorAdvanceStatement(deps.ops, sync.name));
  }
  await deps.writeRun(
    { ...runRow(sync, runOf(ctx), cursor, new Date()), status: runStatus(cursor) },
    ctx.runId,
  );
  await ctx.fence();
  await deps.run(clearChangesStatement(deps.ops, sync.name));
  return {
    done: true,
    summary: {
      planned: cursor.planned,
      sent: cursor.sent,
      removed: cursor.removed,
      failed,
      pages: cursor.pages,
    },
  };
}

/** A run given up after failed chunks in a row: a `failed` row in sync_runs says so, with the error. */
export async function recordGiveUp(
  deps: SyncJobDeps,
  ctx: Omit<ChunkContext, 'fence'>,
  error: string,
): Promise<void> {
  const sync = enabledSyncs(await deps.syncs()).find((s) => s.name === ctx.run.name);
  if (!sync) return;
  await deps.writeRun(
    {
      ...runRow(sync, runOf(ctx), ctx.cursor as SyncCursor | null, new Date()),
      status: 'failed',
      error: error.slice(0, 1000),
    },
    ctx.runId,
  );
}

const runOf = (ctx: Omit<ChunkContext, 'fence'>) => ({
  runId: ctx.runId,
  trigger: ctx.run.trigger,
  chunk: ctx.chunk,
  now: ctx.now,
});
