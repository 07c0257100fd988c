/**
 * The Storage Write API's fast row path (docs/bigquery-emulator.md, "Storage Write API"): the
 * serialized rows of one append transcoded byte for byte into the UTF-8 JSON text of insertAll's
 * fastest path (row-text.ts: one `from_json` INSERT per group commit, parsed on DuckDB's thread),
 * by a transcoder compiled once per writer schema and table schema.
 *
 * The general path (write-streams.ts `decodeRows`) decodes each row with protobufjs into a
 * message, turns it into an object (`toObject`), renames its keys to the table's columns,
 * converts every value to a DuckDB value and appends them from the event loop: about 30 µs of the
 * emulator's CPU a row for the bench's event rows. This one makes no JavaScript value of a
 * string at all (its bytes are copied, escaped where JSON needs it) and hands DuckDB bytes.
 *
 * It never decides anything the general path would decide differently: it covers a strict subset
 * of rows (well-formed wire data, each field once, valid UTF-8, the value types and forms
 * insertAll's text path stores as they are) and gives up on the whole request at the first thing
 * outside it, which then takes the general path, the only one that reports row errors. Within the
 * subset a row's text reads back (JSON.parse) as insertAll's prepared form of what the general
 * path makes of it, so both store the same values (emulators/bigquery/test/write-rows.test.ts).
 */
import { isUtf8 } from 'node:buffer';
import protobuf from 'protobufjs';
import { type FieldSchema, isPicoTimestamp } from './schema.ts';

/**
 * Output buffers of appends whose rows are stored, for the next appends: an append's text is
 * hundreds of kilobytes, and allocating that afresh each time made the garbage collector run
 * full collections for the external memory alone.
 */
const spare: Buffer[] = [];
const SPARE_MAX = 8;
const MIN_BUFFER = 1 << 20;
/** A larger buffer (an append near the 10 MB request limit) is not kept. */
const MAX_KEPT = 16 << 20;

function takeBuffer(size: number): Buffer {
  const i = spare.findIndex((b) => b.length >= size);
  if (i >= 0) return spare.splice(i, 1)[0] as Buffer;
  return Buffer.allocUnsafe(Math.max(size, MIN_BUFFER));
}

function giveBuffer(buf: Buffer): void {
  if (spare.length < SPARE_MAX && buf.length <= MAX_KEPT) spare.push(buf);
}

/** The bytes being read and where: one per append, shared by the nested messages' readers. */
interface Cursor {
  buf: Buffer;
  pos: number;
}

/** The JSON text being written: a buffer that grows. */
class Out {
  buf: Buffer;
  len = 0;
  constructor(size: number) {
    this.buf = takeBuffer(size);
  }
  room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = takeBuffer(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    giveBuffer(this.buf);
    this.buf = next;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }
  /**
   * ASCII text (numbers, timestamps, literals). These are short: a loop costs less than a native
   * call (Buffer's write and copy cost about as much as writing 50 bytes one by one).
   */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.len = at;
  }
  bytes(src: Buffer): void {
    const n = src.length;
    this.room(n);
    if (n > 64) {
      this.len += src.copy(this.buf, this.len);
      return;
    }
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) buf[at++] = src[i] as number;
    this.len = at;
  }
}

/**
 * Reads one value of a field (its tag already read; `end` is the enclosing message's end) and
 * writes its JSON text; false when the value is one only the general path handles.
 */
type Write = (c: Cursor, end: number, out: Out) => boolean;

// Wire types.
const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;
/** Returned by `varint` for what only the general path reads. */
const BAIL = -1;

/** A varint as a non-negative safe integer (at most 8 bytes), or BAIL. */
function varint(c: Cursor, end: number): number {
  const { buf } = c;
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    if (c.pos >= end) return BAIL;
    const b = buf[c.pos++] as number;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return value > Number.MAX_SAFE_INTEGER ? BAIL : value;
    scale *= 128;
  }
  // Longer: a negative int64 or a value beyond 2^56, both left to the general path.
  return BAIL;
}

