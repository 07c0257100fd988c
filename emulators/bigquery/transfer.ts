/**
 * Load and extract jobs, between BigQuery tables and files: CSV and NEWLINE_DELIMITED_JSON.
 * - Load (`configuration.load`): from Cloud Storage objects (`gs://bucket/name`, one `*` allowed)
 *   read from the Storage emulator at `STORAGE_EMULATOR_HOST` (the variable Google's client reads),
 *   or from a file uploaded with the job (`table.load(path)`, the client's multipart upload). Every
 *   row is checked as insertAll checks it before any is written (a load is all or nothing, and a bad
 *   row fails the job naming it); `writeDisposition` WRITE_APPEND (a load's default), WRITE_EMPTY or
 *   WRITE_TRUNCATE; the table is created from `schema`, or from `autodetect`, unless CREATE_NEVER.
 * - Extract (`configuration.extract`): a table's rows written to one object per destination URI
 *   (the first URI; a `*` becomes `000000000000`), CSV with a header row (`printHeader`) or one JSON
 *   object a line (INT64 as strings, as BigQuery exports them); rows still in the streaming buffer
 *   are left out, as BigQuery's export leaves them out (streaming-buffer.ts).
 * Other formats (Avro, Parquet, ORC, Datastore backups) and compression are refused by name.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import Papa from 'papaparse';
import type { Access } from './access.ts';
import { jobTableRef } from './copy.ts';
import { ApiError } from './errors.ts';
import { convertRow } from './insert-rows.ts';
import { createShadows, planMasking } from './masking.ts';
import { type Cell, encodeValue, type OutputField } from './result-encoding.ts';
import { type FieldSchema, normaliseSchema } from './schema.ts';
import { qualifiedName } from './sql.ts';
import { type Emulator, fieldsOf, type Json } from './state.ts';
import { checkTablesExist, runSql } from './statements.ts';
import { releaseSettled, settledRows } from './streaming-buffer.ts';
import { enqueueInsert } from './tabledata.ts';
import { insertTable } from './tables.ts';

const FORMATS = new Set(['CSV', 'NEWLINE_DELIMITED_JSON']);

/** The temporary table an extract reads a table's settled rows from. */
const SETTLED = '_eventbus_extract_settled';

/** The file format a job names (CSV by default); compression and other formats are refused. */
function format(cfg: Json, key: 'sourceFormat' | 'destinationFormat'): string {
  const f = String(cfg[key] ?? 'CSV').toUpperCase();
  if (!FORMATS.has(f))
    throw new ApiError(
      'invalid',
      `Unsupported in the BigQuery emulator: ${key} ${f} (only CSV and NEWLINE_DELIMITED_JSON)`,
    );
  if (cfg['compression'] !== undefined && String(cfg['compression']).toUpperCase() !== 'NONE')
    throw new ApiError(
      'invalid',
      `Unsupported in the BigQuery emulator: compression ${String(cfg['compression'])}`,
    );
  return f;
}

/** The Storage emulator's JSON API base (`STORAGE_EMULATOR_HOST`, as Google's client reads it). */
function storageBase(): string {
  const host = process.env['STORAGE_EMULATOR_HOST'];
  if (!host)
    throw new ApiError(
      'invalid',
      'Cloud Storage URIs need the Storage emulator: start the BigQuery emulator with STORAGE_EMULATOR_HOST set',
    );
  const base = host.includes('://') ? host : `http://${host}`;
  return `${base.replace(/\/+$/, '')}/storage/v1`;
}

function gsUri(uri: unknown): { bucket: string; name: string } {
  const m = typeof uri === 'string' ? /^gs:\/\/([^/]+)\/(.+)$/.exec(uri) : null;
  if (!m) throw new ApiError('invalid', `Invalid Cloud Storage URI: ${String(uri)}`);
  return { bucket: m[1] as string, name: m[2] as string };
}

