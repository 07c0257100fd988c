/**
 * BigQuery's streaming buffer: rows that `tabledata.insertAll` wrote less than the buffer time ago
 * (`streamingBufferMs`) cannot be changed by UPDATE, DELETE or MERGE (a statement that would
 * change one fails with BigQuery's words and nothing of it is kept), and copy and extract jobs
 * leave them out (`settledRows`); queries and tabledata.list read them as any other. Rows
 * written another way (load jobs, DML, copies) are never in the buffer, and rows that left it are
 * as free as any other.
 *
 * The buffered rows are remembered as the requests sent them (a reference, no work on the insert
 * path). A DML statement on a table with buffered rows runs inside its transaction as usual; the
 * buffered rows are rebuilt in a temporary table beside it, and if fewer of them are found in the
 * table after the statement than before, it changed or deleted one: the transaction is rolled
 * back and the statement refused. An UPDATE that sets a buffered row to the values it already
 * has is not seen (BigQuery refuses it too).
 */
import { type DuckDBConnection, DuckDBDataChunk, type DuckDBValue } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { qualifiedName } from './sql.ts';
import { type BufferedBatch, CHUNK_ROWS, type Emulator, fieldsOf, tableKey, valuesOfRows } from './state.ts';
import type { TableRecord } from './store.ts';

/** The emulator's default buffer time: long enough to show the rule, short enough to wait out. */
export const DEFAULT_STREAMING_BUFFER_MS = 30_000;

const SHADOW = '_eventbus_streaming_buffer';

/** Remembers the rows an insertAll request stored in `ref` (after their commit). */
export function rememberStreamed(
  em: Emulator,
  ref: TableRecord,
  rows: readonly unknown[],
  ignoreUnknown: boolean,
): void {
  if (em.streamingBufferMs <= 0) return;
  const key = tableKey(ref);
  const batch: BufferedBatch = {
    at: Date.now(),
    rows,
    ignoreUnknown,
    table: String(ref.resource['creationTime']),
  };
  const list = em.streamingBuffer.get(key);
  if (list) list.push(batch);
  else em.streamingBuffer.set(key, [batch]);
}

/** The table's batches still in the buffer (older ones are forgotten). */
export function bufferedBatches(em: Emulator, ref: TableRecord): readonly BufferedBatch[] {
  const key = tableKey(ref);
  const list = em.streamingBuffer.get(key);
  if (!list) return [];
  const since = Date.now() - em.streamingBufferMs;
  // Rows streamed into an earlier table of the same name went with it.
  const table = String(ref.resource['creationTime']);
  const kept = list.filter((b) => b.at > since && b.table === table);
  if (kept.length === 0) em.streamingBuffer.delete(key);
  else em.streamingBuffer.set(key, kept);
  return kept;
}

/**
 * Ages every buffered row by `ms` (all of them out of the buffer when omitted): how tests reach
 * the state BigQuery is in once the buffer has been flushed, without waiting for it.
 */
export function ageStreamingBuffer(em: Emulator, ms?: number): void {
  if (ms === undefined) {
    em.streamingBuffer.clear();
    return;
  }
  for (const list of em.streamingBuffer.values()) for (const b of list) b.at -= ms;
}

/** What tables.get reports of the buffer (BigQuery's `streamingBuffer`), or nothing when empty. */
export function streamingBufferStats(
  em: Emulator,
  ref: TableRecord,
): { estimatedRows: string; estimatedBytes: string; oldestEntryTime: string } | undefined {
  const batches = bufferedBatches(em, ref);
  if (batches.length === 0) return undefined;
  let rows = 0;
  let bytes = 0;
  for (const b of batches)
    for (const r of b.rows)
      if (r !== undefined) {
        rows++;
        bytes += JSON.stringify(r).length;
      }
  const oldest = Math.min(...batches.map((b) => b.at));
  return { estimatedRows: String(rows), estimatedBytes: String(bytes), oldestEntryTime: String(oldest) };
}

