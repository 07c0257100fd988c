/**
 * Rows for the Storage Write API, encoded straight from their insertAll JSON into the protocol
 * buffer bytes of the writer's schema (adapters/bigquery-write-api.ts). Google's JSONWriter does
 * the same in three passes (a deep copy converting values, protobufjs's `fromObject`, `encode`);
 * on the store path that cost about 30 µs of CPU a row, twice what insertAll cost. Here one walk
 * per row writes each value's bytes straight into one buffer for the whole append, guided by an
 * encoder made once per table from the table's schema and the proto2 descriptor the writer sends
 * (field numbers, types, labels, packing and nested messages all come from that descriptor, so the
 * bytes are what protobufjs makes of the same message: test/storage/proto-rows.test.ts). Writing
 * with protobufjs's own `Writer` (one per row) cost 4.3 µs of CPU a bench event row, this 2.5 µs
 * (in process, 30,000 rows; about a quarter of what is left is JSON.stringify of the JSON column).
 *
 * The values are insertAll's forms (what `store` builds): RFC 3339 text for TIMESTAMP, written as
 * microseconds since the epoch; `YYYY-MM-DD` for DATE, written as days; INT64 as a number or
 * decimal text; JSON as any value, written as its text; BYTES as base64. A value of no such form
 * is a `BadValue` naming the column: the caller refuses that row as BigQuery refuses it.
 */
/** A column of the table's schema as GetWriteStream gives it (type by name or by enum number). */
export interface RowField {
  readonly name?: string | null;
  readonly type?: string | number | null;
  readonly mode?: string | number | null;
  readonly fields?: readonly RowField[] | null;
}

/** The parts of a proto2 DescriptorProto the encoder reads. */
export interface RowDescriptor {
  readonly name?: string | null;
  readonly field?: readonly {
    readonly name?: string | null;
    readonly number?: number | null;
    readonly type?: number | string | null;
    readonly label?: number | string | null;
    readonly typeName?: string | null;
    readonly options?: { readonly packed?: boolean | null } | null;
  }[];
  readonly nestedType?: readonly RowDescriptor[];
}

/** A value the Write API's form cannot hold: the row is refused, naming the column. */
export class BadValue extends Error {}

/**
 * The bytes being written: one buffer for all the rows of an append (each row a view of it), so
 * a row costs no allocation of its own and no second pass (protobufjs's `Writer` records every
 * value as an operation, then allocates and replays them in `finish`).
 */
