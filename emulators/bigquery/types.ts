/**
 * BigQuery's column types as data, one row each: the name BigQuery answers in a schema, the names
 * tables.insert and SQL type syntax accept for it, its DuckDB column type, the DuckDB result
 * types reported as it, and its JSON wire forms (docs/google-wire.md §4; the code reading and
 * writing them is insert-values.ts and result-encoding.ts). The lookups the schema checks, the
 * SQL translator and the result encoder use are derived from it below.
 */
import { type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';

export interface BigQueryType {
  /** The name BigQuery answers in a schema: the legacy one (INTEGER, FLOAT, BOOLEAN, RECORD). */
  readonly name: string;
  /** The names tables.insert accepts for it (reported back as `name`); none: not a column type. */
  readonly schemaNames: readonly string[];
  /** The names SQL type syntax (CAST, CREATE TABLE's columns) accepts; STRUCT<…> and RANGE<…> are parsed. */
  readonly sqlNames: readonly string[];
  /** Its DuckDB column type; undefined where the field builds it (RECORD's fields, RANGE's element). */
  readonly duck: string | undefined;
  /** The DuckDB types of result columns reported as this type (DECIMAL is NUMERIC, whatever was stored). */
  readonly results: readonly DuckDBTypeId[];
  /** insertAll's JSON for it. */
  readonly insert: string;
  /** Its `v` in query results and tabledata.list. */
  readonly cell: string;
}

export const BIGQUERY_TYPES: readonly BigQueryType[] = [
  {
    name: 'STRING',
    schemaNames: ['STRING'],
    sqlNames: ['STRING'],
    duck: 'VARCHAR',
    results: [DuckDBTypeId.VARCHAR, DuckDBTypeId.STRING_LITERAL],
    insert: 'a string; a number as its text',
    cell: 'the string',
  },
  {
    name: 'BYTES',
    schemaNames: ['BYTES'],
    sqlNames: ['BYTES'],
    duck: 'BLOB',
    results: [DuckDBTypeId.BLOB],
    insert: 'base64 text',
    cell: 'base64 text',
  },
  {
    name: 'INTEGER',
    schemaNames: ['INTEGER', 'INT64'],
    sqlNames: ['INT64', 'INT', 'INTEGER', 'SMALLINT', 'BIGINT', 'TINYINT', 'BYTEINT'],
    duck: 'BIGINT',
    results: [
      DuckDBTypeId.TINYINT,
      DuckDBTypeId.SMALLINT,
      DuckDBTypeId.INTEGER,
      DuckDBTypeId.BIGINT,
      DuckDBTypeId.UTINYINT,
      DuckDBTypeId.USMALLINT,
      DuckDBTypeId.UINTEGER,
      DuckDBTypeId.UBIGINT,
      DuckDBTypeId.HUGEINT,
      DuckDBTypeId.UHUGEINT,
      DuckDBTypeId.SQLNULL,
      DuckDBTypeId.INTEGER_LITERAL,
    ],
    insert: 'an integral number or integer text, within INT64',
    cell: 'decimal text',
  },
  {
    name: 'FLOAT',
    schemaNames: ['FLOAT', 'FLOAT64'],
    sqlNames: ['FLOAT64', 'FLOAT'],
    duck: 'DOUBLE',
    results: [DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE],
    insert: 'a number, or its text, NaN, Infinity or -Infinity',
    cell: "the number's text, NaN",
  },
  {
    name: 'NUMERIC',
    schemaNames: ['NUMERIC', 'DECIMAL'],
    sqlNames: ['NUMERIC', 'DECIMAL'],
    duck: 'DECIMAL(38,9)',
    results: [DuckDBTypeId.DECIMAL],
    insert: 'a number or decimal text, nine fraction digits at most',
    cell: 'decimal text without trailing zeros',
  },
  {
    name: 'BIGNUMERIC',
    schemaNames: ['BIGNUMERIC', 'BIGDECIMAL'],
    sqlNames: ['BIGNUMERIC', 'BIGDECIMAL'],
    duck: 'DECIMAL(38,9)',
    results: [],
    insert: "as NUMERIC (stored as NUMERIC's DuckDB type)",
    cell: 'as NUMERIC',
  },
  {
    name: 'BOOLEAN',
    schemaNames: ['BOOLEAN', 'BOOL'],
    sqlNames: ['BOOL', 'BOOLEAN'],
    duck: 'BOOLEAN',
    results: [DuckDBTypeId.BOOLEAN],
    insert: 'true or false, 1 or 0, or that text',
    cell: 'true or false',
  },
  {
    name: 'TIMESTAMP',
    schemaNames: ['TIMESTAMP'],
    sqlNames: ['TIMESTAMP'],
    duck: 'TIMESTAMPTZ',
    results: [DuckDBTypeId.TIMESTAMP_TZ],
    insert: 'timestamp text (UTC unless it names a zone) or float seconds since the epoch',
    cell: 'float seconds (1.7040672005E9), int64 microseconds or ISO text, as the request asks',
  },
  {
    name: 'DATE',
    schemaNames: ['DATE'],
    sqlNames: ['DATE'],
    duck: 'DATE',
    results: [DuckDBTypeId.DATE],
    insert: 'YYYY-MM-DD',
    cell: 'YYYY-MM-DD',
  },
  {
    name: 'TIME',
    schemaNames: ['TIME'],
    sqlNames: ['TIME'],
    duck: 'TIME',
    results: [DuckDBTypeId.TIME, DuckDBTypeId.TIME_TZ],
    insert: 'HH:MM[:SS[.ffffff]]',
    cell: 'HH:MM:SS[.ffffff]',
  },
  {
    name: 'DATETIME',
    schemaNames: ['DATETIME'],
    sqlNames: ['DATETIME'],
    duck: 'TIMESTAMP',
    results: [
      DuckDBTypeId.TIMESTAMP,
      DuckDBTypeId.TIMESTAMP_S,
      DuckDBTypeId.TIMESTAMP_MS,
      DuckDBTypeId.TIMESTAMP_NS,
    ],
    insert: 'date and time text without a zone',
    cell: 'YYYY-MM-DDTHH:MM:SS[.ffffff]',
  },
  {
    name: 'JSON',
    schemaNames: ['JSON'],
    sqlNames: ['JSON'],
    duck: 'JSON',
    // DuckDB's JSON is a VARCHAR named JSON (`resultTypeName`).
    results: [],
    insert: 'any JSON value, or JSON text',
    cell: 'JSON text',
  },
  {
    name: 'GEOGRAPHY',
    schemaNames: ['GEOGRAPHY'],
    sqlNames: [],
    duck: 'VARCHAR',
    results: [],
    insert: 'text (WKT or GeoJSON), kept as it is',
    cell: 'the text',
  },
  {
    name: 'RECORD',
    schemaNames: ['RECORD', 'STRUCT'],
    sqlNames: [],
    duck: undefined,
    results: [DuckDBTypeId.STRUCT],
    insert: 'an object of its fields',
    cell: '{"f": [{"v": …}, …]} in field order',
  },
  {
    name: 'RANGE',
    schemaNames: ['RANGE'],
    sqlNames: [],
    duck: undefined,
    // A STRUCT of two bounds, told from other STRUCTs by range.ts.
    results: [],
    insert: "'[start, end)' text, or {start, end}; a missing, null or UNBOUNDED bound is open",
    cell: "'[start, end)', an open bound UNBOUNDED",
  },
  {
    name: 'INTERVAL',
    schemaNames: [],
    sqlNames: ['INTERVAL'],
    duck: 'INTERVAL',
    results: [DuckDBTypeId.INTERVAL],
    insert: 'none: not a column type',
    cell: "DuckDB's interval text",
  },
];

/** A schema's type name, any accepted spelling (upper case) → the name BigQuery answers. */
export const SCHEMA_TYPE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  BIGQUERY_TYPES.flatMap((t) => t.schemaNames.map((n) => [n, t.name])),
);

/** A schema type's DuckDB column type, by the name BigQuery answers (not RECORD or RANGE). */
export const COLUMN_DUCK_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  BIGQUERY_TYPES.flatMap((t) => (t.duck !== undefined && t.schemaNames.length > 0 ? [[t.name, t.duck]] : [])),
);

/** A SQL type name without parameters (`INT64`, `STRING`) → its DuckDB type. */
export const SQL_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  BIGQUERY_TYPES.flatMap((t) => t.sqlNames.map((n) => [n, t.duck as string])),
);

const RESULT_TYPE_NAMES = new Map<DuckDBTypeId, string>(
  BIGQUERY_TYPES.flatMap((t) => t.results.map((id) => [id, t.name] as const)),
);

/** The BigQuery type a DuckDB result column of a scalar type is reported as (STRING where none fits). */
export function resultTypeName(t: DuckDBType): string {
  if ((t.typeId === DuckDBTypeId.VARCHAR || t.typeId === DuckDBTypeId.STRING_LITERAL) && t.alias === 'JSON')
    return 'JSON';
  return RESULT_TYPE_NAMES.get(t.typeId) ?? 'STRING';
}
