/**
 * The Storage Write API's streams (docs/bigquery-emulator.md, "Storage Write API"): what each
 * kind makes visible and when, the offsets, and the proto rows turned into the rows insertAll
 * would store. The gRPC surface is write-api.ts; this file holds no gRPC.
 *
 * - `_default` (every table has it) and COMMITTED streams: rows are in the table once the append
 *   is answered (through the group commit of tabledata.ts, one transaction per group);
 * - PENDING: rows are held until the stream is finalized and committed (BatchCommitWriteStreams:
 *   all the streams of one call in one transaction, or none);
 * - BUFFERED: rows are held until FlushRows moves them, up to an offset, into the table.
 * Rows written through this API are not in the insertAll streaming buffer: UPDATE, DELETE and
 * MERGE may change them at once (Google: "the Storage Write API supports DML operations against
 * recently streamed data").
 *
 * Offsets (not allowed on `_default`): an append at an offset already written is ALREADY_EXISTS,
 * one beyond the stream's end OUT_OF_RANGE, neither writing anything; an append without one goes
 * at the end. A request with a row that does not fit the table writes none of its rows and
 * answers INVALID_ARGUMENT with a row error per bad row. Streams live in memory: a restart of the
 * emulator forgets them (rows already in the table stay), as a stream BigQuery garbage-collected.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import protobuf from 'protobufjs';
import 'protobufjs/ext/descriptor/index.js';
import { markStreamed } from './expiration.ts';
import { convertRow } from './insert-rows.ts';
import type { FieldSchema } from './schema.ts';
import { type Emulator, fieldsOf, type Json } from './state.ts';
import type { TableRecord } from './store.ts';
import { enqueueInsert } from './tabledata.ts';
import { civilFromMicros } from './time-text.ts';
import { fastRows, type RowsText } from './write-rows.ts';
import type { MissingValue, StorageErrorCode } from './write-wire.ts';

export type StreamType = 'COMMITTED' | 'PENDING' | 'BUFFERED';

/** A gRPC status name the Write API answers with. */
export type WriteStatus =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PERMISSION_DENIED'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'UNAUTHENTICATED';

/** A refusal of the Write API: its status, words, and the StorageError BigQuery attaches. */
export class WriteError extends Error {
  readonly status: WriteStatus;
  readonly storage: { code: StorageErrorCode; entity: string; errorMessage: string } | undefined;
  constructor(
    status: WriteStatus,
    message: string,
    storage?: { code: StorageErrorCode; entity: string; errorMessage?: string },
  ) {
    super(message);
    this.status = status;
    this.storage = storage && { ...storage, errorMessage: storage.errorMessage ?? message };
  }
}

export interface TableName {
  readonly projectId: string;
  readonly datasetId: string;
  readonly tableId: string;
}

export interface WriteStreamRecord {
  readonly name: string;
  readonly type: StreamType;
  readonly table: TableName;
  /** The table's creationTime when the stream was made: a table made again later is another. */
  readonly tableCreation: string;
  readonly createTime: number;
  commitTime: number | undefined;
  finalized: boolean;
  /** The next offset: rows accepted so far. */
  rowCount: number;
  /**
   * PENDING and BUFFERED: accepted rows not in the table yet (from offset `heldFrom`), in
   * insertAll's JSON form, converted again when they go in (the table may have gained columns).
   */
  held: Json[];
  heldFrom: number;
  /** A failed write into the table: every later append is answered with it. */
  broken: WriteError | undefined;
}

export const DEFAULT_STREAM = '_default';
const TABLE_PATH = /^projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/]+)$/;
const STREAM_PATH = /^(projects\/[^/]+\/datasets\/[^/]+\/tables\/[^/]+)\/streams\/([^/]+)$/;

/** The streams of one emulator, by name. */
const streamsOf = new WeakMap<Emulator, Map<string, WriteStreamRecord>>();
export function streams(em: Emulator): Map<string, WriteStreamRecord> {
  let m = streamsOf.get(em);
  if (!m) {
    m = new Map();
    streamsOf.set(em, m);
  }
  return m;
}

