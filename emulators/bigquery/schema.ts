/**
 * BigQuery table schemas ↔ DuckDB types, insertAll row conversion, and the REST value
 * encodings of query results (docs/google-wire.md §4).
 *
 * Why ~800 lines in one file: each BigQuery type has three forms here — its DuckDB column, the
 * conversion of an inserted JSON value, and the encoding of a result value — kept side by side
 * so that a type's three forms cannot drift apart.
 */
import {
  blobValue,
  type DuckDBListType,
  type DuckDBStructType,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
  dateValue,
  decimalValue,
  listValue,
  structValue,
  timestampTZValue,
  timestampValue,
  timeValue,
} from '@duckdb/node-api';
import {
  parseRangeText,
  RANGE_ELEMENT_DUCK,
  RANGE_END,
  RANGE_ORDER_MESSAGE,
  RANGE_START,
  rangeDuckType,
  rangeElementOf,
} from './range.ts';
import { quoteIdent } from './sql.ts';

export interface FieldSchema {
  name: string;
  type: string;
  mode?: string;
  fields?: FieldSchema[];
  description?: string;
  /** Column-level security tags: kept and reported back, not enforced (nothing here has IAM). */
  policyTags?: { names: string[] };
  maxLength?: string;
  precision?: string;
  scale?: string;
  roundingMode?: string;
  defaultValueExpression?: string;
  /** Only 6 (microseconds); 12 is refused as unsupported. */
  timestampPrecision?: string;
  /** A RANGE field's element type: DATE, DATETIME or TIMESTAMP. */
  rangeElementType?: { type: string };
}

/** A field as compared across schema versions: NULLABLE where no mode is given, at any depth. */
export function effectiveField(f: FieldSchema): FieldSchema {
  return { ...f, mode: f.mode ?? 'NULLABLE', ...(f.fields ? { fields: f.fields.map(effectiveField) } : {}) };
}

/** BigQuery reports legacy type names in schemas whatever name the caller used. */
const TYPE_NAMES: Record<string, string> = {
  STRING: 'STRING',
  BYTES: 'BYTES',
  INTEGER: 'INTEGER',
  INT64: 'INTEGER',
  FLOAT: 'FLOAT',
  FLOAT64: 'FLOAT',
  NUMERIC: 'NUMERIC',
  DECIMAL: 'NUMERIC',
  BIGNUMERIC: 'BIGNUMERIC',
  BIGDECIMAL: 'BIGNUMERIC',
  BOOLEAN: 'BOOLEAN',
  BOOL: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMP',
  DATE: 'DATE',
  TIME: 'TIME',
  DATETIME: 'DATETIME',
  JSON: 'JSON',
  RECORD: 'RECORD',
  STRUCT: 'RECORD',
  GEOGRAPHY: 'GEOGRAPHY',
  RANGE: 'RANGE',
};

const DUCK_TYPES: Record<string, string> = {
  STRING: 'VARCHAR',
  BYTES: 'BLOB',
  INTEGER: 'BIGINT',
  FLOAT: 'DOUBLE',
  NUMERIC: 'DECIMAL(38,9)',
  BIGNUMERIC: 'DECIMAL(38,9)',
  BOOLEAN: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATE: 'DATE',
  TIME: 'TIME',
  DATETIME: 'TIMESTAMP',
  JSON: 'JSON',
  GEOGRAPHY: 'VARCHAR',
};