/** A length-delimited field's end, or BAIL when it runs past its message. */
function delimitedEnd(c: Cursor, end: number): number {
  const len = varint(c, end);
  if (len === BAIL || c.pos + len > end) return BAIL;
  return c.pos + len;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = '0123456789abcdef';
/** The letter of JSON's short escapes (b, t, n, f, r), by control character. */
const SHORT_ESCAPES: readonly (number | undefined)[] = Object.assign(new Array<number | undefined>(32), {
  8: 0x62,
  9: 0x74,
  10: 0x6e,
  12: 0x66,
  13: 0x72,
});

/**
 * UTF-8 bytes as a JSON string, escaped as JSON.stringify escapes them; false when they are not
 * valid UTF-8 (protobufjs would read U+FFFD in their place: the general path's business). One
 * loop copies and escapes (short strings are the rule: a native copy costs more).
 */
function jsonString(buf: Buffer, start: number, stop: number, out: Out): boolean {
  // Room for the worst case: every byte a \u00XX escape, and the quotes.
  out.room((stop - start) * 6 + 2);
  const dst = out.buf;
  let at = out.len;
  let ascii = true;
  dst[at++] = QUOTE;
  for (let i = start; i < stop; i++) {
    const b = buf[i] as number;
    if (b >= 0x20 && b !== QUOTE && b !== BACKSLASH) {
      if (b >= 0x80) ascii = false;
      dst[at++] = b;
    } else if (b === QUOTE || b === BACKSLASH) {
      dst[at++] = BACKSLASH;
      dst[at++] = b;
    } else {
      const short = SHORT_ESCAPES[b];
      dst[at++] = BACKSLASH;
      if (short !== undefined) dst[at++] = short;
      else {
        dst[at++] = 0x75; // u
        dst[at++] = 0x30;
        dst[at++] = 0x30;
        dst[at++] = HEX.charCodeAt(b >> 4);
        dst[at++] = HEX.charCodeAt(b & 15);
      }
    }
  }
  dst[at++] = QUOTE;
  if (!ascii && !isUtf8(buf.subarray(start, stop))) return false;
  out.len = at;
  return true;
}

// A JSON text checked in its bytes, without making a string of it: `isJson` accepts only what
// JSON.parse accepts (RFC 8259; its structure is ASCII, so bytes and characters agree once the
// text is valid UTF-8, which jsonString checks). What it does not accept goes to the general path,
// so it need not accept everything JSON.parse does: nesting beyond MAX_DEPTH is left to it.

const MAX_DEPTH = 64;
const isWs = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;
const isHex = (b: number | undefined): boolean =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46));
const LITERALS: Readonly<Record<number, Buffer>> = {
  116: Buffer.from('true'),
  102: Buffer.from('false'),
  110: Buffer.from('null'),
};

function isJson(buf: Buffer, start: number, end: number): boolean {
  const ws = (i: number): number => {
    while (i < end && isWs(buf[i])) i++;
    return i;
  };
  const digits = (i: number): number => {
    if (!isDigit(buf[i]) || i >= end) return -1;
    while (i < end && isDigit(buf[i])) i++;
    return i;
  };
  /** The end of the JSON value at `i`, or -1. */
  const value = (i: number, depth: number): number => {
    if (i >= end || depth > MAX_DEPTH) return -1;
    const b = buf[i] as number;
    if (b === QUOTE) {
      for (i++; i < end; i++) {
        const x = buf[i] as number;
        if (x === QUOTE) return i + 1;
        if (x < 0x20) return -1;
        if (x !== BACKSLASH) continue;
        const e = buf[++i];
        if (e === 0x75) {
          // \uXXXX
          if (i + 4 >= end) return -1;
          for (let k = 1; k <= 4; k++) if (!isHex(buf[i + k])) return -1;
          i += 4;
        } else if (
          !(e === QUOTE || e === BACKSLASH || e === 0x2f || (e !== undefined && SHORT_LETTERS.has(e)))
        )
          return -1;
      }
      return -1;
    }
    if (b === 0x7b || b === 0x5b) {
      const close = b === 0x7b ? 0x7d : 0x5d;
      i = ws(i + 1);
      if (buf[i] === close && i < end) return i + 1;
      for (;;) {
        if (b === 0x7b) {
          if (buf[i] !== QUOTE) return -1;
          i = value(i, depth + 1);
          if (i < 0) return -1;
          i = ws(i);
          if (buf[i] !== 0x3a || i >= end) return -1; // :
          i = ws(i + 1);
        }
        i = value(i, depth + 1);
        if (i < 0) return -1;
        i = ws(i);
        if (i >= end) return -1;
        if (buf[i] === close) return i + 1;
        if (buf[i] !== 0x2c) return -1;
        i = ws(i + 1);
      }
    }
    const literal = LITERALS[b];
    if (literal) {
      if (i + literal.length > end || !literal.equals(buf.subarray(i, i + literal.length))) return -1;
      return i + literal.length;
    }
    // A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    if (b === 0x2d) i++;
    if (buf[i] === 0x30 && i < end) i++;
    else {
      i = digits(i);
      if (i < 0) return -1;
    }
    if (buf[i] === 0x2e && i < end) {
      i = digits(i + 1);
      if (i < 0) return -1;
    }
    if ((buf[i] === 0x65 || buf[i] === 0x45) && i < end) {
      i++;
      if ((buf[i] === 0x2b || buf[i] === 0x2d) && i < end) i++;
      i = digits(i);
      if (i < 0) return -1;
    }
    return i;
  };
  const stop = value(ws(start), 0);
  return stop >= 0 && ws(stop) === end;
}
/** The letters of JSON's one-letter escapes besides the quote, backslash and slash. */
const SHORT_LETTERS = new Set([0x62, 0x66, 0x6e, 0x72, 0x74]);

