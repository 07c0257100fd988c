/**
 * The emulator's `tabledata` resource: insertAll (insertId de-duplication, group commits into
 * DuckDB) and list.
 * Every function takes the emulator's state (state.ts) first.
 */
import { type DuckDBConnection, DuckDBDataChunk, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { markStreamed } from './expiration.ts';
import { convertRow, type RowError } from './insert-rows.ts';
import { encodeColumn } from './result-encoding.ts';
import { prepareRowText, rowTextInsertSql } from './row-text.ts';
import type { FieldSchema } from './schema.ts';
import { qualifiedName, quoteIdent, schemaName } from './sql.ts';
import {
  CHUNK_ROWS,
  type Emulator,
  etag,
  fieldsOf,
  GROUP_ROWS,
  INSERT_ID_WINDOW_MS,
  type Json,
  MAX_INSERT_ROWS,
  type PendingInsert,
  pageSize,
  pageStart,
  tableKey,
  timestampFormat,
  valuesOfRows,
} from './state.ts';
import { rememberStreamed } from './streaming-buffer.ts';

export async function insertAll(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
  body: Json,
): Promise<Json> {
  const t = em.tableOr404(projectId, datasetId, tableId);
  if (t.resource['type'] !== 'TABLE')
    throw new ApiError(
      'invalid',
      `Cannot add rows to ${projectId}:${datasetId}.${tableId}: it is a ${String(t.resource['type']).toLowerCase()}`,
    );
  const rows = body['rows'];
  if (!Array.isArray(rows) || rows.length === 0)
    throw new ApiError('invalid', 'No rows present in the request.');
  if (rows.length > MAX_INSERT_ROWS)
    throw new ApiError(
      'invalid',
      `too many rows present in the request, limit: ${MAX_INSERT_ROWS} row count: ${rows.length}.`,
    );
  const skipInvalid = body['skipInvalidRows'] === true;
  const ignoreUnknown = body['ignoreUnknownValues'] === true;
  const fields = fieldsOf(t);
  // Rows are prepared as JSON text while every row so far has a text form; the first one
  // that has none turns the request to values (rows before it are converted after all).
  let converted: (DuckDBValue[] | undefined)[] | undefined;
  const jsons: unknown[] = new Array(rows.length);
  const insertErrors: { index: number; errors: RowError[] }[] = [];
  for (let index = 0; index < rows.length; index++) {
    const row: unknown = rows[index];
    const json = typeof row === 'object' && row !== null ? (row as Json)['json'] : undefined;
    jsons[index] = json;
    if (json === undefined) {
      insertErrors.push({
        index,
        errors: [{ reason: 'invalid', location: '', message: 'Row is missing its json field.' }],
      });
      converted ??= valuesOfRows(fields, jsons, index, ignoreUnknown);
      converted.push(undefined);
      continue;
    }
    if (!converted) {
      if (prepareRowText(fields, json)) continue;
      converted = valuesOfRows(fields, jsons, index, ignoreUnknown);
    }
    const r = convertRow(fields, json, ignoreUnknown);
    if ('errors' in r) {
      insertErrors.push({ index, errors: r.errors });
      converted.push(undefined);
    } else converted.push(r.values);
  }
  if (insertErrors.length > 0 && !skipInvalid) {
    // BigQuery inserts nothing and marks every valid row "stopped", listing the invalid rows first.
    const invalid = new Set(insertErrors.map((e) => e.index));
    return {
      kind: 'bigquery#tableDataInsertAllResponse',
      insertErrors: [
        ...insertErrors,
        ...rows
          .map((_, index) => index)
          .filter((index) => !invalid.has(index))
          .map((index) => ({
            index,
            errors: [{ reason: 'stopped', location: '', debugInfo: '', message: '' }],
          })),
      ],
    };
  }
  const ids = rows.map((r) => {
    const id = (r as Json)['insertId'];
    return typeof id === 'string' && id !== '' ? id : undefined;
  });
  await enqueueInsert(
    em,
    converted
      ? { ref: t, ids, rows: jsons, asText: false, values: converted, ignoreUnknown }
      : { ref: t, ids, rows: jsons, asText: true, ignoreUnknown },
  );
  const stored = converted ? jsons.map((j, k) => (converted[k] ? j : undefined)) : jsons;
  rememberStreamed(em, t, stored, ignoreUnknown);
  markStreamed(t);
  return {
    kind: 'bigquery#tableDataInsertAllResponse',
    ...(insertErrors.length > 0 ? { insertErrors } : {}),
  };
}

/**
 * Group commit: each commit costs an fsync and a few milliseconds of DuckDB's own work,
 * so inserts that arrive while the connection is busy are appended together. Each
 * request is answered only after the commit that holds its rows.
 */
export function enqueueInsert(em: Emulator, req: Omit<PendingInsert, 'resolve' | 'reject'>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    em.pendingInserts.push({ ...req, resolve, reject });
    if (em.pendingInserts.length === 1) scheduleFlush(em);
  });
}