/** Checks and normalises a schema from tables.insert/patch; returns an error message or the schema. */
export function normaliseSchema(fields: unknown, path = ''): FieldSchema[] | string {
  if (!Array.isArray(fields)) return `Invalid schema: fields must be an array${path ? ` at ${path}` : ''}`;
  const seen = new Set<string>();
  const out: FieldSchema[] = [];
  for (const f of fields as unknown[]) {
    if (typeof f !== 'object' || f === null) return 'Invalid schema field';
    const o = f as Record<string, unknown>;
    const name = o['name'];
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,299}$/.test(name))
      return `Invalid field name "${String(name)}". Fields must contain only letters, numbers, and underscores, start with a letter or underscore, and be at most 300 characters long.`;
    const key = name.toLowerCase();
    if (seen.has(key)) return `Field ${path}${name} already exists in schema`;
    seen.add(key);
    // 6 (microseconds, the default) or 12 (picoseconds), and 12 only on a TIMESTAMP.
    const precision = o['timestampPrecision'] === undefined ? undefined : String(o['timestampPrecision']);
    if (precision !== undefined && precision !== '6' && precision !== '12')
      return `Invalid value for timestampPrecision: ${precision} on ${path}${name} (6 or 12)`;
    if (precision === '12' && TYPE_NAMES[String(o['type'] ?? '').toUpperCase()] !== 'TIMESTAMP')
      return `timestampPrecision 12 on ${path}${name}: only a TIMESTAMP field has picosecond precision`;
    const type = TYPE_NAMES[String(o['type'] ?? '').toUpperCase()];
    if (!type) return `Invalid value for type: ${String(o['type'])} is not a valid value`;
    const mode = String(o['mode'] ?? 'NULLABLE').toUpperCase();
    if (!['NULLABLE', 'REQUIRED', 'REPEATED'].includes(mode))
      return `Invalid value for mode: ${String(o['mode'])} is not a valid value`;
    // A field created without a mode has none in the schema BigQuery answers (it is NULLABLE).
    const field: FieldSchema = { name, type, ...(o['mode'] !== undefined ? { mode } : {}) };
    if (typeof o['description'] === 'string') field.description = o['description'];
    if (type === 'RANGE') {
      const element = String((o['rangeElementType'] as { type?: unknown } | null)?.type ?? '').toUpperCase();
      if (RANGE_ELEMENT_DUCK[element] === undefined)
        return `Field ${path}${name} is type RANGE: rangeElementType.type must be DATE, DATETIME or TIMESTAMP`;
      field.rangeElementType = { type: element };
    } else if (o['rangeElementType'] !== undefined)
      return `Field ${path}${name}: rangeElementType is only for a RANGE field`;
    // Kept and answered back (the column is typed as the emulator types it).
    for (const k of [
      'maxLength',
      'precision',
      'scale',
      'roundingMode',
      'defaultValueExpression',
      'timestampPrecision',
    ] as const)
      if (o[k] !== undefined) field[k] = String(o[k]);
    if (o['policyTags'] !== undefined) {
      const names = (o['policyTags'] as { names?: unknown } | null)?.names;
      if (!Array.isArray(names) || names.some((n) => typeof n !== 'string') || names.length > 1)
        return `Invalid value for policyTags at ${path}${name}: names must be a list of at most one policy tag name`;
      if (type === 'RECORD') return `Field ${path}${name} is type RECORD: policy tags go on its leaf fields`;
      if (names.length > 0) field.policyTags = { names: [...(names as string[])] };
    }
    if (type === 'RECORD') {
      const sub = normaliseSchema(o['fields'], `${path}${name}.`);
      if (typeof sub === 'string') return sub;
      if (sub.length === 0) return `Field ${path}${name} is type RECORD but has no schema`;
      field.fields = sub;
    }
    out.push(field);
  }
  return out;
}

/**
 * A TIMESTAMP of picosecond precision (`timestampPrecision: 12`). DuckDB's timestamps stop at
 * nanoseconds, so its column holds the canonical text (`picoTimestampText`), fixed-width so that
 * text order is time order; tabledata.list answers it in each output format (`encodeColumn`).
 */
export function isPicoTimestamp(f: FieldSchema): boolean {
  return f.type === 'TIMESTAMP' && f.timestampPrecision === '12';
}

/** DuckDB column type for a BigQuery field. */
export function duckType(f: FieldSchema): string {
  const base =
    f.type === 'RECORD'
      ? `STRUCT(${(f.fields ?? []).map((s) => `${quoteIdent(s.name)} ${duckType(s)}`).join(', ')})`
      : isPicoTimestamp(f)
        ? 'VARCHAR'
        : f.type === 'RANGE'
          ? rangeDuckType(RANGE_ELEMENT_DUCK[f.rangeElementType?.type ?? ''] as string)
          : (DUCK_TYPES[f.type] as string);
  return f.mode === 'REPEATED' ? `${base}[]` : base;
}

