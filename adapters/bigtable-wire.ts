/**
 * The few Bigtable data API messages (google.bigtable.v2) the claim store sends and reads,
 * encoded by hand as adapters/publish-wire.ts does for Publish: no generated classes, no .proto
 * loaded at start. Field numbers are those of google/bigtable/v2/bigtable.proto and data.proto:
 *
 * - CheckAndMutateRowRequest { table_name = 1; row_key = 2; true_mutations = 4;
 *   false_mutations = 5; predicate_filter = 6; app_profile_id = 7 } → { predicate_matched = 1 }
 * - ReadRowsRequest { table_name = 1; rows = 2 (RowSet { row_keys = 1 }); filter = 3;
 *   rows_limit = 4; app_profile_id = 5 } → a stream of ReadRowsResponse { chunks = 1 }
 * - Mutation { set_cell = 1 { family_name = 1; column_qualifier = 2; timestamp_micros = 3;
 *   value = 4 }; delete_from_row = 4 {} }
 * - RowFilter { chain = 1 { filters = 1 }; interleave = 2 { filters = 1 }; condition = 3 {
 *   predicate_filter = 1; true_filter = 2; false_filter = 3 }; pass_all_filter = 17;
 *   block_all_filter = 18; column_qualifier_regex_filter = 6; value_regex_filter = 9; cells_per_row_limit_filter = 11;
 *   cells_per_column_limit_filter = 12 }
 * - CellChunk { row_key = 1; family_name = 2 (StringValue); qualifier = 3 (BytesValue);
 *   timestamp_micros = 4; labels = 5; value = 6; value_size = 7; reset_row = 8;
 *   commit_row = 9 }
 *
 * Pure. Small messages only (a claim is a few hundred bytes): built by concatenation.
 */

/** A RowFilter, as the few kinds the claim store uses. */
export type RowFilter =
  | { readonly chain: readonly RowFilter[] }
  | { readonly interleave: readonly RowFilter[] }
  | {
      readonly condition: {
        readonly predicate: RowFilter;
        readonly ifTrue: RowFilter;
        readonly ifFalse: RowFilter;
      };
    }
  | { readonly passAll: true }
  | { readonly blockAll: true }
  | { readonly qualifierRegex: string }
  | { readonly valueRegex: string }
  | { readonly cellsPerRowLimit: number }
  | { readonly cellsPerColumnLimit: number };

/** A Mutation: a cell written at the server's time (timestamp -1), or the whole row deleted. */
export type Mutation =
  | { readonly setCell: { readonly family: string; readonly qualifier: string; readonly value: string } }
  | { readonly deleteRow: true };

/** A cell as read: its family, qualifier (bytes as latin1 text), timestamp and value bytes. */
export interface ReadCell {
  readonly family: string;
  readonly qualifier: string;
  readonly timestampMicros: number;
  readonly value: Buffer;
}

const varint = (n: number): Buffer => {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
};

/** -1 as an int64 varint (two's complement, ten bytes): "the server's time" for a cell. */
const MINUS_ONE = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);

/** A length-delimited field (a message, bytes, a string). */
export const bytesField = (field: number, bytes: Buffer): Buffer =>
  Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
export const textField = (field: number, text: string): Buffer =>
  bytesField(field, Buffer.from(text, 'utf8'));
export const varintField = (field: number, n: number): Buffer =>
  Buffer.concat([varint(field << 3), varint(n)]);

export function encodeFilter(f: RowFilter): Buffer {
  if ('chain' in f) return bytesField(1, Buffer.concat(f.chain.map((x) => bytesField(1, encodeFilter(x)))));
  if ('interleave' in f)
    return bytesField(2, Buffer.concat(f.interleave.map((x) => bytesField(1, encodeFilter(x)))));
  if ('condition' in f)
    return bytesField(
      3,
      Buffer.concat([
        bytesField(1, encodeFilter(f.condition.predicate)),
        bytesField(2, encodeFilter(f.condition.ifTrue)),
        bytesField(3, encodeFilter(f.condition.ifFalse)),
      ]),
    );
  if ('passAll' in f) return varintField(17, 1);
  if ('blockAll' in f) return varintField(18, 1);
  if ('qualifierRegex' in f) return textField(6, f.qualifierRegex);
  if ('valueRegex' in f) return textField(9, f.valueRegex);
  if ('cellsPerRowLimit' in f) return varintField(11, f.cellsPerRowLimit);
  return varintField(12, f.cellsPerColumnLimit);
}

function encodeMutation(m: Mutation): Buffer {
  if ('deleteRow' in m) return bytesField(4, Buffer.alloc(0));
  const { family, qualifier, value } = m.setCell;
  return bytesField(
    1,
    Buffer.concat([
      textField(1, family),
      textField(2, qualifier),
      Buffer.from([3 << 3]),
      MINUS_ONE,
      textField(4, value),
    ]),
  );
}

export interface CheckAndMutate {
  readonly tableName: string;
  readonly appProfileId?: string;
  readonly rowKey: string;
  readonly predicate: RowFilter;
  readonly ifMatched: readonly Mutation[];
  readonly otherwise: readonly Mutation[];
}

export function encodeCheckAndMutateRow(r: CheckAndMutate): Buffer {
  return Buffer.concat([
    textField(1, r.tableName),
    textField(2, r.rowKey),
    ...r.ifMatched.map((m) => bytesField(4, encodeMutation(m))),
    ...r.otherwise.map((m) => bytesField(5, encodeMutation(m))),
    bytesField(6, encodeFilter(r.predicate)),
    ...(r.appProfileId ? [textField(7, r.appProfileId)] : []),
  ]);
}