export function scheduleFlush(em: Emulator): void {
  void em.store.appending((conn) => flushInserts(em, conn)).catch(() => undefined);
}

export async function flushInserts(em: Emulator, conn: DuckDBConnection): Promise<void> {
  // Take whole requests up to a row budget: one flush per table must stay below the
  // appender's own auto-flush threshold, or a group would commit in several transactions.
  let rows = 0;
  let take = 0;
  for (const p of em.pendingInserts) {
    if (take > 0 && rows + p.ids.length > GROUP_ROWS) break;
    rows += p.ids.length;
    take++;
  }
  const batch = em.pendingInserts.slice(0, take);
  em.pendingInserts = em.pendingInserts.slice(take);
  if (em.pendingInserts.length > 0) scheduleFlush(em);
  if (batch.length === 0) return;
  // Every request of the batch is answered, whatever goes wrong below: a throw that escaped
  // would otherwise leave its caller waiting forever (scheduleFlush swallows it).
  const answered = new Set<PendingInsert>();
  for (const p of batch) {
    const { resolve, reject } = p;
    p.resolve = () => {
      answered.add(p);
      resolve();
    };
    p.reject = (err) => {
      answered.add(p);
      reject(err);
    };
  }
  try {
    await flushBatch(em, conn, batch);
  } catch (err) {
    for (const p of batch)
      if (!answered.has(p))
        p.reject(new ApiError('backendError', `Rows could not be stored: ${(err as Error).message}`));
  }
}

export async function flushBatch(
  em: Emulator,
  conn: DuckDBConnection,
  batch: readonly PendingInsert[],
): Promise<void> {
  const byTable = new Map<string, PendingInsert[]>();
  for (const p of batch) {
    const k = tableKey(p.ref);
    const list = byTable.get(k);
    if (list) list.push(p);
    else byTable.set(k, [p]);
  }
  for (const all of byTable.values()) {
    // JSON text by one statement per kind: rows as objects, and rows already as UTF-8 text.
    for (const [textual, insert] of [
      [all.filter((p) => p.asText && !p.text), insertTexts],
      [all.filter((p) => p.asText && p.text), insertUtf8Texts],
    ] as const) {
      if (textual.length === 0) continue;
      try {
        await insert(em, conn, textual);
        for (const p of textual) p.resolve();
      } catch {
        // DuckDB's reader refused something the preparation let through: append these
        // requests' rows the usual way, which decides what is stored or wrong.
        for (const p of textual) {
          p.asText = false;
          try {
            if (p.text) p.rows = JSON.parse(p.text.toString()) as unknown[];
            delete p.text;
            p.values = valuesOfRows(fieldsOf(p.ref), p.rows, p.rows.length, p.ignoreUnknown);
          } catch (err) {
            p.reject(new ApiError('invalid', `Rows could not be appended: ${(err as Error).message}`));
          }
        }
      }
    }
    const group = all.filter((p) => p.values);
    if (group.length === 0) continue;
    try {
      await appendGroup(em, conn, group);
      for (const p of group) p.resolve();
    } catch {
      // One bad request must not fail the others: retry each alone.
      for (const p of group) {
        try {
          await appendGroup(em, conn, [p]);
          p.resolve();
        } catch (err) {
          p.reject(
            err instanceof ApiError
              ? err
              : new ApiError('invalid', `Rows could not be appended: ${(err as Error).message}`),
          );
        }
      }
    }
  }
}

/**
 * Inserts the JSON-text rows of requests for one table with one statement: one
 * transaction, its WAL synced before the statement returns. The statement runs on
 * DuckDB's thread, so the event loop reads and checks the next requests meanwhile, and
 * they make up the next group commit.
 */
