/**
 * One insertAll value of a scalar or RANGE type → the DuckDB value its column stores, read as
 * BigQuery reads it (the loose forms too: numbers as text, zones, float seconds), or a
 * ConvertError in BigQuery's words, with the value's location in the row. Pure.
 */
import {
  blobValue,
  type DuckDBValue,
  dateValue,
  decimalValue,
  structValue,
  timestampTZValue,
  timestampValue,
  timeValue,
} from '@duckdb/node-api';
import { parseRangeText, RANGE_END, RANGE_ORDER_MESSAGE, RANGE_START } from './range.ts';
import { type FieldSchema, isPicoTimestamp } from './schema.ts';
import {
  DATE_RE,
  daysFromCivil,
  fractionMicros,
  parseTimestampMicros,
  picoTimestampText,
  TIME_RE,
} from './time-text.ts';

/** A value its field's type does not read; `location` is its path in the row (`items[2].price`). */
export class ConvertError extends Error {
  readonly location: string;
  constructor(location: string, message: string) {
    super(message);
    this.location = location;
  }
}

/** One value of field `f` (not REPEATED, not a RECORD) as its column stores it; throws ConvertError. */
export function convertScalar(f: FieldSchema, v: unknown, loc: string): DuckDBValue {
  const bad = (what: string) =>
    new ConvertError(loc, `Cannot convert value to ${what} (bad value): ${JSON.stringify(v)}`);
  if (isPicoTimestamp(f)) {
    const text = picoTimestampText(v);
    if (text !== undefined) return text;
    throw new ConvertError(
      loc,
      `Could not parse ${JSON.stringify(v)} as a timestamp. Required format is YYYY-MM-DD HH:MM[:SS[.SSSSSSSSSSSS]]`,
    );
  }
  switch (f.type) {
    case 'STRING':
    case 'GEOGRAPHY':
      if (typeof v === 'string') return v;
      if (typeof v === 'number') return String(v);
      // BigQuery's own words for a JSON boolean sent to a STRING column.
      if (typeof v === 'boolean')
        throw new ConvertError(loc, 'Conversion from bool to std::string is unsupported.');
      throw bad('string');
    case 'INTEGER': {
      // A JSON number is a double: 9223372036854775807 arrives as 2^63, one past INT64's range.
      if (typeof v === 'number' && Number.isInteger(v)) {
        if (v >= 2 ** 63 || v < -(2 ** 63)) throw bad('integer');
        return BigInt(v);
      }
      if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) {
        const b = BigInt(v.trim());
        if (b > 9223372036854775807n || b < -9223372036854775808n) throw bad('integer');
        return b;
      }
      throw bad('integer');
    }
    case 'FLOAT': {
      if (typeof v === 'number') return v;
      if (typeof v === 'string') {
        const t = v.trim();
        if (t === 'NaN') return Number.NaN;
        if (t === 'Infinity' || t === 'inf' || t === '+inf') return Number.POSITIVE_INFINITY;
        if (t === '-Infinity' || t === '-inf') return Number.NEGATIVE_INFINITY;
        if (t !== '' && Number.isFinite(Number(t))) return Number(t);
      }
      throw bad('double');
    }
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
      const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
      if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw bad('numeric');
      let digits = (m[2] ?? '') + (m[3] ?? '');
      let scale = (m[3] ?? '').length - Number(m[4] ?? 0);
      if (scale > 9) {
        const drop = scale - 9;
        if (/[1-9]/.test(digits.slice(digits.length - drop)))
          throw new ConvertError(loc, `Invalid NUMERIC value: ${text}`);
        digits = digits.slice(0, digits.length - drop) || '0';
        scale = 9;
      }
      const scaled = BigInt(digits || '0') * 10n ** BigInt(9 - scale);
      if (scaled >= 10n ** 38n) throw new ConvertError(loc, `Invalid NUMERIC value: ${text}`);
      return decimalValue(m[1] === '-' ? -scaled : scaled, 38, 9);
    }
    case 'BOOLEAN':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        const t = v.trim().toLowerCase();
        if (t === 'true' || t === '1') return true;
        if (t === 'false' || t === '0') return false;
      }
      if (v === 1 || v === 0) return v === 1;
      throw bad('boolean');
    case 'TIMESTAMP': {
      if (typeof v === 'number' && Number.isFinite(v))
        return timestampTZValue(BigInt(Math.round(v * 1_000_000)));
      if (typeof v === 'string') {
        const us = parseTimestampMicros(v);
        if (us !== undefined) return timestampTZValue(us);
      }
      throw new ConvertError(
        loc,
        `Could not parse ${JSON.stringify(v)} as a timestamp. Required format is YYYY-MM-DD HH:MM[:SS[.SSSSSS]] or YYYY/MM/DD HH:MM[:SS[.SSSSSS]]`,
      );
    }
    case 'DATETIME': {
      if (typeof v === 'string') {
        const us = parseTimestampMicros(v, false);
        if (us !== undefined) return timestampValue(us);
      }
      throw new ConvertError(loc, `Could not parse '${String(v)}' as a datetime`);
    }
    case 'DATE': {
      const m = typeof v === 'string' ? DATE_RE.exec(v.trim()) : null;
      const days = m ? daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
      if (days === undefined) throw new ConvertError(loc, `Could not parse '${String(v)}' as a date`);
      return dateValue(days);
    }
    case 'TIME': {
      const m = typeof v === 'string' ? TIME_RE.exec(v.trim()) : null;
      if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59)
        throw new ConvertError(loc, `Could not parse '${String(v)}' as a time`);
      const secs = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
      return timeValue(BigInt(secs) * 1_000_000n + fractionMicros(m[4]));
    }
    case 'BYTES': {
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(v.replace(/\s/g, '')))
        throw new ConvertError(
          loc,
          `Could not decode base64 string to bytes. Field: ${f.name}; Value: ${String(v)}`,
        );
      return blobValue(Buffer.from(v, 'base64'));
    }
    case 'JSON': {
      if (typeof v === 'string') {
        try {
          JSON.parse(v);
          return v;
        } catch {
          throw new ConvertError(loc, `Invalid JSON value for field ${f.name}: ${v.slice(0, 100)}`);
        }
      }
      return JSON.stringify(v);
    }
    case 'RANGE':
      return convertRange(f, v, loc);
    default:
      throw new ConvertError(loc, `Unsupported type ${f.type}`);
  }
}