/** A DML statement's view of the buffer before it runs: how many buffered rows the table holds. */
export interface BufferGuard {
  readonly ref: TableRecord;
  readonly before: number;
}

const IS_GUARDED = new Set(['update', 'delete', 'merge']);

/**
 * Rebuilds the table's buffered rows in the temporary table SHADOW (same columns, same order);
 * false, with nothing created, when the table has nothing in the buffer.
 */
async function rebuildBuffered(em: Emulator, conn: DuckDBConnection, ref: TableRecord): Promise<boolean> {
  const batches = bufferedBatches(em, ref);
  if (batches.length === 0) return false;
  const fields = fieldsOf(ref);
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${SHADOW} AS SELECT * FROM ${qualifiedName(ref)} LIMIT 0`);
  const rows: DuckDBValue[][] = [];
  for (const b of batches)
    for (const values of valuesOfRows(fields, b.rows, b.rows.length, b.ignoreUnknown))
      if (values) rows.push(values);
  const types = (await conn.runAndReadAll(`SELECT * FROM temp.main.${SHADOW} LIMIT 0`)).columnTypes();
  const appender = await conn.createAppender(SHADOW, 'main', 'temp');
  try {
    for (let off = 0; off < rows.length; off += CHUNK_ROWS) {
      const part = rows.slice(off, off + CHUNK_ROWS);
      const chunk = DuckDBDataChunk.create(types, part.length);
      chunk.setRows(part);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  return true;
}

/**
 * Before an UPDATE, DELETE or MERGE of `ref` (inside its transaction): rebuilds the buffered rows
 * in a temporary table and counts those the table holds. Undefined when the statement is of
 * another kind or the table has nothing in the buffer.
 */
export async function guardBuffer(
  em: Emulator,
  conn: DuckDBConnection,
  kind: string,
  ref: TableRecord | undefined,
): Promise<BufferGuard | undefined> {
  if (!ref || !IS_GUARDED.has(kind)) return undefined;
  if (!(await rebuildBuffered(em, conn, ref))) return undefined;
  return { ref, before: await bufferedInTable(conn, ref) };
}

/**
 * The rows of `ref` a copy or extract job reads: those outside the streaming buffer, as BigQuery's
 * copy and export jobs leave out rows still in it. A SQL relation over the table (a subquery when
 * rows are buffered: the table's rows EXCEPT ALL the buffered ones, a multiset difference, so a
 * settled row equal to a buffered one is still read); call it inside the store's lock.
 */
export async function settledRows(em: Emulator, conn: DuckDBConnection, ref: TableRecord): Promise<string> {
  const table = qualifiedName(ref);
  if (!(await rebuildBuffered(em, conn, ref))) return table;
  return `(SELECT * FROM ${table} EXCEPT ALL SELECT * FROM temp.main.${SHADOW})`;
}

/** Drops what `settledRows` built, once the job has read it. */
export async function releaseSettled(conn: DuckDBConnection): Promise<void> {
  await conn.run(`DROP TABLE IF EXISTS temp.main.${SHADOW}`);
}

/** After the statement: refuses it (the caller rolls back) if a buffered row was changed or deleted. */
export async function checkBuffer(conn: DuckDBConnection, guard: BufferGuard | undefined): Promise<void> {
  if (!guard) return;
  const after = await bufferedInTable(conn, guard.ref);
  await conn.run(`DROP TABLE IF EXISTS temp.main.${SHADOW}`);
  if (after < guard.before) {
    const { projectId, datasetId, tableId } = guard.ref;
    throw new ApiError(
      'invalidQuery',
      `UPDATE or DELETE statement over table ${projectId}.${datasetId}.${tableId} would affect rows in the streaming buffer, which is not supported`,
    );
  }
}

async function bufferedInTable(conn: DuckDBConnection, ref: TableRecord): Promise<number> {
  const r = await conn.runAndReadAll(
    `SELECT count(*) FROM (SELECT * FROM temp.main.${SHADOW} INTERSECT ALL SELECT * FROM ${qualifiedName(ref)})`,
  );
  return Number(r.getRows()[0]?.[0] ?? 0);
}
