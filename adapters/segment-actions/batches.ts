/**
 * Batches of one action's events (docs/catalog-destinations.md, "Batches"): the deliveries in
 * flight in this instance for one destination, one action and one set of settings gather in an
 * open batch, which is sent by the action's `performBatch` once it holds its most events or once
 * its first event has waited the wait time, whichever comes first. Each event learns its own
 * result (Segment's multi-status answer, one entry per event), or the batch's failure.
 *
 * Per instance, in memory: what a batch holds is only deliveries in flight, each with its own
 * push still open, its send-once claim held and its ledger row still to write; a batch never
 * outlives its events' pushes. The one promise per batch is the send's; each event waits on it.
 */

/** How big a batch gets and how long its first event waits for company. */
export interface BatchLimits {
  readonly maxEvents: number;
  readonly waitMs: number;
}

/** Sends a batch: one result per item, in the items' order. */
export type SendBatch<I, O> = (items: readonly I[]) => Promise<readonly O[]>;

interface Open<I, O> {
  readonly send: SendBatch<I, O>;
  readonly items: I[];
  readonly waiting: { resolve: (o: O) => void; reject: (err: unknown) => void }[];
  readonly maxEvents: number;
  timer?: ReturnType<typeof setTimeout>;
}

export interface Batches {
  /**
   * Adds `item` to the open batch under `key` (one is opened when there is none), sent by `send`
   * when it is full or its wait is over; resolves with the item's own result.
   */
  add<I, O>(key: string, item: I, limits: BatchLimits, send: SendBatch<I, O>): Promise<O>;
  /** Batches open now (for tests and the drain). */
  readonly open: () => number;
}

/** The open batches of one function instance. */
export function createBatches(): Batches {
  const open = new Map<string, Open<unknown, unknown>>();
  const flush = (key: string, batch: Open<unknown, unknown>): void => {
    if (open.get(key) === batch) open.delete(key);
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    let sent: Promise<readonly unknown[]>;
    try {
      sent = batch.send(batch.items);
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      (results) =>
        batch.waiting.forEach((w, i) => {
          if (i < results.length) w.resolve(results[i]);
          else
            w.reject(
              new Error(`the batch's answer has no result for its event ${i + 1} of ${batch.items.length}`),
            );
        }),
      (err: unknown) => {
        for (const w of batch.waiting) w.reject(err);
      },
    );
  };
  return {
    add<I, O>(key: string, item: I, limits: BatchLimits, send: SendBatch<I, O>): Promise<O> {
      let batch = open.get(key) as Open<I, O> | undefined;
      if (!batch) {
        batch = { send, items: [], waiting: [], maxEvents: Math.max(1, Math.floor(limits.maxEvents)) };
        open.set(key, batch as Open<unknown, unknown>);
        const opened = batch;
        opened.timer = setTimeout(
          () => flush(key, opened as Open<unknown, unknown>),
          Math.max(0, limits.waitMs),
        );
      }
      const result = new Promise<O>((resolve, reject) => {
        (batch as Open<I, O>).waiting.push({ resolve, reject });
      });
      batch.items.push(item);
      if (batch.items.length >= batch.maxEvents) flush(key, batch as Open<unknown, unknown>);
      return result;
    },
    open: () => open.size,
  };
}
