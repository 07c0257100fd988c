/**
 * The console's replays (docs/console.md#replays):
 * - `replay-start` `{destination, source: "dead-letters", limit?}` or
 *   `{destination, source: "slice", from, to, where?}` (apply): checks the request (a slice's
 *   `where` by a dry run, as a single SELECT), keeps it as `replays/<id>.json` in the registry
 *   bucket and publishes a run message; the scheduler's Replay job runs it chunk by chunk with the
 *   CLI's code, never in this request.
 * - `replay-cancel` `{id}` (apply): asks the scheduler to stop a replay queued or running: the
 *   Replay job finishes it before its next chunk, its figures so far kept and marked cancelled
 *   (what was sent stays sent; the same replay run again folds it).
 * - `replays` `{}` (read): the newest replays with where each stands (queued, running with its
 *   figures so far, finished, given up), read from their objects and their locks.
 * - `sync-status` `{name}` (read): where a sync's run stands, from its lock (what
 *   `eventbus sync run --wait` follows): the run under way, its chunk and cursor, the last run.
 * - `alert-test` `{name}` (apply): a test fire of an Alert (docs/alerts.md): a manual run message,
 *   on which the scheduler's Alert job evaluates the condition and sends a `test` message through
 *   the alert's connection, leaving its incident alone (the schedule function holds the secrets).
 */
import { randomBytes } from 'node:crypto';
import { LockStore } from '../adapters/locks.ts';
import type { RegistryClient } from '../adapters/registry.ts';
import { ReplayStore } from '../adapters/replays.ts';
import { sliceQuery } from '../core/delivery/replay.ts';
import { apiError, withViolations } from '../core/errors.ts';
import { FREE_LOCK, type RunMessage, runKey } from '../core/scheduler/dispatch.ts';
import {
  parseReplayRequest,
  REPLAY_KIND,
  type ReplayRecord,
  replayId,
  replayState,
} from '../core/scheduler/replays.ts';
import { fail, ok, refuse, type Step } from '../core/step.ts';
import type { Settings } from '../schemas/settings.ts';
import { checkedName, invalidField, notConfigured } from './request.ts';

export const REPLAY_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  'replay-start': 'apply',
  'replay-cancel': 'apply',
  replays: 'read',
  'sync-status': 'read',
  'alert-test': 'apply',
});

export interface ReplayApiOptions {
  readonly registry: RegistryClient;
  readonly settings?: Readonly<Settings>;
  /** Publishes a run message on the scheduler's `runs` topic. */
  readonly runs?: { start(message: RunMessage): Promise<void> };
  /** Throws unless the SQL is a single SELECT that parses (a dry run, not billed). */
  readonly checkSelect?: (sql: string, params: Record<string, unknown>) => Promise<void>;
  /** The environment's project and events dataset, for a slice's SQL. */
  readonly warehouseRef?: { readonly project: string; readonly dataset: string };
}

const LIST_SIZE = 20;

const messageOf = (r: ReplayRecord): RunMessage => ({
  kind: REPLAY_KIND,
  name: r.id,
  slot: r.requested_at,
  trigger: 'manual',
});

