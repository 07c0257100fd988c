/**
 * Questions to BigQuery that arrive within a few milliseconds share one query: a freeze of a
 * destination or of the warehouse ends in a burst of redeliveries, each asking "is this already
 * done?". An answer that does not come in time, or an error, is "no" (`false`): the callers'
 * safe side is to do the work again (a duplicate that the platform or `events_dedup` folds),
 * never to skip it.
 */

export interface BatchedLookupOptions {
  /** How long the first question waits for company. */
  readonly windowMs?: number;
  /** Longest wait for the answer before answering "no". */
  readonly timeoutMs?: number;
  /** What the answer is about, for the log line ("ledger check", "stored check"). */
  readonly what: string;
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
  let pending = new Map<string, { question: Q; resolve: ((v: boolean) => void)[] }>();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    const answer = (found: ReadonlySet<string>): void => {
      for (const [k, q] of batch) for (const r of q.resolve) r(found.has(k));
    };
    let settled = false;
    const failOpen = (why: string): void => {
      if (settled) return;
      settled = true;
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
    new Promise<boolean>((resolve) => {
      const k = keyOf(question);
      const q = pending.get(k);
      if (q) q.resolve.push(resolve);
      else pending.set(k, { question, resolve: [resolve] });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, windowMs);
      }
    });
}