const writeString: Write = (c, end, out) => {
  const stop = delimitedEnd(c, end);
  if (stop === BAIL) return false;
  const start = c.pos;
  c.pos = stop;
  return jsonString(c.buf, start, stop, out);
};

/**
 * Microseconds since the epoch as the general path writes them (write-streams.ts `jsonValue`,
 * time-text.ts `civilFromMicros`: `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`), for years 1000 to 9999 (the
 * text path's canonical form); undefined for any other.
 */
export function timestampText(micros: number): string | undefined {
  const text = Buffer.alloc(TIMESTAMP_MAX);
  const end = putTimestamp(micros, text, 0);
  return end < 0 ? undefined : text.toString('latin1', 0, end);
}

/** The longest `putTimestamp` writes: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
const TIMESTAMP_MAX = 27;

/** Two decimal digits at `at`. */
function put2(dst: Buffer, at: number, n: number): void {
  dst[at] = 48 + Math.floor(n / 10);
  dst[at + 1] = 48 + (n % 10);
}

/**
 * `timestampText`'s text written straight into `dst` at `at` (room for TIMESTAMP_MAX bytes):
 * the end, or -1 for a time outside its years. No string is made (two a row, each once a
 * template and a padStart, were a tenth of the transcoder's time).
 */
function putTimestamp(micros: number, dst: Buffer, at: number): number {
  let secs = Math.floor(micros / 1e6);
  let frac = micros - secs * 1e6;
  // Near 2^53 the division may round up to the next second.
  if (frac < 0) {
    secs -= 1;
    frac += 1e6;
  }
  const days = Math.floor(secs / 86_400);
  if (days !== lastDay) {
    // The rows of an append are mostly of one day: its date text is made once.
    const d = new Date(days * 86_400_000);
    const y = d.getUTCFullYear();
    lastDate =
      y < 1000 || y > 9999
        ? undefined
        : Buffer.from(
            `${y}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}T`,
            'latin1',
          );
    lastDay = days;
  }
  if (lastDate === undefined) return -1;
  for (let k = 0; k < 11; k++) dst[at++] = lastDate[k] as number;
  const s = secs - days * 86_400;
  put2(dst, at, Math.floor(s / 3600));
  dst[at + 2] = 58; // :
  put2(dst, at + 3, Math.floor(s / 60) % 60);
  dst[at + 5] = 58;
  put2(dst, at + 6, s % 60);
  at += 8;
  if (frac !== 0) {
    dst[at++] = 46; // .
    for (let k = 5; k >= 0; k--) {
      dst[at + k] = 48 + (frac % 10);
      frac = Math.floor(frac / 10);
    }
    at += 6;
  }
  dst[at++] = 90; // Z
  return at;
}
let lastDay = Number.NaN;
let lastDate: Buffer | undefined;

