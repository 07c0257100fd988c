/**
 * Questions to BigQuery that arrive within a few milliseconds share one query: a freeze of a
 * destination or of the warehouse ends in a burst of redeliveries, each asking "is this already
 * done?". What an answer that does not come in time, or an error, means is the caller's choice:
 * "no" (`failOpen`, the ledger check: a delivery sent again, which most platforms fold) or a
 * rejection (`failClosed`, the stored check: writing and fanning out again is not the safe side,
 * so the push fails and Pub/Sub brings it back).
 */

export interface BatchedLookupOptions {
  /** How long the first question waits for company. */
  readonly windowMs?: number;
  /** Longest wait for the answer before answering "no". */
  readonly timeoutMs?: number;
  /** What the answer is about, for the log line ("ledger check", "stored check"). */
  readonly what: string;
  /** When no answer can be had: answer "no" (`open`, the default) or reject (`closed`). */
  readonly onFailure?: 'open' | 'closed';
  readonly log?: ((message: string) => void) | undefined;
}

/**
 * A batched yes/no lookup. `query` receives every question of a batch and returns the keys it
 * found; `keyOf` names a question, and questions with the same key share one answer.
 */
export function createBatchedLookup<Q>(
  query: (questions: readonly Q[]) => Promise<ReadonlySet<string>>,
  keyOf: (question: Q) => string,
  opts: BatchedLookupOptions,
): (question: Q) => Promise<boolean> {
  const windowMs = opts.windowMs ?? 10;
  const timeoutMs = opts.timeoutMs ?? 2000;
  type Waiter = { resolve: (v: boolean) => void; reject: (err: Error) => void };
  let pending = new Map<string, { question: Q; waiters: Waiter[] }>();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    const answer = (found: ReadonlySet<string>): void => {
      for (const [k, q] of batch) for (const w of q.waiters) w.resolve(found.has(k));
    };
    let settled = false;
    const failOpen = (why: string): void => {
      if (settled) return;
      settled = true;
      if (opts.onFailure === 'closed') {
        const message = `${opts.what} for ${batch.size} questions ${why}: trying again later (fail-closed)`;
        opts.log?.(message);
        for (const q of batch.values()) for (const w of q.waiters) w.reject(new Error(message));
        return;
      }
      opts.log?.(`${opts.what} for ${batch.size} redeliveries ${why}: doing them again (fail-open)`);
      answer(new Set());
    };
    const deadline = setTimeout(() => failOpen(`took over ${timeoutMs} ms`), timeoutMs);
    query([...batch.values()].map((q) => q.question)).then(
      (found) => {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        answer(found);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        failOpen(`failed (${err instanceof Error ? err.message : String(err)})`);
      },
    );
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
