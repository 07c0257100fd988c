/**
 * The Storage Write API's bytes that the generic proto loader cannot hand over as they are
 * (docs/bigquery-emulator.md, "Storage Write API"): an `AppendRowsRequest` is read by hand, so the
 * writer's `DescriptorProto` stays the bytes the client sent (protobufjs builds the row type from
 * them) and each serialized row stays a view of the request's buffer; and `StorageError`, the
 * detail BigQuery puts in the `google.cloud.bigquery.storage.v1.storageerror-bin` trailer and in an
 * in-stream `error`'s details. Field numbers are storage.proto's.
 */
import protobuf from 'protobufjs';

/** `AppendRowsRequest.MissingValueInterpretation`. */
export type MissingValue = 'UNSPECIFIED' | 'NULL_VALUE' | 'DEFAULT_VALUE';
const MISSING: readonly MissingValue[] = ['UNSPECIFIED', 'NULL_VALUE', 'DEFAULT_VALUE'];

export interface AppendRequest {
  readonly writeStream: string;
  /** Absent: the rows go at the stream's end. */
  readonly offset: bigint | undefined;
  /** The writer's schema (`ProtoSchema.proto_descriptor`), when this request carries one. */
  readonly descriptor: Uint8Array | undefined;
  /** Whether the request held `proto_rows` at all (an empty list is still proto rows). */
  readonly protoRows: boolean;
  readonly rows: readonly Uint8Array[];
  /** Arrow rows are not read by the emulator: refused with a message. */
  readonly arrow: boolean;
  readonly traceId: string;
  readonly missing: ReadonlyMap<string, MissingValue>;
  readonly defaultMissing: MissingValue;
}

function int64Value(r: protobuf.Reader, end: number): bigint {
  let value = 0n;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 0) value = BigInt(r.int64().toString());
    else r.skipType(tag & 7);
  }
  return value;
}

function protoData(
  r: protobuf.Reader,
  end: number,
  out: { descriptor?: Uint8Array; rows: Uint8Array[] },
): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    if (tag >>> 3 === 1 && wire === 2) {
      // ProtoSchema { DescriptorProto proto_descriptor = 1; }
      const len = r.uint32();
      const stop = r.pos + len;
      while (r.pos < stop) {
        const t = r.uint32();
        if (t >>> 3 === 1 && (t & 7) === 2) out.descriptor = r.bytes();
        else r.skipType(t & 7);
      }
    } else if (tag >>> 3 === 2 && wire === 2) {
      // ProtoRows { repeated bytes serialized_rows = 1; }
      const len = r.uint32();
      const stop = r.pos + len;
      while (r.pos < stop) {
        const t = r.uint32();
        if (t >>> 3 === 1 && (t & 7) === 2) out.rows.push(r.bytes());
        else r.skipType(t & 7);
      }
    } else r.skipType(wire);
  }
}

function mapEntry(r: protobuf.Reader, end: number): [string, MissingValue] {
  let key = '';
  let value: MissingValue = 'UNSPECIFIED';
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 2) key = r.string();
    else if (tag >>> 3 === 2 && (tag & 7) === 0) value = MISSING[r.int32()] ?? 'UNSPECIFIED';
    else r.skipType(tag & 7);
  }
  return [key, value];
}

/** Reads one `AppendRowsRequest`; throws (the caller answers INVALID_ARGUMENT) on broken bytes. */
export function decodeAppendRequest(buf: Buffer): AppendRequest {
  const r = protobuf.Reader.create(buf);
  let writeStream = '';
  let offset: bigint | undefined;
  let protoRows = false;
  let arrow = false;
  let traceId = '';
  let defaultMissing: MissingValue = 'UNSPECIFIED';
  const missing = new Map<string, MissingValue>();
  const data: { descriptor?: Uint8Array; rows: Uint8Array[] } = { rows: [] };
  while (r.pos < r.len) {
    const tag = r.uint32();
    const num = tag >>> 3;
    const wire = tag & 7;
    if (wire === 2 && (num === 2 || num === 4 || num === 7)) {
      const len = r.uint32();
      const end = r.pos + len;
      if (num === 2) offset = int64Value(r, end);
      else if (num === 4) {
        protoRows = true;
        protoData(r, end, data);
      } else {
        const [k, v] = mapEntry(r, end);
        missing.set(k, v);
      }
    } else if (num === 1 && wire === 2) writeStream = r.string();
    else if (num === 5 && wire === 2) {
      arrow = true;
      r.skipType(wire);
    } else if (num === 6 && wire === 2) traceId = r.string();
    else if (num === 8 && wire === 0) defaultMissing = MISSING[r.int32()] ?? 'UNSPECIFIED';
    else r.skipType(wire);
  }
  return {
    writeStream,
    offset,
    descriptor: data.descriptor,
    protoRows,
    rows: data.rows,
    arrow,
    traceId,
    missing,
    defaultMissing,
  };
}

/** `StorageError.StorageErrorCode`. */
export const STORAGE_ERROR = {
  TABLE_NOT_FOUND: 1,
  STREAM_ALREADY_COMMITTED: 2,
  STREAM_NOT_FOUND: 3,
  INVALID_STREAM_TYPE: 4,
  INVALID_STREAM_STATE: 5,
  STREAM_FINALIZED: 6,
  SCHEMA_MISMATCH_EXTRA_FIELDS: 7,
  OFFSET_ALREADY_EXISTS: 8,
  OFFSET_OUT_OF_RANGE: 9,
} as const;
export type StorageErrorCode = keyof typeof STORAGE_ERROR;

export interface StorageErrorValue {
  readonly code: StorageErrorCode;
  readonly entity: string;
  readonly errorMessage: string;
}

/** `StorageError{code = 1, entity = 2, error_message = 3}`. */
export function encodeStorageError(e: StorageErrorValue): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(8).int32(STORAGE_ERROR[e.code]);
  if (e.entity !== '') w.uint32(18).string(e.entity);
  if (e.errorMessage !== '') w.uint32(26).string(e.errorMessage);
  return Buffer.from(w.finish());
}

export const STORAGE_ERROR_TYPE_URL = 'type.googleapis.com/google.cloud.bigquery.storage.v1.StorageError';
/** The trailer Google's clients read StorageErrors from (managedwriter's `parseStorageErrors`). */
export const STORAGE_ERROR_TRAILER = 'google.cloud.bigquery.storage.v1.storageerror-bin';
