/**
 * `forward`'s question on a redelivery: is this event already `delivered` to this destination?
 * Asked of the ledger in BigQuery (docs/delivery.md), by the event's identity: its event_id and
 * payload digest (core/identity.ts), so another event that reused the id is not taken for this
 * one. Questions arriving within a few milliseconds share one query; an answer that does not come
 * in time, or an error, is "no" (fail-open: a possible duplicate, which Meta and TikTok fold by
 * event_id, rather than a delivery that never happens).
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { identityKey } from '../core/identity.ts';
import { createBatchedLookup } from './batched-lookup.ts';
import { LEDGER_TABLE } from './ledger-writer.ts';

export interface DeliveredCheckOptions {
  /** How long the first question waits for company. */
  readonly windowMs?: number;
  /** Longest wait for the answer before failing open (or closed). */
  readonly timeoutMs?: number;
  /** No answer in time: "not delivered" (`open`, the default) or a rejection (`closed`: the send-once claim's question). */
  readonly onFailure?: 'open' | 'closed';
  readonly log?: (message: string) => void;
}

/** A `delivered` row of the ledger as the check reads it. */
export interface DeliveredRow {
  readonly event_id: string;
  readonly destination: string;
  /** Null on rows written before the ledger carried digests: they stand for any content. */
  readonly payload_digest: string | null;
}

/** Runs the check's query; returns the delivered rows among those event ids and destinations. */
export type DeliveredQuery = (
  ids: readonly string[],
  destinations: readonly string[],
) => Promise<readonly DeliveredRow[]>;

export function ledgerDeliveredQuery(bigquery: BigQuery, dataset: string, lookbackDays = 7): DeliveredQuery {
  const sql = `SELECT DISTINCT event_id, destination, payload_digest FROM \`${dataset}.${LEDGER_TABLE}\`
WHERE status = 'delivered' AND event_id IN UNNEST(@ids) AND destination IN UNNEST(@destinations)
  AND recorded_at >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL ${Math.trunc(lookbackDays)} DAY)`;
  return async (ids, destinations) => {
    const [rows] = await bigquery.query({
      query: sql,
      params: { ids: [...ids], destinations: [...destinations] },
    });
    return rows as DeliveredRow[];
  };
}

interface Question {
  readonly eventId: string;
  readonly destination: string;
  readonly digest: string | undefined;
}

const keyOf = (q: Question): string => `${q.destination}\u0000${identityKey(q.eventId, q.digest)}`;

export function createDeliveredCheck(
  query: DeliveredQuery,
  opts: DeliveredCheckOptions = {},
): (eventId: string, destination: string, payloadDigest?: string) => Promise<boolean> {
  const lookup = createBatchedLookup<Question>(
    async (questions) => {
      const ids = [...new Set(questions.map((q) => q.eventId))];
      const destinations = [...new Set(questions.map((q) => q.destination))];
      const rows = await query(ids, destinations);
      const found = new Set<string>();
      for (const q of questions) {
        const hit = rows.some(
          (r) =>
            r.event_id === q.eventId &&
            r.destination === q.destination &&
            // A question without a digest (a message older than digests) matches by id alone, as
            // does a ledger row without one.
            (q.digest === undefined || r.payload_digest === null || r.payload_digest === q.digest),
        );
        if (hit) found.add(keyOf(q));
      }
      return found;
    },
    keyOf,
    { what: 'ledger check', ...opts },
  );
  return (eventId, destination, digest) => lookup({ eventId, destination, digest });
}