/** `CREATE TABLE` column list for a schema. */
export function columnDefinitions(fields: readonly FieldSchema[]): string {
  return fields
    .map((f) => `${quoteIdent(f.name)} ${duckType(f)}${f.mode === 'REQUIRED' ? ' NOT NULL' : ''}`)
    .join(', ');
}

// ---------------------------------------------------------------------------
// insertAll row conversion

export interface RowError {
  reason: string;
  location: string;
  message: string;
  debugInfo?: string;
}

class ConvertError extends Error {
  readonly location: string;
  constructor(location: string, message: string) {
    super(message);
    this.location = location;
  }
}

const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TS_RE =
  /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[Tt ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|UTC|[+-]\d{1,2}(?::?\d{2})?)?$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

function daysFromCivil(y: number, m: number, d: number): number | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1 || y > 9999) return undefined;
  const dt = new Date(0);
  dt.setUTCFullYear(y, m - 1, d);
  if (dt.getUTCMonth() !== m - 1) return undefined;
  return Math.round(dt.getTime() / 86_400_000);
}

function fractionMicros(frac: string | undefined): bigint {
  return BigInt((frac ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

/** Parses BigQuery's accepted TIMESTAMP text to microseconds since the epoch (UTC). */
export function parseTimestampMicros(s: string, withZone = true): bigint | undefined {
  const m = TS_RE.exec(s.trim());
  if (!m) return undefined;
  const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
  if (days === undefined) return undefined;
  const h = Number(m[4] ?? 0);
  const mi = Number(m[5] ?? 0);
  const sec = Number(m[6] ?? 0);
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  let micros =
    BigInt(days) * 86_400_000_000n + BigInt((h * 3600 + mi * 60 + sec) * 1_000_000) + fractionMicros(m[7]);
  const zone = m[8];
  if (zone && !withZone) return undefined;
  if (zone && /^[+-]/.test(zone)) {
    const zm = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone) as RegExpExecArray;
    const offset = (Number(zm[2]) * 60 + Number(zm[3] ?? 0)) * 60_000_000;
    micros += zm[1] === '+' ? -BigInt(offset) : BigInt(offset);
  }
  return micros;
}

/** Seconds with a fraction of up to 12 digits, and what follows (the zone). */
const PICO_FRACTION = /^(.*\d:\d{2}:\d{2})\.(\d{1,12})(\D.*)?$/s;

/**
 * A picosecond TIMESTAMP as stored: `YYYY-MM-DDTHH:MM:SS.` and 12 digits and `Z` (UTC), from any
 * text BigQuery reads as a timestamp (with up to 12 fraction digits) or float seconds; undefined
 * when it is not one.
 */
export function picoTimestampText(v: unknown): string | undefined {
  let micros: bigint | undefined;
  let belowMicros = '000000';
  if (typeof v === 'number' && Number.isFinite(v)) micros = BigInt(Math.round(v * 1_000_000));
  else if (typeof v === 'string') {
    const m = PICO_FRACTION.exec(v.trim());
    if (m) {
      const digits = (m[2] as string).padEnd(12, '0');
      belowMicros = digits.slice(6);
      micros = parseTimestampMicros(`${m[1]}.${digits.slice(0, 6)}${m[3] ?? ''}`);
    } else micros = parseTimestampMicros(v);
  }
  if (micros === undefined) return undefined;
  const c = civilFromMicros(micros);
  const us = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return `${c.date}T${c.time.slice(0, 8)}.${pad(us, 6)}${belowMicros}Z`;
}

function convertScalar(f: FieldSchema, v: unknown, loc: string): DuckDBValue {
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
// Compiled fast path: one closure per field, built once per schema. It handles the
// well-formed rows of a streaming load (exact field names, values of the column's own
// JSON type, canonical timestamps) and gives up on anything else, which then takes the
// generic path below: that path alone decides errors, so both give the same answers.

/** Returned by a compiled converter that met something only the generic path handles. */
const BAIL: unique symbol = Symbol('bail');
type Converter = (v: unknown) => DuckDBValue | typeof BAIL;

const compiledRows = new WeakMap<readonly FieldSchema[], (json: unknown) => DuckDBValue[] | undefined>();

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isDigit = (c: number) => c >= 48 && c <= 57;
const digits = (s: string, at: number, n: number): number => {
  let out = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    out = out * 10 + (c - 48);
  }
  return out;
};

/**
 * `YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}]Z` (what toISOString and most producers write) to
 * microseconds, without a regular expression; undefined for anything else, which the
 * generic parser then reads.
 */
export function canonicalTimestampMicros(s: string): bigint | undefined {
  const micros = canonicalFraction(s);
  if (micros < 0) return undefined;
  const utc = Date.UTC(
    digits(s, 0, 4),
    digits(s, 5, 2) - 1,
    digits(s, 8, 2),
    digits(s, 11, 2),
    digits(s, 14, 2),
    digits(s, 17, 2),
  );
  return BigInt(utc) * 1000n + BigInt(micros);
}

/** Whether `canonicalTimestampMicros` reads `s` (without building its value). */
export function isCanonicalTimestamp(s: string): boolean {
  return canonicalFraction(s) >= 0;
}

/** The microseconds within the second of a canonical timestamp, or -1 when `s` is not one. */
function canonicalFraction(s: string): number {
  const n = s.length;
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 90 /* Z */) return -1;
  const sep = s.charCodeAt(10);
  if (s[4] !== '-' || s[7] !== '-' || (sep !== 84 && sep !== 32) || s[13] !== ':' || s[16] !== ':') return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  // Years below 1000 are left to the generic path (Date.UTC maps 0-99 to 19xx).
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
    return -1;
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (DAYS_IN_MONTH[mo - 1] as number) + (leap ? 1 : 0)) return -1;
  let micros = 0;
  if (n > 20) {
    if (s[19] !== '.' || n === 21) return -1;
    const frac = n - 21;
    const all = digits(s, 20, frac);
    if (all < 0) return -1;
    // Only the first six digits count, as in parseTimestampMicros (BigQuery keeps microseconds).
    micros = frac <= 6 ? all * 10 ** (6 - frac) : Math.trunc(all / 10 ** (frac - 6));
  } else if (s[19] !== 'Z') return -1;
  return micros;
}

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

