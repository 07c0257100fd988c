/**
 * The `Replay` job of the scheduler: replays started from the studio's console
 * (docs/console.md#replays), run chunk by chunk so a long one never lives in a browser's request
 * nor past a function's timeout. A dead-letter replay re-publishes up to `chunkSize` messages of
 * the destination's backlog per chunk; a slice replay takes the slice once into a table of the ops
 * dataset (chunk 0), then re-sends one page of it per chunk, read with tabledata.list. Both use the
 * CLI's code (adapters/dead-letter-replay.ts, core/delivery/slice-replay.ts); the figures so far
 * are the cursor, which the lock holds and the console reads; the outcome goes into the replay's
 * object once it is done.
 */
import type { PullSource } from '../../adapters/backlog.ts';
import { replayDestinationDeadLetters } from '../../adapters/dead-letter-replay.ts';
import type { DefinedEvent } from '../../core/definitions/defined-events.ts';
import {
  laterConsentParams,
  laterConsentQuery,
  wentLiveOf,
  wentLiveQuery,
} from '../../core/delivery/backfill.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import type { DeliveryMessage } from '../../core/delivery/message.ts';
import { sliceInsert, sliceQuery, storedEventFromRow } from '../../core/delivery/replay.ts';
import { sliceSender } from '../../core/delivery/slice-replay.ts';
import {
  REPLAY_KIND,
  type ReplayFigures,
  type ReplayRecord,
  whereProblem,
} from '../../core/scheduler/replays.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { ChunkContext, ChunkResult, Job } from './runner.ts';