export async function replayAction(
  o: ReplayApiOptions,
  action: string,
  raw: unknown,
  author: string,
): Promise<Step<unknown>> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const store = new ReplayStore(o.registry.bucket);
  if (action === 'replays') return ok({ replays: await list(o, store), destinations: destinations(o) });
  if (action === 'sync-status') return syncStatus(o, body);
  if (action === 'alert-test') return alertTest(o, body);
  if (action === 'replay-cancel') return cancel(store, body, author);
  if (action !== 'replay-start') return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  if (!o.runs) return notConfigured('it cannot reach the scheduler');
  const parsed = parseReplayRequest(
    body,
    destinations(o).map((d) => d.id),
  );
  if (!parsed.ok) {
    const detail = parsed.violations.map((v) => `${v.field} ${v.description}`).join('; ');
    return refuse(withViolations(apiError('INVALID_REQUEST', { detail }), parsed.violations));
  }
  const request = parsed.request;
  if (request.source === 'slice' && request.where !== undefined && o.checkSelect && o.warehouseRef) {
    try {
      await o.checkSelect(sliceQuery(o.warehouseRef.project, o.warehouseRef.dataset, request.where), {
        from: new Date(request.from as string),
        to: new Date(request.to as string),
      });
    } catch (err) {
      const e = err as { name?: string; code?: number; message?: string };
      if (e.name !== 'NotASelectError' && e.code !== 400) throw err;
      return invalidField('where', `is not a condition BigQuery accepts here: ${e.message ?? String(err)}`);
    }
  }
  const now = new Date();
  const record: ReplayRecord = {
    ...request,
    id: replayId(now, randomBytes(6).toString('hex')),
    requested_by: author,
    requested_at: now.toISOString(),
    status: 'requested',
  };
  await store.create(record);
  try {
    await o.runs.start(messageOf(record));
  } catch (err) {
    // Not started: nothing is left behind that looks queued.
    await store.delete(record.id).catch(() => undefined);
    return fail('UNAVAILABLE', { retryAfter: 5, detail: `the scheduler: ${(err as Error).message}` });
  }
  return ok({ replay: { ...record, state: 'queued' } });
}

async function cancel(
  store: ReplayStore,
  body: Record<string, unknown>,
  author: string,
): Promise<Step<unknown>> {
  const id = body['id'];
  if (typeof id !== 'string' || id === '') return invalidField('id', 'must name a replay (its id)');
  const record = await store.requestCancel(id, author, new Date());
  if (!record) return fail('NOT_FOUND', { resource: `replays/${id}` });
  if (record.status === 'finished') return invalidField('id', `replay ${id} has finished: nothing to cancel`);
  return ok({ replay: record });
}

function destinations(o: ReplayApiOptions) {
  return (o.settings?.destinations ?? []).map((d) => ({ id: d.id, type: d.type }));
}

async function list(o: ReplayApiOptions, store: ReplayStore) {
  const locks = new LockStore(o.registry.bucket);
  const records = await store.recent(LIST_SIZE);
  return Promise.all(
    records.map(async (r) => {
      // A finished replay's object says it all: only the others' locks are read (the page polls).
      const lock = r.status === 'finished' ? FREE_LOCK : (await locks.read(REPLAY_KIND, r.id)).state;
      return { ...r, ...replayState(r, lock, runKey(messageOf(r))) };
    }),
  );
}

async function syncStatus(o: ReplayApiOptions, body: Record<string, unknown>): Promise<Step<unknown>> {
  const checked = checkedName('Sync', body['name'], 'name');
  if (!checked.ok) return checked;
  const name = checked.value;
  const { state } = await new LockStore(o.registry.bucket).read('Sync', name);
  return ok({
    name,
    run: state.run,
    chunk: state.chunk,
    cursor: state.cursor,
    failures: state.failures,
    last_run: state.last_run,
    last_finished_at: state.last_finished_at,
    last_error: state.last_error,
  });
}

async function alertTest(o: ReplayApiOptions, body: Record<string, unknown>): Promise<Step<unknown>> {
  const checked = checkedName('Alert', body['name'], 'name');
  if (!checked.ok) return checked;
  const name = checked.value;
  const { resources } = (await o.registry.readIndex('Alert')).index;
  const entry = Object.hasOwn(resources, name) ? resources[name] : undefined;
  if (!entry || entry.deleted) return fail('NOT_FOUND', { resource: `Alert/${name}` });
  if (!o.runs) return notConfigured('it cannot reach the scheduler');
  const message: RunMessage = { kind: 'Alert', name, slot: new Date().toISOString(), trigger: 'manual' };
  await o.runs.start(message);
  return ok({ started: runKey(message), version: entry.version });
}