export async function insertTexts(
  em: Emulator,
  conn: DuckDBConnection,
  group: readonly PendingInsert[],
): Promise<void> {
  const ref = (group[0] as PendingInsert).ref;
  const { rows: kept, remember } = freshRows(em, group, (p) => p.rows);
  if (kept.length === 0) return;
  // The texts were written for this record's schema; columns added since stay NULL.
  const sql = rowTextInsertSql(qualifiedName(ref), fieldsOf(ref));
  const prepared = await em.store.statement(conn, schemaName(ref.projectId, ref.datasetId), ref.tableId, sql);
  // One native serialisation of the whole group (prepared rows: row-text.ts).
  prepared.bindVarchar(1, JSON.stringify(kept));
  try {
    await prepared.run();
  } finally {
    prepared.clearBindings();
  }
  remember();
}

/**
 * Inserts the rows of requests for one table that came as UTF-8 JSON text (`PendingInsert.text`,
 * no insertIds) with one statement, as `insertTexts` does: the arrays are joined into one and
 * bound as bytes, so no JavaScript string of them is ever made.
 */
export async function insertUtf8Texts(
  em: Emulator,
  conn: DuckDBConnection,
  group: readonly PendingInsert[],
): Promise<void> {
  const ref = (group[0] as PendingInsert).ref;
  const texts = group.flatMap((p) => (p.text && p.ids.length > 0 ? [p.text] : []));
  if (texts.length === 0) return;
  tableOrGone(em, ref);
  const sql = rowTextInsertSql(qualifiedName(ref), fieldsOf(ref), 'utf8');
  const prepared = await em.store.statement(conn, schemaName(ref.projectId, ref.datasetId), ref.tableId, sql);
  // One request's array as it came; several as one array of all their rows, joined in a buffer
  // kept for the next group (a fresh one per group was a megabyte of external memory each time).
  const joined = texts.length === 1 ? undefined : joinArrays(texts);
  prepared.bindBlob(1, joined ? joined.array : (texts[0] as Buffer));
  try {
    await prepared.run();
  } finally {
    prepared.clearBindings();
    joined?.release();
  }
}

/** The buffer the last group's arrays were joined in, while no group uses it. */
let spareJoin: Buffer | undefined;

/**
 * JSON arrays (UTF-8, `[…]` each) joined into one array of all their items, in the spare buffer
 * when it is large enough; `release` hands the buffer back once nothing reads `array`.
 */
export function joinArrays(texts: readonly Buffer[]): { array: Buffer; release(): void } {
  // Each array loses its brackets and gains a comma (the first one a bracket), and one closes.
  let size = 1;
  for (const t of texts) size += t.length - 1;
  let buffer = spareJoin;
  spareJoin = undefined;
  // Its own memory, not a slice of Node's shared pool: it is kept.
  if (!buffer || buffer.length < size) buffer = Buffer.allocUnsafeSlow(size + (size >> 1));
  let at = 0;
  texts.forEach((t, i) => {
    buffer[at++] = i === 0 ? 0x5b : 0x2c; // [ or ,
    at += t.copy(buffer, at, 1, t.length - 1);
  });
  buffer[at++] = 0x5d; // ]
  const kept = buffer;
  return {
    array: buffer.subarray(0, at),
    release: () => {
      spareJoin = kept;
    },
  };
}

/** Throws notFound when the table of rows about to be stored is gone. */
function tableOrGone(em: Emulator, ref: PendingInsert['ref']): void {
  if (!em.store.table(ref.projectId, ref.datasetId, ref.tableId))
    throw new ApiError('notFound', `Not found: Table ${ref.projectId}:${ref.datasetId}.${ref.tableId}`);
}

/**
 * Appends the rows of requests for one table in one transaction: the appender's flush
 * commits on its own (durable: DuckDB syncs its WAL on commit), which costs far less
 * than BEGIN/COMMIT statements around it.
 */
