/**
 * The emulator's `tables` resource: tables and views, schemas and their evolution, insert, get,
 * patch, delete and list.
 * Every function takes the emulator's state (state.ts) first.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { tableBytes } from './bytes.ts';
import { checkEtag } from './datasets.ts';
import { ApiError } from './errors.ts';
import { fieldForType, type OutputField } from './result-encoding.ts';
import { columnDefinitions, type FieldSchema, isPicoTimestamp, normaliseSchema } from './schema.ts';
import { qualifiedName, quoteIdent } from './sql.ts';
import {
  type Emulator,
  etag,
  fieldsOf,
  inColumnOrder,
  type Json,
  LOCATION,
  nowMs,
  outName,
  paginate,
} from './state.ts';
import { checkTablesExist, runSql, translateOrThrow } from './statements.ts';
import type { TableRecord } from './store.ts';
import { streamingBufferStats } from './streaming-buffer.ts';
import { SCHEMA_TYPE_NAMES } from './types.ts';

export function tableResource(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
  body: Json,
  type: string,
  fields: FieldSchema[] | OutputField[],
): Json {
  const now = nowMs();
  const resource: Json = {
    kind: 'bigquery#table',
    etag: etag(),
    id: `${projectId}:${datasetId}.${tableId}`,
    selfLink: `${em.baseUrl}/bigquery/v2/projects/${projectId}/datasets/${datasetId}/tables/${tableId}`,
    tableReference: { projectId, datasetId, tableId },
    schema: { fields },
    type,
    location: LOCATION,
    creationTime: now,
    lastModifiedTime: now,
  };
  for (const k of [
    'description',
    'friendlyName',
    'labels',
    'timePartitioning',
    'rangePartitioning',
    'clustering',
    'expirationTime',
    'requirePartitionFilter',
  ])
    if (body[k] !== undefined) resource[k] = body[k];
  return resource;
}

export function checkLayout(_em: Emulator, body: Json, fields: readonly FieldSchema[]): void {
  const tp = body['timePartitioning'] as Json | undefined;
  if (tp) {
    if (!['DAY', 'HOUR', 'MONTH', 'YEAR'].includes(String(tp['type'] ?? 'DAY')))
      throw new ApiError('invalid', `Invalid value for timePartitioning.type: ${String(tp['type'])}`);
    const field = tp['field'];
    if (typeof field === 'string') {
      const f = fields.find((x) => x.name.toLowerCase() === field.toLowerCase());
      if (!f)
        throw new ApiError(
          'invalid',
          `The field specified for time partitioning can only be of type TIMESTAMP, DATE or DATETIME. The type found is: (field ${field} not found)`,
        );
      if (!['TIMESTAMP', 'DATE', 'DATETIME'].includes(f.type) || f.mode === 'REPEATED')
        throw new ApiError(
          'invalid',
          `The field specified for time partitioning can only be of type TIMESTAMP, DATE or DATETIME. The type found is: ${f.type}.`,
        );
    }
  }
  const cl = body['clustering'] as Json | undefined;
  if (cl) {
    const cf = cl['fields'];
    if (!Array.isArray(cf) || cf.length === 0 || cf.length > 4)
      throw new ApiError('invalid', 'Clustering must have between 1 and 4 fields');
    for (const name of cf) {
      if (!fields.some((x) => x.name.toLowerCase() === String(name).toLowerCase()))
        throw new ApiError(
          'invalid',
          `The field specified for clustering cannot be found in the schema. Invalid field: ${String(name)}.`,
        );
    }
  }
}

export async function insertTable(
  em: Emulator,
  projectId: string,
  datasetId: string,
  body: Json,
): Promise<Json> {
  const ref = (body['tableReference'] ?? {}) as Json;
  const tableId = ref['tableId'];
  if (typeof tableId !== 'string' || !/^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd} ]{1,1024}$/u.test(tableId))
    throw new ApiError('invalid', `Invalid table ID "${String(tableId)}".`);
  const view = body['view'] as Json | undefined;
  return em.store.exclusive(async (conn) => {
    em.datasetOr404(projectId, datasetId);
    if (em.store.table(projectId, datasetId, tableId))
      throw new ApiError('duplicate', `Already Exists: Table ${projectId}:${datasetId}.${tableId}`);
    const clash = em.store
      .tablesOf(projectId, datasetId)
      .find((t) => t.tableId.toLowerCase() === tableId.toLowerCase());
    if (clash)
      throw new ApiError(
        'invalid',
        `Table ${tableId} differs only in case from ${clash.tableId}; the emulator cannot keep both (DuckDB names ignore case)`,
      );
    if (view) return createView(em, conn, projectId, datasetId, tableId, body, view, false);
    const fields = normaliseSchema(((body['schema'] ?? { fields: [] }) as Json)['fields'] ?? []);
    if (typeof fields === 'string') throw new ApiError('invalid', fields);
    checkLayout(em, body, fields);
    const resource = tableResource(em, projectId, datasetId, tableId, body, 'TABLE', fields);
    await conn.run('BEGIN');
    try {
      const cols = columnDefinitions(fields);
      // DuckDB needs at least one column; a schemaless table gets a hidden placeholder.
      await conn.run(
        `CREATE TABLE ${qualifiedName({ projectId, datasetId, tableId })} (${cols || '"_emulator_placeholder" BOOLEAN'})`,
      );
      await em.store.putTable(conn, { projectId, datasetId, tableId, resource });
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
    return resource;
  });
}

export async function createView(
  em: Emulator,
  conn: DuckDBConnection,
  projectId: string,
  datasetId: string,
  tableId: string,
  body: Json,
  view: Json,
  replace: boolean,
): Promise<Json> {
  const query = view['query'];
  if (typeof query !== 'string' || query.trim() === '')
    throw new ApiError('invalid', 'View query must not be empty');
  if (view['useLegacySql'] === true)
    throw new ApiError('invalidQuery', 'Legacy SQL views are not supported by the emulator');
  const tr = translateOrThrow(em, query, projectId, undefined, { named: {}, positional: [] });
  if (tr.kind !== 'select') throw new ApiError('invalidQuery', 'A view query must be a SELECT statement');
  checkTablesExist(em, tr.tables, { projectId, datasetId, tableId });
  const name = qualifiedName({ projectId, datasetId, tableId });
  await runSql(em, conn, `CREATE ${replace ? 'OR REPLACE ' : ''}VIEW ${name} AS ${tr.sql}`);
  const probe = await runSql(em, conn, `SELECT * FROM ${name} LIMIT 0`);
  const fields = probe.columnNames().map((n, i) => fieldForType(outName(n, i), probe.columnType(i)));
  const resource = tableResource(em, projectId, datasetId, tableId, body, 'VIEW', fields);
  resource['view'] = { query, useLegacySql: false };
  const previous = em.store.table(projectId, datasetId, tableId);
  if (previous) resource['creationTime'] = previous.resource['creationTime'];
  await em.store.putTable(conn, { projectId, datasetId, tableId, resource });
  return resource;
}

export async function patchTable(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
  body: Json,
): Promise<Json> {
  return em.store.exclusive(async (conn) => {
    const t = em.tableOr404(projectId, datasetId, tableId);
    checkEtag(body, t.resource);
    if (t.resource['type'] === 'VIEW' && body['view']) {
      const merged = { ...t.resource, ...body };
      return createView(em, conn, projectId, datasetId, tableId, merged, body['view'] as Json, true);
    }
    const resource = { ...t.resource };
    const schema = body['schema'] as Json | undefined;
    await conn.run('BEGIN');
    try {
      if (schema && t.resource['type'] === 'TABLE') {
        const next = normaliseSchema(schema['fields']);
        if (typeof next === 'string') throw new ApiError('invalid', next);
        await evolveSchema(em, conn, t, next);
        resource['schema'] = { fields: inColumnOrder(t, next) };
      }
      checkLayout(
        em,
        { ...resource, ...body },
        ((resource['schema'] as Json)['fields'] ?? []) as FieldSchema[],
      );
      for (const k of [
        'description',
        'friendlyName',
        'labels',
        'expirationTime',
        'clustering',
        'timePartitioning',
        'requirePartitionFilter',
      ])
        if (body[k] !== undefined) resource[k] = body[k];
      resource['lastModifiedTime'] = nowMs();
      resource['etag'] = etag();
      await em.store.putTable(conn, { ...t, resource });
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
    return resource;
  });
}

/**
 * BigQuery allows adding NULLABLE/REPEATED columns, at the top or inside a RECORD at any depth,
 * and relaxing REQUIRED; nothing else.
 */
