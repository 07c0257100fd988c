/**
 * Writes ledger rows to the `deliveries` table through the store path's micro-batching
 * writer: concurrent forwards share one append to the table's default stream.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { LedgerEntry } from '../core/delivery/ledger.ts';
import type { RowRejection, RowWriter } from '../core/warehouse/rows.ts';
import { createWriteApiWriter, type WriteApiTables } from './bigquery-write-api.ts';
import type { BatchingOptions, BatchingWriter } from './bigquery-writer.ts';
import { activeTraceId } from './tracing.ts';

/** The ledger table's name in the environment's dataset. */
export const LEDGER_TABLE = 'deliveries';

/**
 * How long the first ledger row of a batch waits for company. The ledger is written after the
 * platform call, so this delays only the acknowledgement, never the delivery; at 1k pushes/s
 * it turns ~1000 appends a second into ~40.
 */
export const LEDGER_WINDOW_MS = 25;

export interface LedgerWriter {
  /**
   * Resolves once every row is written or permanently refused (returned, for the log);
   * rejects when the warehouse is unavailable, so the caller answers non-2xx.
   */
  write(entries: readonly LedgerEntry[]): Promise<readonly RowRejection[]>;
}

/** A ledger writer over any RowWriter (the BigQuery batching writer in production). */
export function createLedgerWriter(rows: RowWriter, table = LEDGER_TABLE): LedgerWriter {
  return {
    write: (entries) => {
      // Each row names the trace it was decided or attempted under (the push's span, when one is
      // active: adapters/tracing.ts), so SQL joins the ledger to the traces.
      const trace = activeTraceId();
      return rows.write(
        table,
        entries.map((e) => ({
          insertId: e.insertId,
          json: (trace !== null && e.row.trace_id === undefined
            ? { ...e.row, trace_id: trace }
            : e.row) as unknown as Record<string, unknown>,
        })),
      );
    },
  };
}

/**
 * The ledger's BigQuery writer: micro-batched, through the Storage Write API's default stream of
 * `deliveries` (adapters/bigquery-write-api.ts), in the client's project. A failed append fails the
 * attempt; its redelivery meets the send-once claim and the delivered check, which fold it
 * (docs/delivery.md), so a lost answer costs a `folded` row, never a second `delivered` one.
 * `open(LEDGER_TABLE)` before the first push (adapters/delivery-services.ts): a delivery's row must
 * not be the one that waits for the client's load and the stream's opening, or a process stopped in
 * that time has sent without a record, and the redelivery sends again.
 */
export function createLedgerBigQueryWriter(
  bigquery: BigQuery,
  dataset: string,
  options: BatchingOptions = {},
): BatchingWriter & Pick<WriteApiTables, 'open'> {
  return createWriteApiWriter(bigquery, dataset, {
    windowMs: LEDGER_WINDOW_MS,
    ...options,
  });
}