export async function appendGroup(
  em: Emulator,
  conn: DuckDBConnection,
  group: readonly PendingInsert[],
): Promise<void> {
  const ref = (group[0] as PendingInsert).ref;
  const { rows, remember } = freshRows(em, group, (p) => p.values ?? []);
  if (rows.length === 0) return;
  const schema = schemaName(ref.projectId, ref.datasetId);
  const { appender, types } = await em.store.appender(conn, schema, ref.tableId);
  try {
    // Whole data chunks: far cheaper than value-by-value appends for nested types.
    for (let off = 0; off < rows.length; off += CHUNK_ROWS) {
      const part = off === 0 && rows.length <= CHUNK_ROWS ? rows : rows.slice(off, off + CHUNK_ROWS);
      const chunk = DuckDBDataChunk.create(types as DuckDBType[], part.length);
      chunk.setRows(part);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  } catch (e) {
    em.store.dropAppender(schema, ref.tableId);
    throw e;
  }
  remember();
}

/**
 * The rows of `group` (requests for one table) to store, by either path: `rowsOf` gives a
 * request's rows by index (undefined: a rejected row), and a row whose insertId was stored
 * within the window, or comes earlier in the group, is left out. `remember()` records the
 * group's ids once its rows are committed. Throws notFound when there are rows but the table
 * is gone.
 */
export function freshRows<T>(
  em: Emulator,
  group: readonly PendingInsert[],
  rowsOf: (p: PendingInsert) => readonly (T | undefined)[],
): { rows: T[]; remember(): void } {
  const ref = (group[0] as PendingInsert).ref;
  const now = Date.now();
  pruneInsertIds(em, now);
  const prefix = tableKey(ref);
  const seen = new Set<string>();
  const rows: T[] = [];
  for (const p of group) {
    const all = rowsOf(p);
    for (let index = 0; index < all.length; index++) {
      const row = all[index];
      if (row === undefined) continue;
      const id = p.ids[index];
      if (id !== undefined) {
        const k = prefix + id;
        if (em.insertIds.has(k) || seen.has(k)) continue;
        seen.add(k);
      }
      rows.push(row);
    }
  }
  if (rows.length > 0) tableOrGone(em, ref);
  return {
    rows,
    remember: () => {
      for (const k of seen) em.insertIds.set(k, now);
    },
  };
}

export function pruneInsertIds(em: Emulator, now: number): void {
  for (const [k, at] of em.insertIds) {
    if (now - at < INSERT_ID_WINDOW_MS) break;
    em.insertIds.delete(k);
  }
}

export async function listTableData(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
  query: URLSearchParams,
): Promise<Json> {
  const t = em.tableOr404(projectId, datasetId, tableId);
  if (t.resource['type'] !== 'TABLE')
    throw new ApiError('invalid', `Cannot list a table of type ${String(t.resource['type'])}.`);
  const fields = fieldsOf(t);
  const selected = query.get('selectedFields');
  let cols = fields.map((f) => f.name);
  if (selected) {
    cols = selected.split(',').map((s) => s.trim().split('.')[0] as string);
    for (const c of cols)
      if (!fields.some((f) => f.name.toLowerCase() === c.toLowerCase()))
        throw new ApiError('invalid', `No such field: ${c}`);
  }
  const start = pageStart(query);
  const max = pageSize(query);
  const name = qualifiedName(t);
  const { rows, total, types } = await em.store.exclusive(async (conn) => {
    const count = await conn.runAndReadAll(`SELECT count(*) FROM ${name}`);
    const total = Number(count.getRows()[0]?.[0] ?? 0);
    if (cols.length === 0) return { rows: [] as DuckDBValue[][], total, types: [] as DuckDBType[] };
    const r = await conn.runAndReadAll(
      `SELECT ${cols.map(quoteIdent).join(', ')} FROM ${name} LIMIT ${max} OFFSET ${start}`,
    );
    return { rows: r.getRows(), total, types: r.columnTypes() };
  });
  const fmt = timestampFormat(query);
  const columns = cols.map((c) => fields.find((f) => f.name.toLowerCase() === c.toLowerCase()));
  const next = start + rows.length < total ? String(start + rows.length) : undefined;
  return {
    kind: 'bigquery#tableDataList',
    etag: etag(),
    totalRows: String(total),
    rows: rows.map((r) => ({
      f: r.map((v, i) => ({ v: encodeColumn(v, columns[i] as FieldSchema, types[i] as DuckDBType, fmt) })),
    })),
    ...(next ? { pageToken: next } : {}),
  };
}