/** `projects/p/datasets/d/tables/t` → its parts, or INVALID_ARGUMENT. */
export function parseTable(path: string): TableName {
  const m = TABLE_PATH.exec(path);
  if (!m) throw new WriteError('INVALID_ARGUMENT', `Invalid table name: ${path}`);
  return { projectId: m[1] as string, datasetId: m[2] as string, tableId: m[3] as string };
}

/** The table a stream name points into (without looking the stream up). */
export function tableOfStream(name: string): TableName {
  const m = STREAM_PATH.exec(name);
  if (!m) throw new WriteError('INVALID_ARGUMENT', `Invalid stream name: ${name}`);
  return parseTable(m[1] as string);
}

export function tableOr404(em: Emulator, t: TableName): TableRecord {
  const rec = em.store.table(t.projectId, t.datasetId, t.tableId);
  const path = `projects/${t.projectId}/datasets/${t.datasetId}/tables/${t.tableId}`;
  if (rec?.resource['type'] !== 'TABLE')
    throw new WriteError('NOT_FOUND', `Requested entity was not found. Entity: ${path}`, {
      code: 'TABLE_NOT_FOUND',
      entity: path,
    });
  return rec;
}

export function createWriteStream(em: Emulator, parent: string, type: string): WriteStreamRecord {
  const table = parseTable(parent);
  const rec = tableOr404(em, table);
  if (type !== 'COMMITTED' && type !== 'PENDING' && type !== 'BUFFERED')
    throw new WriteError('INVALID_ARGUMENT', `Invalid write stream type: ${type}. Entity: ${parent}`, {
      code: 'INVALID_STREAM_TYPE',
      entity: parent,
    });
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  return remember(em, newStream(`${parent}/streams/${id}`, type, table, rec, Date.now()));
}

function newStream(
  name: string,
  type: StreamType,
  table: TableName,
  rec: TableRecord,
  createTime: number,
): WriteStreamRecord {
  return {
    name,
    type,
    table,
    tableCreation: String(rec.resource['creationTime']),
    createTime,
    commitTime: undefined,
    finalized: false,
    rowCount: 0,
    held: [],
    heldFrom: 0,
    broken: undefined,
  };
}

function remember(em: Emulator, s: WriteStreamRecord): WriteStreamRecord {
  streams(em).set(s.name, s);
  return s;
}

/** A stream by name: `…/streams/_default` of an existing table is always there. */
export function streamOr404(em: Emulator, name: string): WriteStreamRecord {
  const found = streams(em).get(name);
  if (found) {
    const rec = em.store.table(found.table.projectId, found.table.datasetId, found.table.tableId);
    if (rec && String(rec.resource['creationTime']) === found.tableCreation) return found;
    streams(em).delete(name);
  }
  const table = tableOfStream(name);
  if (name.endsWith(`/streams/${DEFAULT_STREAM}`)) {
    const rec = tableOr404(em, table);
    return remember(em, newStream(name, 'COMMITTED', table, rec, Number(rec.resource['creationTime'])));
  }
  tableOr404(em, table);
  throw new WriteError('NOT_FOUND', `Requested entity was not found. Entity: ${name}`, {
    code: 'STREAM_NOT_FOUND',
    entity: name,
  });
}

export const isDefault = (s: WriteStreamRecord): boolean => s.name.endsWith(`/streams/${DEFAULT_STREAM}`);

// ---------- rows ----------

const fromDescriptor = (protobuf.Type as unknown as { fromDescriptor(d: Uint8Array): protobuf.Type })
  .fromDescriptor;

/** The writer's schema, compiled once per connection and descriptor. */
export interface WriterSchema {
  readonly type: protobuf.Type;
}

/**
 * The writer's `DescriptorProto` as a protobufjs type, checked against the table: a field the
 * table does not have is BigQuery's SCHEMA_MISMATCH_EXTRA_FIELDS.
 */
