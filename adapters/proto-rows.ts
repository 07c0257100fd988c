/**
 * Rows for the Storage Write API, encoded straight from their insertAll JSON into the protocol
 * buffer bytes of the writer's schema (adapters/bigquery-write-api.ts). Google's JSONWriter does
 * the same in three passes (a deep copy converting values, protobufjs's `fromObject`, `encode`);
 * on the store path that cost about 30 µs of CPU a row, twice what insertAll cost. Here one walk
 * per row writes each value with protobufjs's `Writer`, guided by an encoder made once per table
 * from the table's schema and the proto2 descriptor the writer sends (field numbers, types,
 * labels, packing and nested messages all come from that descriptor, so the bytes are what
 * protobufjs makes of the same message: test/unit/warehouse/proto-rows.test.ts).
 *
 * The values are insertAll's forms (what `store` builds): RFC 3339 text for TIMESTAMP, written as
 * microseconds since the epoch; `YYYY-MM-DD` for DATE, written as days; INT64 as a number or
 * decimal text; JSON as any value, written as its text; BYTES as base64. A value of no such form
 * is a `BadValue` naming the column: the caller refuses that row as BigQuery refuses it.
 */
import protobuf from 'protobufjs/minimal.js';

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

type Writer = protobuf.Writer;
type Put = (w: Writer, v: unknown) => void;

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
const MAX_U64 = (1n << 64n) - 1n;
const INT64_RANGE = [-(1n << 63n), (1n << 63n) - 1n] as const;

/** An RFC 3339 timestamp (insertAll's form) as microseconds since the epoch (the Write API's). */
export function timestampMicros(text: string): bigint | undefined {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\d\d:\d\d:\d\d\.(\d+)/.exec(text)?.[1] ?? '';
  return BigInt(ms) * 1000n + BigInt(Number(fraction.slice(3, 6).padEnd(3, '0')));
}

/** A 64-bit integer as protobufjs's LongBits-like `{low, high}` (two's complement). */
function bits(n: bigint): { low: number; high: number } {
  const u = n & MAX_U64;
  return { low: Number(u & 0xffffffffn), high: Number(u >> 32n) };
}

function int64Of(v: unknown, column: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return BigInt(v.trim());
  throw new BadValue(`Could not parse '${String(v)}' as INT64 (${column}).`);
}

/** How one column's value is written, by the column's BigQuery type and its proto field type. */
function putValue(column: RowField, fieldType: number, nested: Encoder | undefined): Put {
  const name = String(column.name);
  const type = bqType(column);
  switch (fieldType) {
    case T_INT64:
      if (type === 'TIMESTAMP')
        return (w, v) => {
          const micros = typeof v === 'string' ? timestampMicros(v) : int64Of(v, name);
          if (micros === undefined) throw new BadValue(`Could not parse '${v}' as a timestamp (${name}).`);
          w.int64(bits(micros) as never);
        };
      return (w, v) => {
        const n = int64Of(v, name);
        if (n < INT64_RANGE[0] || n > INT64_RANGE[1])
          throw new BadValue(`Value ${String(v)} is out of range for INT64 (${name}).`);
        w.int64(bits(n) as never);
      };
    case T_INT32:
      return (w, v) => {
        const days = typeof v === 'string' ? Date.parse(`${v}T00:00:00Z`) / DAY_MS : Number(v);
        if (!Number.isInteger(days))
          throw new BadValue(`Could not parse '${String(v)}' as a date (${name}).`);
        w.int32(days);
      };
    case T_DOUBLE:
      return (w, v) => {
        const n =
          typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
        if (Number.isNaN(n) && v !== 'NaN')
          throw new BadValue(`Could not parse '${String(v)}' as DOUBLE (${name}).`);
        w.double(n);
      };
    case T_BOOL:
      return (w, v) => {
        if (typeof v === 'boolean') w.bool(v);
        else if (v === 'true' || v === 'false') w.bool(v === 'true');
        else throw new BadValue(`Could not parse '${String(v)}' as BOOL (${name}).`);
      };
    case T_BYTES:
      return (w, v) => {
        if (typeof v !== 'string') throw new BadValue(`Could not parse '${String(v)}' as BYTES (${name}).`);
        w.bytes(Buffer.from(v, 'base64'));
      };
    case T_MESSAGE:
      return (w, v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v) || !nested)
          throw new BadValue(`Could not parse '${JSON.stringify(v)}' as a RECORD (${name}).`);
        w.fork();
        nested.write(w, v as Readonly<Record<string, unknown>>);
        w.ldelim();
      };
    default:
      // STRING, and the types the Write API takes as text (JSON, NUMERIC, DATETIME, TIME, GEOGRAPHY).
      if (type === 'JSON') return (w, v) => w.string(typeof v === 'string' ? v : JSON.stringify(v));
      return (w, v) => {
        if (typeof v === 'string') w.string(v);
        else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
          w.string(String(v));
        else throw new BadValue(`Could not parse '${JSON.stringify(v)}' as ${type || 'STRING'} (${name}).`);
      };
  }
}

/** One column: its key in the row, and how its value (or values) are written. */
interface Column {
  readonly key: string;
  readonly write: Put;
}

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
  const tag = ((number << 3) | wire) >>> 0;
  const put = putValue(f, fieldType, nested);
  const key = String(f.name);
  if (asNumber(fd.label, { LABEL_REPEATED: L_REPEATED }) !== L_REPEATED)
    return {
      key,
      write: (w, v) => {
        w.uint32(tag);
        put(w, v);
      },
    };
  if (fd.options?.packed && wire !== 2) {
    const packedTag = ((number << 3) | 2) >>> 0;
    return {
      key,
      write: (w, v) => {
        const items = repeated(v, key);
        if (items.length === 0) return;
        w.uint32(packedTag).fork();
        for (const item of items) put(w, item);
        w.ldelim();
      },
    };
  }
  return {
    key,
    write: (w, v) => {
      for (const item of repeated(v, key)) {
        w.uint32(tag);
        put(w, item);
      }
    },
  };
}

function repeated(v: unknown, key: string): readonly unknown[] {
  if (!Array.isArray(v)) throw new BadValue(`Array specified for non-repeated field or vice versa (${key}).`);
  if (v.some((x) => x === null || x === undefined))
    throw new BadValue(`A REPEATED field holds a null (${key}).`);
  return v;
}

/** The encoder of one message (a table's row, or a RECORD column's value). */
export interface Encoder {
  /** Writes the row's fields into `w` (a RECORD's inside the caller's fork). */
  write(w: Writer, row: Readonly<Record<string, unknown>>): void;
  /** The row's bytes; throws BadValue for a value of no form. */
  encode(row: Readonly<Record<string, unknown>>): Uint8Array;
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
  const byKey = new Map<string, Column>();
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
    byKey.set(String(f.name), column(f, fd, nested));
  });
  const write = (w: Writer, row: Readonly<Record<string, unknown>>): void => {
    for (const key in row) {
      const c = byKey.get(key);
      if (!c) throw new BadValue(`no such field: ${key}.`);
      const v = row[key];
      if (v !== null && v !== undefined) c.write(w, v);
    }
  };
  return {
    write,
    encode(row) {
      const w = protobuf.Writer.create();
      write(w, row);
      return w.finish();
    },
  };
}
