/**
 * Query parameters (jobs.query / jobs.insert `queryParameters`) rendered as DuckDB
 * literals, so the translator can inline them where `@name` or `?` appear.
 */
import { parseTimestampMicros } from './schema.ts';
import { InvalidSqlError, stringLiteral } from './sql.ts';

interface ParamType {
  type?: string;
  arrayType?: ParamType;
  structTypes?: { name?: string; type?: ParamType }[];
}
interface ParamValue {
  value?: unknown;
  arrayValues?: ParamValue[];
  structValues?: Record<string, ParamValue>;
}
export interface QueryParameter {
  name?: string;
  parameterType?: ParamType;
  parameterValue?: ParamValue;
}

const CAST_TYPES: Record<string, string> = {
  STRING: 'VARCHAR',
  INT64: 'BIGINT',
  INTEGER: 'BIGINT',
  FLOAT64: 'DOUBLE',
  FLOAT: 'DOUBLE',
  NUMERIC: 'DECIMAL(38,9)',
  BIGNUMERIC: 'DECIMAL(38,9)',
  BOOL: 'BOOLEAN',
  BOOLEAN: 'BOOLEAN',
  BYTES: 'BLOB',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATETIME: 'TIMESTAMP',
  DATE: 'DATE',
  TIME: 'TIME',
  JSON: 'JSON',
  GEOGRAPHY: 'VARCHAR',
  INTERVAL: 'INTERVAL',
};

function duckTypeOf(t: ParamType | undefined, name: string): string {
  const type = String(t?.type ?? '').toUpperCase();
  if (type === 'RANGE')
    throw new InvalidSqlError(`Unsupported in the BigQuery emulator: RANGE parameters (${name})`);
  if (type === 'ARRAY') return `${duckTypeOf(t?.arrayType, name)}[]`;
  if (type === 'STRUCT' || type === 'RECORD') {
    const fields = (t?.structTypes ?? []).map(
      (s, i) => `"${s.name ?? `_field_${i + 1}`}" ${duckTypeOf(s.type, name)}`,
    );
    return `STRUCT(${fields.join(', ')})`;
  }
  const mapped = CAST_TYPES[type];
  if (!mapped)
    throw new InvalidSqlError(`Invalid query parameter type ${type || '(missing)'} for parameter ${name}`);
  return mapped;
}

function scalar(type: string, duck: string, value: unknown, name: string): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const bad = () => new InvalidSqlError(`Invalid ${type} value for query parameter ${name}: ${text}`);
  switch (type) {
    case 'INT64':
    case 'INTEGER':
      if (!/^\s*[+-]?\d+\s*$/.test(text)) throw bad();
      return `CAST(${text.trim()} AS BIGINT)`;
    case 'FLOAT64':
    case 'FLOAT':
      if (['NaN', 'Infinity', '-Infinity'].includes(text))
        return `CAST('${text === 'Infinity' ? 'inf' : text === '-Infinity' ? '-inf' : 'nan'}' AS DOUBLE)`;
      if (text.trim() === '' || !Number.isFinite(Number(text))) throw bad();
      return `CAST(${Number(text)} AS DOUBLE)`;
    case 'BOOL':
    case 'BOOLEAN': {
      const t = text.toLowerCase();
      if (t !== 'true' && t !== 'false') throw bad();
      return t;
    }
    case 'TIMESTAMP': {
      const us = parseTimestampMicros(text);
      if (us === undefined) throw bad();
      return `CAST(make_timestamp(CAST(${us} AS BIGINT)) AS TIMESTAMPTZ)`;
    }
    case 'BYTES':
      return `from_base64(${stringLiteral(text)})`;
    case 'STRING':
      // An untyped literal, as BigQuery coerces a STRING parameter where a DATE, DATETIME, TIME or
      // TIMESTAMP is expected (docs/google-wire.md §4); DuckDB reads a bare literal that way too.
      return stringLiteral(text);
    default:
      return `CAST(${stringLiteral(text)} AS ${duck})`;
  }
}

function literal(t: ParamType | undefined, v: ParamValue | undefined, name: string): string {
  const type = String(t?.type ?? '').toUpperCase();
  const duck = duckTypeOf(t, name);
  if (type === 'ARRAY') {
    if (!v || !Array.isArray(v.arrayValues))
      return v?.value === undefined ? `CAST([] AS ${duck})` : `CAST(NULL AS ${duck})`;
    return `CAST([${v.arrayValues.map((item) => literal(t?.arrayType, item, name)).join(', ')}] AS ${duck})`;
  }
  if (type === 'STRUCT' || type === 'RECORD') {
    if (!v?.structValues) return `CAST(NULL AS ${duck})`;
    const parts = (t?.structTypes ?? []).map((s, i) => {
      const key = s.name ?? `_field_${i + 1}`;
      return `"${key}" := ${literal(s.type, v.structValues?.[key], name)}`;
    });
    return `struct_pack(${parts.join(', ')})`;
  }
  if (v?.value === undefined || v.value === null) return `CAST(NULL AS ${duck})`;
  return scalar(type, duck, v.value, name);
}

/** Renders query parameters as DuckDB literals; throws InvalidSqlError for malformed ones. */
export function renderParameters(
  params: readonly QueryParameter[] | undefined,
  mode: string | undefined,
): { named: Record<string, string>; positional: string[] } {
  const named: Record<string, string> = {};
  const positional: string[] = [];
  for (const [i, p] of (params ?? []).entries()) {
    const label = p.name ?? `#${i + 1}`;
    const lit = literal(p.parameterType, p.parameterValue, label);
    if (String(mode ?? (p.name ? 'NAMED' : 'POSITIONAL')).toUpperCase() === 'NAMED') {
      if (!p.name) throw new InvalidSqlError('Named query parameters must have a name');
      named[p.name] = lit;
      named[p.name.toLowerCase()] = lit;
    } else {
      positional.push(lit);
    }
  }
  return { named, positional };
}