async function storageCall(url: string, init?: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new ApiError('invalid', `The Storage emulator did not answer (${(e as Error).message})`);
  }
  if (res.status === 404)
    throw new ApiError('notFound', `Not found: URI ${decodeURIComponent(new URL(url).pathname)}`);
  if (!res.ok)
    throw new ApiError('invalid', `The Storage emulator answered ${res.status}: ${await res.text()}`);
  return res;
}

/** The objects a source URI names: itself, or with one `*` every object matching it. */
async function readSources(uris: readonly unknown[]): Promise<Buffer[]> {
  const base = storageBase();
  const out: Buffer[] = [];
  for (const uri of uris) {
    const { bucket, name } = gsUri(uri);
    const star = name.indexOf('*');
    const names: string[] = [];
    if (star < 0) names.push(name);
    else {
      const prefix = name.slice(0, star);
      const suffix = name.slice(star + 1);
      let token = '';
      do {
        const q = new URLSearchParams({ prefix, ...(token ? { pageToken: token } : {}) });
        const page = (await (await storageCall(`${base}/b/${encodeURIComponent(bucket)}/o?${q}`)).json()) as {
          items?: { name: string }[];
          nextPageToken?: string;
        };
        for (const item of page.items ?? []) if (item.name.endsWith(suffix)) names.push(item.name);
        token = page.nextPageToken ?? '';
      } while (token);
      if (names.length === 0) throw new ApiError('notFound', `Not found: URI ${String(uri)}`);
    }
    for (const n of names) {
      const res = await storageCall(
        `${base}/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(n)}?alt=media`,
      );
      out.push(Buffer.from(await res.arrayBuffer()));
    }
  }
  return out;
}

/** Rows of a CSV file as JSON objects by the schema's column order; empty values are NULL. */
function csvRows(text: string, cfg: Json, fields: readonly FieldSchema[]): Json[] {
  const parsed = Papa.parse<string[]>(text, {
    delimiter: String(cfg['fieldDelimiter'] ?? ','),
    quoteChar: String(cfg['quote'] ?? '"'),
    skipEmptyLines: true,
  });
  const skip = Number(cfg['skipLeadingRows'] ?? 0) || 0;
  const nullMarker = typeof cfg['nullMarker'] === 'string' ? cfg['nullMarker'] : '';
  return parsed.data.slice(skip).map((cells, line) => {
    if (
      cells.length > fields.length &&
      cfg['allowJaggedRows'] !== true &&
      cfg['ignoreUnknownValues'] !== true
    )
      throw new ApiError(
        'invalid',
        `Error while reading data, error message: CSV table references column position ${fields.length}, but line ${line + skip + 1} contains ${cells.length} columns.`,
      );
    const row: Json = {};
    fields.forEach((f, i) => {
      const v = cells[i];
      row[f.name] = v === undefined || v === nullMarker ? null : v;
    });
    return row;
  });
}

function jsonRows(text: string): Json[] {
  return text
    .split(/\r?\n/)
    .map((line, i) => [line.trim(), i] as const)
    .filter(([line]) => line !== '')
    .map(([line, i]) => {
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
        return v as Json;
      } catch (e) {
        throw new ApiError(
          'invalid',
          `Error while reading data, error message: JSON parsing error in row starting at line ${i + 1}: ${(e as Error).message}`,
        );
      }
    });
}

/** A schema guessed from values (`autodetect`), as BigQuery's detection would type them. */
function detect(rows: readonly Json[]): FieldSchema[] {
  const names = new Map<string, unknown[]>();
  for (const r of rows) for (const [k, v] of Object.entries(r)) names.set(k, [...(names.get(k) ?? []), v]);
  return [...names].map(([name, values]) => detectField(name, values));
}

