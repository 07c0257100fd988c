/**
 * google.bigtable.v2.Bigtable: ReadRows, MutateRow, MutateRows, CheckAndMutateRow,
 * ReadModifyWriteRow, SampleRowKeys and PingAndWarm. A row's check and its mutation happen in one
 * turn of the event loop (the state applies a record before it awaits the disk), so each is
 * atomic per row, as in Bigtable. Change streams, SQL queries, authorized and materialized
 * views are refused as UNIMPLEMENTED (grpc-js answers the methods left out). Each call answered is
 * counted, with the rows it read and mutated (calls.ts).
 */
import { status } from '@grpc/grpc-js';
import type { CallCounter } from './calls.ts';
import { grpcError, invalid, unsupported } from './errors.ts';
import { compileFilter, type Filter, type ReadCell } from './filters.ts';
import { checkMutationCount, checkQualifier, checkRowKey, checkValue, LIMITS } from './limits.ts';
import { familyOf, resolveMutations } from './mutations.ts';
import { bytes, type Obj, type Send, streaming, unary } from './rpc.ts';
import { type Applied, type BigtableState, serverMicros, type Table } from './state.ts';

/** A table named by a data request; authorized and materialized views refused. */
function tableOf(state: BigtableState, req: Obj): Table {
  if (req['authorizedViewName']) throw unsupported('Authorized views');
  if (req['materializedViewName']) throw unsupported('Materialized views');
  const name = req['tableName'];
  if (typeof name !== 'string' || !/^projects\/[^/]+\/instances\/[^/]+\/tables\/[^/]+$/.test(name))
    throw invalid(`Invalid table name: "${String(name ?? '')}"; expected projects/*/instances/*/tables/*.`);
  return state.table(name);
}

function rowKeyOf(req: Obj): Buffer {
  const key = bytes(req['rowKey']);
  checkRowKey(key);
  return key;
}

