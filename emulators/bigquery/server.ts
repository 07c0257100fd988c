/**
 * Local BigQuery emulator: Google's REST API (GCP-WIRE.md §4) over an embedded DuckDB
 * file, served with and without the `/bigquery/v2` prefix so that both
 * `BIGQUERY_EMULATOR_HOST` and `apiEndpoint` work with the unchanged client.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DuckDBConnection, DuckDBDataChunk, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { type QueryParameter, renderParameters } from './params.ts';
import { prepareRowText, rowTextInsertSql } from './row-text.ts';
import {
  type Cell,
  columnDefinitions,
  convertRow,
  encodeValue,
  type FieldSchema,
  fieldForType,
  normaliseSchema,
  type OutputField,
  type RowError,
  type TimestampFormat,
} from './schema.ts';
import {
  InvalidSqlError,
  qualifiedName,
  quoteIdent,
  schemaName,
  type TableRef,
  type Translation,
  translate,
  UnsupportedSqlError,
} from './sql.ts';
import { Store, type TableRecord } from './store.ts';

export interface BigQueryEmulatorOptions {
  host?: string;
  port?: number;
  dataDir: string;
}

export interface BigQueryEmulator {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** BigQuery's per-request limits for insertAll (and our cap for any request body). */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
export const MAX_INSERT_ROWS = 50_000;
/** How long an insertId is remembered; BigQuery documents "at least one minute". */
export const INSERT_ID_WINDOW_MS = 60_000;
const DEFAULT_PAGE_ROWS = 10_000;
const MAX_KEPT_JOBS = 200;
const LOCATION = 'US';

type Json = Record<string, unknown>;

interface QueryResult {
  fields: OutputField[];
  types: DuckDBType[];
  rows: DuckDBValue[][];
  dmlAffected?: number;
  statementType: string;
}

/**
 * One insertAll request waiting for its commit. Its accepted rows go either all as JSON
 * text (`asText`: `rows` prepared by row-text.ts) or all as converted `values`, so a
 * request is always committed by one transaction.
 */
interface PendingInsert {
  ref: TableRecord;
  ids: (string | undefined)[];
  /** The rows' `json` members (undefined for a row without one). */
  rows: readonly unknown[];
  asText: boolean;
  values?: (DuckDBValue[] | undefined)[];
  ignoreUnknown: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

const CHUNK_ROWS = 2048;
/** Rows per group commit: below DuckDB's appender auto-flush (100 chunks of 2048 rows). */
const GROUP_ROWS = 100_000;

const tableKey = (ref: TableRecord) => `${ref.projectId}\u0000${ref.datasetId}\u0000${ref.tableId}\u0000`;

interface JobRecord {
  resource: Json;
  result?: QueryResult;
  error?: ApiError;
}

const fieldsOf = (t: TableRecord) => ((t.resource['schema'] as Json)['fields'] ?? []) as FieldSchema[];

/**
 * Values of the first `count` rows, all prepared as text (so the converter accepts them:
 * row-text.test.ts), or without a `json` member (undefined, already reported).
 */
function valuesOfRows(
  fields: readonly FieldSchema[],
  jsons: readonly unknown[],
  count: number,
  ignoreUnknown: boolean,
): (DuckDBValue[] | undefined)[] {
  const out: (DuckDBValue[] | undefined)[] = [];
  for (let k = 0; k < count; k++) {
    const json = jsons[k];
    if (json === undefined) {
      out.push(undefined);
      continue;
    }
    const r = convertRow(fields, json, ignoreUnknown);
    if ('errors' in r) throw new Error('a row prepared as text failed conversion');
    out.push(r.values);
  }
  return out;
}

function nowMs(): string {
  return String(Date.now());
}

function etag(): string {
  return Buffer.from(randomUUID()).toString('base64').slice(0, 24);
}

class Emulator {
  readonly store: Store;
  readonly jobs = new Map<string, JobRecord>();
  /** insertId de-duplication: key → time first seen; insertion order is time order. */
  readonly insertIds = new Map<string, number>();
  pendingInserts: PendingInsert[] = [];
  baseUrl = '';

  constructor(store: Store) {
    this.store = store;
  }

  // ---- datasets ---------------------------------------------------------

  datasetOr404(projectId: string, datasetId: string) {
    const ds = this.store.dataset(projectId, datasetId);
    if (!ds) throw new ApiError('notFound', `Not found: Dataset ${projectId}:${datasetId}`);
    return ds;
  }

