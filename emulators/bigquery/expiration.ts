/**
 * Table and partition expiration, and `INFORMATION_SCHEMA.PARTITIONS`.
 *
 * - A table whose `expirationTime` (ms since the epoch) has passed is deleted, as BigQuery deletes
 *   it, and is then not found.
 * - In a table partitioned by a column (`timePartitioning.field`) with
 *   `timePartitioning.expirationMs`, a partition expires once its start (the UTC boundary of its
 *   DAY, HOUR, MONTH or YEAR) lies `expirationMs` in the past: its rows are deleted.
 *
 * Both are applied by `expireDue` before the emulator answers a request that reads or changes
 * data (never on the insertAll path): an expired table at once; a table's partitions when rows
 * were written into it since its last sweep, else at most once a second; only tables with an
 * expiration pay for it. An ingestion-time partitioned table (no field) has no ingestion time
 * stored, so its partitions never expire.
 *
 * PARTITIONS is a temporary table the query's SQL reads (information-schema.ts names it),
 * refilled from the tables of the datasets it names right before a statement that reads it runs.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { PARTITIONS_TABLE } from './information-schema.ts';
import type { FieldSchema } from './schema.ts';
import { qualifiedName } from './sql.ts';
import { stringLiteral } from './sql-tree.ts';
import { type Emulator, fieldsOf, type Json } from './state.ts';
import type { TableRecord } from './store.ts';

const UNITS: Readonly<Record<string, { trunc: string; id: string }>> = {
  HOUR: { trunc: 'hour', id: '%Y%m%d%H' },
  DAY: { trunc: 'day', id: '%Y%m%d' },
  MONTH: { trunc: 'month', id: '%Y%m' },
  YEAR: { trunc: 'year', id: '%Y' },
};

interface Partitioning {
  readonly column: string;
  readonly unit: { trunc: string; id: string };
  readonly expirationMs: number | undefined;
}

/** The column partitioning of a table, or undefined (not partitioned, or by ingestion time). */
function partitioning(t: TableRecord): Partitioning | undefined {
  const tp = t.resource['timePartitioning'] as Json | undefined;
  if (!tp || typeof tp['field'] !== 'string') return undefined;
  const field = fieldsOf(t).find(
    (f: FieldSchema) => f.name.toLowerCase() === String(tp['field']).toLowerCase(),
  );
  if (!field) return undefined;
  const unit =
    UNITS[String(tp['type'] ?? 'DAY').toUpperCase()] ?? (UNITS['DAY'] as { trunc: string; id: string });
  const ms = Number(tp['expirationMs']);
  return {
    column: `"${field.name.replaceAll('"', '""')}"`,
    unit,
    expirationMs: Number.isFinite(ms) && ms > 0 ? ms : undefined,
  };
}

/** The partition start of a row, as a UTC TIMESTAMP (the session's zone is UTC). */
const partitionStart = (p: Partitioning) => `CAST(date_trunc('${p.unit.trunc}', ${p.column}) AS TIMESTAMP)`;

