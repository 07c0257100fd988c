/**
 * Questions to BigQuery that arrive within a few milliseconds share one query: a crash or a freeze
 * ends in a burst of redeliveries, each asking "is this already done?" (`store`'s stored check is
 * the one left; the delivery path asks the send-once claim instead). What an answer that does not
 * come in time, or an error, means is the caller's choice: "no" (`open`) or a rejection (`closed`:
 * the stored check, where writing and fanning out again is not the safe side, so the push fails
 * and Pub/Sub brings it back).
 *
 * A lookup that gives up cancels its work: the query gets an AbortSignal that fires at the
 * deadline, and the BigQuery adapter cancels its job on it (jobs.cancel), so an abandoned check is
 * never a job still billed and counted against the concurrent-query quota. And at most
 * `maxInFlight` queries run at once per instance: a batch that finds them all busy waits for a
 * slot within its own deadline, and one that runs out of time waiting never starts a job.
 */

export interface BatchedLookupOptions {
  /** How long the first question waits for company. */
  readonly windowMs?: number;
  /** Longest wait for the answer (queueing for a slot included) before giving up. */
  readonly timeoutMs?: number;
  /** Most queries running at once (default 4); further batches queue for a slot. */
  readonly maxInFlight?: number;
  /** What the answer is about, for the log line ("stored check"). */
  readonly what: string;
  /** When no answer can be had: answer "no" (`open`, the default) or reject (`closed`). */
  readonly onFailure?: 'open' | 'closed';
  readonly log?: ((message: string) => void) | undefined;
}

/** Runs one batch's query; `signal` fires when the lookup gives up: cancel the work then. */
export type BatchQuery<Q> = (questions: readonly Q[], signal: AbortSignal) => Promise<ReadonlySet<string>>;

/**
 * A batched yes/no lookup. `query` receives every question of a batch and returns the keys it
 * found; `keyOf` names a question, and questions with the same key share one answer.
 */
export function createBatchedLookup<Q>(
  query: BatchQuery<Q>,
  keyOf: (question: Q) => string,
  opts: BatchedLookupOptions,
): (question: Q) => Promise<boolean> {
  const windowMs = opts.windowMs ?? 10;
  const timeoutMs = opts.timeoutMs ?? 2000;
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 4);
  type Waiter = { resolve: (v: boolean) => void; reject: (err: Error) => void };
  let pending = new Map<string, { question: Q; waiters: Waiter[] }>();
  let scheduled = false;
  let inFlight = 0;
  /** Batches waiting for a slot, oldest first; each starts its query when called. */
  const queue: (() => void)[] = [];

  const startNext = (): void => {
    while (inFlight < maxInFlight && queue.length > 0) queue.shift()?.();
  };

  const flush = (): void => {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    const abort = new AbortController();
    let settled = false;
    const answer = (found: ReadonlySet<string>): void => {
      for (const [k, q] of batch) for (const w of q.waiters) w.resolve(found.has(k));
    };
    const giveUp = (why: string): void => {
      if (settled) return;
      settled = true;
      abort.abort(new Error(`${opts.what} ${why}`));
      if (opts.onFailure === 'closed') {
        const message = `${opts.what} for ${batch.size} questions ${why}: trying again later (fail-closed)`;
        opts.log?.(message);
        for (const q of batch.values()) for (const w of q.waiters) w.reject(new Error(message));
        return;
      }
      opts.log?.(`${opts.what} for ${batch.size} questions ${why}: answering "no" (fail-open)`);
      answer(new Set());
    };
    const run = (): void => {
      // Timed out while queued: nothing to start, nothing to cancel.
      if (settled) return;
      inFlight++;
      let running: Promise<ReadonlySet<string>>;
      try {
        running = query(
          [...batch.values()].map((q) => q.question),
          abort.signal,
        );
      } catch (err) {
        running = Promise.reject(err);
      }
      running
        .then(
          (found) => {
            clearTimeout(deadline);
            if (settled) return;
            settled = true;
            answer(found);
          },
          (err: unknown) => {
            clearTimeout(deadline);
            giveUp(`failed (${err instanceof Error ? err.message : String(err)})`);
          },
        )
        .finally(() => {
          inFlight--;
          startNext();
        });
    };
    const deadline = setTimeout(
      () =>
        giveUp(
          `took over ${timeoutMs} ms${inFlight >= maxInFlight ? ` (${maxInFlight} queries already running)` : ''}`,
        ),
      timeoutMs,
    );
    queue.push(run);
    startNext();
  };

  return (question) =>
    new Promise<boolean>((resolve, reject) => {
      const k = keyOf(question);
      const q = pending.get(k);
      if (q) q.waiters.push({ resolve, reject });
      else pending.set(k, { question, waiters: [{ resolve, reject }] });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, windowMs);
      }
    });
}