  async insertDataset(projectId: string, body: Json): Promise<Json> {
    const ref = (body['datasetReference'] ?? {}) as Json;
    const datasetId = ref['datasetId'];
    if (typeof datasetId !== 'string' || !/^[A-Za-z0-9_]{1,1024}$/.test(datasetId))
      throw new ApiError(
        'invalid',
        `Invalid dataset ID "${String(datasetId)}". Dataset IDs must be alphanumeric (plus underscores) and must be at most 1024 characters long.`,
      );
    const now = nowMs();
    const resource: Json = {
      kind: 'bigquery#dataset',
      etag: etag(),
      id: `${projectId}:${datasetId}`,
      selfLink: `${this.baseUrl}/bigquery/v2/projects/${projectId}/datasets/${datasetId}`,
      datasetReference: { projectId, datasetId },
      location: typeof body['location'] === 'string' ? body['location'] : LOCATION,
      creationTime: now,
      lastModifiedTime: now,
      type: 'DEFAULT',
    };
    for (const k of [
      'description',
      'friendlyName',
      'labels',
      'defaultTableExpirationMs',
      'defaultPartitionExpirationMs',
      'access',
    ])
      if (body[k] !== undefined) resource[k] = body[k];
    return this.store.exclusive(async (conn) => {
      if (this.store.dataset(projectId, datasetId))
        throw new ApiError('duplicate', `Already Exists: Dataset ${projectId}:${datasetId}`);
      // DuckDB schema names ignore case; two such datasets would share storage.
      const clash = [...this.store.datasets.values()].find(
        (d) =>
          d.projectId.toLowerCase() === projectId.toLowerCase() &&
          d.datasetId.toLowerCase() === datasetId.toLowerCase(),
      );
      if (clash)
        throw new ApiError(
          'invalid',
          `Dataset ${projectId}:${datasetId} differs only in case from ${clash.projectId}:${clash.datasetId}; the emulator cannot keep both`,
        );
      await conn.run('BEGIN');
      try {
        await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schemaName(projectId, datasetId))}`);
        await this.store.putDataset(conn, { projectId, datasetId, resource });
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
      return resource;
    });
  }

  async patchDataset(projectId: string, datasetId: string, body: Json): Promise<Json> {
    return this.store.exclusive(async (conn) => {
      const ds = this.datasetOr404(projectId, datasetId);
      const resource = { ...ds.resource };
      for (const k of [
        'description',
        'friendlyName',
        'labels',
        'defaultTableExpirationMs',
        'defaultPartitionExpirationMs',
        'access',
      ])
        if (body[k] !== undefined) resource[k] = body[k];
      resource['lastModifiedTime'] = nowMs();
      resource['etag'] = etag();
      await this.store.putDataset(conn, { ...ds, resource });
      return resource;
    });
  }

  async deleteDataset(projectId: string, datasetId: string, deleteContents: boolean): Promise<void> {
    await this.store.exclusive(async (conn) => {
      this.datasetOr404(projectId, datasetId);
      if (!deleteContents && this.store.tablesOf(projectId, datasetId).length > 0)
        throw new ApiError('resourceInUse', `Dataset ${projectId}:${datasetId} is still in use`);
      await conn.run('BEGIN');
      try {
        await conn.run(`DROP SCHEMA IF EXISTS ${quoteIdent(schemaName(projectId, datasetId))} CASCADE`);
        await this.store.deleteDataset(conn, projectId, datasetId);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  listDatasets(projectId: string, query: URLSearchParams): Json {
    const all = [...this.store.datasets.values()]
      .filter((d) => d.projectId === projectId)
      .sort((a, b) => a.datasetId.localeCompare(b.datasetId))
      .map((d) => ({
        kind: 'bigquery#dataset',
        id: d.resource['id'],
        datasetReference: d.resource['datasetReference'],
        location: d.resource['location'],
        ...(d.resource['labels'] ? { labels: d.resource['labels'] } : {}),
        ...(d.resource['friendlyName'] ? { friendlyName: d.resource['friendlyName'] } : {}),
      }));
    const { page, next } = paginate(all, query);
    return {
      kind: 'bigquery#datasetList',
      etag: etag(),
      datasets: page,
      ...(next ? { nextPageToken: next } : {}),
    };
  }

  // ---- tables -----------------------------------------------------------

  tableOr404(projectId: string, datasetId: string, tableId: string): TableRecord {
    this.datasetOr404(projectId, datasetId);
    const t = this.store.table(projectId, datasetId, tableId);
    if (!t) throw new ApiError('notFound', `Not found: Table ${projectId}:${datasetId}.${tableId}`);
    return t;
  }

  tableResource(
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
      selfLink: `${this.baseUrl}/bigquery/v2/projects/${projectId}/datasets/${datasetId}/tables/${tableId}`,
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

  checkLayout(body: Json, fields: readonly FieldSchema[]): void {
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

  async insertTable(projectId: string, datasetId: string, body: Json): Promise<Json> {
    const ref = (body['tableReference'] ?? {}) as Json;
    const tableId = ref['tableId'];
    if (typeof tableId !== 'string' || !/^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd} ]{1,1024}$/u.test(tableId))
      throw new ApiError('invalid', `Invalid table ID "${String(tableId)}".`);
    const view = body['view'] as Json | undefined;
    return this.store.exclusive(async (conn) => {
      this.datasetOr404(projectId, datasetId);
      if (this.store.table(projectId, datasetId, tableId))
        throw new ApiError('duplicate', `Already Exists: Table ${projectId}:${datasetId}.${tableId}`);
      const clash = this.store
        .tablesOf(projectId, datasetId)
        .find((t) => t.tableId.toLowerCase() === tableId.toLowerCase());
      if (clash)
        throw new ApiError(
          'invalid',
          `Table ${tableId} differs only in case from ${clash.tableId}; the emulator cannot keep both (DuckDB names ignore case)`,
        );
      if (view) return this.createView(conn, projectId, datasetId, tableId, body, view, false);
      const fields = normaliseSchema(((body['schema'] ?? { fields: [] }) as Json)['fields'] ?? []);
      if (typeof fields === 'string') throw new ApiError('invalid', fields);
      this.checkLayout(body, fields);
      const resource = this.tableResource(projectId, datasetId, tableId, body, 'TABLE', fields);
      await conn.run('BEGIN');
      try {
        const cols = columnDefinitions(fields);
        // DuckDB needs at least one column; a schemaless table gets a hidden placeholder.
        await conn.run(
          `CREATE TABLE ${qualifiedName({ projectId, datasetId, tableId })} (${cols || '"_emulator_placeholder" BOOLEAN'})`,
        );
        await this.store.putTable(conn, { projectId, datasetId, tableId, resource });
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
      return resource;
    });
  }

  async createView(
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
    const tr = this.translateOrThrow(query, projectId, undefined, { named: {}, positional: [] });
    if (tr.kind !== 'select') throw new ApiError('invalidQuery', 'A view query must be a SELECT statement');
    this.checkTablesExist(tr.tables, { projectId, datasetId, tableId });
    const name = qualifiedName({ projectId, datasetId, tableId });
    await this.runSql(conn, `CREATE ${replace ? 'OR REPLACE ' : ''}VIEW ${name} AS ${tr.sql}`);
    const probe = await this.runSql(conn, `SELECT * FROM ${name} LIMIT 0`);
    const fields = probe.columnNames().map((n, i) => fieldForType(outName(n, i), probe.columnType(i)));
    const resource = this.tableResource(projectId, datasetId, tableId, body, 'VIEW', fields);
    resource['view'] = { query, useLegacySql: false };
    const previous = this.store.table(projectId, datasetId, tableId);
    if (previous) resource['creationTime'] = previous.resource['creationTime'];
    await this.store.putTable(conn, { projectId, datasetId, tableId, resource });
    return resource;
  }

  async patchTable(projectId: string, datasetId: string, tableId: string, body: Json): Promise<Json> {
    return this.store.exclusive(async (conn) => {
      const t = this.tableOr404(projectId, datasetId, tableId);
      if (t.resource['type'] === 'VIEW' && body['view']) {
        const merged = { ...t.resource, ...body };
        return this.createView(conn, projectId, datasetId, tableId, merged, body['view'] as Json, true);
      }
      const resource = { ...t.resource };
      const schema = body['schema'] as Json | undefined;
      await conn.run('BEGIN');
      try {
        if (schema && t.resource['type'] === 'TABLE') {
          const next = normaliseSchema(schema['fields']);
          if (typeof next === 'string') throw new ApiError('invalid', next);
          await this.evolveSchema(conn, t, next);
          resource['schema'] = { fields: inColumnOrder(t, next) };
        }
        this.checkLayout(
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
        await this.store.putTable(conn, { ...t, resource });
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
      return resource;
    });
  }

  /** BigQuery allows adding NULLABLE/REPEATED columns and relaxing REQUIRED; nothing else. */
  async evolveSchema(conn: DuckDBConnection, t: TableRecord, next: FieldSchema[]): Promise<void> {
    const current = fieldsOf(t);
    const name = qualifiedName(t);
    for (const old of current) {
      const nf = next.find((f) => f.name.toLowerCase() === old.name.toLowerCase());
      if (!nf)
        throw new ApiError(
          'invalid',
          `Provided Schema does not match Table ${t.projectId}:${t.datasetId}.${t.tableId}. Field ${old.name} is missing in new schema`,
        );
      if (nf.type !== old.type || JSON.stringify(nf.fields ?? []) !== JSON.stringify(old.fields ?? []))
        throw new ApiError(
          'invalid',
          `Provided Schema does not match Table ${t.projectId}:${t.datasetId}.${t.tableId}. Field ${old.name} has changed type or nested fields`,
        );
      if (nf.mode !== old.mode) {
        if (old.mode === 'REQUIRED' && nf.mode === 'NULLABLE')
          await conn.run(`ALTER TABLE ${name} ALTER COLUMN ${quoteIdent(old.name)} DROP NOT NULL`);
        else
          throw new ApiError(
            'invalid',
            `Provided Schema does not match Table ${t.projectId}:${t.datasetId}.${t.tableId}. Field ${old.name} has changed mode from ${old.mode} to ${nf.mode}`,
          );
      }
    }
    for (const nf of next) {
      if (current.some((f) => f.name.toLowerCase() === nf.name.toLowerCase())) continue;
      if (nf.mode === 'REQUIRED')
        throw new ApiError(
          'invalid',
          `Provided Schema does not match Table ${t.projectId}:${t.datasetId}.${t.tableId}. Cannot add required fields to an existing schema. (field: ${nf.name})`,
        );
      await conn.run(`ALTER TABLE ${name} ADD COLUMN ${columnDefinitions([nf])}`);
    }
    if (current.length === 0 && next.length > 0) {
      await conn
        .run(`ALTER TABLE ${name} DROP COLUMN IF EXISTS "_emulator_placeholder"`)
        .catch(() => undefined);
    }
  }

  async deleteTable(projectId: string, datasetId: string, tableId: string): Promise<void> {
    await this.store.exclusive(async (conn) => {
      const t = this.tableOr404(projectId, datasetId, tableId);
      await conn.run('BEGIN');
      try {
        await conn.run(
          `DROP ${t.resource['type'] === 'VIEW' ? 'VIEW' : 'TABLE'} IF EXISTS ${qualifiedName(t)}`,
        );
        await this.store.deleteTable(conn, projectId, datasetId, tableId);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }

  async getTable(projectId: string, datasetId: string, tableId: string): Promise<Json> {
    const t = this.tableOr404(projectId, datasetId, tableId);
    if (t.resource['type'] !== 'TABLE') return t.resource;
    const count = await this.store.exclusive((conn) =>
      conn.runAndReadAll(`SELECT count(*) FROM ${qualifiedName(t)}`),
    );
    const n = String(count.getRows()[0]?.[0] ?? '0');
    return { ...t.resource, numRows: n, numBytes: '0', numLongTermBytes: '0' };
  }

  listTables(projectId: string, datasetId: string, query: URLSearchParams): Json {
    this.datasetOr404(projectId, datasetId);
    const all = this.store
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

  // ---- tabledata --------------------------------------------------------

  async insertAll(projectId: string, datasetId: string, tableId: string, body: Json): Promise<Json> {
    const t = this.tableOr404(projectId, datasetId, tableId);
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
      // BigQuery inserts nothing and marks every valid row "stopped".
      const byIndex = new Map(insertErrors.map((e) => [e.index, e]));
      return {
        kind: 'bigquery#tableDataInsertAllResponse',
        insertErrors: rows.map(
          (_, index) =>
            byIndex.get(index) ?? {
              index,
              errors: [{ reason: 'stopped', location: '', debugInfo: '', message: '' }],
            },
        ),
      };
    }
    const ids = rows.map((r) => {
      const id = (r as Json)['insertId'];
      return typeof id === 'string' && id !== '' ? id : undefined;
    });
    await this.enqueueInsert(
      converted
        ? { ref: t, ids, rows: jsons, asText: false, values: converted, ignoreUnknown }
        : { ref: t, ids, rows: jsons, asText: true, ignoreUnknown },
    );
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
  enqueueInsert(req: Omit<PendingInsert, 'resolve' | 'reject'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pendingInserts.push({ ...req, resolve, reject });
      if (this.pendingInserts.length === 1) this.scheduleFlush();
    });
  }

  scheduleFlush(): void {
    void this.store.appending((conn) => this.flushInserts(conn)).catch(() => undefined);
  }

  async flushInserts(conn: DuckDBConnection): Promise<void> {
    // Take whole requests up to a row budget: one flush per table must stay below the
    // appender's own auto-flush threshold, or a group would commit in several transactions.
    let rows = 0;
    let take = 0;
    for (const p of this.pendingInserts) {
      if (take > 0 && rows + p.ids.length > GROUP_ROWS) break;
      rows += p.ids.length;
      take++;
    }
    const batch = this.pendingInserts.slice(0, take);
    this.pendingInserts = this.pendingInserts.slice(take);
    if (this.pendingInserts.length > 0) this.scheduleFlush();
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
      await this.flushBatch(conn, batch);
    } catch (err) {
      for (const p of batch)
        if (!answered.has(p))
          p.reject(new ApiError('backendError', `Rows could not be stored: ${(err as Error).message}`));
    }
  }

  private async flushBatch(conn: DuckDBConnection, batch: readonly PendingInsert[]): Promise<void> {
    const byTable = new Map<string, PendingInsert[]>();
    for (const p of batch) {
      const k = tableKey(p.ref);
      const list = byTable.get(k);
      if (list) list.push(p);
      else byTable.set(k, [p]);
    }
    for (const all of byTable.values()) {
      const textual = all.filter((p) => p.asText);
      if (textual.length > 0) {
        try {
          await this.insertTexts(conn, textual);
          for (const p of textual) p.resolve();
        } catch {
          // DuckDB's reader refused something the preparation let through: append these
          // requests' rows the usual way, which decides what is stored or wrong.
          for (const p of textual) {
            p.asText = false;
            try {
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
        await this.appendGroup(conn, group);
        for (const p of group) p.resolve();
      } catch {
        // One bad request must not fail the others: retry each alone.
        for (const p of group) {
          try {
            await this.appendGroup(conn, [p]);
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
  async insertTexts(conn: DuckDBConnection, group: readonly PendingInsert[]): Promise<void> {
    const ref = (group[0] as PendingInsert).ref;
    const { rows: kept, remember } = this.freshRows(group, (p) => p.rows);
    if (kept.length === 0) return;
    // The texts were written for this record's schema; columns added since stay NULL.
    const sql = rowTextInsertSql(qualifiedName(ref), fieldsOf(ref));
    const prepared = await this.store.statement(
      conn,
      schemaName(ref.projectId, ref.datasetId),
      ref.tableId,
      sql,
    );
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
   * Appends the rows of requests for one table in one transaction: the appender's flush
   * commits on its own (durable: DuckDB syncs its WAL on commit), which costs far less
   * than BEGIN/COMMIT statements around it.
   */
  async appendGroup(conn: DuckDBConnection, group: readonly PendingInsert[]): Promise<void> {
    const ref = (group[0] as PendingInsert).ref;
    const { rows, remember } = this.freshRows(group, (p) => p.values ?? []);
    if (rows.length === 0) return;
    const schema = schemaName(ref.projectId, ref.datasetId);
    const { appender, types } = await this.store.appender(conn, schema, ref.tableId);
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
      this.store.dropAppender(schema, ref.tableId);
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
  freshRows<T>(
    group: readonly PendingInsert[],
    rowsOf: (p: PendingInsert) => readonly (T | undefined)[],
  ): { rows: T[]; remember(): void } {
    const ref = (group[0] as PendingInsert).ref;
    const now = Date.now();
    this.pruneInsertIds(now);
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
          if (this.insertIds.has(k) || seen.has(k)) continue;
          seen.add(k);
        }
        rows.push(row);
      }
    }
    if (rows.length > 0 && !this.store.table(ref.projectId, ref.datasetId, ref.tableId))
      throw new ApiError('notFound', `Not found: Table ${ref.projectId}:${ref.datasetId}.${ref.tableId}`);
    return {
      rows,
      remember: () => {
        for (const k of seen) this.insertIds.set(k, now);
      },
    };
  }

  pruneInsertIds(now: number): void {
    for (const [k, at] of this.insertIds) {
      if (now - at < INSERT_ID_WINDOW_MS) break;
      this.insertIds.delete(k);
    }
  }

  async listTableData(
    projectId: string,
    datasetId: string,
    tableId: string,
    query: URLSearchParams,
  ): Promise<Json> {
    const t = this.tableOr404(projectId, datasetId, tableId);
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
    const { rows, total, types } = await this.store.exclusive(async (conn) => {
      const count = await conn.runAndReadAll(`SELECT count(*) FROM ${name}`);
      const total = Number(count.getRows()[0]?.[0] ?? 0);
      if (cols.length === 0) return { rows: [] as DuckDBValue[][], total, types: [] as DuckDBType[] };
      const r = await conn.runAndReadAll(
        `SELECT ${cols.map(quoteIdent).join(', ')} FROM ${name} LIMIT ${max} OFFSET ${start}`,
      );
      return { rows: r.getRows(), total, types: r.columnTypes() };
    });
    const fmt = timestampFormat(query);
    const next = start + rows.length < total ? String(start + rows.length) : undefined;
    return {
      kind: 'bigquery#tableDataList',
      etag: etag(),
      totalRows: String(total),
      rows: rows.map((r) => ({ f: r.map((v, i) => ({ v: encodeValue(v, types[i] as DuckDBType, fmt) })) })),
      ...(next ? { pageToken: next } : {}),
    };
  }

  // ---- queries ----------------------------------------------------------

  translateOrThrow(
    sql: string,
    projectId: string,
    defaultDataset: { projectId?: string; datasetId: string } | undefined,
    params: { named: Record<string, string>; positional: string[] },
  ): Translation {
    try {
      return translate(sql, {
        projectId,
        defaultDataset,
        named: params.named,
        positional: params.positional,
      });
    } catch (e) {
      if (e instanceof UnsupportedSqlError || e instanceof InvalidSqlError)
        throw new ApiError('invalidQuery', e.message);
      // The translator is not a full parser: text it cannot follow is the caller's syntax error, not a 500.
      throw new ApiError('invalidQuery', `Syntax error: ${(e as Error).message}`);
    }
  }

  checkTablesExist(tables: readonly TableRef[], creating?: TableRef): void {
    for (const r of tables) {
      if (
        creating &&
        r.projectId === creating.projectId &&
        r.datasetId === creating.datasetId &&
        r.tableId === creating.tableId
      )
        continue;
      if (!this.store.dataset(r.projectId, r.datasetId))
        throw new ApiError(
          'notFound',
          `Not found: Dataset ${r.projectId}:${r.datasetId} was not found in location ${LOCATION}`,
        );
      if (!this.store.table(r.projectId, r.datasetId, r.tableId))
        throw new ApiError(
          'notFound',
          `Not found: Table ${r.projectId}:${r.datasetId}.${r.tableId} was not found in location ${LOCATION}`,
        );
    }
  }

  async runSql(conn: DuckDBConnection, sql: string) {
    try {
      return await conn.runAndReadAll(sql);
    } catch (e) {
      throw new ApiError('invalidQuery', cleanDuckMessage((e as Error).message));
    }
  }

  parameters(cfg: Json): { named: Record<string, string>; positional: string[] } {
    const list = cfg['queryParameters'];
    if (list !== undefined && !Array.isArray(list))
      throw new ApiError('invalid', 'queryParameters must be an array');
    try {
      return renderParameters(
        list as QueryParameter[] | undefined,
        cfg['parameterMode'] as string | undefined,
      );
    } catch (e) {
      throw new ApiError('invalid', (e as Error).message);
    }
  }

  /** Runs one query configuration (jobs.query or a query job). */
  async runQuery(projectId: string, cfg: Json): Promise<QueryResult> {
    const sql = cfg['query'];
    if (typeof sql !== 'string' || sql.trim() === '')
      throw new ApiError('required', 'Required parameter is missing: query');
    if (cfg['useLegacySql'] === true)
      throw new ApiError(
        'invalidQuery',
        'Legacy SQL is not supported by the emulator; set useLegacySql: false',
      );
    const params = this.parameters(cfg);
    const dd = cfg['defaultDataset'] as { projectId?: string; datasetId?: string } | undefined;
    const defaultDataset =
      dd && typeof dd.datasetId === 'string'
        ? { ...(dd.projectId ? { projectId: dd.projectId } : {}), datasetId: dd.datasetId }
        : undefined;
    const tr = this.translateOrThrow(sql, projectId, defaultDataset, params);
    return this.store.exclusive(async (conn) => {
      const creating = tr.kind === 'create_table' || tr.kind === 'create_view' ? tr.target : undefined;
      const dropping = tr.kind === 'drop_table' || tr.kind === 'drop_view';
      this.checkTablesExist(
        tr.tables.filter((r) => !(dropping && r === tr.target)),
        creating,
      );
      if (dropping && tr.target) this.datasetOr404(tr.target.projectId, tr.target.datasetId);
      if (creating) this.datasetOr404(creating.projectId, creating.datasetId);
      if (tr.kind === 'create_view' && tr.target) {
        const exists = this.store.table(tr.target.projectId, tr.target.datasetId, tr.target.tableId);
        const replace = /^\s*CREATE\s+OR\s+REPLACE/i.test(sql);
        if (exists && !replace) {
          if (/IF\s+NOT\s+EXISTS/i.test(sql)) return emptyResult('CREATE_VIEW');
          throw new ApiError(
            'duplicate',
            `Already Exists: Table ${tr.target.projectId}:${tr.target.datasetId}.${tr.target.tableId}`,
          );
        }
        await this.createView(
          conn,
          tr.target.projectId,
          tr.target.datasetId,
          tr.target.tableId,
          {},
          { query: tr.viewQuery ?? '' },
          replace,
        );
        return emptyResult('CREATE_VIEW');
      }
      const statementType = STATEMENT_TYPES[tr.kind] ?? 'SELECT';
      if (tr.kind !== 'select') {
        await conn.run('BEGIN');
        try {
          const r = await this.runSql(conn, tr.sql);
          if (tr.target) await this.syncCatalog(conn, tr.target, tr.kind);
          await conn.run('COMMIT');
          const isDml =
            tr.kind === 'insert' || tr.kind === 'update' || tr.kind === 'delete' || tr.kind === 'truncate';
          return { ...emptyResult(statementType), ...(isDml ? { dmlAffected: r.rowsChanged } : {}) };
        } catch (e) {
          await conn.run('ROLLBACK');
          throw e;
        }
      }
      const r = await this.runSql(conn, tr.sql);
      const types = r.columnTypes();
      const fields = r.columnNames().map((n, i) => fieldForType(outName(n, i), types[i] as DuckDBType));
      return { fields, types, rows: r.getRows(), statementType };
    });
  }

  /** After DDL run as SQL, bring the stored table resources in line with DuckDB's catalog. */
  async syncCatalog(conn: DuckDBConnection, ref: TableRef, kind: string): Promise<void> {
    if (kind === 'drop_table' || kind === 'drop_view') {
      await this.store.deleteTable(conn, ref.projectId, ref.datasetId, ref.tableId);
      return;
    }
    if (kind !== 'create_table') return;
    const probe = await conn.runAndReadAll(`SELECT * FROM ${qualifiedName(ref)} LIMIT 0`);
    const fields = probe.columnNames().map((n, i) => fieldForType(n, probe.columnType(i)));
    const resource = this.tableResource(ref.projectId, ref.datasetId, ref.tableId, {}, 'TABLE', fields);
    await this.store.putTable(conn, { ...ref, resource });
  }

  keepJob(jobId: string, rec: JobRecord): void {
    this.jobs.set(jobId, rec);
    while (this.jobs.size > MAX_KEPT_JOBS) {
      const oldest = this.jobs.keys().next().value as string;
      this.jobs.delete(oldest);
    }
  }

  jobResource(
    projectId: string,
    jobId: string,
    cfg: Json,
    result: QueryResult | undefined,
    error: ApiError | undefined,
    location: string,
  ): Json {
    const now = nowMs();
    const stats: Json = {
      totalBytesProcessed: '0',
      cacheHit: false,
      statementType: result?.statementType ?? 'SELECT',
    };
    if (result?.dmlAffected !== undefined) {
      stats['numDmlAffectedRows'] = String(result.dmlAffected);
      stats['dmlStats'] = dmlStats(result);
    }
    if (result?.fields.length) stats['schema'] = { fields: result.fields };
    return {
      kind: 'bigquery#job',
      etag: etag(),
      id: `${projectId}:${location}.${jobId}`,
      selfLink: `${this.baseUrl}/bigquery/v2/projects/${projectId}/jobs/${jobId}?location=${location}`,
      jobReference: { projectId, jobId, location },
      configuration: { jobType: 'QUERY', query: cfg },
      status: error
        ? { state: 'DONE', errorResult: error.errorProto(), errors: [error.errorProto()] }
        : { state: 'DONE' },
      statistics: { creationTime: now, startTime: now, endTime: now, totalBytesProcessed: '0', query: stats },
      user_email: 'emulator@localhost',
    };
  }

  async jobsQuery(projectId: string, body: Json): Promise<Json> {
    const jobId = `job_${randomUUID().replaceAll('-', '_')}`;
    const location = typeof body['location'] === 'string' ? body['location'] : LOCATION;
    const cfg: Json = { ...body };
    delete cfg['formatOptions'];
    delete cfg['requestId'];
    delete cfg['maxResults'];
    if (body['dryRun'] === true) {
      const probe = await this.dryRun(projectId, cfg);
      return {
        kind: 'bigquery#queryResponse',
        jobReference: { projectId, location },
        schema: { fields: probe },
        jobComplete: true,
        totalBytesProcessed: '0',
      };
    }
    const result = await this.runQuery(projectId, cfg);
    this.keepJob(jobId, {
      resource: this.jobResource(projectId, jobId, cfg, result, undefined, location),
      result,
    });
    const fmt = body['formatOptions'] as Json | undefined;
    const params = new URLSearchParams();
    if (fmt?.['useInt64Timestamp'] !== undefined)
      params.set('formatOptions.useInt64Timestamp', String(fmt['useInt64Timestamp']));
    if (typeof fmt?.['timestampOutputFormat'] === 'string')
      params.set('formatOptions.timestampOutputFormat', fmt['timestampOutputFormat']);
    if (body['maxResults'] !== undefined) params.set('maxResults', String(body['maxResults']));
    return this.resultsPage(projectId, jobId, location, result, params);
  }

  async dryRun(projectId: string, cfg: Json): Promise<OutputField[]> {
    const sql = String(cfg['query'] ?? '');
    const params = this.parameters(cfg);
    const tr = this.translateOrThrow(
      sql,
      projectId,
      cfg['defaultDataset'] as { datasetId: string } | undefined,
      params,
    );
    this.checkTablesExist(tr.tables);
    if (tr.kind !== 'select') return [];
    return this.store.exclusive(async (conn) => {
      const r = await this.runSql(conn, `SELECT * FROM (${tr.sql}) LIMIT 0`);
      return r.columnNames().map((n, i) => fieldForType(outName(n, i), r.columnType(i)));
    });
  }

  resultsPage(
    projectId: string,
    jobId: string,
    location: string,
    result: QueryResult,
    query: URLSearchParams,
  ): Json {
    const start = pageStart(query);
    const max = pageSize(query);
    const fmt = timestampFormat(query);
    const slice = result.rows.slice(start, start + max);
    const next = start + slice.length < result.rows.length ? String(start + slice.length) : undefined;
    const out: Json = {
      kind: 'bigquery#getQueryResultsResponse',
      etag: etag(),
      jobReference: { projectId, jobId, location },
      jobComplete: true,
      totalRows: String(result.rows.length),
      totalBytesProcessed: '0',
      cacheHit: false,
    };
    if (result.fields.length > 0) {
      out['schema'] = { fields: result.fields };
      out['rows'] = slice.map((r) => ({
        f: r.map((v, i): { v: Cell } => ({ v: encodeValue(v, result.types[i] as DuckDBType, fmt) })),
      }));
    }
    if (result.dmlAffected !== undefined) {
      out['numDmlAffectedRows'] = String(result.dmlAffected);
      out['dmlStats'] = dmlStats(result);
      out['totalRows'] = '0';
    }
    if (next) out['pageToken'] = next;
    return out;
  }

  async jobsInsert(projectId: string, body: Json): Promise<Json> {
    const conf = (body['configuration'] ?? {}) as Json;
    const ref = (body['jobReference'] ?? {}) as Json;
    const jobId =
      typeof ref['jobId'] === 'string' ? ref['jobId'] : `job_${randomUUID().replaceAll('-', '_')}`;
    const location = typeof ref['location'] === 'string' ? ref['location'] : LOCATION;
    if (!/^[A-Za-z0-9_-]{1,1024}$/.test(jobId)) throw new ApiError('invalid', `Invalid job ID "${jobId}"`);
    if (this.jobs.has(jobId))
      throw new ApiError('duplicate', `Already Exists: Job ${projectId}:${location}.${jobId}`);
    const cfg = conf['query'] as Json | undefined;
    if (!cfg) {
      const kind = Object.keys(conf).find((k) => ['load', 'extract', 'copy'].includes(k)) ?? 'unknown';
      throw new ApiError(
        'invalid',
        `Unsupported in the BigQuery emulator: ${kind} jobs (only query jobs are supported)`,
      );
    }
    if (conf['dryRun'] === true) {
      const fields = await this.dryRun(projectId, cfg);
      return {
        kind: 'bigquery#job',
        jobReference: { projectId, location },
        configuration: { query: cfg, dryRun: true, jobType: 'QUERY' },
        status: { state: 'DONE' },
        statistics: { totalBytesProcessed: '0', query: { totalBytesProcessed: '0', schema: { fields } } },
      };
    }
    if (cfg['destinationTable'])
      throw new ApiError('invalid', 'Unsupported in the BigQuery emulator: query destinationTable');
    try {
      const result = await this.runQuery(projectId, cfg);
      const resource = this.jobResource(projectId, jobId, cfg, result, undefined, location);
      this.keepJob(jobId, { resource, result });
      return resource;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      // Keep the failed job so jobs.get shows its errorResult, and answer like BigQuery does for bad SQL.
      this.keepJob(jobId, {
        resource: this.jobResource(projectId, jobId, cfg, undefined, e, location),
        error: e,
      });
      throw e;
    }
  }

  jobOr404(projectId: string, jobId: string, query: URLSearchParams): JobRecord {
    const job = this.jobs.get(jobId);
    if (!job || (job.resource['jobReference'] as Json)['projectId'] !== projectId)
      throw new ApiError(
        'notFound',
        `Not found: Job ${projectId}:${query.get('location') ?? LOCATION}.${jobId}`,
      );
    return job;
  }

  getQueryResults(projectId: string, jobId: string, query: URLSearchParams): Json {
    const job = this.jobOr404(projectId, jobId, query);
    if (job.error) throw job.error;
    const location = String((job.resource['jobReference'] as Json)['location'] ?? LOCATION);
    return this.resultsPage(projectId, jobId, location, job.result ?? emptyResult('SELECT'), query);
  }

  listJobs(projectId: string, query: URLSearchParams): Json {
    const all = [...this.jobs.values()]
      .filter((j) => (j.resource['jobReference'] as Json)['projectId'] === projectId)
      .reverse()
      .map((j) => ({ ...j.resource, state: 'DONE' }));
    const { page, next } = paginate(all, query);
    return { kind: 'bigquery#jobList', etag: etag(), jobs: page, ...(next ? { nextPageToken: next } : {}) };
  }

  // ---- routing ----------------------------------------------------------

  async route(method: string, path: string, query: URLSearchParams, body: Json): Promise<[number, unknown]> {
    if (path === '/health' && method === 'GET') return [200, { status: 'ok' }];
    const p = path.replace(/^\/bigquery\/v2(?=\/)/, '');
    let seg: string[];
    try {
      seg = p
        .split('/')
        .filter((s) => s !== '')
        .map(decodeURIComponent);
    } catch {
      throw new ApiError('invalid', `Malformed path: ${path}`);
    }
    if (seg[0] !== 'projects' || seg.length < 3)
      throw new ApiError('notFound', `Not found: ${method} ${path}`);
    const projectId = seg[1] as string;
    const coll = seg[2];
    const a = seg[3];
    const b = seg[4];
    const c = seg[5];
    const d = seg[6];
    if (coll === 'datasets') {
      if (a === undefined) {
        if (method === 'GET') return [200, this.listDatasets(projectId, query)];
        if (method === 'POST') return [200, await this.insertDataset(projectId, body)];
      } else if (b === undefined) {
        if (method === 'GET') return [200, this.datasetOr404(projectId, a).resource];
        if (method === 'PATCH' || method === 'PUT') return [200, await this.patchDataset(projectId, a, body)];
        if (method === 'DELETE') {
          await this.deleteDataset(projectId, a, query.get('deleteContents') === 'true');
          return [204, undefined];
        }
      } else if (b === 'tables') {
        if (c === undefined) {
          if (method === 'GET') return [200, this.listTables(projectId, a, query)];
          if (method === 'POST') return [200, await this.insertTable(projectId, a, body)];
        } else if (d === undefined) {
          if (method === 'GET') return [200, await this.getTable(projectId, a, c)];
          if (method === 'PATCH' || method === 'PUT')
            return [200, await this.patchTable(projectId, a, c, body)];
          if (method === 'DELETE') {
            await this.deleteTable(projectId, a, c);
            return [204, undefined];
          }
        } else if (d === 'insertAll' && method === 'POST') {
          return [200, await this.insertAll(projectId, a, c, body)];
        } else if (d === 'data' && method === 'GET') {
          return [200, await this.listTableData(projectId, a, c, query)];
        }
      }
    } else if (coll === 'queries') {
      if (a === undefined && method === 'POST') return [200, await this.jobsQuery(projectId, body)];
      if (a !== undefined && method === 'GET') return [200, this.getQueryResults(projectId, a, query)];
    } else if (coll === 'jobs') {
      if (a === undefined && method === 'POST') return [200, await this.jobsInsert(projectId, body)];
      if (a === undefined && method === 'GET') return [200, this.listJobs(projectId, query)];
      if (a !== undefined && b === undefined && method === 'GET')
        return [200, this.jobOr404(projectId, a, query).resource];
      if (a !== undefined && b === 'cancel' && method === 'POST')
        return [
          200,
          { kind: 'bigquery#jobCancelResponse', job: this.jobOr404(projectId, a, query).resource },
        ];
      if (a !== undefined && b === 'delete' && method === 'DELETE') {
        this.jobOr404(projectId, a, query);
        this.jobs.delete(a);
        return [204, undefined];
      }
    }
    throw new ApiError('notFound', `Not found: ${method} ${path}`);
  }
}

const STATEMENT_TYPES: Record<string, string> = {
  select: 'SELECT',
  insert: 'INSERT',
  update: 'UPDATE',
  delete: 'DELETE',
  truncate: 'TRUNCATE_TABLE',
  create_table: 'CREATE_TABLE',
  create_view: 'CREATE_VIEW',
  drop_table: 'DROP_TABLE',
  drop_view: 'DROP_VIEW',
};

function emptyResult(statementType: string): QueryResult {
  return { fields: [], types: [], rows: [], statementType };
}

function dmlStats(r: QueryResult): Json {
  const n = String(r.dmlAffected ?? 0);
  return {
    insertedRowCount: r.statementType === 'INSERT' ? n : '0',
    updatedRowCount: r.statementType === 'UPDATE' ? n : '0',
    deletedRowCount: r.statementType === 'DELETE' || r.statementType === 'TRUNCATE_TABLE' ? n : '0',
  };
}

/** BigQuery names unnamed result columns f0_, f1_…; DuckDB names them after the expression. */
function outName(name: string, i: number): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `f${i}_`;
}

function cleanDuckMessage(m: string): string {
  // DuckDB prefixes messages with its error class and quotes our internal schema names.
  return m
    .replace(/\n+LINE \d+:[\s\S]*$/, '')
    .replace(/"([^".]+)\.([^"]+)"\."([^"]+)"/g, '$1:$2.$3')
    .trim();
}

function paginate<T>(all: T[], query: URLSearchParams): { page: T[]; next: string | undefined } {
  const start = pageStart(query);
  const max = Math.max(1, Number(query.get('maxResults') ?? 1000) || 1000);
  const page = all.slice(start, start + max);
  return { page, next: start + page.length < all.length ? String(start + page.length) : undefined };
}

/**
 * A row index or count from the query string: digits only, at most uint64 (what BigQuery's
 * field holds); past any table's size it is as good as the largest safe integer.
 */
function rowNumber(text: string, what: string): number {
  if (!/^\d+$/.test(text) || BigInt(text) > 0xffffffffffffffffn) {
    throw new ApiError('invalid', `Invalid ${what}: ${text}`);
  }
  return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
}

function pageStart(query: URLSearchParams): number {
  const token = query.get('pageToken');
  if (token !== null && token !== '') {
    // Our tokens are row offsets we handed out: anything past a safe integer is not one.
    if (!/^\d+$/.test(token) || !Number.isSafeInteger(Number(token))) {
      throw new ApiError('invalid', `Invalid page token: ${token}`);
    }
    return Number(token);
  }
  const si = query.get('startIndex');
  if (si !== null && si !== '') return rowNumber(si, 'startIndex');
  return 0;
}

function pageSize(query: URLSearchParams): number {
  const m = query.get('maxResults');
  if (m === null || m === '') return DEFAULT_PAGE_ROWS;
  return Math.max(1, rowNumber(m, 'maxResults'));
}

function timestampFormat(query: URLSearchParams): TimestampFormat {
  const out = query.get('formatOptions.timestampOutputFormat');
  if (out === 'ISO8601_STRING') return 'iso';
  if (out === 'INT64') return 'int64';
  if (out === 'FLOAT64') return 'float';
  return query.get('formatOptions.useInt64Timestamp') === 'false' ? 'float' : 'int64';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) {
      tooLarge = true;
      if (size > 4 * MAX_REQUEST_BYTES) break;
      continue;
    }
    chunks.push(chunk as Buffer);
  }
  if (tooLarge)
    throw new ApiError('invalid', `Request payload size exceeds the limit: ${MAX_REQUEST_BYTES} bytes.`);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (status === 204 || body === undefined) {
    res.writeHead(204).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Starts the emulator on `host:port` (port 0 picks a free port) over `<dataDir>/bigquery.duckdb`. */
export async function startBigQueryEmulator(opts: BigQueryEmulatorOptions): Promise<BigQueryEmulator> {
  const store = await Store.open(opts.dataDir);
  const emu = new Emulator(store);
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = req.method === 'GET' || req.method === 'DELETE' ? Buffer.alloc(0) : await readBody(req);
        let body: Json = {};
        if (raw.length > 0) {
          try {
            const parsed: unknown = JSON.parse(raw.toString('utf8'));
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
              throw new ApiError('parseError', 'Invalid JSON payload received. Expected an object.');
            body = parsed as Json;
          } catch (e) {
            if (e instanceof ApiError) throw e;
            throw new ApiError('parseError', `Invalid JSON payload received. ${(e as Error).message}`);
          }
        }
        const [status, out] = await emu.route(req.method ?? 'GET', url.pathname, url.searchParams, body);
        send(res, status, out);
      } catch (e) {
        if (e instanceof ApiError) {
          send(res, e.code, e.body());
          if (!req.complete) req.destroy();
          return;
        }
        const err = new ApiError('backendError', `Internal error in the emulator: ${(e as Error).message}`);
        send(res, 500, err.body());
      }
    })();
  });
  const host = opts.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  emu.baseUrl = url;
  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await store.close();
      })();
      return closing;
    },
  };
}

/**
 * The patched schema in the table's column order: existing fields where they were (as the
 * patch describes them), added ones after them, where ALTER TABLE ADD COLUMN put them. Rows
 * are appended by position, so a schema listing the same fields in another order must not be
 * stored as given.
 */
function inColumnOrder(t: TableRecord, next: readonly FieldSchema[]): FieldSchema[] {
  const current = fieldsOf(t);
  const byName = new Map(next.map((f) => [f.name.toLowerCase(), f]));
  const kept = current.map((f) => byName.get(f.name.toLowerCase()) ?? f);
  const added = next.filter((f) => !current.some((c) => c.name.toLowerCase() === f.name.toLowerCase()));
  return [...kept, ...added];
}