export function writerSchema(
  descriptor: Uint8Array,
  fields: readonly FieldSchema[],
  entity: string,
): WriterSchema {
  let type: protobuf.Type;
  try {
    type = fromDescriptor(descriptor);
    new protobuf.Root().add(type);
    type.resolveAll();
  } catch (e) {
    throw new WriteError(
      'INVALID_ARGUMENT',
      `Invalid proto schema: ${(e as Error).message}. Entity: ${entity}`,
    );
  }
  const extra: string[] = [];
  const walk = (t: protobuf.Type, cols: readonly FieldSchema[], prefix: string): void => {
    for (const f of t.fieldsArray) {
      const col = cols.find((c) => c.name.toLowerCase() === f.name.toLowerCase());
      if (!col) extra.push(`${prefix}${f.name}`);
      else if (f.resolvedType instanceof protobuf.Type)
        walk(f.resolvedType, col.fields ?? [], `${prefix}${f.name}.`);
    }
  };
  walk(type, fields, '');
  if (extra.length > 0)
    throw new WriteError(
      'INVALID_ARGUMENT',
      `Input schema has more fields than BigQuery schema, extra fields: '${extra.join(',')}' Entity: ${entity}`,
      {
        code: 'SCHEMA_MISMATCH_EXTRA_FIELDS',
        entity,
        errorMessage: 'Schema mismatch due to extra fields in user schema',
      },
    );
  return { type };
}

const DAY_MS = 86_400_000;

/** A proto value (as protobufjs' toObject gives it) in the form insertAll takes for the column. */
function jsonValue(v: unknown, f: FieldSchema): unknown {
  if (v === null || v === undefined) return v;
  const type = f.type.toUpperCase();
  if (type === 'RECORD' || type === 'STRUCT')
    return typeof v === 'object' ? jsonRecord(v as Json, f.fields ?? []) : v;
  if (type === 'TIMESTAMP' && (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v)))) {
    // Microseconds since the epoch (the int64 form the managed writer sends).
    const { date, time } = civilFromMicros(BigInt(v));
    return `${date}T${time}Z`;
  }
  if (type === 'DATE' && typeof v === 'number') return new Date(v * DAY_MS).toISOString().slice(0, 10);
  return v;
}

function jsonRecord(obj: Json, fields: readonly FieldSchema[]): Json {
  const out: Json = {};
  for (const key of Object.keys(obj)) {
    const f = fields.find((c) => c.name.toLowerCase() === key.toLowerCase());
    const v = obj[key];
    if (!f) out[key] = v;
    else out[f.name] = Array.isArray(v) ? v.map((x) => jsonValue(x, f)) : jsonValue(v, f);
  }
  return out;
}

export interface RowProblem {
  readonly index: number;
  readonly message: string;
}

/**
 * The serialized rows as column values, or the problem of each bad row (a row that does not
 * decode with the writer's schema, or does not fit the table as insertAll would judge it).
 */
export function decodeRows(
  schema: WriterSchema,
  fields: readonly FieldSchema[],
  rows: readonly Uint8Array[],
  missing: MissingValues = NO_MISSING_VALUES,
): { rows: DecodedRow[]; problems: RowProblem[] } {
  const out: DecodedRow[] = [];
  const problems: RowProblem[] = [];
  rows.forEach((bytes, index) => {
    let obj: Json;
    try {
      const msg = schema.type.decode(bytes);
      obj = schema.type.toObject(msg, {
        longs: String,
        enums: String,
        bytes: String,
        defaults: false,
      }) as Json;
    } catch (e) {
      problems.push({ index, message: `Could not parse the serialized row: ${(e as Error).message}` });
      return;
    }
    const json = jsonRecord(obj, fields);
    const unfilled = fillDefaults(json, fields, missing);
    if (unfilled) {
      problems.push({ index, message: unfilled });
      return;
    }
    const r = convertRow(fields, json, false);
    if ('errors' in r) problems.push({ index, message: r.errors.map((e) => e.message).join('; ') });
    else out.push({ json, values: r.values });
  });
  return { rows: out, problems };
}

/**
 * An append's rows as they go in, or the problem of each bad row: the fast path (write-rows.ts)
 * when it covers the request, else `decodeRows`, which alone reports problems.
 */
export function acceptRows(
  schema: WriterSchema,
  fields: readonly FieldSchema[],
  rows: readonly Uint8Array[],
  missing: MissingValues = NO_MISSING_VALUES,
): { rows: AppendRows; problems: RowProblem[] } {
  const fast = fillsDefaults(fields, missing) ? undefined : fastRows(schema.type, fields)?.(rows);
  if (fast) return { rows: fast, problems: [] };
  const decoded = decodeRows(schema, fields, rows, missing);
  return { rows: decodedRows(decoded.rows), problems: decoded.problems };
}

