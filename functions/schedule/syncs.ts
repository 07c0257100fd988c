/**
 * The `Sync` job of the scheduler (reverse ETL; docs/syncs.md). Chunk 0 plans the run inside
 * BigQuery (snapshot of the model, diff against the sync's state, counts); every later chunk sends
 * one page of the changes, read with tabledata.list, to the destination, then commits exactly
 * those rows to the state with MERGE. The lock (core/scheduler.ts) holds the cursor, so a run
 * killed mid-way resumes at the first page not committed; a files destination creates each part
 * only if absent, so a page sent twice is one object.
 */
import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import { scheduleProblem } from '../../core/schedule.ts';
import {
  changesOf,
  commitStatement,
  destinationLabel,
  fileBody,
  filePaths,
  modelSelect,
  planStatements,
  type SyncVersion,
  syncEvents,
  syncTables,
  webhookBody,
} from '../../core/syncs.ts';
import type { Connection, Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { type ConnectionDeps, postJson } from './connections.ts';
import type { ChunkContext, ChunkResult, Job } from './runner.ts';

export const SYNC_KIND = 'Sync';
const DEFAULT_BATCH = 500;

export interface SyncJobDeps extends ConnectionDeps {
  readonly settings: Readonly<Settings>;
  readonly syncs: () => Promise<Snapshot>;
  /** The ops dataset. */
  readonly ops: string;
  /** Throws unless the SQL is a single SELECT (a dry run). */
  readonly assertSelect: (sql: string) => Promise<void>;
  /** Runs a statement (DDL, CTAS, MERGE or SELECT) under the bytes cap; plain rows. */
  readonly run: (sql: string) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** tabledata.list of an ops table: `maxResults` rows from `startIndex`. */
  readonly page: (
    table: string,
    startIndex: number,
    maxResults: number,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** Creates an object only if absent: `created`, or `exists` when an earlier attempt wrote it. */
  readonly writeFile: (
    bucket: string,
    path: string,
    body: string,
    contentType: string,
  ) => Promise<'created' | 'exists'>;
  readonly publish: (
    topic: string,
    body: Record<string, unknown>,
    attributes: Record<string, string>,
  ) => Promise<unknown>;
  readonly writeRun: (row: Record<string, unknown>, insertId: string) => Promise<void>;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
}

interface SyncCursor {
  readonly planned: number;
  readonly removals: number;
  /** Change rows sent and committed so far. */
  readonly done: number;
  readonly pages: number;
  readonly sent: number;
  readonly removed: number;
  readonly started_at: string;
}

function enabledSyncs(s: Snapshot): SyncVersion[] {
  return currentSpecs<SyncSpec>(s).filter(
    (x) => x.spec.enabled !== false && scheduleProblem(x.spec.schedule ?? {}) === undefined,
  );
}

export function syncJob(deps: SyncJobDeps): Job {
  const connection = (id: string): Connection => {
    const c = (deps.settings.connections ?? []).find((x) => x.id === id);
    if (!c) throw new Error(`connection ${id} is not in the settings`);
    return c;
  };

  const plan = async (sync: SyncVersion, ctx: ChunkContext): Promise<ChunkResult> => {
    await deps.assertSelect(modelSelect(sync.spec.model));
    const [ensureState, snapshot, changes, counts] = planStatements(sync.spec, deps.ops, sync.name);
    await ctx.fence();
    for (const sql of [ensureState, snapshot, changes] as string[]) await deps.run(sql);
    const [row] = await deps.run(counts as string);
    const cursor: SyncCursor = {
      planned: Number(row?.['planned'] ?? 0),
      removals: Number(row?.['removals'] ?? 0),
      done: 0,
      pages: 0,
      sent: 0,
      removed: 0,
      started_at: ctx.now.toISOString(),
    };
    if (cursor.planned === 0) return finish(sync, ctx, cursor);
    return { done: false, cursor, summary: { planned: cursor.planned, removals: cursor.removals } };
  };

  const send = async (sync: SyncVersion, ctx: ChunkContext, cursor: SyncCursor): Promise<ChunkResult> => {
    const batch = sync.spec.batch_size ?? DEFAULT_BATCH;
    const rows = await deps.page(syncTables(deps.ops, sync.name).changesId, cursor.done, batch);
    if (rows.length === 0) return finish(sync, ctx, cursor);
    const changes = changesOf(sync.spec, rows);
    const page = cursor.pages + 1;
    const d = sync.spec.destination;
    if ('webhook' in d) {
      const c = connection(d.webhook.connection);
      const result = await postJson(deps, c, webhookBody(sync, ctx.runId, page, changes), {
        'x-eventbus-sync-page': `${ctx.runId}#${page}`,
      });
      if (!result.ok) throw new Error(`page ${page} to ${c.id}: ${result.reason}`);
    } else if ('files' in d) {
      const c = connection(d.files.connection);
      if (!c.bucket) throw new Error(`connection ${c.id} has no bucket`);
      const format = d.files.format ?? 'jsonl';
      const paths = filePaths(sync.name, ctx.run.slot, ctx.runId, format);
      await deps.writeFile(
        c.bucket,
        paths.part(page),
        fileBody(changes, format),
        format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      );
    } else {
      for (const e of syncEvents(sync, changes, ctx.run.slot))
        await deps.publish(d.topic.topic ?? 'events', e.body, e.attributes);
    }
    // The state moves only past what was sent, and only while this runner holds the lock.
    await ctx.fence();
    await deps.run(
      commitStatement(
        deps.ops,
        sync.name,
        changes.map((x) => x.n),
      ),
    );
    const removed = changes.filter((x) => x.op === 'delete').length;
    const next: SyncCursor = {
      ...cursor,
      done: cursor.done + rows.length,
      pages: page,
      sent: cursor.sent + changes.length - removed,
      removed: cursor.removed + removed,
    };
    if (next.done >= next.planned) return finish(sync, ctx, next);
    return { done: false, cursor: next, summary: { page, rows: rows.length } };
  };

  const finish = async (sync: SyncVersion, ctx: ChunkContext, cursor: SyncCursor): Promise<ChunkResult> => {
    const d = sync.spec.destination;
    if ('files' in d && cursor.pages > 0) {
      const c = connection(d.files.connection);
      const format = d.files.format ?? 'jsonl';
      const paths = filePaths(sync.name, ctx.run.slot, ctx.runId, format);
      // Written last: a reader that sees _SUCCESS sees every part.
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
    const finished = new Date();
    await deps.writeRun(
      {
        sync: sync.name,
        version: sync.version,
        run_id: ctx.runId,
        trigger: ctx.run.trigger,
        mode: sync.spec.mode,
        destination: destinationLabel(sync.spec),
        status: cursor.planned === 0 ? 'nothing_to_send' : 'succeeded',
        rows_planned: cursor.planned,
        rows_sent: cursor.sent,
        rows_removed: cursor.removed,
        chunks: ctx.chunk + 1,
        started_at: cursor.started_at,
        finished_at: finished.toISOString(),
      },
      ctx.runId,
    );
    return {
      done: true,
      summary: { planned: cursor.planned, sent: cursor.sent, removed: cursor.removed, pages: cursor.pages },
    };
  };

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
      const sync = enabledSyncs(await deps.syncs()).find((s) => s.name === ctx.run.name);
      if (!sync) return { done: true, summary: { skipped: 'the sync is gone or off' } };
      const cursor = ctx.cursor as SyncCursor | null;
      return cursor ? send(sync, ctx, cursor) : plan(sync, ctx);
    },
  };
}
