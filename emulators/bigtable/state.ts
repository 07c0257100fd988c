/**
 * The emulator's state: tables (their column families and GC rules) and rows, each change one
 * JSON record in the append-only log (emulators/common/json-log.ts). A row's mutations, however
 * many, are one record, so a MutateRow or CheckAndMutateRow is all or nothing across a crash.
 *
 * Row keys and column qualifiers are kept as latin1 strings, one character a byte, so that
 * JavaScript's string order is Bigtable's order of key bytes. A column's cells are newest first;
 * a cell written with the timestamp of an existing one replaces it.
 *
 * Garbage collection is eventual, as in Bigtable: a cell past its family's GC rule is still read
 * until a collection (`collect`, on the emulator's timer and on start) removes it; a collection
 * is itself a record (its time), so replay removes exactly the same cells.
 */
import { join } from 'node:path';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import { JsonLog } from '@eventbus/emulator-common/json-log.ts';
import { BigtableError } from './errors.ts';

export interface Cell {
  readonly ts: bigint;
  readonly value: Buffer;
}

/** family → qualifier (latin1) → cells, newest first. */
export type Row = Map<string, Map<string, Cell[]>>;

/** A column family's GC rule, as the admin API has it (null: keep every cell). */
export type GcRule =
  | { readonly maxNumVersions: number }
  | { readonly maxAgeMicros: string }
  | { readonly union: readonly GcRule[] }
  | { readonly intersection: readonly GcRule[] }
  | null;

export interface Table {
  /** `projects/{p}/instances/{i}/tables/{t}`. */
  readonly name: string;
  families: Map<string, GcRule>;
  readonly rows: Map<string, Row>;
  readonly createTime: string;
  /** The row keys in order, or null when a row was added or removed since they were sorted. */
  sorted: string[] | null;
}

/** A mutation as applied: timestamps resolved, bytes in base64. */
export type Applied =
  /** Set cell: family, qualifier, timestamp (µs), value. */
  | { readonly s: readonly [string, string, string, string] }
  /** Delete from column: family, qualifier, start (inclusive), end (exclusive); null = unbounded. */
  | { readonly dc: readonly [string, string, string | null, string | null] }
  /** Delete from family. */
  | { readonly df: string }
  /** Delete from row. */
  | { readonly dr: 1 };

type LogRecord =
  | {
      readonly t: 'table';
      readonly name: string;
      readonly families: Record<string, GcRule>;
      readonly createTime: string;
    }
  | { readonly t: 'families'; readonly name: string; readonly families: Record<string, GcRule> }
  | { readonly t: 'drop'; readonly name: string }
  | {
      readonly t: 'rows';
      readonly table: string;
      readonly rows: readonly (readonly [string, readonly Applied[]])[];
    }
  | { readonly t: 'range'; readonly table: string; readonly prefix: string | null }
  | { readonly t: 'gc'; readonly table: string; readonly at: string };

/** Value bytes past which a snapshot starts a new record. */
const SNAPSHOT_RECORD_BYTES = 32 * 1024 * 1024;

const b64 = (latin1: string): string => Buffer.from(latin1, 'latin1').toString('base64');
const unb64 = (s: string): string => Buffer.from(s, 'base64').toString('latin1');

/** Server time in microseconds, at the table's millisecond granularity. */
export const serverMicros = (): bigint => BigInt(Date.now()) * 1000n;

/** Whether `rule` collects the cell at `index` (0 = newest) of a column, at `now` (µs). */
function collects(rule: GcRule, cell: Cell, index: number, now: bigint): boolean {
  if (rule === null) return false;
  if ('maxNumVersions' in rule) return index >= rule.maxNumVersions;
  if ('maxAgeMicros' in rule) return cell.ts < now - BigInt(rule.maxAgeMicros);
  if ('union' in rule) return rule.union.some((r) => collects(r, cell, index, now));
  return rule.intersection.length > 0 && rule.intersection.every((r) => collects(r, cell, index, now));
}

export class BigtableState {
  readonly tables = new Map<string, Table>();
  private log!: JsonLog<LogRecord>;

  static async open(dataDir: string, policy: FsyncPolicy): Promise<BigtableState> {
    const s = new BigtableState();
    s.log = await JsonLog.open<LogRecord>(join(dataDir, 'bigtable.log'), policy, s);
    return s;
  }

  table(name: string): Table {
    const t = this.tables.get(name);
    if (!t) throw new BigtableError('NOT_FOUND', `Table not found: ${name}`);
    return t;
  }

  apply(rec: LogRecord): void {
    switch (rec.t) {
      case 'table':
        this.tables.set(rec.name, {
          name: rec.name,
          families: new Map(Object.entries(rec.families)),
          rows: new Map(),
          createTime: rec.createTime,
          sorted: null,
        });
        return;
      case 'families': {
        const t = this.table(rec.name);
        t.families = new Map(Object.entries(rec.families));
        // A dropped family's cells go with it.
        for (const [key, row] of t.rows) {
          for (const fam of row.keys()) if (!t.families.has(fam)) row.delete(fam);
          if (row.size === 0) this.removeRow(t, key);
        }
        return;
      }
      case 'drop':
        this.tables.delete(rec.name);
        return;
      case 'rows': {
        const t = this.table(rec.table);
        for (const [key, muts] of rec.rows) this.applyRow(t, unb64(key), muts);
        return;
      }
      case 'range': {
        const t = this.table(rec.table);
        const prefix = rec.prefix === null ? null : unb64(rec.prefix);
        for (const key of [...t.rows.keys()])
          if (prefix === null || key.startsWith(prefix)) this.removeRow(t, key);
        return;
      }
      case 'gc':
        this.collectNow(this.table(rec.table), BigInt(rec.at));
        return;
    }
  }