function detectField(name: string, values: readonly unknown[]): FieldSchema {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.some(Array.isArray)) {
    const inner = detectField(
      name,
      present.flatMap((v) => (Array.isArray(v) ? v : [v])),
    );
    return { ...inner, mode: 'REPEATED' };
  }
  if (present.length > 0 && present.every((v) => typeof v === 'object'))
    return { name, type: 'RECORD', mode: 'NULLABLE', fields: detect(present as Json[]) };
  const texts = present.map((v) => (typeof v === 'string' ? v.trim() : v));
  const all = (test: (v: unknown) => boolean) => texts.length > 0 && texts.every(test);
  const type = all((v) => typeof v === 'boolean' || /^(true|false)$/i.test(String(v)))
    ? 'BOOLEAN'
    : all((v) => /^[+-]?\d{1,18}$/.test(String(v)))
      ? 'INTEGER'
      : all((v) => typeof v === 'number' || /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(String(v)))
        ? 'FLOAT'
        : all((v) =>
              /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?( ?(UTC|Z|[+-]\d{2}:?\d{2}))$/.test(String(v)),
            )
          ? 'TIMESTAMP'
          : all((v) => /^\d{4}-\d{2}-\d{2}$/.test(String(v)))
            ? 'DATE'
            : 'STRING';
  return { name, type, mode: 'NULLABLE' };
}

/**
 * Runs a load configuration over the files' bytes (`data`, an upload) or its `sourceUris`; the
 * number of rows loaded. A job that names its location loads only into datasets there.
 */
export async function loadTable(
  em: Emulator,
  projectId: string,
  cfg: Json,
  data: Buffer | undefined,
  location: string | undefined,
): Promise<number> {
  const fmt = format(cfg, 'sourceFormat');
  const dest = jobTableRef(cfg['destinationTable'], projectId, 'destinationTable');
  const write = String(cfg['writeDisposition'] ?? 'WRITE_APPEND').toUpperCase();
  const create = String(cfg['createDisposition'] ?? 'CREATE_IF_NEEDED').toUpperCase();
  if (!['WRITE_EMPTY', 'WRITE_TRUNCATE', 'WRITE_APPEND'].includes(write))
    throw new ApiError('invalid', `Invalid writeDisposition ${write}`);
  em.datasetOr404(dest.projectId, dest.datasetId);
  const dataset = em.store.dataset(dest.projectId, dest.datasetId);
  const where = dataset?.resource['location'];
  if (location && typeof where === 'string' && where.toUpperCase() !== location.toUpperCase())
    throw new ApiError(
      'notFound',
      `Not found: Dataset ${dest.projectId}:${dest.datasetId} was not found in location ${location}`,
    );
  const files =
    data !== undefined
      ? [data]
      : await readSources(Array.isArray(cfg['sourceUris']) ? cfg['sourceUris'] : []);
  if (files.length === 0) throw new ApiError('required', 'Required parameter is missing: sourceUris');
  const given = (cfg['schema'] as Json | undefined)?.['fields'];
  let table = em.store.table(dest.projectId, dest.datasetId, dest.tableId);
  let fields: FieldSchema[] | undefined = table ? fieldsOf(table) : undefined;
  if (!fields && given !== undefined) {
    const n = normaliseSchema(given);
    if (typeof n === 'string') throw new ApiError('invalid', n);
    fields = n;
  }
  const texts = files.map((f) => f.toString('utf8'));
  let rows: Json[];
  if (fmt === 'NEWLINE_DELIMITED_JSON') {
    rows = texts.flatMap(jsonRows);
    fields ??= cfg['autodetect'] === true ? detect(rows) : undefined;
  } else {
    if (!fields && cfg['autodetect'] === true) {
      // Column names from a header line when rows are skipped, else string_field_<n>.
      const skip = Number(cfg['skipLeadingRows'] ?? 0) || 0;
      const probe = Papa.parse<string[]>(texts[0] ?? '', {
        skipEmptyLines: true,
        delimiter: String(cfg['fieldDelimiter'] ?? ','),
      }).data;
      const header = skip > 0 ? (probe[0] ?? []) : (probe[0] ?? []).map((_, i) => `string_field_${i}`);
      const blank = header.map((name) => ({ name, type: 'STRING', mode: 'NULLABLE' }) as FieldSchema);
      fields = detect(texts.flatMap((t) => csvRows(t, cfg, blank)));
    }
    if (!fields)
      throw new ApiError(
        'invalid',
        `No schema specified on job or table ${dest.projectId}:${dest.datasetId}.${dest.tableId}.`,
      );
    const f = fields;
    rows = texts.flatMap((t) => csvRows(t, cfg, f));
  }
  if (!fields)
    throw new ApiError(
      'invalid',
      `No schema specified on job or table ${dest.projectId}:${dest.datasetId}.${dest.tableId}.`,
    );
  const ignoreUnknown = cfg['ignoreUnknownValues'] === true;
  const values: DuckDBValue[][] = rows.map((row, i) => {
    const r = convertRow(fields as FieldSchema[], row, ignoreUnknown);
    if ('errors' in r) {
      const first = r.errors[0];
      throw new ApiError(
        'invalid',
        `Error while reading data, error message: row ${i + 1}: ${first?.location ? `${first.location}: ` : ''}${first?.message ?? 'invalid row'}`,
      );
    }
    return r.values;
  });
  if (!table) {
    if (create === 'CREATE_NEVER')
      throw new ApiError('notFound', `Not found: Table ${dest.projectId}:${dest.datasetId}.${dest.tableId}`);
    await insertTable(em, dest.projectId, dest.datasetId, {
      tableReference: { tableId: dest.tableId },
      schema: { fields },
    });
    table = em.tableOr404(dest.projectId, dest.datasetId, dest.tableId);
  } else if (write !== 'WRITE_APPEND') {
    const t = table;
    await em.store.exclusive(async (conn) => {
      if (write === 'WRITE_TRUNCATE') await conn.run(`DELETE FROM ${qualifiedName(t)}`);
      else if (
        Number(
          (await conn.runAndReadAll(`SELECT COUNT(*) FROM ${qualifiedName(t)}`)).getRows()[0]?.[0] ?? 0,
        ) > 0
      )
        throw new ApiError(
          'duplicate',
          `Already Exists: Table ${dest.projectId}:${dest.datasetId}.${dest.tableId} is not empty (writeDisposition WRITE_EMPTY)`,
        );
    });
  }
  if (values.length > 0)
    await enqueueInsert(em, {
      ref: table,
      ids: values.map(() => undefined),
      rows,
      asText: false,
      values,
      ignoreUnknown,
    });
  return values.length;
}