export async function evolveSchema(
  _em: Emulator,
  conn: DuckDBConnection,
  t: TableRecord,
  next: FieldSchema[],
): Promise<void> {
  const current = fieldsOf(t);
  const name = qualifiedName(t);
  const table = `${t.projectId}:${t.datasetId}.${t.tableId}`;
  await evolveFields(conn, name, table, [], current, next);
  if (current.length === 0 && next.length > 0) {
    await conn
      .run(`ALTER TABLE ${name} DROP COLUMN IF EXISTS "_emulator_placeholder"`)
      .catch(() => undefined);
  }
}

/** A schema type in BigQuery's answer spelling (INT64 → INTEGER), as its refusals name it. */
const legacyType = (type: string) => SCHEMA_TYPE_NAMES[type.toUpperCase()] ?? type;

/**
 * One level of a schema change: `path` is the DuckDB path of the RECORD these fields sit in (a
 * REPEATED record's fields sit under its `element`), empty at the top.
 */
async function evolveFields(
  conn: DuckDBConnection,
  name: string,
  table: string,
  path: readonly string[],
  current: readonly FieldSchema[],
  next: readonly FieldSchema[],
): Promise<void> {
  const mismatch = (what: string) =>
    new ApiError('invalid', `Provided Schema does not match Table ${table}. ${what}`);
  const dotted = (f: FieldSchema) => [...path.filter((p) => p !== 'element'), f.name].join('.');
  for (const old of current) {
    const nf = next.find((f) => f.name.toLowerCase() === old.name.toLowerCase());
    if (!nf) throw mismatch(`Field ${dotted(old)} is missing in new schema`);
    // A precision change would change how the column is stored (picoseconds are kept as text).
    if (legacyType(nf.type) !== legacyType(old.type))
      throw mismatch(
        `Field ${dotted(old)} has changed type from ${legacyType(old.type)} to ${legacyType(nf.type)}`,
      );
    if (isPicoTimestamp(nf) !== isPicoTimestamp(old))
      throw mismatch(`Field ${dotted(old)} has changed type or nested fields`);
    const oldMode = old.mode ?? 'NULLABLE';
    const newMode = nf.mode ?? 'NULLABLE';
    if (newMode !== oldMode) {
      if (oldMode !== 'REQUIRED' || newMode !== 'NULLABLE')
        throw mismatch(`Field ${dotted(old)} has changed mode from ${old.mode} to ${nf.mode}`);
      // DuckDB keeps NOT NULL on top-level columns only: a nested field has nothing to drop.
      if (path.length === 0)
        await conn.run(`ALTER TABLE ${name} ALTER COLUMN ${quoteIdent(old.name)} DROP NOT NULL`);
    }
    if (old.fields !== undefined || nf.fields !== undefined) {
      const inner = [...path, old.name, ...(oldMode === 'REPEATED' ? ['element'] : [])];
      await evolveFields(conn, name, table, inner, old.fields ?? [], nf.fields ?? []);
    }
  }
  for (const nf of next) {
    if (current.some((f) => f.name.toLowerCase() === nf.name.toLowerCase())) continue;
    if (nf.mode === 'REQUIRED')
      throw mismatch(`Cannot add required fields to an existing schema. (field: ${dotted(nf)})`);
    const column = [...path, nf.name].map(quoteIdent).join('.');
    await conn.run(
      `ALTER TABLE ${name} ADD COLUMN ${column} ${columnDefinitions([nf]).slice(quoteIdent(nf.name).length + 1)}`,
    );
  }
}

