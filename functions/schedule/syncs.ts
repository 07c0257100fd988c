/**
 * The `Sync` job of the scheduler (reverse ETL; docs/syncs.md). Chunk 0 plans the run inside
 * BigQuery (snapshot of the model, diff against the sync's state, counts); every later chunk sends
 * one page of the changes, read with tabledata.list, to the destination, then commits exactly
 * those rows to the state with MERGE. The lock (core/scheduler/dispatch.ts) holds the cursor, so a run
 * killed mid-way resumes at the first page not committed; a files destination creates each part
 * only if absent, so a page sent twice is one object.
 */
import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import {
  CUSTOMER_MATCH_MAX_MEMBERS,
  customerMatchRequests,
} from '../../core/platforms/google-ads/audience.ts';
import { DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import { requestIdOf } from '../../core/platforms/google-ads/request-status.ts';
import { GOOGLE_ADS_RESPONSES } from '../../core/platforms/google-ads/responses.ts';
import { AUDIENCE_MAX_ROWS, audienceRequests } from '../../core/platforms/meta/audience.ts';
import { classify } from '../../core/platforms/responses.ts';
import { publishTopicProblem } from '../../core/registry/reserved-names.ts';
import { scheduleProblem } from '../../core/scheduler/cadence.ts';
import {
  type Change,
  changesOf,
  commitStatement,
  cursorAdvanceStatement,
  customerMatchTarget,
  destinationLabel,
  fileBody,
  filePaths,
  modelSelect,
  planStatements,
  type SyncVersion,
  syncEvents,
  syncTables,
  webhookBody,
  webhookRejections,
} from '../../core/syncs/syncs.ts';
import type { Connection, Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { type ConnectionDeps, postJson } from './connections.ts';
import type { ChunkContext, ChunkResult, Job } from './runner.ts';

export const SYNC_KIND = 'Sync';
const DEFAULT_BATCH = 500;

export interface SyncJobDeps extends ConnectionDeps {
  readonly settings: Readonly<Settings>;
  /** The registry's syncs (a copy refreshed every 30 s; `fresh`: read now). */
  readonly syncs: (fresh?: boolean) => Promise<Snapshot>;
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
  /** Rows a run could not send (`sync_failed_rows`), each with its insertId. */
  readonly writeFailedRows: (
    rows: readonly { readonly insertId: string; readonly row: Record<string, unknown> }[],
  ) => Promise<void>;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
  /** OAuth access tokens (Google Ads Customer Match), as the forward function gets them; absent: none. */
  readonly accessToken?: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
}

interface SyncCursor {
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

/** How many request ids a run keeps for `sync_runs.request_ids` (a run of 200 pages keeps its last 50). */
const MAX_REQUEST_IDS = 50;

type Failed = { readonly change: Change; readonly reason: string };

/** Graph API errors worth another try: throttling and Meta's transient ones. */
const META_RETRY_CODES = new Set([1, 2, 4, 17, 32, 613, 80003, 80004]);

function enabledSyncs(s: Snapshot): SyncVersion[] {
  return currentSpecs<SyncSpec>(s).filter(
    (x) => x.spec.enabled !== false && scheduleProblem(x.spec.schedule ?? {}) === undefined,
  );
}

/** A 4xx other than 408 and 429 will not change on retry: its rows fail, the run goes on. */
const permanent = (http: number | null): boolean =>
  http !== null && http >= 400 && http < 500 && http !== 408 && http !== 429;

export function syncJob(deps: SyncJobDeps): Job {
  const connection = (id: string): Connection => {
    const c = (deps.settings.connections ?? []).find((x) => x.id === id);
    if (!c) throw new Error(`connection ${id} is not in the settings`);
    return c;
  };

  /** A connection and the value of its secret in `role`; throws (the chunk is retried) without one. */
  const connectionSecret = async (id: string, role: string) => {
    const c = connection(id);
    const name = c.secrets?.[role];
    const value = name ? await deps.secret(name) : undefined;
    if (!value) throw new Error(`connection ${c.id} has no ${role} secret with a value`);
    return { c, value };
  };

  const plan = async (sync: SyncVersion, ctx: ChunkContext): Promise<ChunkResult> => {
    // Refused at apply; a sync stored before that check must not feed the service's own topics.
    const d = sync.spec.destination;
    const internal =
      'topic' in d && d.topic.topic !== undefined ? publishTopicProblem(d.topic.topic) : undefined;
    if (internal) throw new Error(`destination.topic.topic: ${internal}`);
    await deps.assertSelect(modelSelect(sync.spec.model));
    const statements = planStatements(sync.spec, deps.ops, sync.name);
    await ctx.fence();
    for (const sql of statements.slice(0, -1)) await deps.run(sql);
    const [row] = await deps.run(statements.at(-1) as string);
    const cursor: SyncCursor = {
      planned: Number(row?.['planned'] ?? 0),
      removals: Number(row?.['removals'] ?? 0),
      done: 0,
      pages: 0,
      sent: 0,
      removed: 0,
      failed: 0,
      started_at: ctx.now.toISOString(),
      ...(sync.spec.cursor
        ? { cursor_from: textOrNull(row?.['cursor_from']), cursor_to: textOrNull(row?.['cursor_to']) }
        : {}),
    };
    if (cursor.planned === 0) return finish(sync, ctx, cursor);
    return { done: false, cursor, summary: { planned: cursor.planned, removals: cursor.removals } };
  };

  /** Sends one page to the destination; the rows it could not send, with why. */
  const deliver = async (
    sync: SyncVersion,
    ctx: ChunkContext,
    cursor: SyncCursor,
    page: number,
    last: boolean,
    changes: readonly Change[],
    requestIds: string[],
  ): Promise<Failed[]> => {
    const d = sync.spec.destination;
    if ('webhook' in d) {
      const c = connection(d.webhook.connection);
      const result = await postJson(deps, c, webhookBody(sync, ctx.runId, page, changes), {
        'x-eventbus-sync-page': `${ctx.runId}#${page}`,
      });
      if (result.ok) return webhookRejections(result.body ?? '', changes);
      if (permanent(result.http)) return changes.map((change) => ({ change, reason: result.reason }));
      throw new Error(`page ${page} to ${c.id}: ${result.reason}`);
    }
    if ('files' in d) {
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
      return [];
    }
    if ('meta_audience' in d) return audience(d.meta_audience, ctx, cursor, page, last, changes);
    if ('google_ads_audience' in d) return customerMatch(d.google_ads_audience, changes, requestIds);
    for (const e of syncEvents(sync, changes, ctx.run.slot))
      await deps.publish(d.topic.topic ?? 'events', e.body, e.attributes);
    return [];
  };

  /** A page to a Meta custom audience: users added with POST, removed with DELETE. */
  const audience = async (
    d: { readonly connection: string; readonly audience_id: string },
    ctx: ChunkContext,
    cursor: SyncCursor,
    page: number,
    last: boolean,
    changes: readonly Change[],
  ): Promise<Failed[]> => {
    const { c, value: token } = await connectionSecret(d.connection, 'access_token');
    const built = audienceRequests({
      ...(c.url ? { origin: c.url } : {}),
      audienceId: d.audience_id,
      runKey: ctx.runId,
      page,
      last,
      planned: cursor.planned,
      changes,
    });
    const failed: Failed[] = [...built.failed];
    for (const r of built.requests) {
      const res = await deps.send(
        {
          method: r.method,
          url: `${r.path}?access_token=${encodeURIComponent(token.trim())}`,
          redactedUrl: `${r.path}?access_token=REDACTED`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(r.body),
        },
        c.timeout_ms ?? 30_000,
      );
      if (res.kind === 'network_error') throw new Error(`audience ${d.audience_id}: ${res.message}`);
      if (res.status >= 200 && res.status < 300) continue;
      const error = graphError(res.body);
      if (!permanent(res.status) || (error.code !== undefined && META_RETRY_CODES.has(error.code)))
        throw new Error(`audience ${d.audience_id}: HTTP ${res.status} ${error.message}`);
      failed.push(...r.changes.map((change) => ({ change, reason: `Meta: ${error.message}` })));
    }
    return failed;
  };

  /**
   * A page to a Google Ads Customer Match list (Data Manager): members added with
   * `audienceMembers:ingest`, removed with `:remove`, under an OAuth token from the connection's
   * credentials (a 401 gets one fresh token and one more call). A refused request fails its rows
   * with Google's reason; quota and outages throw, so the chunk is tried again. Each accepted
   * request's `requestId` is kept for `requestStatus:retrieve` (`eventbus sync request-status`).
   */
  const customerMatch = async (
    d: Extract<SyncSpec['destination'], { google_ads_audience: unknown }>['google_ads_audience'],
    changes: readonly Change[],
    requestIds: string[],
  ): Promise<Failed[]> => {
    const { c, value: credentials } = await connectionSecret(d.connection, 'credentials');
    if (!deps.accessToken) throw new Error('no OAuth token source in this function');
    const tokens = deps.accessToken;
    const built = customerMatchRequests(customerMatchTarget(d, c), changes);
    const failed: Failed[] = [...built.failed];
    for (const r of built.requests) {
      const call = async (fresh: boolean) => {
        const token = await tokens(credentials, DATA_MANAGER_SCOPE, fresh);
        return deps.send(
          {
            method: 'POST',
            url: r.path,
            redactedUrl: r.path,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(r.body),
          },
          c.timeout_ms ?? 30_000,
        );
      };
      let res = await call(false);
      if (res.kind === 'response' && res.status === 401) res = await call(true);
      const outcome = classify(GOOGLE_ADS_RESPONSES, res, {
        destination: { id: c.id, type: 'google_ads' },
        secrets: {},
        now: new Date(),
      });
      if (outcome.status === 'retry') throw new Error(`user list ${d.user_list_id}: ${outcome.reason}`);
      const id =
        outcome.status === 'delivered' && res.kind === 'response' ? requestIdOf(res.body) : undefined;
      if (id) requestIds.push(id);
      if (outcome.status === 'rejected')
        failed.push(...r.changes.map((change) => ({ change, reason: outcome.reason })));
    }
    return failed;
  };

  const send = async (sync: SyncVersion, ctx: ChunkContext, cursor: SyncCursor): Promise<ChunkResult> => {
    const d = sync.spec.destination;
    const limit =
      'meta_audience' in d
        ? AUDIENCE_MAX_ROWS
        : 'google_ads_audience' in d
          ? CUSTOMER_MATCH_MAX_MEMBERS
          : Number.POSITIVE_INFINITY;
    const batch = Math.min(sync.spec.batch_size ?? DEFAULT_BATCH, limit);
    const rows = await deps.page(syncTables(deps.ops, sync.name).changesId, cursor.done, batch);
    if (rows.length === 0) return finish(sync, ctx, cursor);
    const changes = changesOf(sync.spec, rows);
    const page = cursor.pages + 1;
    const requestIds: string[] = [];
    const failed = await deliver(
      sync,
      ctx,
      cursor,
      page,
      cursor.done + rows.length >= cursor.planned,
      changes,
      requestIds,
    );
    const failedNs = new Set(failed.map((f) => f.change.n));
    const sent = changes.filter((x) => !failedNs.has(x.n));
    if (failed.length > 0) {
      const at = new Date().toISOString();
      await deps.writeFailedRows(
        failed.map((f) => ({
          insertId: `${ctx.runId}#${f.change.n}`,
          row: {
            sync: sync.name,
            run_id: ctx.runId,
            key: JSON.stringify(f.change.key),
            op: f.change.op,
            reason: f.reason,
            failed_at: at,
          },
        })),
      );
    }
    // The state moves only past what was sent, and only while this runner holds the lock: a row
    // that failed stays out of it, so the next run's diff sends it again.
    await ctx.fence();
    if (sent.length > 0)
      await deps.run(
        commitStatement(
          deps.ops,
          sync.name,
          sent.map((x) => x.n),
        ),
      );
    const removed = sent.filter((x) => x.op === 'delete').length;
    const next: SyncCursor = {
      ...cursor,
      done: cursor.done + rows.length,
      pages: page,
      sent: cursor.sent + sent.length - removed,
      removed: cursor.removed + removed,
      failed: (cursor.failed ?? 0) + failed.length,
      ...(requestIds.length > 0
        ? { request_ids: [...(cursor.request_ids ?? []), ...requestIds].slice(-MAX_REQUEST_IDS) }
        : {}),
    };
    if (next.done >= next.planned) return finish(sync, ctx, next);
    return { done: false, cursor: next, summary: { page, rows: rows.length, failed: failed.length } };
  };

  const runRow = (sync: SyncVersion, ctx: Omit<ChunkContext, 'fence'>, cursor: SyncCursor | null) => ({
    sync: sync.name,
    version: sync.version,
    run_id: ctx.runId,
    trigger: ctx.run.trigger,
    mode: sync.spec.mode,
    destination: destinationLabel(sync.spec),
    rows_planned: cursor?.planned ?? 0,
    rows_sent: cursor?.sent ?? 0,
    rows_removed: cursor?.removed ?? 0,
    rows_failed: cursor?.failed ?? 0,
    chunks: ctx.chunk + 1,
    started_at: cursor?.started_at ?? ctx.now.toISOString(),
    finished_at: new Date().toISOString(),
    ...(cursor?.cursor_from ? { cursor_from: cursor.cursor_from } : {}),
    ...(cursor?.cursor_to ? { cursor_to: cursor.cursor_to } : {}),
    ...(cursor?.request_ids?.length ? { request_ids: cursor.request_ids.join(' ') } : {}),
  });

  const finish = async (sync: SyncVersion, ctx: ChunkContext, cursor: SyncCursor): Promise<ChunkResult> => {
    const d = sync.spec.destination;
    const failed = cursor.failed ?? 0;
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
    // The cursor moves only after a clean run: a failed row must be read again next time.
    if (sync.spec.cursor && failed === 0 && cursor.planned > 0) {
      await ctx.fence();
      await deps.run(cursorAdvanceStatement(deps.ops, sync.name));
    }
    const status = cursor.planned === 0 ? 'nothing_to_send' : failed > 0 ? 'partial' : 'succeeded';
    await deps.writeRun({ ...runRow(sync, ctx, cursor), status }, ctx.runId);
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
      // A sync applied a moment ago and run at once may not be in the copy yet: read it now.
      const named = async (fresh: boolean) =>
        enabledSyncs(await deps.syncs(fresh)).find((s) => s.name === ctx.run.name);
      const sync = (await named(false)) ?? (await named(true));
      if (!sync) return { done: true, summary: { skipped: 'the sync is gone or off' } };
      const cursor = ctx.cursor as SyncCursor | null;
      return cursor ? send(sync, ctx, cursor) : plan(sync, ctx);
    },
    // Given up after failed chunks in a row: a `failed` row says so in sync_runs, with the error.
    async gaveUp(ctx, error) {
      const sync = enabledSyncs(await deps.syncs()).find((s) => s.name === ctx.run.name);
      if (!sync) return;
      await deps.writeRun(
        {
          ...runRow(sync, ctx, ctx.cursor as SyncCursor | null),
          status: 'failed',
          error: error.slice(0, 1000),
        },
        ctx.runId,
      );
    },
  };
}

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A Graph API error answer's code and message (or the body's start). */
function graphError(body: string): { code?: number; message: string } {
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    if (e && typeof e.message === 'string')
      return { ...(typeof e.code === 'number' ? { code: e.code } : {}), message: e.message };
  } catch {}
  return { message: body.slice(0, 200) };
}
