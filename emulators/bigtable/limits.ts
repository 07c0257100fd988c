/**
 * Cloud Bigtable's limits the emulator enforces, each with its source, so code that would hit a
 * limit in the cloud fails locally first.
 * Sources (read 2026-11): cloud.google.com/bigtable/quotas, "Limits" → "Data size within
 * tables" (row keys 4 KiB, column qualifiers 16 KiB, values 100 MiB) and "Operation limits"
 * (100,000 mutations in one request); cloud.google.com/bigtable/docs/reference/data/rpc
 * (google.bigtable.v2.Row: "any non-empty byte string up to 4KiB"); the admin API's
 * CreateTableRequest.table_id ("must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*", up to 50 characters);
 * and Table.granularity (MILLIS: "Timestamps not matching the granularity will be rejected").
 */
import { invalid } from './errors.ts';

export const LIMITS = Object.freeze({
  /** "Row keys: 4 KB per row key" (quotas, Data size within tables). */
  rowKeyBytes: 4 * 1024,
  /** "Column qualifiers: 16 KB per column qualifier" (quotas, Data size within tables). */
  qualifierBytes: 16 * 1024,
  /** "Individual values: 100 MB per cell" (quotas, Data size within tables). */
  valueBytes: 100 * 1024 * 1024,
  /** "Mutations per request: 100,000" (quotas, Operation limits; MutateRows counts all entries'). */
  mutationsPerRequest: 100_000,
  /** A table id: 1 to 50 characters (CreateTableRequest.table_id). */
  tableIdChars: 50,
  /** A column family id: 1 to 64 characters (quotas, "Column families"). */
  familyIdChars: 64,
  /** MILLIS granularity: a timestamp in microseconds must be a multiple of this. */
  timestampGranularityMicros: 1000n,
});

export function checkRowKey(key: Buffer): void {
  if (key.length === 0) throw invalid('Row keys must be non-empty');
  if (key.length > LIMITS.rowKeyBytes)
    throw invalid(`Row key is too large: ${key.length} bytes; the maximum is ${LIMITS.rowKeyBytes} bytes.`);
}

export function checkQualifier(qualifier: Buffer): void {
  if (qualifier.length > LIMITS.qualifierBytes)
    throw invalid(
      `Column qualifier is too large: ${qualifier.length} bytes; the maximum is ${LIMITS.qualifierBytes} bytes.`,
    );
}

export function checkValue(value: Buffer): void {
  if (value.length > LIMITS.valueBytes)
    throw invalid(
      `Cell value is too large: ${value.length} bytes; the maximum is ${LIMITS.valueBytes} bytes.`,
    );
}

export function checkMutationCount(n: number): void {
  if (n > LIMITS.mutationsPerRequest)
    throw invalid(`Too many mutations: ${n}; a request may have at most ${LIMITS.mutationsPerRequest}.`);
  if (n === 0) throw invalid('No mutations provided');
}

/** A cell timestamp given by a caller: -1 (server time), or microseconds of millisecond granularity. */
export function checkTimestamp(micros: bigint): void {
  if (micros === -1n) return;
  if (micros < 0n) throw invalid(`Timestamp ${micros} is negative; only -1 (server time) may be.`);
  if (micros % LIMITS.timestampGranularityMicros !== 0n)
    throw invalid(
      `Timestamp granularity mismatch: ${micros} is not a multiple of 1000 microseconds (the table's granularity is MILLIS).`,
    );
}

const TABLE_ID = /^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/;
const FAMILY_ID = /^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/;

export function checkTableId(id: string): void {
  if (!TABLE_ID.test(id) || id.length > LIMITS.tableIdChars)
    throw invalid(
      `Invalid table id "${id}": it must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most ${LIMITS.tableIdChars} characters.`,
    );
}

export function checkFamilyId(id: string): void {
  if (!FAMILY_ID.test(id) || id.length > LIMITS.familyIdChars)
    throw invalid(
      `Invalid column family id "${id}": it must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most ${LIMITS.familyIdChars} characters.`,
    );
}
