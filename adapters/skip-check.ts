/**
 * `store`'s question for a message back after its row was stored (a crash between the ledger write
 * and the acknowledgement, or its dead letter): are its `skipped` rows in `deliveries` already?
 * Asked only then (core/delivery/fan-out.ts, `again`), so a redelivery does not write a second skip
 * row per event and destination. Questions arriving together share one query, which reads only
 * the partitions since the earliest an earlier attempt could have written. An answer that does not
 * come in time, or an error, is "not there" (fail-open): the row is written, as before, since a
 * second skip row is a smaller harm than a push failed over the ledger.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { LedgerEntry } from '../core/delivery/ledger.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import { type BatchQuery, createBatchedLookup } from './batched-lookup.ts';
import { cancellableRows } from './stored-check.ts';

/** One question: a skip row as the fan-out would write it, and since when an earlier one could be there. */
export interface SkipQuestion {
  readonly entry: LedgerEntry;
  readonly since: number;
}

/** A skip row's insertId, as core/delivery/ledger.ts (skippedEntry) makes it, from its columns. */
export const skipKey = (eventId: string, digest: string | null | undefined, destination: string): string =>
  `${eventId}/${digest ?? ''}/${destination}/skipped`;

/** The query: which of the questions' skip rows (not a replay's) the ledger holds, by insertId. */
export function skippedRowsQuery(bigquery: BigQuery, dataset: string): BatchQuery<SkipQuestion> {
  const sql = `SELECT DISTINCT event_id, payload_digest, destination FROM \`${dataset}.${TABLES.deliveries}\`
WHERE recorded_at >= @since AND status = 'skipped' AND NOT replay AND event_id IN UNNEST(@ids)`;
  return async (questions, signal) => {
    const rows = await cancellableRows<{
      event_id: string;
      payload_digest: string | null;
      destination: string;
    }>(
      bigquery,
      {
        query: sql,
        params: {
          since: bigquery.timestamp(new Date(Math.min(...questions.map((q) => q.since)))),
          ids: [...new Set(questions.map((q) => String(q.entry.row.event_id)))],
        },
        labels: { eventbus: 'skip-check' },
      },
      signal,
    );
    return new Set(rows.map((r) => skipKey(r.event_id, r.payload_digest, r.destination)));
  };
}

/** The fan-out's `skipRecorded`, batched, failing open. */
export function createSkipCheck(
  query: BatchQuery<SkipQuestion>,
  opts: { readonly log?: (m: string) => void } = {},
): (entry: LedgerEntry, since: number) => Promise<boolean> {
  const lookup = createBatchedLookup(query, (q: SkipQuestion) => q.entry.insertId, {
    what: 'skip check',
    onFailure: 'open',
    ...opts,
  });
  return (entry, since) => lookup({ entry, since });
}
