/**
 * insertAll rows → column values in schema order, or every error BigQuery would answer for the
 * row. Two paths that must agree: the generic walk (field names matched case-insensitively,
 * unknown fields, REQUIRED and REPEATED checks, each value through insert-values.ts), which
 * alone decides errors; and a fast path compiled once per schema for the well-formed rows of a
 * streaming load, which gives up on anything else rather than answer differently. Pure.
 */
import { type DuckDBValue, listValue, structValue, timestampTZValue } from '@duckdb/node-api';
import { ConvertError, convertScalar } from './insert-values.ts';
import { type FieldSchema, isPicoTimestamp } from './schema.ts';
import { canonicalTimestampMicros } from './time-text.ts';

export interface RowError {
  reason: string;
  location: string;
  message: string;
  debugInfo?: string;
}

// The generic walk.

interface CompiledFields {
  exact: Set<string>;
  lower: Set<string>;
}
const compiledCache = new WeakMap<readonly FieldSchema[], CompiledFields>();

function compiled(fields: readonly FieldSchema[]): CompiledFields {
  let c = compiledCache.get(fields);
  if (!c) {
    c = {
      exact: new Set(fields.map((f) => f.name)),
      lower: new Set(fields.map((f) => f.name.toLowerCase())),
    };
    compiledCache.set(fields, c);
  }
  return c;
}

function convertRecord(
  fields: readonly FieldSchema[],
  obj: unknown,
  path: string,
  ignoreUnknown: boolean,
  errors: RowError[],
): Record<string, DuckDBValue> | undefined {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    const where = path.replace(/\.$/, '');
    errors.push({
      reason: 'invalid',
      location: where,
      message: where ? `This field: ${where} is not a record.` : 'The row is not a JSON object.',
    });
    return undefined;
  }
  const input = obj as Record<string, unknown>;
  const c = compiled(fields);
  // Fast path: every key names a field exactly (the usual case for generated rows).
  let exact = true;
  for (const key in input) {
    if (!c.exact.has(key)) {
      exact = false;
      break;
    }
  }
  let lookup: (f: FieldSchema) => unknown = (f) => (Object.hasOwn(input, f.name) ? input[f.name] : undefined);
  if (!exact) {
    const lowerInput = new Map<string, unknown>();
    for (const [k, v] of Object.entries(input)) {
      const lower = k.toLowerCase();
      if (!c.lower.has(lower)) {
        if (!ignoreUnknown) {
          const loc = `${path}${k}`;
          errors.push({ reason: 'invalid', location: loc, message: `no such field: ${loc}.` });
        }
        continue;
      }
      lowerInput.set(lower, v);
    }
    lookup = (f) => lowerInput.get(f.name.toLowerCase());
  }
  // No prototype: a field may be called __proto__ or constructor.
  const out: Record<string, DuckDBValue> = Object.create(null);
  for (const f of fields) {
    const loc = `${path}${f.name}`;
    out[f.name] = convertField(f, lookup(f), loc, ignoreUnknown, errors);
  }
  return out;
}

function convertField(
  f: FieldSchema,
  v: unknown,
  loc: string,
  ignoreUnknown: boolean,
  errors: RowError[],
): DuckDBValue {
  if (f.mode === 'REPEATED') {
    if (v === undefined || v === null) return listValue([]);
    if (!Array.isArray(v)) {
      errors.push({
        reason: 'invalid',
        location: loc,
        message: `Field ${loc} is REPEATED but the value is not an array.`,
      });
      return null;
    }
    const items: DuckDBValue[] = [];
    for (const [k, item] of v.entries()) {
      if (item === null) {
        errors.push({
          reason: 'invalid',
          location: `${loc}[${k}]`,
          message: `Array ${loc} cannot have a null element.`,
        });
        continue;
      }
      items.push(convertOne(f, item, `${loc}[${k}]`, ignoreUnknown, errors));
    }
    return listValue(items);
  }
  if (v === undefined || v === null) {
    if (f.mode === 'REQUIRED')
      errors.push({ reason: 'invalid', location: loc, message: `Missing required field: ${loc}.` });
    return null;
  }
  return convertOne(f, v, loc, ignoreUnknown, errors);
}

function convertOne(
  f: FieldSchema,
  v: unknown,
  loc: string,
  ignoreUnknown: boolean,
  errors: RowError[],
): DuckDBValue {
  if (f.type === 'RECORD') {
    const rec = convertRecord(f.fields ?? [], v, `${loc}.`, ignoreUnknown, errors);
    return rec ? structValue(rec) : null;
  }
  try {
    return convertScalar(f, v, loc);
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    errors.push({ reason: 'invalid', location: e.location, message: e.message });
    return null;
  }
}

