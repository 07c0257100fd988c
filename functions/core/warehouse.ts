/**
 * The warehouse: tables and views of the environment's dataset, generated from `schemas/`.
 * Shared by plan(), the local provisioning and the Pulumi program.
 * (The storage issue fills in the columns and views; this first version declares the tables.)
 */
import type { Settings } from '../../schemas/settings.ts';

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
}

/** The tables and views of an environment's dataset. */
export function warehousePlan(_settings: Readonly<Settings>): { tables: TablePlan[]; views: ViewPlan[] } {
  return { tables: [], views: [] };
}