const utcLiteral = (ms: number) =>
  `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;

/** Deletes the tables and partitions whose expiration has passed (see the file's header). */
/**
 * How often a table's partitions are swept when nothing was written into it meanwhile: the
 * sweep takes the store's exclusive lock, so running it before every request (every jobs.get
 * poll) would serialise the emulator behind it. BigQuery's own expiration is not instantaneous
 * either.
 */
const PARTITION_SWEEP_MS = 1_000;
const sweptAt = new WeakMap<TableRecord, number>();
const streamedSince = new WeakSet<TableRecord>();

/** Rows were written into `t` (streamed, or by a statement): its partitions are swept before the next read. */
export function markStreamed(t: TableRecord): void {
  streamedSince.add(t);
}

export async function expireDue(em: Emulator): Promise<void> {
  const now = Date.now();
  const due: TableRecord[] = [];
  for (const t of em.store.tables.values()) {
    const at = Number(t.resource['expirationTime']);
    if (Number.isFinite(at) && at > 0 && at <= now) {
      due.push(t);
      continue;
    }
    const p = t.resource['type'] === 'TABLE' ? partitioning(t) : undefined;
    if (p?.expirationMs === undefined) continue;
    if (streamedSince.has(t) || now - (sweptAt.get(t) ?? 0) >= PARTITION_SWEEP_MS) due.push(t);
  }
  if (due.length === 0) return;
  await em.store.exclusive(async (conn) => {
    for (const t of due) {
      if (em.store.table(t.projectId, t.datasetId, t.tableId) !== t) continue;
      const at = Number(t.resource['expirationTime']);
      if (Number.isFinite(at) && at > 0 && at <= now) await dropExpired(em, conn, t);
      else {
        await expirePartitions(conn, t, now);
        sweptAt.set(t, now);
        streamedSince.delete(t);
      }
    }
  });
}

async function dropExpired(em: Emulator, conn: DuckDBConnection, t: TableRecord): Promise<void> {
  await conn.run('BEGIN');
  try {
    await conn.run(`DROP ${t.resource['type'] === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS ${qualifiedName(t)}`);
    await em.store.deleteTable(conn, t.projectId, t.datasetId, t.tableId);
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK');
    throw e;
  }
}

async function expirePartitions(conn: DuckDBConnection, t: TableRecord, now: number): Promise<void> {
  const p = partitioning(t);
  if (p?.expirationMs === undefined) return;
  await conn.run(
    `DELETE FROM ${qualifiedName(t)} WHERE ${partitionStart(p)} <= ${utcLiteral(now - p.expirationMs)}`,
  );
}

/**
 * Before a statement runs: when its DuckDB SQL reads PARTITIONS_TABLE, refills it with the
 * partitions of every table of the datasets it names (one row a partition, `partition_id` as
 * BigQuery writes it, `__NULL__` for rows without a partition value; one row with a NULL id for a
 * table not partitioned by a column).
 */
export async function fillPartitions(em: Emulator, conn: DuckDBConnection, sql: string): Promise<void> {
  if (!sql.includes(PARTITIONS_TABLE)) return;
  const scopes = new Set<string>();
  for (const m of sql.matchAll(/table_catalog = ('(?:[^']|'')*') AND table_schema = ('(?:[^']|'')*')/g))
    scopes.add(`${m[1]}.${m[2]}`);
  const parts: string[] = [];
  for (const t of em.store.tables.values()) {
    const catalog = stringLiteral(t.projectId);
    const schema = stringLiteral(t.datasetId);
    if (t.resource['type'] !== 'TABLE' || !scopes.has(`${catalog}.${schema}`)) continue;
    const head = `${catalog} AS table_catalog, ${schema} AS table_schema, ${stringLiteral(t.tableId)} AS table_name`;
    const modified = `make_timestamp(${Number(t.resource['lastModifiedTime'] ?? t.resource['creationTime'] ?? 0) * 1000})`;
    const p = partitioning(t);
    const id = p
      ? `coalesce(strftime(${partitionStart(p)}, '${p.unit.id}'), '__NULL__')`
      : 'CAST(NULL AS VARCHAR)';
    parts.push(
      `SELECT ${head}, ${id} AS partition_id, CAST(count(*) AS BIGINT) AS total_rows, ${modified} AS last_modified_time, 'ACTIVE' AS storage_tier FROM ${qualifiedName(t)}${p ? ' GROUP BY partition_id' : ''}`,
    );
  }
  const empty = `SELECT NULL::VARCHAR AS table_catalog, NULL::VARCHAR AS table_schema, NULL::VARCHAR AS table_name, NULL::VARCHAR AS partition_id, NULL::BIGINT AS total_rows, NULL::TIMESTAMP AS last_modified_time, NULL::VARCHAR AS storage_tier WHERE false`;
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${PARTITIONS_TABLE} AS ${[empty, ...parts].join(' UNION ALL ')}`,
  );
}
