/**
 * `forward`'s question on a redelivery: is this event already `delivered` to this destination?
 * Asked of the ledger in BigQuery (docs/delivery.md). Questions arriving within a few
 * milliseconds share one query (a freeze of a destination ends in a burst of redeliveries); an
 * answer that does not come in time, or an error, is "no" (fail-open: a possible duplicate, which
 * Meta and TikTok fold by event_id, rather than a delivery that never happens).
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { LEDGER_TABLE } from './ledger-writer.ts';

export interface DeliveredCheckOptions {
  /** How long the first question waits for company. */
  readonly windowMs?: number;
  /** Longest wait for the answer before failing open. */
  readonly timeoutMs?: number;
  /** How far back the ledger is read (the partition filter of the query). */
  readonly lookbackDays?: number;
  readonly log?: (message: string) => void;
}

/** Runs the check's query; returns the (event_id, destination) pairs found delivered. */
export type DeliveredQuery = (
  ids: readonly string[],
  destinations: readonly string[],
) => Promise<readonly { event_id: string; destination: string }[]>;

export function ledgerDeliveredQuery(bigquery: BigQuery, dataset: string, lookbackDays = 7): DeliveredQuery {
  const sql = `SELECT DISTINCT event_id, destination FROM \`${dataset}.${LEDGER_TABLE}\`
WHERE status = 'delivered' AND event_id IN UNNEST(@ids) AND destination IN UNNEST(@destinations)
  AND recorded_at >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL ${Math.trunc(lookbackDays)} DAY)`;
  return async (ids, destinations) => {
    const [rows] = await bigquery.query({
      query: sql,
      params: { ids: [...ids], destinations: [...destinations] },
    });
    return rows as { event_id: string; destination: string }[];
  };
}

const key = (eventId: string, destination: string): string => `${destination}\u0000${eventId}`;

export function createDeliveredCheck(
  query: DeliveredQuery,
  opts: DeliveredCheckOptions = {},
): (eventId: string, destination: string) => Promise<boolean> {
  const windowMs = opts.windowMs ?? 10;
  const timeoutMs = opts.timeoutMs ?? 2000;
  let pending = new Map<
    string,
    { eventId: string; destination: string; resolve: ((v: boolean) => void)[] }
  >();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    const answer = (found: ReadonlySet<string>): void => {
      for (const [k, q] of batch) for (const r of q.resolve) r(found.has(k));
    };
    const ids = [...new Set([...batch.values()].map((q) => q.eventId))];
    const destinations = [...new Set([...batch.values()].map((q) => q.destination))];
    let settled = false;
    const failOpen = (why: string): void => {
      if (settled) return;
      settled = true;
      opts.log?.(`ledger check for ${batch.size} redeliveries ${why}: sending them (fail-open)`);
      answer(new Set());
    };
    const deadline = setTimeout(() => failOpen(`took over ${timeoutMs} ms`), timeoutMs);
    query(ids, destinations).then(
      (rows) => {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        answer(new Set(rows.map((r) => key(r.event_id, r.destination))));
      },
      (err: unknown) => {
        clearTimeout(deadline);
        failOpen(`failed (${err instanceof Error ? err.message : String(err)})`);
      },
    );
  };

  return (eventId, destination) =>
    new Promise<boolean>((resolve) => {
      const k = key(eventId, destination);
      const q = pending.get(k);
      if (q) q.resolve.push(resolve);
      else pending.set(k, { eventId, destination, resolve: [resolve] });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, windowMs);
      }
    });
}
