/**
 * The console's replays on the emulators: the studio's admin action keeps the request in the
 * registry bucket and publishes a run message; the scheduler's Replay job runs it chunk by chunk
 * (each chunk a runChunk, as the schedule function does per message) with the CLI's code, and the
 * console reads where it stands from its object and its lock. A dead-letter replay delivers the
 * backlog once the webhook is back; a slice replay re-sends stored events in pages of an ops table
 * that is dropped at the end; a `where` BigQuery refuses is answered at once, naming the field.
 */
import assert from 'node:assert/strict';
import { pubSubPullSource } from '../../adapters/backlog.ts';
import { createDeliveriesPublisher, deliveriesRoute } from '../../adapters/deliveries-publisher.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { LockStore } from '../../adapters/locks.ts';
import { RegistryClient } from '../../adapters/registry.ts';
import { ReplayStore } from '../../adapters/replays.ts';
import { sliceTableMaker } from '../../adapters/slice-table.ts';
import { assertSingleSelect, plainValue } from '../../adapters/user-sql.ts';
import type { LedgerRow } from '../../core/delivery/ledger.ts';
import { deliveriesTopology } from '../../core/plan.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import type { Step } from '../../core/step.ts';
import { type Running, start as startStorage } from '../../emulators/storage/test/support/harness.ts';
import { replayJob, sliceTable } from '../../functions/schedule/replays.ts';
import { type RunnerDeps, runChunk, tick } from '../../functions/schedule/runner.ts';
import { type ReplayApiOptions, replayAction } from '../../studio/replays-api.ts';
import { type Stack, startStack, testSettings, waitFor } from '../delivery/support/stack.ts';
import { outage, viewContent } from './support.ts';

const { state, respond } = outage();
const event = viewContent;
const hookRows = (rows: readonly LedgerRow[]) => rows.filter((r) => r.destination === 'hook');

interface Listed {
  id: string;
  state: string;
  source: string;
  requested_by: string;
  figures?: {
    read: number;
    republished: number;
    skipped: number;
    failed: number;
    total?: number;
    error?: string;
    backfilled?: number;
    went_live?: string;
    reasons?: Record<string, number>;
    cancelled?: boolean;
  };
}

