/**
 * A sync run's bookkeeping (core/syncs/sync-run.ts): the first cursor from the plan's counts, the
 * page size per destination, how a page moves the cursor, the run's status and its rows in
 * `sync_runs` and `sync_failed_rows`. Pure; the job that uses them is tested in test/scheduler.
 */
import assert from 'node:assert/strict';
import { CUSTOMER_MATCH_MAX_MEMBERS } from '../../../core/platforms/google-ads/audience.ts';
import { AUDIENCE_MAX_ROWS } from '../../../core/platforms/meta/audience.ts';
import {
  advanceCursor,
  DEFAULT_BATCH,
  failedRows,
  MAX_REQUEST_IDS,
  pageSize,
  plannedCursor,
  refusedForGood,
  runRow,
  runStatus,
  type SyncCursor,
  sentChanges,
} from '../../../core/syncs/sync-run.ts';
import type { Change } from '../../../core/syncs/syncs.ts';
import type { SyncSpec } from '../../../schemas/sync.ts';

const spec = (over: Partial<SyncSpec> = {}): SyncSpec => ({
  model: 'SELECT user_id FROM crm.users',
  primary_key: ['user_id'],
  mode: 'mirror',
  schedule: { manual: true },
  destination: { webhook: { connection: 'crm' } },
  ...over,
});
const change = (n: number, op: Change['op'] = 'upsert'): Change => ({
  n,
  op,
  key: { user_id: `u${n}` },
  data: { user_id: `u${n}` },
});
const start = new Date('2025-03-01T10:00:00.000Z');
const fresh: SyncCursor = plannedCursor(spec(), { planned: 5, removals: 1 }, start);

describe('sync run: the cursor and the page size', () => {
  it('starts from the plan’s counts; cursor bounds only for a sync with a cursor', () => {
    assert.deepEqual(fresh, {
      planned: 5,
      removals: 1,
      done: 0,
      pages: 0,
      sent: 0,
      removed: 0,
      failed: 0,
      started_at: '2025-03-01T10:00:00.000Z',
    });
    const withCursor = plannedCursor(
      spec({ mode: 'upsert', cursor: 'updated_at' } as Partial<SyncSpec>),
      { planned: '2', removals: null, cursor_from: null, cursor_to: 17 },
      start,
    );
    assert.equal(withCursor.planned, 2);
    assert.equal(withCursor.removals, 0);
    assert.equal(withCursor.cursor_from, null);
    assert.equal(withCursor.cursor_to, '17');
    // No row (an empty plan) plans nothing.
    assert.equal(plannedCursor(spec(), undefined, start).planned, 0);
  });

  it('pages at batch_size (500 by default), never above what one platform request takes', () => {
    assert.equal(pageSize(spec()), DEFAULT_BATCH);
    assert.equal(pageSize(spec({ batch_size: 20_000 })), 20_000);
    const meta = { meta_audience: { connection: 'm', audience_id: '1' } };
    assert.equal(pageSize(spec({ destination: meta, batch_size: 50_000 })), AUDIENCE_MAX_ROWS);
    assert.equal(pageSize(spec({ destination: meta, batch_size: 10 })), 10);
    const ads = {
      google_ads_audience: { connection: 'a', operating_account_id: '1', user_list_id: '2' },
    };
    assert.equal(
      pageSize(spec({ destination: ads, batch_size: 1_000_000 } as Partial<SyncSpec>)),
      CUSTOMER_MATCH_MAX_MEMBERS,
    );
  });

  it('moves past every row read, counting sends, removals and failures apart', () => {
    const changes = [change(1), change(2, 'delete'), change(3)];
    const failed = [{ change: changes[2] as Change, reason: 'no' }];
    const sent = sentChanges(changes, failed);
    assert.deepEqual(
      sent.map((c) => c.n),
      [1, 2],
    );
    const next = advanceCursor(fresh, { rows: 3, sent, failed: 1, requestIds: [] });
    assert.deepEqual(
      { done: next.done, pages: next.pages, sent: next.sent, removed: next.removed, failed: next.failed },
      { done: 3, pages: 1, sent: 1, removed: 1, failed: 1 },
    );
    assert.equal('request_ids' in next, false);
    // An older cursor without `failed` counts from zero.
    const { failed: _, ...older } = fresh;
    assert.equal(advanceCursor(older, { rows: 1, sent: [], failed: 2, requestIds: [] }).failed, 2);
  });

  it('keeps the newest request ids only', () => {
    let cursor = fresh;
    for (let page = 0; page < 30; page++)
      cursor = advanceCursor(cursor, {
        rows: 1,
        sent: [],
        failed: 0,
        requestIds: [`r${page}a`, `r${page}b`],
      });
    assert.equal(cursor.request_ids?.length, MAX_REQUEST_IDS);
    assert.equal(cursor.request_ids?.at(-1), 'r29b');
    assert.equal(cursor.request_ids?.[0], 'r5a');
  });

  it('a webhook’s 4xx other than 408 and 429 fails the rows; anything else retries the page', () => {
    const table = [null, 200, 302, 400, 401, 404, 408, 422, 429, 500, 503].map((s) => [s, refusedForGood(s)]);
    assert.deepEqual(table, [
      [null, false],
      [200, false],
      [302, false],
      [400, true],
      [401, true],
      [404, true],
      [408, false],
      [422, true],
      [429, false],
      [500, false],
      [503, false],
    ]);
  });
});

