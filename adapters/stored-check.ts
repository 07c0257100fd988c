/**
 * `store`'s question for a late copy of an event (core/store/store.ts, lateCopy): is the row of this
 * identity (event_id, payload_digest) already in `events`? Past BigQuery's insertId window a
 * second write would be a second row; asking first keeps one. Questions arriving together share
 * one query, which reads only the partitions of their event times. An answer that does not come
 * in time, or an error, rejects (fail-closed): "not stored" would write a second copy and fan it
 * out again, so the push fails instead and Pub/Sub brings it back later, with the reason logged.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { identityKey } from '../core/identity.ts';
import type { AlreadyStored, StoredQuestion } from '../core/store/copies.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import { createBatchedLookup } from './batched-lookup.ts';

/**
 * Runs the check's query: the identity keys (core/identity.ts) found among the questions. `signal`
 * (the lookup gave up) cancels the query's job (jobs.cancel), so it is not left running.
 */
export type StoredQuery = (
  questions: readonly StoredQuestion[],
  signal: AbortSignal,
) => Promise<ReadonlySet<string>>;

export function eventsStoredQuery(bigquery: BigQuery, dataset: string): StoredQuery {
  const sql = `SELECT DISTINCT event_id, payload_digest FROM \`${dataset}.${TABLES.events}\`
WHERE event_time BETWEEN @from AND @to AND event_id IN UNNEST(@ids) AND payload_digest IN UNNEST(@digests)`;
  return async (questions, signal) => {
    const times = questions.map((q) => Date.parse(q.event_time));
    const rows = await cancellableRows<{ event_id: string; payload_digest: string }>(
      bigquery,
      {
        query: sql,
        params: {
          from: bigquery.timestamp(new Date(Math.min(...times))),
          to: bigquery.timestamp(new Date(Math.max(...times))),
          ids: [...new Set(questions.map((q) => q.event_id))],
          digests: [...new Set(questions.map((q) => q.payload_digest))],
        },
        // The check's own label: who runs the warehouse's jobs shows in its job list.
        labels: { eventbus: 'stored-check' },
      },
      signal,
    );
    return new Set(rows.map((r) => identityKey(r.event_id, r.payload_digest)));
  };
}

/**
 * A query's rows, its job cancelled (jobs.cancel) when `signal` fires, so a lookup that gave up
 * leaves no job running. Shared by the store's checks (this one, adapters/skip-check.ts).
 */
export async function cancellableRows<R>(
  bigquery: BigQuery,
  options: Parameters<BigQuery['createQueryJob']>[0],
  signal: AbortSignal,
): Promise<R[]> {
  const [job] = await bigquery.createQueryJob(options);
  const cancel = () => {
    job.cancel().catch(() => undefined);
  };
  if (signal.aborted) cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const [rows] = await job.getQueryResults();
    return rows as R[];
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

export function createStoredCheck(
  query: StoredQuery,
  opts: {
    readonly windowMs?: number;
    readonly timeoutMs?: number;
    readonly maxInFlight?: number;
    readonly log?: (m: string) => void;
  } = {},
): AlreadyStored {
  return createBatchedLookup(query, (q) => identityKey(q.event_id, q.payload_digest), {
    what: 'stored check',
    onFailure: 'closed',
    ...opts,
  });
}