export interface ReplayJobDeps {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  readonly dataset: string;
  /** The ops dataset, where a slice is kept while it is re-sent. */
  readonly ops: string;
  /** Replays not finished yet (their objects). */
  readonly pending: (now: Date) => Promise<readonly ReplayRecord[]>;
  readonly read: (id: string) => Promise<ReplayRecord | undefined>;
  /** Writes the finished replay's object. */
  readonly finish: (record: ReplayRecord) => Promise<void>;
  readonly source: () => Promise<PullSource>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<unknown>;
  /** Throws unless the SQL is a single SELECT (a dry run): the `where` is a person's SQL. */
  readonly assertSelect: (sql: string, params: Record<string, unknown>) => Promise<void>;
  /** Runs a statement under the bytes cap; plain rows. `types` for parameters that may be empty arrays. */
  readonly run: (
    sql: string,
    params?: Record<string, unknown>,
    types?: Record<string, string[]>,
  ) => Promise<readonly Record<string, unknown>[]>;
  /**
   * (Re)creates an ops table for a slice with the events table's columns, policy tags included
   * (core/delivery/replay.ts sliceSchema): the PII it will hold stays column-secured.
   */
  readonly createSlice: (table: string) => Promise<void>;
  /** tabledata.list of an ops table. */
  readonly page: (
    table: string,
    startIndex: number,
    maxResults: number,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  readonly definition?: (stamp: string) => Promise<DefinedEvent | undefined>;
  /** Messages or rows per chunk (default 2000). */
  readonly chunkSize?: number;
}

interface Cursor extends ReplayFigures {
  readonly started_at: string;
}

/** The ops table a slice is kept in while it is re-sent (dropped when the replay finishes). */
export const sliceTable = (id: string): string => `replay_slice__${id.replace(/[^A-Za-z0-9]/g, '_')}`;

export function replayJob(deps: ReplayJobDeps): Job {
  const size = deps.chunkSize ?? 2000;
  const destinationOf = (id: string) => {
    const d = (deps.settings.destinations ?? []).find((x) => x.id === id);
    if (!d) throw new Error(`destination ${id} is no longer in the settings`);
    return d;
  };

  const finish = async (record: ReplayRecord, ctx: ChunkContext, figures: Cursor): Promise<ChunkResult> => {
    const { started_at: _, ...rest } = figures;
    if (record.source === 'slice') {
      await ctx.fence();
      await deps.run(`DROP TABLE IF EXISTS \`${deps.ops}.${sliceTable(record.id)}\``);
    }
    await ctx.fence();
    await deps.finish({
      ...record,
      status: 'finished',
      finished_at: new Date().toISOString(),
      figures: rest,
    });
    return { done: true, summary: { replay: record.id, ...rest } };
  };

  const deadLetters = async (record: ReplayRecord, ctx: ChunkContext, at: Cursor): Promise<ChunkResult> => {
    const left = record.limit === undefined ? size : Math.min(size, record.limit - at.read);
    await ctx.fence();
    const report = await replayDestinationDeadLetters({
      destination: record.destination,
      source: await deps.source(),
      publish: deps.publish,
      limit: left,
      batchSize: Math.min(left, 500),
    });
    const next: Cursor = {
      ...at,
      read: at.read + report.read,
      republished: at.republished + report.republished,
      failed: at.failed + report.failed,
      ...(report.error ? { error: report.error } : {}),
    };
    // Drained (fewer than asked for), the limit reached, or a message that cannot go: done.
    const drained = report.read < left;
    const limited = record.limit !== undefined && next.read >= record.limit;
    if (drained || limited || report.failed > 0) return finish(record, ctx, next);
    return { done: false, cursor: next, summary: { replay: record.id, read: next.read } };
  };

  const slice = async (record: ReplayRecord, ctx: ChunkContext, at: Cursor): Promise<ChunkResult> => {
    const table = sliceTable(record.id);
    if (at.total === undefined) {
      // Chunk 0: the slice, taken once, so every later page reads the same rows. A record
      // written before conditions were checked as one expression is given up, never pasted.
      const unsafe = record.where ? whereProblem(record.where) : undefined;
      if (unsafe) return finish(record, ctx, { ...at, total: 0, error: `where ${unsafe}` });
      const select = sliceQuery(deps.project, deps.dataset, record.where);
      const params = { from: new Date(record.from as string), to: new Date(record.to as string) };
      try {
        await deps.assertSelect(select, params);
      } catch (err) {
        // The person's condition is not SQL BigQuery takes here: retrying will not change that.
        const e = err as { name?: string; code?: number; message?: string };
        if (e.name !== 'NotASelectError' && e.code !== 400) throw err;
        return finish(record, ctx, { ...at, total: 0, error: `where: ${e.message ?? String(err)}` });
      }
      await ctx.fence();
      // A table with the events table's policy tags first, then the rows: copying PII into an
      // untagged table would let anyone who can read the ops dataset read it raw.
      await deps.createSlice(table);
      await deps.run(sliceInsert(`\`${deps.ops}.${table}\``, select), params);
      const [row] = await deps.run(`SELECT COUNT(*) AS n FROM \`${deps.ops}.${table}\``);
      // When the destination went live, once: every page tells a backfill by the same instant.
      const live = wentLiveOf(
        await deps.run(wentLiveQuery(deps.project, deps.dataset), { destination: record.destination }),
        ctx.now,
      );
      const next: Cursor = { ...at, total: Number(row?.['n'] ?? 0), went_live: live.toISOString() };
      if (next.total === 0) return finish(record, ctx, next);
      return { done: false, cursor: next, summary: { replay: record.id, total: next.total } };
    }
    const rows = await deps.page(table, at.read, size);
    if (rows.length === 0) return finish(record, ctx, at);
    await ctx.fence();
    const sent = await sliceSender({
      destination: destinationOf(record.destination),
      publish: deps.publish,
      writeLedger: deps.writeLedger,
      ...(deps.definition ? { definition: deps.definition } : {}),
      ...(at.went_live ? { wentLive: new Date(at.went_live) } : {}),
      laterConsent: async (events) => {
        const params = laterConsentParams(events);
        if (!params) return [];
        const types = { users: ['STRING'], anonymous: ['STRING'] };
        return (await deps.run(laterConsentQuery(deps.project, deps.dataset), params, types)).map(
          storedEventFromRow,
        );
      },
    }).page(rows);
    const reasons: Record<string, number> = { ...at.reasons };
    for (const [reason, n] of Object.entries(sent.reasons)) reasons[reason] = (reasons[reason] ?? 0) + n;
    const next: Cursor = {
      ...at,
      read: at.read + rows.length,
      republished: at.republished + sent.republished,
      skipped: at.skipped + sent.skipped,
      backfilled: (at.backfilled ?? 0) + sent.backfilled,
      reasons,
    };
    if (next.read >= (next.total ?? 0)) return finish(record, ctx, next);
    return { done: false, cursor: next, summary: { replay: record.id, read: next.read } };
  };

  return {
    kind: REPLAY_KIND,
    // Only runs under way are the tick's business (a crashed chunk is taken back once its lease
    // runs out); a replay starts with the run message the studio publishes.
    async scheduled(now) {
      return (await deps.pending(now)).map((r) => ({
        kind: REPLAY_KIND,
        name: r.id,
        schedule: { manual: true as const },
      }));
    },
    async chunk(ctx) {
      const record = await deps.read(ctx.run.name);
      if (!record) return { done: true, summary: { skipped: 'no such replay' } };
      if (record.status === 'finished') return { done: true, summary: { skipped: 'already finished' } };
      const at: Cursor = (ctx.cursor as Cursor | null) ?? {
        read: 0,
        republished: 0,
        skipped: 0,
        failed: 0,
        started_at: ctx.now.toISOString(),
      };
      // A person stopped it (the studio's replay-cancel): what was sent stays sent, nothing more goes.
      if (record.cancel_requested_at !== undefined) return finish(record, ctx, { ...at, cancelled: true });
      destinationOf(record.destination);
      return record.source === 'slice' ? slice(record, ctx, at) : deadLetters(record, ctx, at);
    },
  };
}
