/**
 * What the store path hands the warehouse: raw insertAll rows and the contract of a writer.
 * The core only describes rows; `adapters/bigquery-writer.ts` writes them.
 */

/** One insertAll row in BigQuery's raw form: the caller picks the insertId (the event_id). */
export interface InsertRow {
  readonly insertId: string;
  readonly json: Readonly<Record<string, unknown>>;
}

/** A row the warehouse refused for good (schema mismatch, too large): retrying will not help. */
export interface RowRejection {
  /** Index of the row in the array given to `write`. */
  readonly index: number;
  readonly reason: string;
  readonly message: string;
}

/**
 * Writes rows to a table of the environment's dataset. Resolves once every row is written
 * or permanently rejected (listed in the result); rejects when the warehouse is unavailable
 * or answered with a transient error, in which case nothing may be acknowledged.
 */
export interface RowWriter {
  write(table: string, rows: readonly InsertRow[]): Promise<readonly RowRejection[]>;
}