/** Whether `fillDefaults` may fill a column of `fields` for this append. */
function fillsDefaults(fields: readonly FieldSchema[], missing: MissingValues): boolean {
  for (const f of fields)
    if (
      f.defaultValueExpression !== undefined &&
      (missing.byColumn.get(f.name) ?? missing.otherwise) === 'DEFAULT_VALUE'
    )
      return true;
  return false;
}

/** How an append asks missing columns to be filled (`missing_value_interpretations`). */
export interface MissingValues {
  readonly byColumn: ReadonlyMap<string, MissingValue>;
  readonly otherwise: MissingValue;
}
const NO_MISSING_VALUES: MissingValues = { byColumn: new Map(), otherwise: 'UNSPECIFIED' };

/**
 * The column's default value expression, for the ones the emulator evaluates (a function of
 * BigQuery's without arguments, or a literal); undefined for any other.
 */
function defaultValue(expression: string): { value: unknown } | undefined {
  const e = expression.trim();
  const now = new Date();
  if (/^GENERATE_UUID\(\s*\)$/i.test(e)) return { value: randomUUID() };
  if (/^CURRENT_TIMESTAMP(\(\s*\))?$/i.test(e)) return { value: now.toISOString() };
  if (/^CURRENT_DATE(\(\s*\))?$/i.test(e)) return { value: now.toISOString().slice(0, 10) };
  if (/^CURRENT_DATETIME(\(\s*\))?$/i.test(e)) return { value: now.toISOString().slice(0, 23) };
  if (/^NULL$/i.test(e)) return { value: null };
  if (/^(TRUE|FALSE)$/i.test(e)) return { value: e.toUpperCase() === 'TRUE' };
  if (/^-?\d+(\.\d+)?$/.test(e)) return { value: e };
  const quoted = /^'([^'\\]*)'$|^"([^"\\]*)"$/.exec(e);
  if (quoted) return { value: quoted[1] ?? quoted[2] };
  return undefined;
}

/**
 * Fills the columns a row leaves out whose interpretation is DEFAULT_VALUE with their default
 * value expression (BigQuery's NULL_VALUE, the default, leaves them NULL). Returns the problem
 * when an expression is not one the emulator evaluates.
 */
function fillDefaults(
  json: Json,
  fields: readonly FieldSchema[],
  missing: MissingValues,
): string | undefined {
  for (const f of fields) {
    if (json[f.name] !== undefined && json[f.name] !== null) continue;
    const how = missing.byColumn.get(f.name) ?? missing.otherwise;
    if (how !== 'DEFAULT_VALUE' || f.defaultValueExpression === undefined) continue;
    const d = defaultValue(f.defaultValueExpression);
    if (!d)
      return `The default value expression of ${f.name} (${f.defaultValueExpression}) is not evaluated by the emulator.`;
    json[f.name] = d.value;
  }
  return undefined;
}

/** A row that fits the table: its JSON form and its column values now. */
export interface DecodedRow {
  readonly json: Json;
  readonly values: DuckDBValue[];
}

/** Held rows as the table's columns are now (a column added since is NULL). */
function valuesNow(ref: TableRecord, held: readonly Json[]): DuckDBValue[][] {
  const fields = fieldsOf(ref);
  return held.map((json) => {
    const r = convertRow(fields, json, true);
    if ('errors' in r)
      throw new WriteError('INTERNAL', `A held row no longer fits the table: ${r.errors[0]?.message}`);
    return r.values;
  });
}

// ---------- appends, finalize, commit, flush ----------

/** Where an append goes, decided at once so that appends on one connection keep their order. */
export interface AppendPlan {
  readonly offset: number;
  /** Resolves when the rows are where their stream type puts them (the table, or held). */
  readonly done: Promise<void>;
}

function checkWritable(s: WriteStreamRecord): void {
  if (s.broken) throw s.broken;
  if (s.commitTime !== undefined)
    throw new WriteError('INVALID_ARGUMENT', `Stream already committed. Entity: ${s.name}`, {
      code: 'STREAM_ALREADY_COMMITTED',
      entity: s.name,
    });
  if (s.finalized)
    throw new WriteError('INVALID_ARGUMENT', `Stream is closed. Entity: ${s.name}`, {
      code: 'STREAM_FINALIZED',
      entity: s.name,
    });
}