/** A stored field with BigQuery's legacy type names (INTEGER, FLOAT, BOOLEAN, RECORD), as results name them. */
function legacy(f: FieldSchema): OutputField {
  const names: Record<string, string> = {
    INT64: 'INTEGER',
    FLOAT64: 'FLOAT',
    BOOL: 'BOOLEAN',
    STRUCT: 'RECORD',
  };
  const type = String(f.type).toUpperCase();
  return {
    name: f.name,
    type: names[type] ?? type,
    mode: f.mode ?? 'NULLABLE',
    ...(f.fields ? { fields: f.fields.map(legacy) } : {}),
  };
}

/** A cell of an extracted row: CSV text, or the JSON value BigQuery exports (INT64 as a string). */
function exported(cell: Cell, f: OutputField, json: boolean): unknown {
  if (cell === null) return null;
  if (f.mode === 'REPEATED' && Array.isArray(cell))
    return (cell as { v: Cell }[]).map((c) => exported(c.v, { ...f, mode: 'NULLABLE' }, json));
  if (f.type === 'RECORD' && typeof cell === 'object' && 'f' in cell) {
    const out: Json = {};
    (f.fields ?? []).forEach((sub, i) => {
      out[sub.name] = exported(cell.f[i]?.v ?? null, sub, json);
    });
    return json ? out : JSON.stringify(out);
  }
  const text = String(cell);
  if (f.type === 'TIMESTAMP') return text.replace('T', ' ').replace(/Z$/, ' UTC');
  if (!json) return text;
  if (f.type === 'FLOAT') return Number(text);
  if (f.type === 'BOOLEAN') return text === 'true';
  return text;
}

