/**
 * google.bigtable.admin.v2.BigtableTableAdmin: CreateTable, GetTable, ListTables, DeleteTable,
 * ModifyColumnFamilies and DropRowRange. Backups, snapshots, authorized views, consistency
 * tokens, IAM policies and restores are refused as UNIMPLEMENTED (the methods left out).
 */
import { BigtableError, invalid, unsupported } from './errors.ts';
import { checkFamilyId, checkTableId } from './limits.ts';
import { bytes, type Obj, unary } from './rpc.ts';
import type { BigtableState, GcRule, Table } from './state.ts';

const INSTANCE = /^projects\/[^/]+\/instances\/[^/]+$/;
const TABLE = /^projects\/[^/]+\/instances\/[^/]+\/tables\/[^/]+$/;

function instanceOf(parent: unknown): string {
  if (typeof parent !== 'string' || !INSTANCE.test(parent))
    throw invalid(`Invalid parent: "${String(parent ?? '')}"; expected projects/*/instances/*.`);
  return parent;
}

function tableName(name: unknown): string {
  if (typeof name !== 'string' || !TABLE.test(name))
    throw invalid(`Invalid table name: "${String(name ?? '')}"; expected projects/*/instances/*/tables/*.`);
  return name;
}

/** A GcRule proto (oneof `rule`) as the state keeps it. */
export function gcRuleIn(rule: Obj | null | undefined): GcRule {
  if (!rule?.['rule']) return null;
  switch (rule['rule']) {
    case 'maxNumVersions': {
      const n = Number(rule['maxNumVersions']);
      if (!Number.isInteger(n) || n < 1) throw invalid(`max_num_versions must be at least 1, not ${n}.`);
      return { maxNumVersions: n };
    }
    case 'maxAge': {
      const d = rule['maxAge'] as Obj;
      const micros =
        BigInt((d['seconds'] as string) ?? '0') * 1_000_000n + BigInt(Number(d['nanos'] ?? 0)) / 1000n;
      if (micros < 1000n) throw invalid('max_age must be at least 1 millisecond.');
      return { maxAgeMicros: String(micros) };
    }
    case 'union':
      return { union: (((rule['union'] as Obj)['rules'] as Obj[]) ?? []).map(gcRuleIn) };
    case 'intersection':
      return { intersection: (((rule['intersection'] as Obj)['rules'] as Obj[]) ?? []).map(gcRuleIn) };
    default:
      throw invalid(`Unknown GC rule ${String(rule['rule'])}.`);
  }
}

function gcRuleOut(rule: GcRule): Obj | null {
  if (rule === null) return null;
  if ('maxNumVersions' in rule) return { maxNumVersions: rule.maxNumVersions };
  if ('maxAgeMicros' in rule) {
    const micros = BigInt(rule.maxAgeMicros);
    return { maxAge: { seconds: String(micros / 1_000_000n), nanos: Number(micros % 1_000_000n) * 1000 } };
  }
  if ('union' in rule) return { union: { rules: rule.union.map(gcRuleOut) } };
  return { intersection: { rules: rule.intersection.map(gcRuleOut) } };
}

/** A Table proto in a view (NAME_ONLY: the name; SCHEMA_VIEW, FULL: families and granularity too). */
function tableOut(t: Table, view: string): Obj {
  if (view === 'NAME_ONLY') return { name: t.name };
  const columnFamilies: Record<string, Obj> = {};
  for (const [id, rule] of t.families) {
    const gcRule = gcRuleOut(rule);
    columnFamilies[id] = gcRule ? { gcRule } : {};
  }
  return { name: t.name, columnFamilies, granularity: 'MILLIS' };
}

const viewOf = (v: unknown, fallback: string): string =>
  typeof v === 'string' && v !== 'VIEW_UNSPECIFIED' ? v : fallback;