/** How one scalar proto field of the writer's type is written for its column; undefined: no fast path. */
function scalarWrite(col: FieldSchema, proto: protobuf.Field): { wire: number; write: Write } | undefined {
  if (proto.resolvedType instanceof protobuf.Enum) return undefined;
  switch (`${col.type.toUpperCase()}/${proto.type}`) {
    case 'STRING/string':
    case 'GEOGRAPHY/string':
      return { wire: DELIMITED, write: writeString };
    case 'JSON/string':
      // Stored as given once it parses (insert-rows.ts), as a JSON string of its text (row-text.ts).
      return {
        wire: DELIMITED,
        write: (c, end, out) => {
          const stop = delimitedEnd(c, end);
          if (stop === BAIL) return false;
          const start = c.pos;
          c.pos = stop;
          if (!isJson(c.buf, start, stop)) return false;
          return jsonString(c.buf, start, stop, out);
        },
      };
    case 'INTEGER/int64':
      return {
        wire: VARINT,
        write: (c, end, out) => {
          const n = varint(c, end);
          if (n === BAIL) return false;
          out.ascii(String(n));
          return true;
        },
      };
    case 'TIMESTAMP/int64':
      if (isPicoTimestamp(col)) return undefined;
      return {
        wire: VARINT,
        write: (c, end, out) => {
          const micros = varint(c, end);
          if (micros === BAIL) return false;
          out.room(TIMESTAMP_MAX + 2);
          out.buf[out.len] = QUOTE;
          const at = putTimestamp(micros, out.buf, out.len + 1);
          if (at < 0) return false;
          out.buf[at] = QUOTE;
          out.len = at + 1;
          return true;
        },
      };
    case 'FLOAT/double':
      return {
        wire: FIXED64,
        write: (c, end, out) => {
          if (c.pos + 8 > end) return false;
          const v = c.buf.readDoubleLE(c.pos);
          c.pos += 8;
          // JSON text has no NaN, infinities or -0: those are appended the general way.
          if (!Number.isFinite(v) || Object.is(v, -0)) return false;
          out.ascii(String(v));
          return true;
        },
      };
    case 'BOOLEAN/bool':
      return {
        wire: VARINT,
        write: (c, end, out) => {
          // One byte, 0 or 1: protobufjs reads longer forms through 32 bits, which is left to it.
          if (c.pos >= end) return false;
          const b = c.buf[c.pos++];
          if (b !== 0 && b !== 1) return false;
          out.ascii(b === 1 ? 'true' : 'false');
          return true;
        },
      };
    default:
      return undefined;
  }
}

/** One field of the writer's message: the column it fills and how its values are written. */
interface Slot {
  /** The column's index in the table's fields. */
  readonly index: number;
  /** `"name":` of the column, as UTF-8. */
  readonly key: Buffer;
  readonly wire: number;
  readonly repeated: boolean;
  /** A repeated scalar may also come packed (one delimited run of values). */
  readonly packable: boolean;
  readonly write: Write;
}

/** Writes one message (a row, or a RECORD's value) between `c.pos` and `end` as a JSON object. */
type MessageWrite = (c: Cursor, end: number, out: Out) => boolean;

const keyOf = (name: string): Buffer => Buffer.from(`${JSON.stringify(name)}:`);

/**
 * The transcoder of the writer's `type` into rows of the table's `cols`, or undefined when some
 * field or column is outside the fast path (the general path then decodes every append).
 */
function compileMessage(type: protobuf.Type, cols: readonly FieldSchema[]): MessageWrite | undefined {
  if (type.oneofsArray.length > 0) return undefined;
  // insertAll's text path leaves a column named __proto__ to the appender; so does this one.
  if (cols.some((f) => f.name === '__proto__')) return undefined;
  /** Slots by field number (field numbers of a writer's schema are small). */
  const byNumber: (Slot | undefined)[] = [];
  const taken = new Set<number>();
  for (const proto of type.fieldsArray) {
    proto.resolve();
    if (proto.map || proto.delimited) return undefined;
    // The general path keeps the column the name matches first, case aside (jsonRecord).
    const index = cols.findIndex((c) => c.name.toLowerCase() === proto.name.toLowerCase());
    const col = cols[index];
    if (!col || taken.has(index)) return undefined;
    taken.add(index);
    const repeated = proto.repeated;
    if (repeated !== (col.mode === 'REPEATED')) return undefined;
    let wire: number;
    let write: Write;
    if (proto.resolvedType instanceof protobuf.Type) {
      if (col.type.toUpperCase() !== 'RECORD') return undefined;
      const nested = compileMessage(proto.resolvedType, col.fields ?? []);
      if (!nested) return undefined;
      wire = DELIMITED;
      // A nested message must end where its length says (protobufjs refuses it otherwise).
      write = (c, end, out) => {
        const stop = delimitedEnd(c, end);
        return stop !== BAIL && nested(c, stop, out) && c.pos === stop;
      };
    } else {
      const scalar = scalarWrite(col, proto);
      if (!scalar) return undefined;
      ({ wire, write } = scalar);
    }
    // A proto2 `required` field protobufjs refuses when absent is, like a REQUIRED column, left to it.
    if (proto.required && col.mode !== 'REQUIRED') return undefined;
    if (proto.id > 10_000) return undefined;
    byNumber[proto.id] = {
      index,
      key: keyOf(col.name),
      wire,
      repeated,
      packable: repeated && wire !== DELIMITED,
      write,
    };
  }
  // A column the writer does not send is NULL (text: left out), an empty array if REPEATED; a
  // REQUIRED one is refused by the general path, for every row.
  const empties: Buffer[] = [];
  const required: number[] = [];
  for (let i = 0; i < cols.length; i++) {
    const col = cols[i] as FieldSchema;
    if (col.mode === 'REQUIRED') {
      if (!taken.has(i)) return undefined;
      required.push(i);
    }
    if (col.mode === 'REPEATED') empties[i] = Buffer.from(`${keyOf(col.name).toString()}[]`);
  }
  const emptyIndexes = empties.flatMap((b, i) => (b ? [i] : []));
  // Which columns this message wrote: the call's stamp in `seen` (no allocation per row; a
  // message's transcoder is never re-entered, RECORDs being finitely deep).
  const seen = new Float64Array(cols.length);
  let stamp = 0;

  return (c, end, out) => {
    const now = ++stamp;
    out.byte(0x7b); // {
    let first = true;
    /** The repeated column whose array is open, and whether it has an item yet. */
    let open: Slot | undefined;
    let items = 0;
    while (c.pos < end) {
      const tag = varint(c, end);
      if (tag === BAIL || tag > 0xffffffff) return false;
      const slot = byNumber[tag >>> 3];
      // An unknown field is skipped by protobufjs; it is left to it here.
      if (!slot) return false;
      const wire = tag % 8;
      if (slot !== open) {
        if (open) out.byte(0x5d); // ]
        open = undefined;
        // A field given twice (protobufjs keeps the last) or a repeated field's values not in
        // one run are left to the general path.
        if (seen[slot.index] === now) return false;
        seen[slot.index] = now;
        if (!first) out.byte(0x2c); // ,
        first = false;
        out.bytes(slot.key);
        if (slot.repeated) {
          out.byte(0x5b); // [
          open = slot;
          items = 0;
        }
      }
      if (!slot.repeated) {
        if (wire !== slot.wire || !slot.write(c, end, out)) return false;
        continue;
      }
      if (wire === slot.wire) {
        if (items++ > 0) out.byte(0x2c);
        if (!slot.write(c, end, out)) return false;
      } else if (wire === DELIMITED && slot.packable) {
        const stop = delimitedEnd(c, end);
        if (stop === BAIL) return false;
        while (c.pos < stop) {
          if (items++ > 0) out.byte(0x2c);
          if (!slot.write(c, stop, out)) return false;
        }
      } else return false;
    }
    if (open) out.byte(0x5d);
    for (const i of required) if (seen[i] !== now) return false;
    for (const i of emptyIndexes)
      if (seen[i] !== now) {
        if (!first) out.byte(0x2c);
        first = false;
        out.bytes(empties[i] as Buffer);
      }
    out.byte(0x7d); // }
    return true;
  };
}