export class Sink {
  buf: Buffer;
  pos = 0;
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  /** Room for `n` more bytes (the buffer grows; views are taken once the rows are written). */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

type Put = (s: Sink, v: unknown) => void;

// BigQuery's type names by TableFieldSchema.Type number (GetWriteStream's FULL view uses numbers).
const BQ_TYPE = [
  '',
  'STRING',
  'INT64',
  'DOUBLE',
  'STRUCT',
  'BYTES',
  'BOOL',
  'TIMESTAMP',
  'DATE',
  'TIME',
  'DATETIME',
  'GEOGRAPHY',
  'NUMERIC',
  'BIGNUMERIC',
  'INTERVAL',
  'JSON',
  'RANGE',
];
const bqType = (f: RowField): string =>
  typeof f.type === 'number' ? (BQ_TYPE[f.type] ?? '') : String(f.type ?? '').toUpperCase();

// FieldDescriptorProto.Type and .Label numbers (descriptor.proto).
const T_DOUBLE = 1;
const T_INT64 = 3;
const T_INT32 = 5;
const T_BOOL = 8;
const T_STRING = 9;
const T_MESSAGE = 11;
const T_BYTES = 12;
const L_REPEATED = 3;
const TYPE_NUMBER: Readonly<Record<string, number>> = {
  TYPE_DOUBLE: T_DOUBLE,
  TYPE_INT64: T_INT64,
  TYPE_INT32: T_INT32,
  TYPE_BOOL: T_BOOL,
  TYPE_STRING: T_STRING,
  TYPE_MESSAGE: T_MESSAGE,
  TYPE_BYTES: T_BYTES,
};
const asNumber = (v: number | string | null | undefined, names: Readonly<Record<string, number>>) =>
  typeof v === 'number' ? v : (names[String(v)] ?? 0);

/** Wire types by field type: varint 0, 64-bit 1, length-delimited 2. */
const WIRE: Readonly<Record<number, number>> = {
  [T_DOUBLE]: 1,
  [T_INT64]: 0,
  [T_INT32]: 0,
  [T_BOOL]: 0,
  [T_STRING]: 2,
  [T_MESSAGE]: 2,
  [T_BYTES]: 2,
};

const DAY_MS = 86_400_000;
const INT64_RANGE = [-(1n << 63n), (1n << 63n) - 1n] as const;

/**
 * Milliseconds of `text` (Date.parse) and the microseconds past them its fraction gives. Date.parse
 * sees the fraction cut to milliseconds: given ten digits or more it reads them as a number and
 * drops their leading zeros (`.0123456789` as 123 ms).
 */
function timestampParts(text: string): { ms: number; micros: number } | undefined {
  let start: number;
  // insertAll's own form (`…T03:04:05.123456Z`, as store writes it) without a regular expression.
  if (text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 46) start = 20;
  else {
    const m = /\d\d:\d\d:\d\d\./.exec(text);
    start = m ? m.index + m[0].length : -1;
  }
  let end = start;
  if (start >= 0) while (end < text.length && isDigitCode(text.charCodeAt(end))) end++;
  const fraction = start >= 0 ? text.slice(start, end) : '';
  const ms = Date.parse(fraction.length > 3 ? text.slice(0, start + 3) + text.slice(end) : text);
  if (Number.isNaN(ms)) return undefined;
  return { ms, micros: fraction.length > 3 ? Number(fraction.slice(3, 6).padEnd(3, '0')) : 0 };
}
const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const digit = (text: string, i: number): number => {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : Number.NaN;
};
const two = (text: string, i: number): number => digit(text, i) * 10 + digit(text, i + 1);

/**
 * insertAll's own timestamp form, `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with every part in range (what
 * `store` writes), as microseconds since the epoch, read without Date.parse (a fifth of the
 * encoder's time); NaN for any other text or a value beyond what a number holds exactly, which
 * `timestampParts` then reads as before. Within the form both give the same microseconds.
 */
function canonicalMicros(text: string): number {
  const len = text.length;
  if (len < 20 || text.charCodeAt(len - 1) !== 90 /* Z */) return Number.NaN;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return Number.NaN;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return Number.NaN;
  const y = two(text, 0) * 100 + two(text, 2);
  const m = two(text, 5);
  const d = two(text, 8);
  const h = two(text, 11);
  const mi = two(text, 14);
  const sec = two(text, 17);
  // NaN (a non-digit) fails every comparison below.
  if (!(m >= 1 && m <= 12 && d >= 1 && h <= 23 && mi <= 59 && sec <= 59)) return Number.NaN;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (DAYS_IN_MONTH[m - 1] as number) || (m === 2 && d === 29 && !leap)) return Number.NaN;
  let micros = 0;
  if (len > 20) {
    // `.` and one or more digits; those past the sixth are dropped, as timestampParts drops them.
    if (text.charCodeAt(19) !== 46 || len === 21) return Number.NaN;
    for (let i = 20, scale = 100_000; i < len - 1; i++, scale /= 10) {
      const c = digit(text, i);
      if (Number.isNaN(c)) return Number.NaN;
      if (scale >= 1) micros += c * scale;
    }
  }
  // Days since the epoch of the civil date (the proleptic Gregorian calendar, as Date's).
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const days = era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
  const seconds = days * 86_400 + h * 3600 + mi * 60 + sec;
  // Exact as a number below 2^53 µs (the year 2255); later ones take the bigint way.
  return Math.abs(seconds) < 9e9 ? seconds * 1e6 + micros : Number.NaN;
}

/** An RFC 3339 timestamp (insertAll's form) as microseconds since the epoch (the Write API's). */
export function timestampMicros(text: string): bigint | undefined {
  const p = timestampParts(text);
  return p && BigInt(p.ms) * 1000n + BigInt(p.micros);
}