  private removeRow(t: Table, key: string): void {
    if (t.rows.delete(key)) t.sorted = null;
  }

  private applyRow(t: Table, key: string, muts: readonly Applied[]): void {
    let row = t.rows.get(key);
    if (!row) {
      row = new Map();
      t.rows.set(key, row);
      t.sorted = null;
    }
    for (const m of muts) {
      if ('s' in m) {
        const [fam, q, ts, value] = m.s;
        const columns: Map<string, Cell[]> = row.get(fam) ?? new Map();
        row.set(fam, columns);
        const qualifier = unb64(q);
        const cells: Cell[] = columns.get(qualifier) ?? [];
        const cell: Cell = { ts: BigInt(ts), value: Buffer.from(value, 'base64') };
        const at = cells.findIndex((c) => c.ts <= cell.ts);
        if (at < 0) cells.push(cell);
        else if (cells[at]?.ts === cell.ts) cells[at] = cell;
        else cells.splice(at, 0, cell);
        columns.set(qualifier, cells);
      } else if ('dc' in m) {
        const [fam, q, start, end] = m.dc;
        const columns = row.get(fam);
        const qualifier = unb64(q);
        const cells = columns?.get(qualifier);
        if (!columns || !cells) continue;
        const from = start === null ? null : BigInt(start);
        const to = end === null ? null : BigInt(end);
        const kept = cells.filter((c) => (from !== null && c.ts < from) || (to !== null && c.ts >= to));
        if (kept.length) columns.set(qualifier, kept);
        else columns.delete(qualifier);
        if (columns.size === 0) row.delete(fam);
      } else if ('df' in m) row.delete(m.df);
      else row.clear();
    }
    if (row.size === 0) this.removeRow(t, key);
  }

  snapshot(): LogRecord[] {
    const out: LogRecord[] = [];
    for (const t of this.tables.values()) {
      out.push({
        t: 'table',
        name: t.name,
        families: Object.fromEntries(t.families),
        createTime: t.createTime,
      });
      // Records of at most ~SNAPSHOT_RECORD_BYTES of values: a row's cells may span several (set
      // mutations add up), since one row of many 100 MiB versions would pass what one JSON string
      // can hold.
      let rows: [string, Applied[]][] = [];
      let size = 0;
      const flush = (): void => {
        if (rows.length) out.push({ t: 'rows', table: t.name, rows });
        rows = [];
        size = 0;
      };
      for (const [key, row] of t.rows) {
        let muts: Applied[] = [];
        rows.push([b64(key), muts]);
        for (const [fam, columns] of row)
          for (const [q, cells] of columns)
            for (const c of cells) {
              if (size > SNAPSHOT_RECORD_BYTES && muts.length > 0) {
                flush();
                muts = [];
                rows.push([b64(key), muts]);
              }
              muts.push({ s: [fam, b64(q), String(c.ts), c.value.toString('base64')] });
              size += c.value.length + q.length + key.length;
            }
        if (rows.length >= 1000) flush();
      }
      flush();
    }
    return out;
  }

  /** The table's row keys in byte order. */
  sortedKeys(t: Table): string[] {
    t.sorted ??= [...t.rows.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return t.sorted;
  }

  createTable(name: string, families: Record<string, GcRule>): Promise<void> {
    return this.log.commit({ t: 'table', name, families, createTime: new Date().toISOString() });
  }

  setFamilies(name: string, families: Record<string, GcRule>): Promise<void> {
    return this.log.commit({ t: 'families', name, families });
  }

  deleteTable(name: string): Promise<void> {
    return this.log.commit({ t: 'drop', name });
  }

  /** Applies each row's mutations (already checked) in one record. */
  mutate(table: string, rows: readonly (readonly [Buffer, readonly Applied[]])[]): Promise<void> {
    return this.log.commit({
      t: 'rows',
      table,
      rows: rows.map(([key, muts]) => [key.toString('base64'), muts] as const),
    });
  }

  /** Deletes the rows whose keys start with `prefix`, or every row (null). */
  dropRange(table: string, prefix: Buffer | null): Promise<void> {
    return this.log.commit({ t: 'range', table, prefix: prefix === null ? null : prefix.toString('base64') });
  }

  /** Removes the cells past their family's GC rule in every table; logged only where one goes. */
  async collect(now = serverMicros()): Promise<number> {
    let removed = 0;
    for (const t of this.tables.values()) {
      const n = this.countCollectable(t, now);
      if (n === 0) continue;
      removed += n;
      await this.log.commit({ t: 'gc', table: t.name, at: String(now) });
    }
    return removed;
  }

  private countCollectable(t: Table, now: bigint): number {
    let n = 0;
    for (const row of t.rows.values())
      for (const [fam, columns] of row) {
        const rule = t.families.get(fam) ?? null;
        if (rule === null) continue;
        for (const cells of columns.values()) n += cells.filter((c, i) => collects(rule, c, i, now)).length;
      }
    return n;
  }

  private collectNow(t: Table, now: bigint): void {
    for (const [key, row] of [...t.rows]) {
      for (const [fam, columns] of row) {
        const rule = t.families.get(fam) ?? null;
        if (rule === null) continue;
        for (const [q, cells] of columns) {
          const kept = cells.filter((c, i) => !collects(rule, c, i, now));
          if (kept.length) columns.set(q, kept);
          else columns.delete(q);
        }
        if (columns.size === 0) row.delete(fam);
      }
      if (row.size === 0) this.removeRow(t, key);
    }
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
