/**
 * The shapes of the warehouse's tables and views (the REST API's), and the one way SQL here names
 * a table. Its own module so core/warehouse/warehouse.ts and the incremental models' SQL (core/models/models.ts,
 * core/models/sessions.ts, core/models/identity-graph.ts) share them without importing each other.
 */

/** Fully qualified, quoted table reference: works in views on BigQuery and on the emulator. */
export const tableRef = (project: string, dataset: string, table: string): string =>
  `\`${project}.${dataset}.${table}\``;

/** A BigQuery column, in the REST API's TableFieldSchema shape. */
export interface ColumnPlan {
  readonly name: string;
  readonly type:
    | 'STRING'
    | 'INT64'
    | 'FLOAT64'
    | 'NUMERIC'
    | 'BOOL'
    | 'TIMESTAMP'
    | 'DATE'
    | 'DATETIME'
    | 'BYTES'
    | 'JSON'
    | 'RECORD';
  readonly mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  readonly description?: string;
  readonly fields?: readonly ColumnPlan[];
}

/** A column of a table plan: nullable unless its mode says otherwise. */
export const column = (
  name: string,
  type: ColumnPlan['type'],
  description: string,
  mode: NonNullable<ColumnPlan['mode']> = 'NULLABLE',
): ColumnPlan => ({ name, type, mode, description });

export interface TablePlan {
  readonly name: string;
  readonly description: string;
  readonly columns: readonly ColumnPlan[];
  readonly timePartitioning?: {
    readonly type: 'DAY' | 'HOUR';
    readonly field: string;
    readonly expirationMs?: string;
  };
  readonly clustering?: readonly string[];
}

export interface ViewPlan {
  readonly name: string;
  readonly description: string;
  /** BigQuery standard SQL; `{{dataset}}` placeholders are already resolved. */
  readonly query: string;
  /** The columns the view returns (for docs and tests; BigQuery derives them itself). */
  readonly columns?: readonly ColumnPlan[];
}
