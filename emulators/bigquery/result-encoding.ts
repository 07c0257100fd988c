/**
 * Query results in BigQuery's REST forms (docs/google-wire.md §4): the schema field of a DuckDB
 * result column (types.ts says which BigQuery type each DuckDB type is reported as), and each
 * value as its `{v: …}` cell, timestamps in the output format asked for. Pure.
 */
import {
  type DuckDBListType,
  type DuckDBStructType,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
} from '@duckdb/node-api';
import { rangeElementOf } from './range.ts';
import { type FieldSchema, isPicoTimestamp } from './schema.ts';
import { civilFromMicros, parseTimestampMicros, timeText } from './time-text.ts';
import { resultTypeName } from './types.ts';

export interface OutputField {
  name: string;
  type: string;
  mode: string;
  fields?: OutputField[];
  rangeElementType?: { type: string };
}

/** BigQuery schema field for a DuckDB result column. */
export function fieldForType(name: string, t: DuckDBType): OutputField {
  if (t.typeId === DuckDBTypeId.LIST || t.typeId === DuckDBTypeId.ARRAY) {
    const inner = fieldForType(name, (t as DuckDBListType).valueType);
    return { ...inner, mode: 'REPEATED' };
  }
  const element = rangeElementOf(t);
  if (element !== undefined)
    return { name, type: 'RANGE', mode: 'NULLABLE', rangeElementType: { type: element } };
  if (t.typeId === DuckDBTypeId.STRUCT) {
    const st = t as DuckDBStructType;
    return {
      name,
      type: 'RECORD',
      mode: 'NULLABLE',
      fields: st.entryNames.map((n, i) => fieldForType(n, st.entryTypes[i] as DuckDBType)),
    };
  }
  return { name, type: resultTypeName(t), mode: 'NULLABLE' };
}

export type TimestampFormat = 'int64' | 'float' | 'iso';

/** A cell in the REST `{v: …}` form: strings, nested `{f:[…]}` records, `[{v:…}]` arrays. */
export type Cell = string | null | { f: { v: Cell }[] } | { v: Cell }[];

function decimalText(value: bigint, scale: number): string {
  const neg = value < 0n;
  const digits = (neg ? -value : value).toString().padStart(scale + 1, '0');
  let intPart = digits.slice(0, digits.length - scale);
  let frac = scale > 0 ? digits.slice(digits.length - scale).replace(/0+$/, '') : '';
  if (intPart === '') intPart = '0';
  if (frac) frac = `.${frac}`;
  return `${neg ? '-' : ''}${intPart}${frac}`;
}

/** Encodes one DuckDB value for the REST response. */
export function encodeValue(v: DuckDBValue, t: DuckDBType, tsFormat: TimestampFormat): Cell {
  if (v === null) return null;
  switch (t.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const inner = (t as DuckDBListType).valueType;
      const items = (v as { items: readonly DuckDBValue[] }).items;
      return items.map((item) => ({ v: encodeValue(item, inner, tsFormat) }));
    }
    case DuckDBTypeId.STRUCT: {
      const st = t as DuckDBStructType;
      const entries = (v as { entries: Readonly<Record<string, DuckDBValue>> }).entries;
      // A RANGE in BigQuery's text, each bound as a value of its type is encoded (a TIMESTAMP in
      // the format asked), an open one UNBOUNDED.
      if (rangeElementOf(t) !== undefined) {
        const bound = (k: number) =>
          encodeValue(
            entries[st.entryNames[k] as string] ?? null,
            st.entryTypes[k] as DuckDBType,
            tsFormat,
          ) ?? 'UNBOUNDED';
        return `[${bound(0)}, ${bound(1)})`;
      }
      return {
        f: st.entryNames.map((n, i) => ({
          v: encodeValue(entries[n] ?? null, st.entryTypes[i] as DuckDBType, tsFormat),
        })),
      };
    }
    case DuckDBTypeId.BOOLEAN:
      return v ? 'true' : 'false';
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.FLOAT: {
      const n = v as number;
      if (Number.isNaN(n)) return 'NaN';
      return String(n);
    }
    case DuckDBTypeId.DECIMAL: {
      const d = v as { value: bigint; scale: number };
      return decimalText(d.value, d.scale);
    }
    case DuckDBTypeId.BLOB:
      return Buffer.from((v as { bytes: Uint8Array }).bytes).toString('base64');
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const us = (v as { micros: bigint }).micros;
      if (tsFormat === 'int64') return us.toString();
      if (tsFormat === 'iso') {
        const c = civilFromMicros(us);
        return `${c.date}T${c.time}Z`;
      }
      // Float seconds, as BigQuery sends without useInt64Timestamp, in its notation (1.7040672005E9).
      return javaDouble(Number(us) / 1e6);
    }
    case DuckDBTypeId.TIMESTAMP: {
      const c = civilFromMicros((v as { micros: bigint }).micros);
      return `${c.date}T${c.time}`;
    }
    case DuckDBTypeId.TIME:
      return timeText((v as { micros: bigint }).micros);
    case DuckDBTypeId.DATE:
      return String(v);
    default:
      return typeof v === 'object' ? String(v) : String(v);
  }
}

/**
 * `encodeValue` for a column of a table, whose schema says which values are picosecond
 * timestamps (stored as text, at any depth): those are answered as the format asks, FLOAT64 and
 * INT64 with microseconds (the digits below are dropped), ISO8601_STRING with all twelve.
 */
export function encodeColumn(v: DuckDBValue, f: FieldSchema, t: DuckDBType, tsFormat: TimestampFormat): Cell {
  if (v === null || !hasPicoTimestamp(f)) return encodeValue(v, t, tsFormat);
  if (f.mode === 'REPEATED') {
    const inner = (t as DuckDBListType).valueType;
    const one: FieldSchema = { ...f, mode: 'NULLABLE' };
    return (v as { items: readonly DuckDBValue[] }).items.map((item) => ({
      v: encodeColumn(item, one, inner, tsFormat),
    }));
  }
  if (f.type === 'RECORD') {
    const st = t as DuckDBStructType;
    const entries = (v as { entries: Readonly<Record<string, DuckDBValue>> }).entries;
    const sub = f.fields ?? [];
    return {
      f: st.entryNames.map((n, i) => ({
        v: encodeColumn(entries[n] ?? null, sub[i] as FieldSchema, st.entryTypes[i] as DuckDBType, tsFormat),
      })),
    };
  }
  const text = String(v);
  if (tsFormat === 'iso') return text;
  const micros = parseTimestampMicros(`${text.slice(0, 26)}Z`) as bigint;
  return tsFormat === 'int64' ? micros.toString() : javaDouble(Number(micros) / 1e6);
}

function hasPicoTimestamp(f: FieldSchema): boolean {
  return isPicoTimestamp(f) || (f.fields ?? []).some(hasPicoTimestamp);
}

/**
 * A double as BigQuery's REST API writes timestamps in float seconds (Java's Double.toString):
 * plain between 10^-3 and 10^7, else one digit, the shortest fraction and `E<exponent>`.
 */
export function javaDouble(d: number): string {
  if (!Number.isFinite(d)) return String(d);
  const a = Math.abs(d);
  if (d === 0 || (a >= 1e-3 && a < 1e7)) {
    const text = String(d);
    return text.includes('.') || text.includes('e') ? text : `${text}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}