// ---------------------------------------------------------------------------
// The compiled fast path: one closure per field, built once per schema. It handles the
// well-formed rows of a streaming load (exact field names, values of the column's own
// JSON type, canonical timestamps) and gives up on anything else, which then takes the
// generic walk above: that walk alone decides errors, so both give the same answers.

/** Returned by a compiled converter that met something only the generic path handles. */
const BAIL: unique symbol = Symbol('bail');
type Converter = (v: unknown) => DuckDBValue | typeof BAIL;

const compiledRows = new WeakMap<readonly FieldSchema[], (json: unknown) => DuckDBValue[] | undefined>();

function compileScalar(f: FieldSchema): Converter {
  // A picosecond timestamp's text comes from the generic conversion (below, in `default`).
  switch (isPicoTimestamp(f) ? 'PICO_TIMESTAMP' : f.type) {
    case 'STRING':
    case 'GEOGRAPHY':
      return (v) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : BAIL);
    case 'INTEGER':
      return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : BAIL);
    case 'FLOAT':
      return (v) => (typeof v === 'number' ? v : BAIL);
    case 'BOOLEAN':
      return (v) => (typeof v === 'boolean' ? v : BAIL);
    case 'TIMESTAMP':
      return (v) => {
        if (typeof v !== 'string') return BAIL;
        const us = canonicalTimestampMicros(v);
        return us === undefined ? BAIL : timestampTZValue(us);
      };
    case 'JSON':
      return (v) => {
        if (typeof v !== 'string') return JSON.stringify(v);
        try {
          JSON.parse(v);
          return v;
        } catch {
          return BAIL;
        }
      };
    case 'RECORD': {
      const rec = compileRecord(f.fields ?? []);
      return (v) => {
        const out = rec(v);
        return out === BAIL ? BAIL : structValue(out);
      };
    }
    default:
      return (v) => {
        try {
          return convertScalar(f, v, '');
        } catch {
          return BAIL;
        }
      };
  }
}

function compileField(f: FieldSchema): Converter {
  const one = compileScalar(f);
  if (f.mode === 'REPEATED')
    return (v) => {
      if (v === undefined || v === null) return listValue([]);
      if (!Array.isArray(v)) return BAIL;
      const items: DuckDBValue[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item === null || item === undefined) return BAIL;
        const out = one(item);
        if (out === BAIL) return BAIL;
        items[i] = out;
      }
      return listValue(items);
    };
  const required = f.mode === 'REQUIRED';
  return (v) => (v === undefined || v === null ? (required ? BAIL : null) : one(v));
}

function compileRecord(
  fields: readonly FieldSchema[],
): (v: unknown) => Record<string, DuckDBValue> | typeof BAIL {
  const names = fields.map((f) => f.name);
  const exact = new Set(names);
  const converters = fields.map(compileField);
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return BAIL;
    const input = v as Record<string, unknown>;
    for (const k in input) if (!exact.has(k)) return BAIL;
    // No prototype: a field may be called __proto__ or constructor.
    const out: Record<string, DuckDBValue> = Object.create(null);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const value = (converters[i] as Converter)(Object.hasOwn(input, name) ? input[name] : undefined);
      if (value === BAIL) return BAIL;
      out[name] = value;
    }
    return out;
  };
}

function compiledRow(fields: readonly FieldSchema[]): (json: unknown) => DuckDBValue[] | undefined {
  let row = compiledRows.get(fields);
  if (!row) {
    const names = fields.map((f) => f.name);
    const exact = new Set(names);
    const converters = fields.map(compileField);
    row = (json) => {
      if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
      const input = json as Record<string, unknown>;
      for (const k in input) if (!exact.has(k)) return undefined;
      const values: DuckDBValue[] = new Array(names.length);
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string;
        const value = (converters[i] as Converter)(Object.hasOwn(input, name) ? input[name] : undefined);
        if (value === BAIL) return undefined;
        values[i] = value;
      }
      return values;
    };
    compiledRows.set(fields, row);
  }
  return row;
}

/** Converts one insertAll row to column values in schema order, or returns its errors. */
export function convertRow(
  fields: readonly FieldSchema[],
  json: unknown,
  ignoreUnknown: boolean,
): { values: DuckDBValue[] } | { errors: RowError[] } {
  const values = compiledRow(fields)(json);
  if (values) return { values };
  return convertRowGeneric(fields, json, ignoreUnknown);
}

/** The generic conversion, which also reports every error (exported for tests of the fast path). */
export function convertRowGeneric(
  fields: readonly FieldSchema[],
  json: unknown,
  ignoreUnknown: boolean,
): { values: DuckDBValue[] } | { errors: RowError[] } {
  const errors: RowError[] = [];
  const rec = convertRecord(fields, json, '', ignoreUnknown, errors);
  if (errors.length > 0 || !rec) return { errors };
  return { values: fields.map((f) => rec[f.name] ?? null) };
}
