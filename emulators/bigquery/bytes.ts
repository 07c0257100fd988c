/**
 * Logical bytes of a table as BigQuery bills them (docs/bigquery-emulator.md): INT64, FLOAT64,
 * dates and times 8 bytes a value, BOOL 1, NUMERIC 16, STRING and BYTES 2 + their length, and
 * arrays, structs and JSON by the length of their text; NULLs count nothing. Served as a table's
 * `numBytes` and, summed over the tables a query reads, as a dry run's `totalBytesProcessed`:
 * an upper bound there (BigQuery counts only the columns a query reads), so a cap checked
 * locally is never looser than on BigQuery.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { qualifiedName, quoteIdent, schemaName, stringLiteral, type TableRef } from './sql-tree.ts';

function sizeOf(column: string, duckType: string): string {
  const c = quoteIdent(column);
  const t = duckType.toUpperCase();
  if (t.endsWith('[]') || t.startsWith('STRUCT') || t.startsWith('MAP') || t === 'JSON')
    return `2 + strlen(CAST(${c} AS VARCHAR))`;
  if (t === 'VARCHAR') return `2 + strlen(${c})`;
  if (t === 'BLOB') return `2 + octet_length(${c})`;
  if (t === 'BOOLEAN') return '1';
  if (t.startsWith('DECIMAL')) return '16';
  return '8';
}

export async function tableBytes(conn: DuckDBConnection, ref: TableRef): Promise<number> {
  const cols = await conn.runAndReadAll(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ${stringLiteral(
      schemaName(ref.projectId, ref.datasetId),
    )} AND table_name = ${stringLiteral(ref.tableId)} ORDER BY ordinal_position`,
  );
  const terms = cols
    .getRows()
    .map(
      ([name, type]) =>
        `coalesce(sum(CASE WHEN ${quoteIdent(String(name))} IS NULL THEN 0 ELSE ${sizeOf(String(name), String(type))} END), 0)`,
    );
  if (terms.length === 0) return 0;
  const r = await conn.runAndReadAll(`SELECT ${terms.join(' + ')} FROM ${qualifiedName(ref)}`);
  return Number(r.getRows()[0]?.[0] ?? 0);
}