async function createTable(state: BigtableState, req: Obj): Promise<Obj> {
  const parent = instanceOf(req['parent']);
  const id = String(req['tableId'] ?? '');
  checkTableId(id);
  const table = (req['table'] ?? {}) as Obj;
  const granularity = table['granularity'];
  if (
    granularity !== undefined &&
    granularity !== 'MILLIS' &&
    granularity !== 'TIMESTAMP_GRANULARITY_UNSPECIFIED'
  )
    throw invalid(`Unsupported timestamp granularity ${String(granularity)}.`);
  const families: Record<string, GcRule> = {};
  for (const [fid, fam] of Object.entries((table['columnFamilies'] ?? {}) as Record<string, Obj>)) {
    checkFamilyId(fid);
    if (fam['valueType']) throw unsupported('Aggregate column families (value_type)');
    families[fid] = gcRuleIn(fam['gcRule'] as Obj | undefined);
  }
  const name = `${parent}/tables/${id}`;
  if (state.tables.has(name)) throw new BigtableError('ALREADY_EXISTS', `Table already exists: ${name}`);
  await state.createTable(name, families);
  return tableOut(state.table(name), 'SCHEMA_VIEW');
}

function listTables(state: BigtableState, req: Obj): Obj {
  const parent = instanceOf(req['parent']);
  const view = viewOf(req['view'], 'NAME_ONLY');
  const size = Number(req['pageSize'] ?? 0);
  if (size < 0) throw invalid(`page_size must not be negative: ${size}`);
  const after = String(req['pageToken'] ?? '');
  const names = [...state.tables.keys()].filter((n) => n.startsWith(`${parent}/tables/`) && n > after).sort();
  const page = size > 0 ? names.slice(0, size) : names;
  const more = page.length < names.length;
  return {
    tables: page.map((n) => tableOut(state.table(n), view)),
    nextPageToken: more ? (page[page.length - 1] ?? '') : '',
  };
}

async function modifyColumnFamilies(state: BigtableState, req: Obj): Promise<Obj> {
  const t = state.table(tableName(req['name']));
  const families = new Map(t.families);
  const mods = (req['modifications'] as Obj[]) ?? [];
  if (mods.length === 0) throw invalid('No modifications provided.');
  for (const m of mods) {
    const id = String(m['id'] ?? '');
    const kind = m['mod'];
    if (kind === 'create') {
      checkFamilyId(id);
      if (families.has(id)) throw new BigtableError('ALREADY_EXISTS', `Column family already exists: ${id}`);
      const fam = (m['create'] ?? {}) as Obj;
      if (fam['valueType']) throw unsupported('Aggregate column families (value_type)');
      families.set(id, gcRuleIn(fam['gcRule'] as Obj | undefined));
    } else if (kind === 'update') {
      if (!families.has(id)) throw new BigtableError('NOT_FOUND', `Column family not found: ${id}`);
      families.set(id, gcRuleIn(((m['update'] ?? {}) as Obj)['gcRule'] as Obj | undefined));
    } else if (kind === 'drop') {
      if (!families.has(id)) throw new BigtableError('NOT_FOUND', `Column family not found: ${id}`);
      families.delete(id);
    } else throw invalid(`A modification of column family ${id} must set create, update or drop.`);
  }
  await state.setFamilies(t.name, Object.fromEntries(families));
  return tableOut(state.table(t.name), 'SCHEMA_VIEW');
}

async function dropRowRange(state: BigtableState, req: Obj): Promise<Obj> {
  const t = state.table(tableName(req['name']));
  if (req['target'] === 'rowKeyPrefix') {
    const prefix = bytes(req['rowKeyPrefix']);
    if (prefix.length === 0)
      throw invalid('row_key_prefix must not be empty; use delete_all_data_from_table.');
    await state.dropRange(t.name, prefix);
  } else if (req['target'] === 'deleteAllDataFromTable' && req['deleteAllDataFromTable'])
    await state.dropRange(t.name, null);
  else throw invalid('DropRowRange needs row_key_prefix or delete_all_data_from_table.');
  return {};
}

export function tableAdminHandlers(state: BigtableState): Record<string, unknown> {
  return {
    CreateTable: unary((req) => createTable(state, req)),
    GetTable: unary((req) =>
      tableOut(state.table(tableName(req['name'])), viewOf(req['view'], 'SCHEMA_VIEW')),
    ),
    ListTables: unary((req) => listTables(state, req)),
    DeleteTable: unary(async (req) => {
      const t = state.table(tableName(req['name']));
      await state.deleteTable(t.name);
      return {};
    }),
    ModifyColumnFamilies: unary((req) => modifyColumnFamilies(state, req)),
    DropRowRange: unary((req) => dropRowRange(state, req)),
  };
}