/** A varint of a non-negative safe integer. */
function varint(s: Sink, n: number): void {
  s.room(10);
  const buf = s.buf;
  let pos = s.pos;
  while (n >= 128) {
    buf[pos++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  s.pos = pos;
}

/** An int64 (or a negative int32) as its varint: two's complement, ten bytes when negative. */
function varint64(s: Sink, n: bigint): void {
  let u = BigInt.asUintN(64, n);
  s.room(10);
  while (u >= 128n) {
    s.buf[s.pos++] = Number(u & 127n) | 128;
    u >>= 7n;
  }
  s.buf[s.pos++] = Number(u);
}

/** A safe integer of either sign as an int64 varint. */
function int64Number(s: Sink, n: number): void {
  if (n >= 0) varint(s, n);
  else varint64(s, BigInt(n));
}

function int64Of(v: unknown, column: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return BigInt(v.trim());
  throw new BadValue(`Could not parse '${String(v)}' as INT64 (${column}).`);
}

/**
 * A string field's length and UTF-8 bytes. A short ASCII string (the rule) is copied by a loop
 * behind a one-byte length; any other is measured and written natively (UTF-8 as Buffer writes it:
 * a lone surrogate becomes U+FFFD, as protobufjs writes it in a long string; in a short one it
 * writes the surrogate's own three bytes, which are not valid UTF-8).
 */
function putString(s: Sink, v: string): void {
  const n = v.length;
  if (n < 43) {
    // At most 126 bytes: the length fits one byte whatever the characters.
    s.room(n * 3 + 1);
    const buf = s.buf;
    const at = s.pos;
    let pos = at + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos++] = c;
    }
    if (i < n) pos = at + 1 + buf.write(v, at + 1, 'utf8');
    buf[at] = pos - at - 1;
    s.pos = pos;
    return;
  }
  const len = Buffer.byteLength(v, 'utf8');
  varint(s, len);
  s.room(len);
  s.pos += s.buf.write(v, s.pos, len, 'utf8');
}

/** A tag (or any uint32) as its varint. */
function tagBytes(tag: number): readonly number[] {
  const out: number[] = [];
  while (tag >= 128) {
    out.push((tag % 128) | 128);
    tag = Math.floor(tag / 128);
  }
  out.push(tag);
  return out;
}

/** Writes a precomputed tag: one byte for the first fifteen fields, the rule. */
function putTag(tag: readonly number[]): (s: Sink) => void {
  const [first, ...rest] = tag as [number, ...number[]];
  if (rest.length === 0)
    return (s) => {
      s.room(1);
      s.buf[s.pos++] = first;
    };
  return (s) => {
    s.room(tag.length);
    for (const b of tag) s.buf[s.pos++] = b;
  };
}

/**
 * A nested message behind its length: one byte is kept for the length, the message written after
 * it, and moved on in the (rare) case its length needs more.
 */
function putDelimited(s: Sink, write: () => void): void {
  s.room(1);
  const at = s.pos++;
  write();
  const len = s.pos - at - 1;
  if (len < 128) {
    s.buf[at] = len;
    return;
  }
  const prefix = tagBytes(len);
  s.room(prefix.length - 1);
  s.buf.copyWithin(at + prefix.length, at + 1, s.pos);
  for (let k = 0; k < prefix.length; k++) s.buf[at + k] = prefix[k] as number;
  s.pos += prefix.length - 1;
}

