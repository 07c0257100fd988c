/**
 * The BigQuery emulator's shared state (the DuckDB store, jobs, insertIds, pending inserts)
 * and what every resource module uses: lookups that answer 404, wire types, limits, paging.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { convertRow } from './insert-rows.ts';
import type { OutputField, TimestampFormat } from './result-encoding.ts';
import type { FieldSchema } from './schema.ts';
import type { Store, TableRecord } from './store.ts';

/** BigQuery's per-request limits for insertAll (and our cap for any request body). */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
export const MAX_INSERT_ROWS = 50_000;
/** How long an insertId is remembered; BigQuery documents "at least one minute". */
export const INSERT_ID_WINDOW_MS = 60_000;
export const DEFAULT_PAGE_ROWS = 10_000;
export const MAX_KEPT_JOBS = 200;
export const LOCATION = 'US';

export type Json = Record<string, unknown>;

export interface QueryResult {
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
export interface PendingInsert {
  ref: TableRecord;
  ids: (string | undefined)[];
  /** The rows' `json` members (undefined for a row without one). */
  rows: readonly unknown[];
  asText: boolean;
  /**
   * With `asText`: the rows already as the UTF-8 text of a JSON array in the prepared form (the
   * Storage Write API's fast path, write-rows.ts), instead of `rows`; no insertIds.
   */
  text?: Buffer;
  values?: (DuckDBValue[] | undefined)[];
  ignoreUnknown: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

export const CHUNK_ROWS = 2048;
/** Rows per group commit: below DuckDB's appender auto-flush (100 chunks of 2048 rows). */
export const GROUP_ROWS = 100_000;

export const tableKey = (ref: TableRecord) =>
  `${ref.projectId}\u0000${ref.datasetId}\u0000${ref.tableId}\u0000`;

export interface JobRecord {
  resource: Json;
  result?: QueryResult;
  error?: ApiError;
  /** Set while the job runs (a jobs.query answered before its `timeoutMs` ran out); settles when it is done. */
  running?: Promise<void>;
  /** With `--iam`: the member who created it, who may read it without `bigquery.jobs.get` (access.ts). */
  creator?: string;
  /** Set while the job runs: jobs.cancel ends it (job-records.ts, cancelJob). */
  cancel?: () => void;
  /** True once jobs.cancel ended it: its late result is dropped. */
  cancelled?: boolean;
}

export const fieldsOf = (t: TableRecord) => ((t.resource['schema'] as Json)['fields'] ?? []) as FieldSchema[];

/**
 * Values of the first `count` rows, all prepared as text (so the converter accepts them:
 * row-text.test.ts), or without a `json` member (undefined, already reported).
 */
export function valuesOfRows(
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

export function nowMs(): string {
  return String(Date.now());
}

export function etag(): string {
  return Buffer.from(randomUUID()).toString('base64').slice(0, 24);
}

export const STATEMENT_TYPES: Record<string, string> = {
  select: 'SELECT',
  insert: 'INSERT',
  update: 'UPDATE',
  delete: 'DELETE',
  truncate: 'TRUNCATE_TABLE',
  create_table: 'CREATE_TABLE',
  create_view: 'CREATE_VIEW',
  drop_table: 'DROP_TABLE',
  drop_view: 'DROP_VIEW',
  merge: 'MERGE',
};

export function emptyResult(statementType: string): QueryResult {
  return { fields: [], types: [], rows: [], statementType };
}

export function dmlStats(r: QueryResult): Json {
  const n = String(r.dmlAffected ?? 0);
  return {
    insertedRowCount: r.statementType === 'INSERT' ? n : '0',
    updatedRowCount: r.statementType === 'UPDATE' ? n : '0',
    deletedRowCount: r.statementType === 'DELETE' || r.statementType === 'TRUNCATE_TABLE' ? n : '0',
  };
}

/**
 * BigQuery names unnamed result columns f0_, f1_…; DuckDB names them after the expression. A name
 * of letters (any script: BigQuery's flexible column names, `größe`), digits and underscores,
 * not starting with a digit, is a column's or an alias's; anything else is an expression's text.
 */
export function outName(name: string, i: number): string {
  return /^[\p{L}_][\p{L}\p{M}\p{N}_]*$/u.test(name) ? name : `f${i}_`;
}

/** DuckDB's type names as BigQuery spells them (DuckDB's plain TIMESTAMP is left: it is ambiguous in text). */
const BIGQUERY_TYPE_NAMES: Readonly<Record<string, string>> = {
  'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP',
  TIMESTAMPTZ: 'TIMESTAMP',
  VARCHAR: 'STRING',
  STRING_LITERAL: 'STRING',
  INTEGER_LITERAL: 'INT64',
  BIGINT: 'INT64',
  INTEGER: 'INT64',
  HUGEINT: 'INT64',
  DOUBLE: 'FLOAT64',
  BOOLEAN: 'BOOL',
  BLOB: 'BYTES',
};
const DUCK_TYPE_WORDS =
  /\b(?:TIMESTAMP WITH TIME ZONE|TIMESTAMPTZ|VARCHAR|STRING_LITERAL|INTEGER_LITERAL|BIGINT|INTEGER|HUGEINT|DOUBLE|BOOLEAN|BLOB)\b|\bDECIMAL\(\d+,\s*\d+\)/g;

/**
 * A DuckDB error as BigQuery words its invalidQuery messages: no DuckDB error class ("Binder
 * Error: …"), BigQuery's type names, our internal schema names as `project:dataset.table`, and
 * the common type mismatch in BigQuery's own words. A caller never sees DuckDB's vocabulary.
 */
export function cleanDuckMessage(m: string): string {
  let out = m
    .replace(/\n+LINE \d+:[\s\S]*$/, '')
    .replace(/"([^".]+)\.([^"]+)"\."([^"]+)"/g, '$1:$2.$3')
    .trim();
  const cls = /^([A-Z][A-Za-z ]*?) Error: /.exec(out);
  if (cls) out = `${cls[1] === 'Parser' ? 'Syntax error: ' : ''}${out.slice(cls[0].length)}`;
  out = out.replace(DUCK_TYPE_WORDS, (w) => BIGQUERY_TYPE_NAMES[w] ?? 'NUMERIC');
  const compare =
    /^Cannot (?:compare|mix) values of type (.+?) and (?:type )?(.+?)(?: in [A-Z]+ clause)? - an explicit cast is required/.exec(
      out,
    );
  if (compare) return `No matching signature for operator for argument types: ${compare[1]}, ${compare[2]}`;
  return out.replace(/ - an explicit cast is required/, '');
}

export function paginate<T>(all: T[], query: URLSearchParams): { page: T[]; next: string | undefined } {
  const start = pageStart(query);
  const max = Math.max(1, Number(query.get('maxResults') ?? 1000) || 1000);
  const page = all.slice(start, start + max);
  return { page, next: start + page.length < all.length ? String(start + page.length) : undefined };
}

/**
 * A row index or count from the query string: digits only, at most uint64 (what BigQuery's
 * field holds); past any table's size it is as good as the largest safe integer.
 */
export function rowNumber(text: string, what: string): number {
  if (!/^\d+$/.test(text) || BigInt(text) > 0xffffffffffffffffn) {
    throw new ApiError('invalid', `Invalid ${what}: ${text}`);
  }
  return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
}

export function pageStart(query: URLSearchParams): number {
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

export function pageSize(query: URLSearchParams): number {
  const m = query.get('maxResults');
  if (m === null || m === '') return DEFAULT_PAGE_ROWS;
  return Math.max(1, rowNumber(m, 'maxResults'));
}

export function timestampFormat(query: URLSearchParams): TimestampFormat {
  const out = query.get('formatOptions.timestampOutputFormat');
  const int64 = query.get('formatOptions.useInt64Timestamp');
  if (
    out !== null &&
    !['TIMESTAMP_OUTPUT_FORMAT_UNSPECIFIED', 'FLOAT64', 'INT64', 'ISO8601_STRING'].includes(out)
  )
    throw new ApiError('invalid', `Invalid value for formatOptions.timestampOutputFormat: ${out}`);
  // BigQuery's words: the legacy flag and a format other than INT64 cannot both be asked for.
  if (int64 === 'true' && (out === 'FLOAT64' || out === 'ISO8601_STRING'))
    throw new ApiError('invalid', 'Cannot specify both use_int64_timestamp and timestamp_output_format.');
  if (out === 'ISO8601_STRING') return 'iso';
  if (out === 'INT64') return 'int64';
  if (out === 'FLOAT64') return 'float';
  // BigQuery's default is useInt64Timestamp=false (float seconds); Google's client always asks for true.
  return int64 === 'true' ? 'int64' : 'float';
}

/**
 * The patched schema in the table's column order: existing fields where they were (as the
 * patch describes them), added ones after them, where ALTER TABLE ADD COLUMN put them. Rows
 * are appended by position, so a schema listing the same fields in another order must not be
 * stored as given.
 */
export function inColumnOrder(t: TableRecord, next: readonly FieldSchema[]): FieldSchema[] {
  return fieldsInOrder(fieldsOf(t), next);
}

/** The same at every depth: a RECORD's added fields come after its own, as DuckDB adds them. */
function fieldsInOrder(current: readonly FieldSchema[], next: readonly FieldSchema[]): FieldSchema[] {
  const byName = new Map(next.map((f) => [f.name.toLowerCase(), f]));
  const kept = current.map((f) => {
    const nf = byName.get(f.name.toLowerCase()) ?? f;
    return f.fields && nf.fields ? { ...nf, fields: fieldsInOrder(f.fields, nf.fields) } : nf;
  });
  const added = next.filter((f) => !current.some((c) => c.name.toLowerCase() === f.name.toLowerCase()));
  return [...kept, ...added];
}

/** One insertAll request's stored rows, while they are in the streaming buffer (streaming-buffer.ts). */
export interface BufferedBatch {
  /** When they were stored (ms since the epoch); aging the buffer moves it back. */
  at: number;
  /** The rows' `json` members (undefined: a row not stored). */
  readonly rows: readonly unknown[];
  readonly ignoreUnknown: boolean;
  /** The table's creation time then: rows streamed into an earlier table of that name went with it. */
  readonly table: string;
}

export class Emulator {
  readonly store: Store;
  readonly jobs = new Map<string, JobRecord>();
  /** insertId de-duplication: key → time first seen; insertion order is time order. */
  readonly insertIds = new Map<string, number>();
  pendingInserts: PendingInsert[] = [];
  baseUrl = '';
  /** Every query job lasts at least this long (`--job-latency-ms`; 0: as long as DuckDB takes). */
  jobLatencyMs = 0;
  /** Running jobs ended by jobs.cancel since the start (`/health` reports it). */
  cancelledJobs = 0;
  /** How long insertAll rows stay in the streaming buffer (streaming-buffer.ts; 0: no buffer). */
  streamingBufferMs = 0;
  /** Rows in the streaming buffer, by table (tableKey), oldest first. */
  readonly streamingBuffer = new Map<string, BufferedBatch[]>();

  datasetOr404(projectId: string, datasetId: string) {
    const ds = this.store.dataset(projectId, datasetId);
    if (!ds) throw new ApiError('notFound', `Not found: Dataset ${projectId}:${datasetId}`);
    return ds;
  }

  tableOr404(projectId: string, datasetId: string, tableId: string): TableRecord {
    this.datasetOr404(projectId, datasetId);
    const t = this.store.table(projectId, datasetId, tableId);
    if (!t) throw new ApiError('notFound', `Not found: Table ${projectId}:${datasetId}.${tableId}`);
    return t;
  }

  jobOr404(projectId: string, jobId: string, query: URLSearchParams): JobRecord {
    const job = this.jobs.get(jobId);
    const ref = job?.resource['jobReference'] as Json | undefined;
    const asked = query.get('location');
    // A job is found in its own location only (BigQuery: 404 when another location is given).
    // Without a location BigQuery looks in the US and EU multi-regions only, so a job elsewhere
    // (asia-northeast1) must be asked for with its location.
    const own = typeof ref?.['location'] === 'string' ? ref['location'].toUpperCase() : LOCATION;
    const elsewhere = asked === null ? own !== 'US' && own !== 'EU' : asked.toUpperCase() !== own;
    if (!job || ref?.['projectId'] !== projectId || elsewhere)
      throw new ApiError('notFound', `Not found: Job ${projectId}:${asked ?? LOCATION}.${jobId}`);
    return job;
  }

  constructor(store: Store) {
    this.store = store;
  }
}
