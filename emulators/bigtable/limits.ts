/**
 * Cloud Bigtable's limits the emulator enforces, each with its source, so code that would hit a
 * limit in the cloud fails locally first. Sources (read 2026-11):
 * - cloud.google.com/bigtable/quotas, "Limits", "Data size within tables" (#limits-data-size):
 *   row keys 4 KiB, column qualifiers 16 KiB, individual values 100 MiB;
 * - the data API reference (cloud.google.com/bigtable/docs/reference/data/rpc, the comments of
 *   google/bigtable/v2/bigtable.proto and data.proto): `Row.key` "any non-empty byte string up to
 *   4KiB", `Column.qualifier` "up to 16kiB"; MutateRowRequest.mutations "at least one entry and
 *   at most 100000", MutateRowsRequest.entries "in total ... at most 100000 mutations",
 *   CheckAndMutateRowRequest's true/false mutations "at least one entry if [the other] is empty,
 *   and at most 100000", ReadModifyWriteRowRequest "at most 100000 rules"; `Cell.timestamp_micros`
 *   "a table which specifies millisecond granularity will only allow values ... which are
 *   multiples of 1000";
 * - the admin API reference (google/bigtable/admin/v2): CreateTableRequest.table_id "must match
 *   [_a-zA-Z0-9][-_.a-zA-Z0-9]*" (at most 50 characters, the quotas page's "Tables" limits) and
 *   Table.granularity (MILLIS, the only one offered).
 */
import { invalid } from './errors.ts';

export const LIMITS = Object.freeze({
  /** Row keys: 4 KiB (quotas, Data size within tables; `Row.key`). */
  rowKeyBytes: 4 * 1024,
  /** Column qualifiers: 16 KiB (quotas, Data size within tables; `Column.qualifier`). */
  qualifierBytes: 16 * 1024,
  /** Individual values: 100 MiB a cell (quotas, Data size within tables). */
  valueBytes: 100 * 1024 * 1024,
  /** Mutations in one request: 100,000, a MutateRows counting all its entries' (data API reference). */
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