/** How one column's value is written, by the column's BigQuery type and its proto field type. */
function putValue(column: RowField, fieldType: number, nested: Encoder | undefined): Put {
  const name = String(column.name);
  const type = bqType(column);
  switch (fieldType) {
    case T_INT64:
      if (type === 'TIMESTAMP')
        return (s, v) => {
          if (typeof v !== 'string') return varint64(s, int64Of(v, name));
          const micros = canonicalMicros(v);
          if (!Number.isNaN(micros)) return int64Number(s, micros);
          const p = timestampParts(v);
          if (p === undefined) throw new BadValue(`Could not parse '${v}' as a timestamp (${name}).`);
          // Microseconds stay exact as a number to 2255 AD; beyond, as a bigint.
          if (Math.abs(p.ms) < 8e12) int64Number(s, p.ms * 1000 + p.micros);
          else varint64(s, BigInt(p.ms) * 1000n + BigInt(p.micros));
        };
      return (s, v) => {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return int64Number(s, v);
        const n = int64Of(v, name);
        if (n < INT64_RANGE[0] || n > INT64_RANGE[1])
          throw new BadValue(`Value ${String(v)} is out of range for INT64 (${name}).`);
        varint64(s, n);
      };
    case T_INT32:
      return (s, v) => {
        const days = typeof v === 'string' ? Date.parse(`${v}T00:00:00Z`) / DAY_MS : Number(v);
        if (!Number.isInteger(days))
          throw new BadValue(`Could not parse '${String(v)}' as a date (${name}).`);
        // An int32 is written as protobuf writes it: a negative one sign-extended to ten bytes.
        int64Number(s, days | 0);
      };
    case T_DOUBLE:
      return (s, v) => {
        const n =
          typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
        if (Number.isNaN(n) && v !== 'NaN')
          throw new BadValue(`Could not parse '${String(v)}' as DOUBLE (${name}).`);
        s.room(8);
        s.pos = s.buf.writeDoubleLE(n, s.pos);
      };
    case T_BOOL:
      return (s, v) => {
        let b: boolean;
        if (typeof v === 'boolean') b = v;
        else if (v === 'true' || v === 'false') b = v === 'true';
        else throw new BadValue(`Could not parse '${String(v)}' as BOOL (${name}).`);
        s.room(1);
        s.buf[s.pos++] = b ? 1 : 0;
      };
    case T_BYTES:
      return (s, v) => {
        if (typeof v !== 'string') throw new BadValue(`Could not parse '${String(v)}' as BYTES (${name}).`);
        const bytes = Buffer.from(v, 'base64');
        varint(s, bytes.length);
        s.room(bytes.length);
        s.pos += bytes.copy(s.buf, s.pos);
      };
    case T_MESSAGE:
      return (s, v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v) || !nested)
          throw new BadValue(`Could not parse '${JSON.stringify(v)}' as a RECORD (${name}).`);
        putDelimited(s, () => nested.write(s, v as Readonly<Record<string, unknown>>));
      };
    default:
      // STRING, and the types the Write API takes as text (JSON, NUMERIC, DATETIME, TIME, GEOGRAPHY).
      if (type === 'JSON') return (s, v) => putString(s, typeof v === 'string' ? v : JSON.stringify(v));
      return (s, v) => {
        if (typeof v === 'string') putString(s, v);
        else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
          putString(s, String(v));
        else throw new BadValue(`Could not parse '${JSON.stringify(v)}' as ${type || 'STRING'} (${name}).`);
      };
  }
}

/** One column: how its value (or values) are written. */
type Column = Put;

function column(
  f: RowField,
  fd: NonNullable<RowDescriptor['field']>[number],
  nested: Encoder | undefined,
): Column {
  const number = Number(fd.number);
  const fieldType = asNumber(fd.type, TYPE_NUMBER);
  const wire = WIRE[fieldType];
  if (wire === undefined)
    throw new Error(`the Write API descriptor has a field type this encoder lacks: ${fd.type}`);
  const tag = putTag(tagBytes(((number << 3) | wire) >>> 0));
  const put = putValue(f, fieldType, nested);
  const key = String(f.name);
  if (asNumber(fd.label, { LABEL_REPEATED: L_REPEATED }) !== L_REPEATED)
    return (s, v) => {
      tag(s);
      put(s, v);
    };
  if (fd.options?.packed && wire !== 2) {
    const packedTag = putTag(tagBytes(((number << 3) | 2) >>> 0));
    return (s, v) => {
      const items = repeated(v, key);
      if (items.length === 0) return;
      packedTag(s);
      putDelimited(s, () => {
        for (const item of items) put(s, item);
      });
    };
  }
  return (s, v) => {
    for (const item of repeated(v, key)) {
      tag(s);
      put(s, item);
    }
  };
}

function repeated(v: unknown, key: string): readonly unknown[] {
  if (!Array.isArray(v)) throw new BadValue(`Array specified for non-repeated field or vice versa (${key}).`);
  if (v.some((x) => x === null || x === undefined))
    throw new BadValue(`A REPEATED field holds a null (${key}).`);
  return v;
}

/** The rows of one append: each row's bytes, and the rows refused (by their index). */
export interface EncodedRows {
  readonly rows: Uint8Array[];
  readonly refused: { readonly index: number; readonly message: string }[];
  /**
   * Hands the rows' buffer back for later appends: call it once nothing reads the rows any more
   * (the append was answered, so its request was written); the rows must not be read after.
   * Not calling it is safe (the buffer is then garbage).
   */
  release(): void;
}