/** An append's rows as the UTF-8 text of a JSON array of `count` objects. */
export interface RowsText {
  readonly text: Buffer;
  readonly count: number;
  /**
   * Hands the text's buffer back for later appends: call it once nothing reads `text` any more
   * (its rows are stored, or parsed); the text must not be read after.
   */
  release(): void;
}

/** Transcodes every serialized row of an append, or undefined: the general path decides them. */
export type FastRows = (rows: readonly Uint8Array[]) => RowsText | undefined;

const compiled = new WeakMap<protobuf.Type, WeakMap<readonly FieldSchema[], FastRows | null>>();

/**
 * The fast path for rows in the writer's `type` into a table of `fields` (compiled once per pair
 * and kept while both live), or undefined when the pair is outside it. Each row's text is
 * insertAll's prepared form (row-text.ts) of the row.
 */
export function fastRows(type: protobuf.Type, fields: readonly FieldSchema[]): FastRows | undefined {
  let byFields = compiled.get(type);
  if (!byFields) {
    byFields = new WeakMap();
    compiled.set(type, byFields);
  }
  let found = byFields.get(fields);
  if (found === undefined) {
    const write = compileMessage(type, fields);
    found = write
      ? (rows) => {
          // The text is seldom much longer than the proto bytes: one allocation for most appends.
          let size = 1024;
          for (const r of rows) size += r.byteLength;
          const out = new Out(size + (size >> 1));
          const c: Cursor = { buf: out.buf, pos: 0 };
          out.byte(0x5b); // [
          for (let i = 0; i < rows.length; i++) {
            const bytes = rows[i] as Uint8Array;
            c.buf = Buffer.isBuffer(bytes)
              ? bytes
              : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            c.pos = 0;
            if (i > 0) out.byte(0x2c);
            if (!write(c, bytes.byteLength, out)) {
              giveBuffer(out.buf);
              return undefined;
            }
          }
          out.byte(0x5d); // ]
          let released = false;
          return {
            text: out.buf.subarray(0, out.len),
            count: rows.length,
            release: () => {
              if (!released) giveBuffer(out.buf);
              released = true;
            },
          };
        }
      : null;
    byFields.set(fields, found);
  }
  return found ?? undefined;
}
