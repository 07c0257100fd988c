/**
 * Query parameters (jobs.query / jobs.insert `queryParameters`) rendered as DuckDB
 * literals, so the translator can inline them where `@name` or `?` appear.
 */
import { RANGE_ELEMENT_DUCK, RANGE_END, RANGE_ORDER_MESSAGE, RANGE_START, rangeDuckType } from './range.ts';
import { InvalidSqlError, stringLiteral } from './sql.ts';
import { parseTimestampMicros } from './time-text.ts';

interface ParamType {
  type?: string;
  arrayType?: ParamType;
  structTypes?: { name?: string; type?: ParamType }[];
  rangeElementType?: ParamType;
}
interface ParamValue {
  value?: unknown;
  /** A RANGE's bounds; a missing one, or one whose value is missing or `UNBOUNDED`, is open. */
  rangeValue?: { start?: ParamValue; end?: ParamValue };
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
  if (type === 'RANGE') {
    const element = RANGE_ELEMENT_DUCK[String(t?.rangeElementType?.type ?? '').toUpperCase()];
    if (element === undefined)
      throw new InvalidSqlError(
        `Invalid query parameter type for parameter ${name}: a RANGE's element type must be DATE, DATETIME or TIMESTAMP`,
      );
    return rangeDuckType(element);
  }
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
  if (type === 'RANGE') return rangeLiteral(t, v, duck, name);
  if (v?.value === undefined || v.value === null) return `CAST(NULL AS ${duck})`;
  return scalar(type, duck, v.value, name);
}

/** A RANGE parameter: its bounds as values of the element type, checked to be in order. */
function rangeLiteral(
  t: ParamType | undefined,
  v: ParamValue | undefined,
  duck: string,
  name: string,
): string {
  if (!v?.rangeValue) return `CAST(NULL AS ${duck})`;
  const element = t?.rangeElementType;
  const elementType = String(element?.type ?? '').toUpperCase();
  const bound = (b: ParamValue | undefined) =>
    b?.value === undefined || b.value === null || /^UNBOUNDED$/i.test(String(b.value)) ? undefined : b.value;
  const start = bound(v.rangeValue.start);
  const end = bound(v.rangeValue.end);
  const elementDuck = duckTypeOf(element, name);
  if (start !== undefined && end !== undefined) {
    // Both bounds as microseconds (or a date's text, which orders the same) to check start < end.
    const key = (x: unknown) =>
      elementType === 'DATE' ? String(x) : parseTimestampMicros(String(x), elementType === 'TIMESTAMP');
    const [a, b] = [key(start), key(end)];
    if (a !== undefined && b !== undefined && a >= b)
      throw new InvalidSqlError(`${RANGE_ORDER_MESSAGE} (query parameter ${name})`);
  }
  const one = (x: unknown) =>
    x === undefined ? `CAST(NULL AS ${elementDuck})` : scalar(elementType, elementDuck, x, name);
  return `struct_pack("${RANGE_START}" := ${one(start)}, "${RANGE_END}" := ${one(end)})`;
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
