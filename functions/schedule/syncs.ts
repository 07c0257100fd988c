/**
 * The `Sync` job of the scheduler (reverse ETL; docs/syncs.md). Chunk 0 plans the run inside
 * BigQuery (snapshot of the model, diff against the sync's state, counts); every later chunk sends
 * one page of the changes, read with tabledata.list, to the destination, then commits exactly
 * those rows to the state with MERGE. The lock (core/scheduler/dispatch.ts) holds the cursor, so a run
 * killed mid-way resumes at the first page not committed; a files destination creates each part
 * only if absent, so a page sent twice is one object.
 *
 * Thin: it finds the sync a run names and calls the steps (sync-steps.ts) over one `SyncRun`.
 */
import type { SyncCursor } from '../../core/syncs/sync-run.ts';
import type { Job } from './runner.ts';
import type { SyncJobDeps } from './sync-runtime.ts';
import { enabledSyncs, planRun, readSync, recordGiveUp, sendPage } from './sync-steps.ts';

export const SYNC_KIND = 'Sync';

export function syncJob(deps: SyncJobDeps): Job {
  return {
    kind: SYNC_KIND,
    async scheduled() {
      return enabledSyncs(await deps.syncs()).map((s) => ({
        kind: SYNC_KIND,
        name: s.name,
        schedule: s.spec.schedule,
      }));
    },
    async chunk(ctx) {
      const sync = await readSync(deps, ctx.run.name);
      if (!sync) return { done: true, summary: { skipped: 'the sync is gone or off' } };
      const cursor = ctx.cursor as SyncCursor | null;
      return cursor ? sendPage({ deps, sync, ctx }, cursor) : planRun({ deps, sync, ctx });
    },
    // Given up after failed chunks in a row: a `failed` row says so in sync_runs, with the error.
    gaveUp: (ctx, error) => recordGiveUp(deps, ctx, error),
  };
}