/** Runs an extract configuration; the number of rows written. */
export async function extractTable(
  em: Emulator,
  projectId: string,
  cfg: Json,
  location: string | undefined,
  access?: Access,
): Promise<number> {
  const fmt = format(cfg, 'destinationFormat');
  const src = jobTableRef(cfg['sourceTable'], projectId, 'sourceTable');
  checkTablesExist(em, [src], undefined, location);
  // Exported as the caller reads it: masked for a Masked Reader (BigQuery's data export).
  const all = `SELECT * FROM ${qualifiedName(src)}`;
  const masking = planMasking(em, access, all, {
    kind: 'select',
    sql: all,
    tables: [src],
    informationSchema: [],
  });
  const uris = Array.isArray(cfg['destinationUris']) ? cfg['destinationUris'] : [cfg['destinationUri']];
  if (uris.length === 0 || uris[0] === undefined)
    throw new ApiError('required', 'Required parameter is missing: destinationUris');
  const r = await em.store.exclusive(async (conn) => {
    const table = qualifiedName(src);
    const settled = await settledRows(em, conn, em.tableOr404(src.projectId, src.datasetId, src.tableId));
    if (settled === table) {
      await createShadows(conn, masking);
      return runSql(em, conn, masking.sql);
    }
    // Rows still in the streaming buffer are not exported (as BigQuery): the table holds only its
    // settled rows for the read, in a transaction rolled back after it, so masking applies as usual.
    await conn.run('BEGIN');
    try {
      await conn.run(`CREATE OR REPLACE TEMP TABLE ${SETTLED} AS SELECT * FROM ${settled}`);
      await conn.run(`DELETE FROM ${table}`);
      await conn.run(`INSERT INTO ${table} SELECT * FROM temp.main.${SETTLED}`);
      await createShadows(conn, masking);
      return await runSql(em, conn, masking.sql);
    } finally {
      await conn.run('ROLLBACK');
      await releaseSettled(conn);
    }
  });
  const types = r.columnTypes();
  const fields = fieldsOf(em.tableOr404(src.projectId, src.datasetId, src.tableId)).map(legacy);
  const rows = r
    .getRows()
    .map((row) =>
      row.map((v, i) =>
        exported(encodeValue(v, types[i] as never, 'iso'), fields[i] as OutputField, fmt !== 'CSV'),
      ),
    );
  let body: string;
  if (fmt === 'CSV') {
    const header = cfg['printHeader'] !== false;
    body = Papa.unparse(
      { fields: header ? fields.map((f) => f.name) : [], data: rows as unknown[][] },
      {
        delimiter: String(cfg['fieldDelimiter'] ?? ','),
        header,
        newline: '\n',
      },
    );
    if (body !== '') body += '\n';
  } else {
    body = rows
      .map((row) => JSON.stringify(Object.fromEntries(fields.map((f, i) => [f.name, row[i]]))))
      .join('\n');
    if (body !== '') body += '\n';
  }
  const base = storageBase();
  // Every row goes to the first URI (BigQuery may shard a large table over several files).
  for (const uri of uris.slice(0, 1)) {
    const { bucket, name } = gsUri(uri);
    const q = new URLSearchParams({ uploadType: 'media', name: name.replace('*', '000000000000') });
    await storageCall(
      `${base.replace(/\/storage\/v1$/, '/upload/storage/v1')}/b/${encodeURIComponent(bucket)}/o?${q}`,
      {
        method: 'POST',
        headers: { 'content-type': fmt === 'CSV' ? 'text/csv' : 'application/json' },
        body,
      },
    );
  }
  return rows.length;
}