/** A row's cells in read order: families by name, qualifiers by bytes, newest first. */
function cellsOf(table: Table, key: string): ReadCell[] {
  const row = table.rows.get(key);
  if (!row) return [];
  const out: ReadCell[] = [];
  for (const family of [...row.keys()].sort()) {
    const columns = row.get(family);
    if (!columns) continue;
    for (const qualifier of [...columns.keys()].sort())
      for (const c of columns.get(qualifier) ?? [])
        out.push({ family, qualifier, ts: c.ts, value: c.value, labels: [] });
  }
  return out;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Whether `key` is in a RowRange (oneofs startKey / endKey). */
function inRowRange(key: string, r: Obj): boolean {
  const start = r['startKey'] as string | undefined;
  const end = r['endKey'] as string | undefined;
  const at = (name: string | undefined) => (name ? bytes(r[name]).toString('latin1') : '');
  if (start === 'startKeyClosed' && cmp(key, at(start)) < 0) return false;
  if (start === 'startKeyOpen' && cmp(key, at(start)) <= 0) return false;
  const e = at(end);
  if (end === 'endKeyOpen' && e !== '' && cmp(key, e) >= 0) return false;
  if (end === 'endKeyClosed' && e !== '' && cmp(key, e) > 0) return false;
  return true;
}

/** The keys a RowSet selects, in order (an empty set: every row). */
function selectKeys(state: BigtableState, table: Table, rows: Obj | undefined): string[] {
  const all = state.sortedKeys(table);
  const keys = ((rows?.['rowKeys'] as unknown[]) ?? []).map((k) => bytes(k).toString('latin1'));
  const ranges = (rows?.['rowRanges'] as Obj[]) ?? [];
  if (keys.length === 0 && ranges.length === 0) return all;
  const wanted = new Set(keys);
  return all.filter((k) => wanted.has(k) || ranges.some((r) => inRowRange(k, r)));
}

/** The chunks of one row as ReadRowsResponse carries them, the last committing the row. */
function chunksOf(key: string, cells: readonly ReadCell[]): Obj[] {
  return cells.map((c, i) => ({
    ...(i === 0 ? { rowKey: Buffer.from(key, 'latin1') } : {}),
    familyName: { value: c.family },
    qualifier: { value: Buffer.from(c.qualifier, 'latin1') },
    timestampMicros: String(c.ts),
    labels: [...c.labels],
    value: c.value,
    commitRow: i === cells.length - 1,
  }));
}

/**
 * Rows are read as the scan reaches them, a batch at a time, waiting while the caller's stream is
 * full: as in Bigtable, a row is read whole, but the rows of one scan are not one snapshot.
 */
async function readRows(state: BigtableState, req: Obj, send: Send, calls?: CallCounter): Promise<void> {
  const table = tableOf(state, req);
  const filter: Filter = compileFilter(req['filter'] as Obj | undefined);
  const limit = Number(req['rowsLimit'] ?? 0);
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalid(`rows_limit must not be negative: ${limit}`);
  const keys = selectKeys(state, table, req['rows'] as Obj | undefined);
  const ordered = req['reversed'] ? [...keys].reverse() : keys;
  let sent = 0;
  let batch: Obj[] = [];
  for (const key of ordered) {
    if (limit > 0 && sent >= limit) break;
    const cells = filter(key, cellsOf(table, key));
    if (cells.length === 0) continue;
    batch.push(...chunksOf(key, cells));
    sent++;
    if (batch.length >= 256) {
      if (!(await send({ chunks: batch }))) return;
      batch = [];
    }
  }
  if (batch.length) await send({ chunks: batch });
  calls?.count(table.name, 'ReadRows', { read: sent });
}

async function mutateRows(state: BigtableState, req: Obj, send: Send, calls?: CallCounter): Promise<void> {
  const table = tableOf(state, req);
  const entries = (req['entries'] as Obj[]) ?? [];
  if (entries.length === 0) throw invalid('No entries provided: a MutateRows request needs at least one.');
  const total = entries.reduce((n, e) => n + ((e['mutations'] as unknown[]) ?? []).length, 0);
  if (total > LIMITS.mutationsPerRequest) checkMutationCount(total);
  const now = serverMicros();
  const results: Obj[] = [];
  const rows: [Buffer, Applied[]][] = [];
  entries.forEach((e, index) => {
    try {
      const key = rowKeyOf(e);
      const muts = (e['mutations'] as Obj[]) ?? [];
      checkMutationCount(muts.length);
      rows.push([key, resolveMutations(table, muts, now)]);
      results.push({ index: String(index), status: { code: status.OK, message: '' } });
    } catch (err) {
      const { code, details } = grpcError(err);
      results.push({ index: String(index), status: { code, message: details } });
    }
  });
  if (rows.length) await state.mutate(table.name, rows);
  await send({ entries: results });
  calls?.count(table.name, 'MutateRows', { mutated: rows.length });
}

function checkAndMutate(state: BigtableState, req: Obj, calls?: CallCounter): Promise<Obj> {
  const table = tableOf(state, req);
  const key = rowKeyOf(req);
  const yes = (req['trueMutations'] as Obj[]) ?? [];
  const no = (req['falseMutations'] as Obj[]) ?? [];
  if (yes.length + no.length === 0)
    throw invalid('No mutations provided: a CheckAndMutateRow needs true_mutations or false_mutations.');
  if (yes.length > LIMITS.mutationsPerRequest) checkMutationCount(yes.length);
  if (no.length > LIMITS.mutationsPerRequest) checkMutationCount(no.length);
  const now = serverMicros();
  const ifTrue = resolveMutations(table, yes, now);
  const ifFalse = resolveMutations(table, no, now);
  const predicate = req['predicateFilter'] ? compileFilter(req['predicateFilter'] as Obj) : undefined;
  const latin = key.toString('latin1');
  const cells = cellsOf(table, latin);
  const matched = (predicate ? predicate(latin, cells) : cells).length > 0;
  const chosen = matched ? ifTrue : ifFalse;
  const done = chosen.length ? state.mutate(table.name, [[key, chosen]]) : Promise.resolve();
  return done.then(() => {
    calls?.count(table.name, 'CheckAndMutateRow', { read: 1, mutated: chosen.length ? 1 : 0 });
    return { predicateMatched: matched };
  });
}

async function readModifyWrite(state: BigtableState, req: Obj, calls?: CallCounter): Promise<Obj> {
  const table = tableOf(state, req);
  const key = rowKeyOf(req);
  const rules = (req['rules'] as Obj[]) ?? [];
  if (rules.length === 0)
    throw invalid('No rules provided: a ReadModifyWriteRow request needs at least one.');
  checkMutationCount(rules.length);
  const row = table.rows.get(key.toString('latin1'));
  const now = serverMicros();
  /** family \0 qualifier → the cell as this request leaves it. */
  const written = new Map<string, { family: string; qualifier: Buffer; ts: bigint; value: Buffer }>();
  for (const rule of rules) {
    const family = familyOf(table, rule['familyName']);
    const qualifier = bytes(rule['columnQualifier']);
    checkQualifier(qualifier);
    const col = `${family}\u0000${qualifier.toString('latin1')}`;
    const latest = written.get(col) ?? row?.get(family)?.get(qualifier.toString('latin1'))?.[0];
    const ts = latest && latest.ts > now ? latest.ts : now;
    let value: Buffer;
    if (rule['rule'] === 'appendValue')
      value = Buffer.concat([latest?.value ?? Buffer.alloc(0), bytes(rule['appendValue'])]);
    else if (rule['rule'] === 'incrementAmount') {
      const before = latest?.value ?? Buffer.alloc(8);
      if (before.length !== 8)
        throw invalid(
          `Value of cell to increment is not a 64-bit big-endian integer: it has ${before.length} bytes.`,
        );
      value = Buffer.alloc(8);
      value.writeBigInt64BE(
        BigInt.asIntN(64, before.readBigInt64BE(0) + BigInt(rule['incrementAmount'] as string)),
      );
    } else throw invalid('A ReadModifyWriteRule must set append_value or increment_amount.');
    checkValue(value);
    written.set(col, { family, qualifier, ts, value });
  }
  const cells = [...written.values()];
  await state.mutate(table.name, [
    [
      key,
      cells.map(
        (c) =>
          ({
            s: [c.family, c.qualifier.toString('base64'), String(c.ts), c.value.toString('base64')],
          }) as const,
      ),
    ],
  ]);
  calls?.count(table.name, 'ReadModifyWriteRow', { read: 1, mutated: 1 });
  const families = new Map<string, Obj[]>();
  for (const c of cells)
    families.set(c.family, [
      ...(families.get(c.family) ?? []),
      { qualifier: c.qualifier, cells: [{ timestampMicros: String(c.ts), value: c.value, labels: [] }] },
    ]);
  return { row: { key, families: [...families].map(([name, columns]) => ({ name, columns })) } };
}

/** SampleRowKeys: a key every 64 KiB of data or so, then the table's end (an empty key). */
async function sampleRowKeys(state: BigtableState, req: Obj, send: Send, calls?: CallCounter): Promise<void> {
  const table = tableOf(state, req);
  const step = 64 * 1024;
  let offset = 0;
  let next = step;
  for (const key of state.sortedKeys(table)) {
    for (const cell of cellsOf(table, key))
      offset += key.length + cell.qualifier.length + cell.value.length + 8;
    if (offset >= next) {
      if (!(await send({ rowKey: Buffer.from(key, 'latin1'), offsetBytes: String(offset) }))) return;
      next = offset + step;
    }
  }
  await send({ rowKey: Buffer.alloc(0), offsetBytes: String(offset) });
  calls?.count(table.name, 'SampleRowKeys');
}

/** The data API's handlers; `calls` counts each call answered (calls.ts). */
export function dataHandlers(state: BigtableState, calls?: CallCounter): Record<string, unknown> {
  return {
    ReadRows: streaming((req, send) => readRows(state, req, send, calls)),
    SampleRowKeys: streaming((req, send) => sampleRowKeys(state, req, send, calls)),
    MutateRow: unary(async (req) => {
      const table = tableOf(state, req);
      const key = rowKeyOf(req);
      const muts = (req['mutations'] as Obj[]) ?? [];
      checkMutationCount(muts.length);
      await state.mutate(table.name, [[key, resolveMutations(table, muts)]]);
      calls?.count(table.name, 'MutateRow', { mutated: 1 });
      return {};
    }),
    MutateRows: streaming((req, send) => mutateRows(state, req, send, calls)),
    CheckAndMutateRow: unary((req) => checkAndMutate(state, req, calls)),
    ReadModifyWriteRow: unary((req) => readModifyWrite(state, req, calls)),
    PingAndWarm: unary((req) => {
      const name = req['name'];
      if (typeof name !== 'string' || !/^projects\/[^/]+\/instances\/[^/]+$/.test(name))
        throw invalid(`Invalid instance name: "${String(name ?? '')}"; expected projects/*/instances/*.`);
      calls?.count(name, 'PingAndWarm');
      return {};
    }),
  };
}