// ---------------------------------------------------------------------------
// Result schema and value encodings

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
  return { name, type: scalarTypeName(t), mode: 'NULLABLE' };
}

function scalarTypeName(t: DuckDBType): string {
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return 'BOOLEAN';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.SQLNULL:
    case DuckDBTypeId.INTEGER_LITERAL:
      return 'INTEGER';
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return 'FLOAT';
    case DuckDBTypeId.DECIMAL:
      return 'NUMERIC';
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.STRING_LITERAL:
      return t.alias === 'JSON' ? 'JSON' : 'STRING';
    case DuckDBTypeId.BLOB:
      return 'BYTES';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'DATETIME';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'TIMESTAMP';
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_TZ:
      return 'TIME';
    case DuckDBTypeId.INTERVAL:
      return 'INTERVAL';
    default:
      return 'STRING';
  }
}

export type TimestampFormat = 'int64' | 'float' | 'iso';

/** A cell in the REST `{v: …}` form: strings, nested `{f:[…]}` records, `[{v:…}]` arrays. */
export type Cell = string | null | { f: { v: Cell }[] } | { v: Cell }[];

function pad(n: number | bigint, w = 2): string {
  return String(n).padStart(w, '0');
}

function civilFromMicros(micros: bigint): { date: string; time: string } {
  const dayUs = 86_400_000_000n;
  let days = micros / dayUs;
  let rem = micros % dayUs;
  if (rem < 0n) {
    rem += dayUs;
    days -= 1n;
  }
  const d = new Date(Number(days) * 86_400_000);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return { date, time: timeText(rem) };
}

function timeText(micros: bigint): string {
  const secs = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const base = `${pad(secs / 3600n)}:${pad((secs / 60n) % 60n)}:${pad(secs % 60n)}`;
  return frac === 0n ? base : `${base}.${pad(frac, 6)}`;
}

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