/** The offset check of an append (BigQuery's words), before anything is decoded. */
export function checkOffset(s: WriteStreamRecord, offset: bigint | undefined): void {
  checkWritable(s);
  if (offset === undefined) return;
  if (isDefault(s))
    throw new WriteError(
      'INVALID_ARGUMENT',
      `The offset is not supported on the default stream (received ${offset}). Entity: ${s.name}`,
    );
  const end = BigInt(s.rowCount);
  if (offset < end)
    throw new WriteError(
      'ALREADY_EXISTS',
      `The offset is within stream, expected offset ${end}, received ${offset}. Entity: ${s.name}`,
      { code: 'OFFSET_ALREADY_EXISTS', entity: s.name },
    );
  if (offset > end)
    throw new WriteError(
      'OUT_OF_RANGE',
      `The offset is beyond stream, expected offset ${end}, received ${offset}. Entity: ${s.name}`,
      { code: 'OFFSET_OUT_OF_RANGE', entity: s.name },
    );
}

/**
 * An append's accepted rows: from the general path, their insertAll JSON form and column values;
 * from the fast path (write-rows.ts), their UTF-8 JSON text in insertAll's prepared form, which
 * goes in by insertAll's text path (row-text.ts).
 */
export type AppendRows = { readonly json: readonly Json[]; readonly values: DuckDBValue[][] } | RowsText;

/** Rows decoded by the general path as an append's rows. */
export const decodedRows = (rows: readonly DecodedRow[]): AppendRows => ({
  json: rows.map((r) => r.json),
  values: rows.map((r) => r.values),
});

const countOf = (rows: AppendRows): number => ('text' in rows ? rows.count : rows.json.length);

/** The fast path's rows as insertAll's JSON (their text is done with). */
function parsedText(rows: RowsText): Json[] {
  const json = JSON.parse(rows.text.toString()) as Json[];
  rows.release();
  return json;
}

/** Appends accepted rows at the stream's end (the offset was checked). */
export function append(em: Emulator, s: WriteStreamRecord, rows: AppendRows): AppendPlan {
  const offset = s.rowCount;
  s.rowCount += countOf(rows);
  if (s.type !== 'COMMITTED') {
    // Held as JSON (converted when they go in): the text reads back as insertAll's form.
    for (const row of 'text' in rows ? parsedText(rows) : rows.json) s.held.push(row);
    return { offset, done: Promise.resolve() };
  }
  return { offset, done: writeInto(em, s, rows) };
}

/** Rows into `ref` as one request of the group commit (tabledata.ts): one transaction. */
async function insertRows(em: Emulator, ref: TableRecord, rows: AppendRows): Promise<void> {
  const ids: undefined[] = new Array(countOf(rows)).fill(undefined);
  try {
    await enqueueInsert(
      em,
      'text' in rows
        ? { ref, ids, rows: [], asText: true, text: rows.text, ignoreUnknown: false }
        : { ref, ids, rows: rows.values, asText: false, values: rows.values, ignoreUnknown: false },
    );
  } finally {
    // Stored or refused, the group commit is done with the text.
    if ('text' in rows) rows.release();
  }
  markStreamed(ref);
}

/** Rows into the stream's table through the group commit; a failure breaks the stream. */
async function writeInto(em: Emulator, s: WriteStreamRecord, rows: AppendRows): Promise<void> {
  if (countOf(rows) === 0) return;
  const ref = tableOr404(em, s.table);
  try {
    await insertRows(em, ref, rows);
  } catch (e) {
    const err = new WriteError(
      'INTERNAL',
      `Rows could not be stored: ${(e as Error).message}. Entity: ${s.name}`,
    );
    s.broken ??= err;
    throw err;
  }
}

export function finalize(s: WriteStreamRecord): number {
  if (isDefault(s))
    throw new WriteError('INVALID_ARGUMENT', `Cannot finalize the default stream. Entity: ${s.name}`, {
      code: 'INVALID_STREAM_TYPE',
      entity: s.name,
    });
  s.finalized = true;
  return s.rowCount;
}