/** A ReadRowsRequest of one row key, at most one row. */
export function encodeReadRow(r: {
  readonly tableName: string;
  readonly appProfileId?: string;
  readonly rowKey: string;
  readonly filter?: RowFilter;
}): Buffer {
  return Buffer.concat([
    textField(1, r.tableName),
    bytesField(2, textField(1, r.rowKey)),
    ...(r.filter ? [bytesField(3, encodeFilter(r.filter))] : []),
    varintField(4, 1),
    ...(r.appProfileId ? [textField(5, r.appProfileId)] : []),
  ]);
}

/** One protobuf field as read: its number, and its varint value or its bytes. */
export interface Field {
  readonly field: number;
  readonly n: number;
  readonly bytes: Buffer | undefined;
}

/** The fields of a message, in order; fixed-width fields are skipped (none is read here). */
export function fields(buf: Buffer, what: string): Field[] {
  const out: Field[] = [];
  let at = 0;
  const readVarint = (): number => {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= buf.length) throw new Error(`${what}: truncated varint`);
      const b = buf[at++] as number;
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
    throw new Error(`${what}: varint over 10 bytes`);
  };
  while (at < buf.length) {
    const tag = readVarint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) out.push({ field, n: readVarint(), bytes: undefined });
    else if (wire === 2) {
      const len = readVarint();
      if (at + len > buf.length) throw new Error(`${what}: truncated field ${field}`);
      out.push({ field, n: 0, bytes: buf.subarray(at, at + len) });
      at += len;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`${what}: unexpected wire type ${wire}`);
  }
  if (at > buf.length) throw new Error(`${what}: truncated`);
  return out;
}

/** CheckAndMutateRowResponse.predicate_matched. */
export function decodeCheckAndMutateRow(buf: Buffer): boolean {
  let matched = false;
  for (const f of fields(buf, 'CheckAndMutateRowResponse')) if (f.field === 1) matched = f.n !== 0;
  return matched;
}

/** The wrapped value of a google.protobuf.StringValue or BytesValue (field 1; absent = empty). */
const wrapped = (bytes: Buffer): Buffer => {
  let value: Buffer = Buffer.alloc(0);
  for (const f of fields(bytes, 'wrapper')) if (f.field === 1 && f.bytes) value = f.bytes;
  return value;
};

/**
 * The committed rows of a ReadRows stream, merged from its cell chunks as Bigtable's clients do:
 * a chunk names its row, family and qualifier only when they change, a value may come in pieces
 * (`value_size` set on all but the last), `reset_row` drops what the row had so far, and
 * `commit_row` ends the row. A stream that breaks these rules throws.
 */
export function decodeReadRows(messages: readonly Buffer[]): Map<string, ReadCell[]> {
  const rows = new Map<string, ReadCell[]>();
  let key: string | undefined;
  let cells: ReadCell[] = [];
  let family: string | undefined;
  let qualifier: string | undefined;
  let timestampMicros = 0;
  let parts: Buffer[] = [];
  let partial = false;
  for (const message of messages)
    for (const chunkField of fields(message, 'ReadRowsResponse')) {
      if (chunkField.field !== 1 || !chunkField.bytes) continue;
      let reset = false;
      let commit = false;
      let valueSize = 0;
      let value: Buffer | undefined;
      for (const f of fields(chunkField.bytes, 'CellChunk')) {
        if (f.field === 1 && f.bytes && f.bytes.length > 0) {
          if (partial) throw new Error('ReadRows: a new row inside a split value');
          const next = f.bytes.toString('latin1');
          if (key !== undefined && next !== key)
            throw new Error('ReadRows: a new row before the last committed');
          key = next;
        } else if (f.field === 2 && f.bytes) family = wrapped(f.bytes).toString('utf8');
        else if (f.field === 3 && f.bytes) qualifier = wrapped(f.bytes).toString('latin1');
        else if (f.field === 4) timestampMicros = f.n;
        else if (f.field === 6 && f.bytes) value = f.bytes;
        else if (f.field === 7) valueSize = f.n;
        else if (f.field === 8) reset = f.n !== 0;
        else if (f.field === 9) commit = f.n !== 0;
      }
      if (reset) {
        cells = [];
        parts = [];
        partial = false;
        family = undefined;
        qualifier = undefined;
        continue;
      }
      if (key === undefined) throw new Error('ReadRows: a chunk before its row key');
      // Every other chunk is a cell, or a piece of one.
      parts.push(value ?? Buffer.alloc(0));
      partial = valueSize > 0;
      if (!partial) {
        if (family === undefined || qualifier === undefined)
          throw new Error('ReadRows: a cell without its family or qualifier');
        cells.push({ family, qualifier, timestampMicros, value: Buffer.concat(parts) });
        parts = [];
      }
      if (commit) {
        if (partial) throw new Error('ReadRows: a row committed inside a split value');
        rows.set(key, cells);
        key = undefined;
        cells = [];
        family = undefined;
        qualifier = undefined;
      }
    }
  if (key !== undefined) throw new Error('ReadRows: the stream ended inside a row');
  return rows;
}

/** Bytes as an RE2 literal: every byte but a letter or digit escaped (RE2 takes `\` + punctuation). */
export function re2Literal(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, (c) => {
    if (c.charCodeAt(0) > 0x7f) throw new Error('re2Literal: ASCII only');
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}