describe('sync run: what it records', () => {
  const sync = { name: 'vip', version: '3', spec: spec() };
  const run = { runId: 'Sync/vip/slot', trigger: 'manual', chunk: 2, now: start };
  const end = new Date('2025-03-01T10:05:00.000Z');

  it('says nothing_to_send, partial or succeeded', () => {
    assert.equal(runStatus({ ...fresh, planned: 0 }), 'nothing_to_send');
    assert.equal(runStatus({ ...fresh, failed: 1 }), 'partial');
    assert.equal(runStatus(fresh), 'succeeded');
    assert.equal(runStatus({ ...fresh, failed: undefined } as never), 'succeeded');
  });

  it('writes a sync_runs row from the cursor, and one without a cursor when the plan failed', () => {
    const cursor: SyncCursor = {
      ...fresh,
      done: 5,
      pages: 2,
      sent: 3,
      removed: 1,
      failed: 1,
      cursor_from: 'a',
      cursor_to: 'b',
      request_ids: ['x', 'y'],
    };
    assert.deepEqual(runRow(sync, run, cursor, end), {
      sync: 'vip',
      version: '3',
      run_id: 'Sync/vip/slot',
      trigger: 'manual',
      mode: 'mirror',
      destination: 'webhook:crm',
      rows_planned: 5,
      rows_sent: 3,
      rows_removed: 1,
      rows_failed: 1,
      chunks: 3,
      started_at: '2025-03-01T10:00:00.000Z',
      finished_at: '2025-03-01T10:05:00.000Z',
      cursor_from: 'a',
      cursor_to: 'b',
      request_ids: 'x y',
    });
    const none = runRow(sync, { ...run, chunk: 0 }, null, end);
    assert.deepEqual(
      [none['rows_planned'], none['chunks'], none['started_at'], 'request_ids' in none],
      [0, 1, '2025-03-01T10:00:00.000Z', false],
    );
  });

  it('writes one sync_failed_rows row per failed change, keyed by run and change number', () => {
    assert.deepEqual(failedRows('vip', 'run-1', [{ change: change(7, 'delete'), reason: 'gone' }], end), [
      {
        insertId: 'run-1#7',
        row: {
          sync: 'vip',
          run_id: 'run-1',
          key: '{"user_id":"u7"}',
          op: 'delete',
          reason: 'gone',
          failed_at: '2025-03-01T10:05:00.000Z',
        },
      },
    ]);
  });
});
