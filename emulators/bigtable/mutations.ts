/**
 * A request's mutations checked against the table and its limits, then resolved into the
 * records the state applies (state.ts `Applied`): server time (-1) made a timestamp, bytes in
 * base64. Checking comes first and throws, so a refused request changes nothing.
 */
import { BigtableError, invalid, unsupported } from './errors.ts';
import { checkQualifier, checkTimestamp, checkValue } from './limits.ts';
import { bytes, type Obj } from './rpc.ts';
import { type Applied, serverMicros, type Table } from './state.ts';

export function familyOf(table: Table, family: unknown): string {
  const name = typeof family === 'string' ? family : '';
  if (!table.families.has(name)) throw new BigtableError('NOT_FOUND', 'Requested column family not found.');
  return name;
}

function micros(v: unknown): bigint {
  try {
    return BigInt((v as string | number | undefined) ?? 0);
  } catch {
    throw invalid(`Invalid timestamp: ${String(v)}`);
  }
}

/** Checks and resolves one row's mutations; `now` is the server time every -1 becomes. */
export function resolveMutations(table: Table, mutations: readonly Obj[], now = serverMicros()): Applied[] {
  return mutations.map((m): Applied => {
    const kind = m['mutation'] as string | undefined;
    const arg = (kind === undefined ? {} : (m[kind] ?? {})) as Obj;
    switch (kind) {
      case 'setCell': {
        const family = familyOf(table, arg['familyName']);
        const qualifier = bytes(arg['columnQualifier']);
        checkQualifier(qualifier);
        const value = bytes(arg['value']);
        checkValue(value);
        const ts = micros(arg['timestampMicros']);
        checkTimestamp(ts);
        return {
          s: [family, qualifier.toString('base64'), String(ts === -1n ? now : ts), value.toString('base64')],
        };
      }
      case 'deleteFromColumn': {
        const family = familyOf(table, arg['familyName']);
        const qualifier = bytes(arg['columnQualifier']);
        checkQualifier(qualifier);
        const range = (arg['timeRange'] ?? {}) as Obj;
        const start = micros(range['startTimestampMicros']);
        const end = micros(range['endTimestampMicros']);
        checkTimestamp(start);
        checkTimestamp(end);
        if (end !== 0n && end < start)
          throw invalid(`Invalid time range: its end (${end}) is before its start (${start}).`);
        return {
          dc: [
            family,
            qualifier.toString('base64'),
            start === 0n ? null : String(start),
            end === 0n ? null : String(end),
          ],
        };
      }
      case 'deleteFromFamily':
        return { df: familyOf(table, arg['familyName']) };
      case 'deleteFromRow':
        return { dr: 1 };
      case 'addToCell':
      case 'mergeToCell':
        throw unsupported(`The ${kind} mutation (aggregate column families)`);
      default:
        throw invalid(
          'A mutation must set one of set_cell, delete_from_column, delete_from_family, delete_from_row.',
        );
    }
  });
}