/**
 * A RANGE value of insertAll: BigQuery's text (`[2020-01-01, UNBOUNDED)`) or an object with `start`
 * and `end` (what Google's Node client sends), a missing, null or `UNBOUNDED` bound being open.
 */
function convertRange(f: FieldSchema, v: unknown, loc: string): DuckDBValue {
  const bad = () => new ConvertError(loc, `Could not parse ${JSON.stringify(v)} as a RANGE value`);
  let bounds: { start?: unknown; end?: unknown } | undefined;
  if (typeof v === 'string') bounds = parseRangeText(v);
  else if (typeof v === 'object' && v !== null && !Array.isArray(v))
    bounds = v as { start?: unknown; end?: unknown };
  if (!bounds) throw bad();
  const element: FieldSchema = { name: f.name, type: f.rangeElementType?.type ?? '' };
  const one = (b: unknown): DuckDBValue =>
    b === undefined || b === null || (typeof b === 'string' && /^(UNBOUNDED|NULL)$/i.test(b.trim()))
      ? null
      : convertScalar(element, b, loc);
  const start = one(bounds.start);
  const end = one(bounds.end);
  if (start !== null && end !== null && rangeKey(start) >= rangeKey(end))
    throw new ConvertError(loc, `${RANGE_ORDER_MESSAGE}: ${JSON.stringify(v)}`);
  return structValue({ [RANGE_START]: start, [RANGE_END]: end });
}

/** A comparable number for a DATE, DATETIME or TIMESTAMP value as convertScalar makes them. */
function rangeKey(v: DuckDBValue): bigint {
  const o = v as { micros?: bigint; days?: number };
  return o.micros ?? BigInt(o.days ?? 0);
}
