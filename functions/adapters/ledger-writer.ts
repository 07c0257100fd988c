/**
 * Writes ledger rows to the `deliveries` table through the store path's micro-batching
 * insertAll writer: concurrent forwards share requests, and each row keeps its own
 * deterministic insertId so a retried write does not duplicate it.
 */
import type { LedgerEntry } from '../core/delivery/ledger.ts';
import type { RowRejection, RowWriter } from '../core/rows.ts';

/** The ledger table's name in the environment's dataset. */
export const LEDGER_TABLE = 'deliveries';

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
    write: (entries) =>
      rows.write(
        table,
        entries.map((e) => ({ insertId: e.insertId, json: e.row as unknown as Record<string, unknown> })),
      ),
  };
}
