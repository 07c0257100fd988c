/**
 * A batch test case of Segment's (`testBatchAction`) through our runtime, for the conformance run
 * (worker.ts) and its CI tier (replay.ts): each of the test's events is run by `runSegmentEvent` as
 * `forward-catalog` runs a delivery, with open batches given (`RunIo.batches`), so that the action's
 * run joins a batch and the batch is sent by its `performBatch` (adapters/segment-actions/run.ts
 * `inBatch`, `sendBatch`): the code a batched delivery takes in production.
 *
 * Only when a batch is sent differs from production (adapters/segment-actions/batches.ts, which
 * sends it when full or after a wait): Segment's test integration sends all the test's events in one
 * `performBatch` call, so the batches here are sent once every event still running waits in one,
 * whatever the mapping's `batch_size`; the events go in the test's order. No timer: the run does
 * not depend on how fast the machine is.
 */
import type { Batches, SendBatch } from '../../adapters/segment-actions/batches.ts';
import type { RunIo, RunResult, runSegmentEvent } from '../../adapters/segment-actions/run.ts';
import type { MultiStatusNode } from '../../core/platforms/segment-action/batching.ts';
import type { Destination } from '../../schemas/settings.ts';

/** What a batch case's run gave. */
export interface BatchRun {
  /** Each event's run, in the events' order. */
  readonly results: readonly RunResult[];
  /** How many batches were sent (Segment's test integration sends one). */
  readonly sent: number;
  /**
   * The multi-status answer of the batches, one entry per event that was in one (actions-core's
   * `results[0].multistatus` of testBatchAction), in the events' order.
   */
  readonly multistatus: readonly (MultiStatusNode | undefined)[];
  /** What a batch's send threw (actions-core's executeBatch throws what `performBatch` threw). */
  readonly thrown?: { readonly error: unknown };
}

interface Group {
  readonly items: unknown[];
  readonly send: SendBatch<unknown, unknown>;
  readonly waiting: { resolve: (o: unknown) => void; reject: (err: unknown) => void }[];
}

/**
 * Runs `events` as one batch case: each through `run` (runSegmentEvent) with the same destination,
 * secrets and fetch. `unbatched` runs each event alone, without batches (the runner's own test of
 * a runtime that does not batch: wire.ts `send-alone`).
 */
export async function runBatch(
  run: typeof runSegmentEvent,
  events: readonly Record<string, unknown>[],
  destination: Readonly<Destination>,
  secrets: Readonly<Record<string, string>>,
  io: Pick<RunIo, 'fetch' | 'now'>,
  unbatched = false,
): Promise<BatchRun> {
  const groups = new Map<string, Group>();
  const multistatus: (MultiStatusNode | undefined)[] = events.map(() => undefined);
  let sent = 0;
  let thrown: { error: unknown } | undefined;
  let running = events.length;
  let waiting = 0;
  const orderOf = (item: unknown) =>
    events.indexOf((item as { readonly event: Record<string, unknown> }).event);
  const flush = (group: Group) => {
    const items = group.items;
    waiting -= items.length;
    sent++;
    // In the test's order, whichever event's run reached its batch first.
    const order = items.map((item, i) => ({ item, i })).sort((a, b) => orderOf(a.item) - orderOf(b.item));
    Promise.resolve()
      .then(() => group.send(order.map((o) => o.item)))
      .then(
        (entries) =>
          order.forEach(({ item, i }, k) => {
            const index = orderOf(item);
            if (index >= 0) multistatus[index] = entries[k] as MultiStatusNode | undefined;
            group.waiting[i]?.resolve(entries[k]);
          }),
        (error: unknown) => {
          thrown ??= { error };
          for (const w of group.waiting) w.reject(error);
        },
      );
  };
  // Every event still running waits in a batch: the batches go (an event that ran alone, or was
  // refused before its action, is no longer running).
  const settle = () => {
    if (waiting === 0 || waiting < running) return;
    const open = [...groups.values()];
    groups.clear();
    for (const group of open) flush(group);
  };
  const batches: Batches = {
    add<I, O>(key: string, item: I, _limits: unknown, send: SendBatch<I, O>): Promise<O> {
      const group = groups.get(key) ?? {
        items: [],
        send: send as unknown as SendBatch<unknown, unknown>,
        waiting: [],
      };
      groups.set(key, group);
      const result = new Promise<O>((resolve, reject) => {
        group.waiting.push({ resolve: resolve as (o: unknown) => void, reject });
      });
      group.items.push(item);
      waiting++;
      settle();
      return result;
    },
    open: () => groups.size,
  };
  const runs = unbatched
    ? await events.reduce<Promise<RunResult[]>>(
        async (done, event) => [...(await done), await run(event, destination, secrets, io)],
        Promise.resolve([]),
      )
    : await Promise.all(
        events.map((event) =>
          run(event, destination, secrets, { ...io, batches }).finally(() => {
            running--;
            settle();
          }),
        ),
      );
  return { results: runs, sent, multistatus, ...(thrown ? { thrown } : {}) };
}

/**
 * What testBatchAction does once the batch case ran: it throws what a batch's send threw; when no
 * batch was sent, what stopped the events before (a refused setting, a token refresh that failed);
 * else it returns (a failed event is an entry of the multi-status answer, not a throw).
 */
export function batchFailure(batch: BatchRun): unknown {
  if (batch.thrown) return batch.thrown.error;
  if (batch.sent > 0) return undefined;
  const thrown = batch.results.flatMap((r) => r.thrown)[0];
  if (thrown !== undefined) return thrown;
  const refused = batch.results.flatMap((r) => r.outcomes).find((o) => o.outcome.status !== 'delivered');
  if (refused && refused.outcome.status !== 'delivered') return new Error(refused.outcome.reason);
  return new Error('our runtime sent no batch for the events');
}