export interface CommitAnswer {
  readonly commitTime: number | undefined;
  readonly streamErrors: { code: StorageErrorCode; entity: string; errorMessage: string }[];
}

/**
 * BatchCommitWriteStreams: every stream PENDING, finalized, of `parent`, not committed yet, and
 * then all their rows in one transaction; any stream that is not is a stream error, and nothing
 * is committed.
 */
export async function batchCommit(
  em: Emulator,
  parent: string,
  names: readonly string[],
): Promise<CommitAnswer> {
  const table = parseTable(parent);
  const ref = tableOr404(em, table);
  if (names.length === 0) throw new WriteError('INVALID_ARGUMENT', `No streams to commit. Entity: ${parent}`);
  const errors: CommitAnswer['streamErrors'] = [];
  const found: WriteStreamRecord[] = [];
  for (const name of names) {
    const s = streams(em).get(name);
    const error = (code: StorageErrorCode, errorMessage: string) =>
      errors.push({ code, entity: name, errorMessage });
    if (!s || !name.startsWith(`${parent}/streams/`))
      error('STREAM_NOT_FOUND', `Stream is not found: ${name}`);
    else if (s.type !== 'PENDING') error('INVALID_STREAM_TYPE', `Stream is not a pending stream: ${name}`);
    else if (s.commitTime !== undefined)
      error('STREAM_ALREADY_COMMITTED', `Stream is already committed: ${name}`);
    else if (!s.finalized) error('INVALID_STREAM_STATE', `Streams must be finalized before commit: ${name}`);
    else found.push(s);
  }
  if (errors.length > 0) return { commitTime: undefined, streamErrors: errors };
  const held = found.flatMap((s) => s.held);
  if (held.length > 0) {
    // One request of the group commit: its rows are appended in one transaction.
    const values = valuesNow(ref, held);
    await insertRows(em, ref, { json: held, values });
  }
  const at = Date.now();
  for (const s of found) {
    s.commitTime = at;
    s.held = [];
  }
  return { commitTime: at, streamErrors: [] };
}

/** FlushRows of a BUFFERED stream: rows up to and including `offset` into the table. */
export async function flushRows(
  em: Emulator,
  s: WriteStreamRecord,
  offset: bigint | undefined,
): Promise<number> {
  if (s.type !== 'BUFFERED')
    throw new WriteError(
      'INVALID_ARGUMENT',
      `Flush is only supported on a BUFFERED stream. Entity: ${s.name}`,
      {
        code: 'INVALID_STREAM_TYPE',
        entity: s.name,
      },
    );
  const to = offset === undefined ? s.rowCount - 1 : Number(offset);
  if (to >= s.rowCount)
    throw new WriteError(
      'OUT_OF_RANGE',
      `The flush offset is beyond stream, expected offset ${s.rowCount - 1} or less, received ${to}. Entity: ${s.name}`,
      { code: 'OFFSET_OUT_OF_RANGE', entity: s.name },
    );
  const count = to + 1 - s.heldFrom;
  if (count > 0) {
    const json = s.held.slice(0, count);
    const values = valuesNow(tableOr404(em, s.table), json);
    s.held = s.held.slice(count);
    s.heldFrom += count;
    await writeInto(em, s, { json, values });
  }
  return to;
}

/** The table's schema as the Write API's `TableSchema` (GetWriteStream's FULL view). */
export function storageSchema(fields: readonly FieldSchema[]): Json[] {
  const TYPES: Record<string, string> = {
    INTEGER: 'INT64',
    FLOAT: 'DOUBLE',
    FLOAT64: 'DOUBLE',
    BOOLEAN: 'BOOL',
    RECORD: 'STRUCT',
  };
  return fields.map((f) => {
    const type = f.type.toUpperCase();
    return {
      name: f.name,
      type: TYPES[type] ?? type,
      mode: (f.mode ?? 'NULLABLE').toUpperCase(),
      fields: storageSchema(f.fields ?? []),
      description: f.description ?? '',
    };
  });
}

export const fieldsOfTable = (em: Emulator, t: TableName): FieldSchema[] => fieldsOf(tableOr404(em, t));