export async function deleteTable(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
): Promise<void> {
  await em.store.exclusive(async (conn) => {
    const t = em.tableOr404(projectId, datasetId, tableId);
    await conn.run('BEGIN');
    try {
      await conn.run(
        `DROP ${t.resource['type'] === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS ${qualifiedName(t)}`,
      );
      await em.store.deleteTable(conn, projectId, datasetId, tableId);
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
  });
}

export async function getTable(
  em: Emulator,
  projectId: string,
  datasetId: string,
  tableId: string,
  view?: string | null,
): Promise<Json> {
  const t = em.tableOr404(projectId, datasetId, tableId);
  if (
    view !== undefined &&
    view !== null &&
    !['BASIC', 'STORAGE_STATS', 'FULL', 'TABLE_METADATA_VIEW_UNSPECIFIED'].includes(view)
  )
    throw new ApiError('invalid', `Invalid value for view: ${view}`);
  if (view === 'BASIC') {
    // Without the storage statistics (BigQuery does not compute them for BASIC).
    const { lastModifiedTime: _m, numBytes: _b, numRows: _r, numLongTermBytes: _l, ...basic } = t.resource;
    return basic;
  }
  if (t.resource['type'] !== 'TABLE') return t.resource;
  const [n, bytes] = await em.store.exclusive(async (conn) => {
    const count = await conn.runAndReadAll(`SELECT count(*) FROM ${qualifiedName(t)}`);
    return [String(count.getRows()[0]?.[0] ?? '0'), await tableBytes(conn, t)] as const;
  });
  const streamingBuffer = streamingBufferStats(em, t);
  return {
    ...t.resource,
    numRows: n,
    numBytes: String(bytes),
    numLongTermBytes: '0',
    ...(streamingBuffer ? { streamingBuffer } : {}),
  };
}

export function listTables(em: Emulator, projectId: string, datasetId: string, query: URLSearchParams): Json {
  em.datasetOr404(projectId, datasetId);
  const all = em.store
    .tablesOf(projectId, datasetId)
    .sort((a, b) => a.tableId.localeCompare(b.tableId))
    .map((t) => {
      const r = t.resource;
      const out: Json = {
        kind: 'bigquery#table',
        id: r['id'],
        tableReference: r['tableReference'],
        type: r['type'],
        creationTime: r['creationTime'],
      };
      for (const k of ['timePartitioning', 'clustering', 'labels', 'friendlyName', 'expirationTime'])
        if (r[k] !== undefined) out[k] = r[k];
      if (r['type'] === 'VIEW') out['view'] = { useLegacySql: false };
      return out;
    });
  const { page, next } = paginate(all, query);
  return {
    kind: 'bigquery#tableList',
    etag: etag(),
    tables: page,
    totalItems: all.length,
    ...(next ? { nextPageToken: next } : {}),
  };
}