/** The encoder of one message (a table's row, or a RECORD column's value). */
export interface Encoder {
  /** Writes the row's fields into `s` (a RECORD's behind the caller's length). */
  write(s: Sink, row: Readonly<Record<string, unknown>>): void;
  /** The row's bytes; throws BadValue for a value of no form. */
  encode(row: Readonly<Record<string, unknown>>): Uint8Array;
  /**
   * Every row of an append, each a view of one buffer; a row with a value of no form is left out
   * and refused (BadValue's message), the others are still encoded.
   */
  encodeAll(rows: readonly Readonly<Record<string, unknown>>[]): EncodedRows;
}

/**
 * The encoder for rows of `fields` as the descriptor `descriptor` (made from the same schema by
 * the storage client's `convertStorageSchemaToProto2Descriptor`) describes them. `outer` are the
 * message types of the enclosing messages, where a nested RECORD may also find its type.
 */
export function rowEncoder(
  fields: readonly RowField[],
  descriptor: RowDescriptor,
  outer: readonly RowDescriptor[] = [],
): Encoder {
  const all = [...outer, ...(descriptor.nestedType ?? [])];
  // By column name, in a prototype-less object: a row's own keys only, looked up by hash.
  const byKey: Record<string, Column | undefined> = Object.create(null);
  const protoFields = descriptor.field ?? [];
  fields.forEach((f, i) => {
    // The descriptor numbers the schema's columns in order from 1; its names may be placeholders.
    const fd = protoFields.find((p) => Number(p.number) === i + 1);
    if (!fd) throw new Error(`the Write API descriptor has no field for column ${f.name}`);
    let nested: Encoder | undefined;
    if (asNumber(fd.type, TYPE_NUMBER) === T_MESSAGE) {
      const wanted = String(fd.typeName ?? '').replace(/^\./, '');
      const type = all.find((t) => t.name === wanted || wanted.endsWith(`.${t.name}`));
      if (!type) throw new Error(`the Write API descriptor lacks the message type ${wanted}`);
      nested = rowEncoder(f.fields ?? [], type, all);
    }
    byKey[String(f.name)] = column(f, fd, nested);
  });
  /** Bytes a row took in the last append, and a quarter more: the next append's buffer size. */
  let rowBytes = 1024;
  /**
   * Buffers of this table's appends that were answered, for its next appends: an append's rows
   * are hundreds of kilobytes, and a fresh buffer for each made the garbage collector run for
   * the external memory alone (a fifth of the writer's CPU in the bench). A few suffice: appends
   * in flight are the batching writer's concurrency.
   */
  const answered: Buffer[] = [];
  const bufferFor = (bytes: number): Buffer => {
    const last = answered.pop();
    return last !== undefined && last.length >= bytes ? last : Buffer.allocUnsafe(Math.max(bytes, 64 << 10));
  };
  const write = (s: Sink, row: Readonly<Record<string, unknown>>): void => {
    for (const key in row) {
      const c = byKey[key];
      if (!c) throw new BadValue(`no such field: ${key}.`);
      const v = row[key];
      if (v !== null && v !== undefined) c(s, v);
    }
  };
  return {
    write,
    encode(row) {
      const s = new Sink(Buffer.allocUnsafe(1024));
      write(s, row);
      return s.buf.subarray(0, s.pos);
    },
    encodeAll(rows) {
      // Sized by the rows of the last append; it grows when these are larger.
      const s = new Sink(bufferFor(rows.length * rowBytes + 1024));
      const ends: number[] = [];
      const refused: { index: number; message: string }[] = [];
      for (let index = 0; index < rows.length; index++) {
        const start = s.pos;
        try {
          write(s, rows[index] as Readonly<Record<string, unknown>>);
          ends.push(start, s.pos);
        } catch (e) {
          if (!(e instanceof BadValue)) throw e;
          s.pos = start;
          refused.push({ index, message: e.message });
        }
      }
      const out: Uint8Array[] = [];
      for (let k = 0; k < ends.length; k += 2) out.push(s.buf.subarray(ends[k], ends[k + 1]));
      if (out.length > 0) rowBytes = Math.ceil((s.pos / out.length) * 1.25);
      let released = false;
      return {
        rows: out,
        refused,
        release: () => {
          // One near the 10 MB request limit is not kept.
          if (!released && answered.length < 8 && s.buf.length <= 16 << 20) answered.push(s.buf);
          released = true;
        },
      };
    },
  };
}