describe('scheduler: replays started from the console run chunk by chunk on the Replay job', function () {
  this.timeout(120_000);
  let stack: Stack;
  let storage: Running;
  let deps: RunnerDeps;
  let api: ReplayApiOptions;
  const published: RunMessage[] = [];

  before(async () => {
    stack = await startStack(testSettings(), respond);
    storage = await startStorage();
    const [bucket] = await storage.storage.createBucket('replays-registry');
    const source = await pubSubPullSource(stack.pubsub, stack.settings.project);
    const deliveries = createDeliveriesPublisher(
      stack.pubsub,
      deliveriesRoute(deliveriesTopology(stack.settings)),
    );
    const ledger = createLedgerWriter(createLedgerBigQueryWriter(stack.bigquery, stack.plan.dataset));
    const store = new ReplayStore(bucket);
    const bq = stack.bigquery;
    api = {
      registry: new RegistryClient(bucket),
      settings: stack.settings,
      runs: {
        start: async (m) => {
          published.push(m);
        },
      },
      checkSelect: (sql, params) => assertSingleSelect(bq, { query: sql, params }),
      warehouseRef: { project: stack.settings.project, dataset: stack.plan.dataset },
    };
    deps = {
      locks: new LockStore(bucket),
      leaseMs: 60_000,
      publish: async (runs) => {
        published.push(...runs);
      },
      jobs: [
        replayJob({
          settings: stack.settings,
          project: stack.settings.project,
          dataset: stack.plan.dataset,
          ops: stack.plan.ops.dataset,
          pending: (now) => store.pending(now),
          read: (id) => store.read(id),
          finish: (r) => store.write(r),
          source: async () => source,
          publish: (m) => deliveries.publish(m),
          writeLedger: (e) => ledger.write(e),
          assertSelect: (sql, params) => assertSingleSelect(bq, { query: sql, params }),
          run: async (sql, params, types) =>
            (
              (
                await bq.query({ query: sql, ...(params ? { params } : {}), ...(types ? { types } : {}) })
              )[0] as unknown[]
            ).map((r) => plainValue(r) as Record<string, unknown>),
          page: async (table, startIndex, maxResults) =>
            (
              await bq
                .dataset(stack.plan.ops.dataset)
                .table(table)
                .getRows({ startIndex: String(startIndex), maxResults, autoPaginate: false })
            )[0] as Record<string, unknown>[],
          createSlice: sliceTableMaker(bq, { dataset: stack.plan.dataset, ops: stack.plan.ops.dataset }),
          chunkSize: 2,
        }),
      ],
    };
  });
  after(async () => {
    await stack?.close();
    await storage?.stop();
  });

  /** What an action that should succeed gives. */
  const given = async (step: Promise<Step<unknown>>): Promise<unknown> => {
    const s = await step;
    if (!s.ok) assert.fail(`refused: ${JSON.stringify(s.error.body)}`);
    return s.value;
  };
  /** The error body an action that should be refused answers with. */
  const refusal = async (step: Promise<Step<unknown>>): Promise<string> => {
    const s = await step;
    return s.ok ? 'not refused' : JSON.stringify(s.error.body);
  };
  const listed = async (): Promise<Listed[]> =>
    ((await given(replayAction(api, 'replays', {}, 'viewer'))) as { replays: Listed[] }).replays;

  /** Publishes the events and waits until the webhook has each one. */
  const deliveredOnce = async (ids: readonly string[]) => {
    await stack.publishEvents(ids.map(event));
    for (const id of ids)
      await waitFor(`delivery of ${id}`, async () =>
        hookRows(await stack.ledger(id)).some((r) => r.status === 'delivered') ? true : undefined,
      );
  };

  /** Starts a slice replay of the last hour to the webhook, narrowed by `where`, as ana. */
  const startSlice = async (where: string) => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const body = { destination: 'hook', source: 'slice', from, to, where };
    const started = (await given(replayAction(api, 'replay-start', body, 'ana@acme.example'))) as {
      replay: Listed;
    };
    return { started, to };
  };

  /** Runs the published run messages one chunk each, as the schedule function does, until done. */
  const drive = async (id: string, seen: Listed[]): Promise<number> => {
    let chunks = 0;
    while (published.length > 0) {
      const outcome = await runChunk(deps, published.shift() as RunMessage);
      assert.ok(['continued', 'finished'].includes(outcome.outcome), JSON.stringify(outcome));
      chunks++;
      const now = (await listed()).find((r) => r.id === id);
      if (now) seen.push(now);
    }
    return chunks;
  };

  it('replays a destination’s dead letters once it is back, with progress between chunks', async () => {
    const ids = ['down-a', 'down-b', 'down-c', 'down-d', 'down-e'].map(
      (i) => `${i}-${Date.now().toString(36)}`,
    );
    await stack.publishEvents(ids.map(event));
    for (const id of ids)
      await waitFor(`dead letter of ${id}`, async () =>
        hookRows(await stack.ledger(id)).some((r) => r.status === 'dead_lettered') ? true : undefined,
      );
    state.down = false;

    const started = (await given(
      replayAction(api, 'replay-start', { destination: 'hook', source: 'dead-letters' }, 'ana@acme.example'),
    )) as { replay: Listed };
    assert.equal(started.replay.state, 'queued');
    assert.deepEqual(
      published.map((m) => m.kind),
      ['Replay'],
    );
    const [queued] = await listed();
    assert.equal(queued?.state, 'queued');
    assert.equal(queued?.requested_by, 'ana@acme.example');

    // The tick does not start a replay (the run message does); it only takes back crashed chunks.
    assert.deepEqual((await tick({ ...deps, publish: async () => undefined })).dispatched, []);

    const seen: Listed[] = [];
    const chunks = await drive(started.replay.id, seen);
    // Five messages, two per chunk: three chunks at least, the last one finding the backlog drained.
    assert.ok(chunks >= 3, `${chunks} chunks`);
    const running = seen.filter((s) => s.state === 'running');
    assert.ok(running.length >= 1, 'the console saw it running');
    assert.ok(
      running.every((r) => (r.figures?.read ?? 0) > 0 && (r.figures?.read ?? 0) < 5),
      JSON.stringify(running),
    );
    const [done] = await listed();
    assert.equal(done?.state, 'finished');
    assert.deepEqual(done?.figures, { read: 5, republished: 5, skipped: 0, failed: 0 });
    for (const id of ids) {
      const rows = await waitFor(`replayed delivery of ${id}`, async () => {
        const r = hookRows(await stack.ledger(id));
        return r.some((x) => x.status === 'delivered') ? r : undefined;
      });
      assert.deepEqual(
        rows.filter((r) => r.status === 'delivered').map((r) => r.replay),
        [true],
      );
    }
  });

  it('re-sends a warehouse slice page by page from an ops table, then drops it', async () => {
    const tag = Date.now().toString(36);
    const ids = ['s1', 's2', 's3', 's4', 's5'].map((i) => `slice-${i}-${tag}`);
    await deliveredOnce(ids);
    // Four of the five: the condition is the person's SQL, inside ours.
    const { started, to } = await startSlice(`event_id LIKE 'slice-%-${tag}' AND event_id != '${ids[4]}'`);
    const seen: Listed[] = [];
    await drive(started.replay.id, seen);
    assert.ok(
      seen.some((s) => s.state === 'running' && s.figures?.total === 4),
      JSON.stringify(seen),
    );
    const done = (await listed()).find((r) => r.id === started.replay.id);
    assert.equal(done?.state, 'finished');
    const { went_live, ...figures } = done?.figures ?? {};
    // The destination was live before these events were stored: a replay, not a backfill.
    assert.deepEqual(figures, {
      read: 4,
      republished: 4,
      skipped: 0,
      failed: 0,
      total: 4,
      backfilled: 0,
      reasons: {},
    });
    // Its first ledger row outside a replay: before this slice's events were stored.
    assert.ok(went_live !== undefined && Date.parse(went_live) < Date.parse(to), went_live);
    // Delivered already: each one's send-once claim folds the replay (docs/delivery.md, "One event,
    // one delivery"); the receiver gets nothing twice.
    for (const id of ids.slice(0, 4))
      await waitFor(`replay of ${id} folded`, async () =>
        hookRows(await stack.ledger(id)).some((r) => r.status === 'folded' && r.replay) ? true : undefined,
      );
    assert.ok(!hookRows(await stack.ledger(ids[4] as string)).some((r) => r.replay), 'the fifth stays out');
    const [tables] = await stack.bigquery.dataset(stack.plan.ops.dataset).getTables();
    assert.ok(!tables.some((t) => t.id === sliceTable(started.replay.id)), 'the slice table is dropped');
  });

  it('stops a replay a person cancels before its next chunk, keeping its figures; a finished one cannot be', async () => {
    const tag = Date.now().toString(36);
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((i) => `cancel-${i}-${tag}`);
    await deliveredOnce(ids);
    const { started } = await startSlice(`event_id LIKE 'cancel-%-${tag}'`);
    // Chunk 0 takes the slice, chunk 1 sends its first page of two; then the person cancels.
    for (let i = 0; i < 2; i++)
      assert.equal((await runChunk(deps, published.shift() as RunMessage)).outcome, 'continued');
    const cancelled = (await given(
      replayAction(api, 'replay-cancel', { id: started.replay.id }, 'bo@acme.example'),
    )) as { replay: { cancel_requested_by: string } };
    assert.equal(cancelled.replay.cancel_requested_by, 'bo@acme.example');
    await drive(started.replay.id, []);
    const done = (await listed()).find((r) => r.id === started.replay.id);
    assert.equal(done?.state, 'cancelled');
    assert.deepEqual([done?.figures?.read, done?.figures?.total, done?.figures?.cancelled], [2, 6, true]);
    assert.match(
      await refusal(replayAction(api, 'replay-cancel', { id: started.replay.id }, 'bo')),
      /has finished: nothing to cancel/,
    );
    assert.match(
      await refusal(replayAction(api, 'replay-cancel', { id: '20260101T000000Z-nope' }, 'bo')),
      /NOT_FOUND|not found/i,
    );
  });

  it('refuses a bad request field by field, and a where BigQuery cannot take, before anything runs', async () => {
    const before = published.length;
    const fields = await refusal(
      replayAction(api, 'replay-start', { destination: 'nope', source: 'slice', from: 'x' }, 'ana'),
    );
    assert.ok(/destination/.test(fields) && /"from"/.test(fields) && /"to"/.test(fields), fields);
    assert.match(
      await refusal(
        replayAction(
          api,
          'replay-start',
          {
            destination: 'hook',
            source: 'slice',
            from: '2026-01-01',
            to: '2026-01-02',
            where: 'no_such_column = 1',
          },
          'ana',
        ),
      ),
      /where/,
    );
    assert.equal(published.length, before, 'nothing was started');
    // A run message naming something other than a replay id finds nothing to run.
    assert.equal(await new ReplayStore(api.registry.bucket).read('../locks/x'), undefined);
  });
});
