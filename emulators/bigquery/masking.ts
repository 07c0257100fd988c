/**
 * Column-level security and data masking (`--iam`), as BigQuery applies them per caller: a leaf
 * field tagged with a policy tag that the access file lists (`policyTags`, iam-enforce.ts) is read
 *
 * - raw by a Fine-Grained Reader of the tag (`datacatalog.categories.fineGrainedGet` on it),
 * - else masked by the rule of a data policy of the tag the caller is a Masked Reader of
 *   (`bigquery.dataPolicies.maskedGet` on it; several: BigQuery's rule hierarchy picks one),
 * - else not at all: a query that reads the column (`SELECT *` included) is refused with
 *   BigQuery's 403.
 *
 * Queries read masked columns through a shadow view of the table (`"_mask.<digest>"."<table>"`,
 * same table name, so column references keep binding) that projects each masked leaf through its
 * rule; a view over such a table gets its own shadow, built from its query. Which columns a
 * statement reads is decided from its text (`readsColumn`), as BigQuery decides before running.
 * Without `--iam`, or for the owner, nothing is masked.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  type Caller,
  type Enforcement,
  OWNER,
  type PolicyTagEntry,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { ApiError } from './errors.ts';
import { duckType, type FieldSchema } from './schema.ts';
import { type TableRef, type Translation, translate } from './sql.ts';
import { qualifiedName, quoteIdent, type Token, tokenize } from './sql-tree.ts';
import type { Emulator, Json } from './state.ts';
import { wildcardMatches } from './statements.ts';

/** The caller of one request and the policies it is checked against (access.ts's `Access`). */
export interface Access {
  readonly enforcement: Enforcement;
  readonly caller: Caller;
}

/** BigQuery's predefined masking rules, highest priority first (its "data masking rule hierarchy"). */
export const MASKING_RULES = Object.freeze([
  'SHA256',
  'EMAIL_MASK',
  'LAST_FOUR_CHARACTERS',
  'FIRST_FOUR_CHARACTERS',
  'DATE_YEAR_MASK',
  'DEFAULT_MASKING_VALUE',
  'ALWAYS_NULL',
] as const);
export type MaskingRule = (typeof MASKING_RULES)[number];

/** How one caller reads one tagged column. */
export type Verdict =
  | { readonly kind: 'raw' }
  | { readonly kind: 'masked'; readonly rule: MaskingRule }
  | { readonly kind: 'denied' };

/** A tagged leaf field of a table: its path from the top, the field, the tag's name. */
export interface TaggedColumn {
  readonly path: readonly string[];
  readonly field: FieldSchema;
  readonly tag: string;
}

/** Every leaf field that carries a policy tag, at any depth (inside RECORDs, repeated or not). */
export function taggedColumns(
  fields: readonly FieldSchema[],
  prefix: readonly string[] = [],
): TaggedColumn[] {
  return fields.flatMap((f) => {
    const path = [...prefix, f.name];
    if (f.fields) return taggedColumns(f.fields, path);
    const tag = f.policyTags?.names?.[0];
    return tag ? [{ path, field: f, tag }] : [];
  });
}

const RAW: Verdict = { kind: 'raw' };

/** How the caller reads columns tagged `tag`. A tag the access file does not list restricts nothing. */
export function verdictFor(a: Access | undefined, tag: string): Verdict {
  if (!a || a.caller.principal === OWNER) return RAW;
  const entry: PolicyTagEntry | undefined = a.enforcement.policyTags().find((t) => t.name === tag);
  if (!entry) return RAW;
  const holds = (permission: string, resource: string) =>
    a.enforcement.check(a.caller, { permission, resource }) === undefined;
  if (holds('datacatalog.categories.fineGrainedGet', entry.resource ?? entry.name)) return RAW;
  const rules = entry.dataPolicies
    .filter((p) => holds('bigquery.dataPolicies.maskedGet', p.resource ?? p.name))
    .map((p) => p.predefinedExpression);
  const rule = MASKING_RULES.find((r) => rules.includes(r));
  return rule ? { kind: 'masked', rule } : { kind: 'denied' };
}

const SCALAR_DEFAULTS: Readonly<Record<string, string>> = {
  STRING: "''",
  BYTES: "''::BLOB",
  INTEGER: '0',
  INT64: '0',
  FLOAT: '0.0',
  FLOAT64: '0.0',
  NUMERIC: '0',
  BIGNUMERIC: '0',
  BOOLEAN: 'FALSE',
  BOOL: 'FALSE',
  TIMESTAMP: "TIMESTAMP '1970-01-01 00:00:00'",
  DATE: "DATE '1970-01-01'",
  TIME: "TIME '00:00:00'",
  DATETIME: "TIMESTAMP '1970-01-01 00:00:00'",
  GEOGRAPHY: "'POINT(0 0)'",
  JSON: 'NULL',
};

/** SHA-256 as the masking rule gives it: type preserving, a STRING as the digest's base64. */
const sha = (type: string, v: string): string | undefined =>
  type === 'STRING' ? `to_base64(unhex(sha256(${v})))` : type === 'BYTES' ? `unhex(sha256(${v}))` : undefined;

/** One value of a (non-repeated) leaf through `rule`; undefined when the rule does not fit its type. */
function maskScalar(rule: MaskingRule, f: FieldSchema, v: string): string | undefined {
  const type = f.type.toUpperCase();
  const hashed = sha(type, v);
  const text = type === 'STRING';
  switch (rule) {
    case 'SHA256':
      return hashed;
    case 'ALWAYS_NULL':
      return 'NULL';
    case 'DEFAULT_MASKING_VALUE':
      return SCALAR_DEFAULTS[type];
    case 'LAST_FOUR_CHARACTERS':
      return text
        ? `CASE WHEN length(${v}) > 4 THEN 'XXXXX' || right(${v}, 4) ELSE ${hashed} END`
        : undefined;
    case 'FIRST_FOUR_CHARACTERS':
      return text ? `CASE WHEN length(${v}) > 4 THEN left(${v}, 4) || 'XXXXX' ELSE ${hashed} END` : undefined;
    case 'EMAIL_MASK':
      return text
        ? `CASE WHEN regexp_full_match(${v}, '[^@\\s]+@[^@\\s]+\\.[^@\\s]+') THEN 'XXXXX' || substr(${v}, strpos(${v}, '@')) ELSE ${hashed} END`
        : undefined;
    case 'DATE_YEAR_MASK':
      return ['DATE', 'DATETIME', 'TIMESTAMP'].includes(type) ? `date_trunc('year', ${v})` : undefined;
  }
}

/**
 * A leaf's masked value, typed as the column (ALWAYS_NULL and the default of an array keep the
 * column's type); undefined when the rule does not apply to the type (the column is then refused,
 * as BigQuery treats a masked column it cannot mask as secured).
 */
export function maskExpression(rule: MaskingRule, f: FieldSchema, v: string): string | undefined {
  const type = duckType(f);
  if (f.mode === 'REPEATED') {
    if (rule === 'ALWAYS_NULL') return `CAST(NULL AS ${type})`;
    if (rule === 'DEFAULT_MASKING_VALUE')
      return `CASE WHEN ${v} IS NULL THEN NULL ELSE CAST([] AS ${type}) END`;
    const each = maskScalar(rule, { ...f, mode: 'NULLABLE' }, '__m');
    return each === undefined ? undefined : `CAST(list_transform(${v}, __m -> ${each}) AS ${type})`;
  }
  const one = maskScalar(rule, f, v);
  if (one === undefined) return undefined;
  return `CASE WHEN ${v} IS NULL THEN NULL ELSE CAST(${one} AS ${type}) END`;
}

/** The caller's verdict on each tagged column of a table, by dotted lower-case path. */
type Verdicts = ReadonlyMap<string, Verdict>;
const pathKey = (path: readonly string[]) => path.map((p) => p.toLowerCase()).join('.');

/**
 * A field's value with its masked leaves masked: RECORDs rebuilt field by field (a NULL record
 * stays NULL; a repeated one element by element), other fields as they are. Undefined when a
 * masked leaf under it has a rule its type cannot take.
 */
function rebuilt(
  f: FieldSchema,
  v: string,
  verdicts: Verdicts,
  prefix: readonly string[],
): string | undefined {
  const path = [...prefix, f.name];
  if (!f.fields) {
    const verdict = verdicts.get(pathKey(path));
    if (verdict?.kind === 'masked') return maskExpression(verdict.rule, f, v);
    // A column the caller may not read is never referenced (readsColumn refused that): NULL here.
    if (verdict?.kind === 'denied') return `CAST(NULL AS ${duckType(f)})`;
    return v;
  }
  const under = [...verdicts.keys()].some((k) => k.startsWith(`${pathKey(path)}.`));
  if (!under) return v;
  const element = f.mode === 'REPEATED' ? '__r' : v;
  const parts: string[] = [];
  for (const s of f.fields) {
    const inner = rebuilt(s, `(${element}).${quoteIdent(s.name)}`, verdicts, path);
    if (inner === undefined) return undefined;
    parts.push(`${quoteIdent(s.name)} := ${inner}`);
  }
  const record = `struct_pack(${parts.join(', ')})`;
  if (f.mode === 'REPEATED') return `list_transform(${v}, __r -> ${record})`;
  return `CASE WHEN ${v} IS NULL THEN NULL ELSE ${record} END`;
}

/** BigQuery's refusal of a query that reads columns the caller may not read. */
function deniedColumns(tag: string, columns: readonly string[]): ApiError {
  return new ApiError(
    'accessDenied',
    `Access Denied: BigQuery BigQuery: User does not have permission to access policy tag ${tag} on column${columns.length > 1 ? 's' : ''} ${columns.join(', ')}.`,
  );
}

const DML_REFUSAL =
  'Access Denied: Requires fineGrainedGet permission on the read columns to execute the DML statements';

const word = (t: Token | undefined) =>
  t && (t.kind === 'ident' || t.kind === 'qident') ? t.text.toLowerCase() : undefined;

/**
 * `*` that expands a row in a select list (not `COUNT(*)` nor a product), with its EXCEPT list;
 * the positions of the EXCEPT lists' names go into `listed`.
 */
function stars(tokens: readonly Token[], listed: Set<number>): (readonly string[])[] {
  const out: string[][] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== 'op' || t.text !== '*') return;
    const before = tokens[i - 1];
    const w = word(before);
    const expands =
      (before?.kind === 'op' && (before.text === ',' || before.text === '.')) ||
      (before?.kind === 'ident' && ['select', 'distinct', 'all'].includes(w ?? ''));
    if (!expands) return;
    const except: string[] = [];
    if (word(tokens[i + 1]) === 'except' && tokens[i + 2]?.text === '(') {
      for (let j = i + 3; j < tokens.length && tokens[j]?.text !== ')'; j++) {
        const name = word(tokens[j]);
        if (name) except.push(name);
        listed.add(j);
      }
    }
    out.push(except);
  });
  return out;
}

/**
 * Whether a statement's text reads a column: a `*` that expands it (not EXCEPTed), its leaf name,
 * or a RECORD above it used whole (`user`, `TO_JSON_STRING(user)`) or followed down its path.
 * Over-approximates (a same-named column of another table counts), as a refusal should.
 */
export function readsColumn(sql: string, path: readonly string[]): boolean {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch {
    return true;
  }
  const parts = path.map((p) => p.toLowerCase());
  const top = parts[0] as string;
  const listed = new Set<number>();
  if (stars(tokens, listed).some((except) => !except.includes(top))) return true;
  const leaf = parts[parts.length - 1] as string;
  return tokens.some((t, i) => {
    const w = word(t);
    if (w === undefined || listed.has(i)) return false;
    if (w === leaf) return true;
    let depth = parts.indexOf(w);
    if (depth < 0 || depth === parts.length - 1) return false;
    let k = i;
    while (tokens[k + 1]?.text === '.' && word(tokens[k + 2]) !== undefined) {
      if (word(tokens[k + 2]) !== parts[depth + 1]) return false;
      depth++;
      k += 2;
    }
    return true;
  });
}

/** One table's shadow: the view to create and the name that replaces the table's in the SQL. */
interface Shadow {
  readonly from: string;
  readonly to: string;
  readonly create: string;
}

const schemaOf = (sql: string) => `_mask.${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;

/** What a statement needs before it runs: shadows to create, and its SQL reading them. */
export interface MaskPlan {
  readonly shadows: readonly Shadow[];
  readonly sql: string;
}

const sameRef = (a: TableRef, b: TableRef | undefined) =>
  b !== undefined && a.projectId === b.projectId && a.datasetId === b.datasetId && a.tableId === b.tableId;

/**
 * Checks a statement's reads against column-level security and plans the masking: refuses a read
 * of a column the caller may not read (a DML statement, every tagged column it reads but raw) and
 * returns the statement's SQL over shadows of the tables (and views) it reads masked. `texts` are
 * the BigQuery texts the reads go through (the statement's, then each view's query).
 */
export function planMasking(em: Emulator, a: Access | undefined, text: string, tr: Translation): MaskPlan {
  if (!a || a.caller.principal === OWNER || a.enforcement.policyTags().length === 0)
    return { shadows: [], sql: tr.sql };
  if (
    tr.kind === 'create_view' ||
    tr.kind === 'drop_table' ||
    tr.kind === 'drop_view' ||
    tr.kind === 'truncate'
  )
    return { shadows: [], sql: tr.sql };
  const dml = tr.kind === 'update' || tr.kind === 'delete' || tr.kind === 'merge';
  // INSERT's and CREATE TABLE's target is written, not read (its name stays: no shadow replaces
  // it); UPDATE, DELETE and MERGE read theirs, and are refused any column not read raw.
  const target = tr.target;
  const reads = dml ? tr.tables : tr.tables.filter((r) => !sameRef(r, target));
  const shadows: Shadow[] = [];
  const sql = shadowed(em, a, reads, [text], tr.sql, shadows, dml, 0);
  return { shadows, sql };
}

/** `sql` with each of `tables` that the caller reads masked replaced by its shadow (created into `out`). */
function shadowed(
  em: Emulator,
  a: Access,
  tables: readonly TableRef[],
  texts: readonly string[],
  sql: string,
  out: Shadow[],
  dml: boolean,
  depth: number,
): string {
  let result = sql;
  const seen = new Set<string>();
  for (const ref of tables) {
    const name = qualifiedName(ref);
    if (seen.has(name)) continue;
    seen.add(name);
    const t = em.store.table(ref.projectId, ref.datasetId, ref.tableId);
    if (!t) continue;
    const shadow =
      t.resource['type'] === 'VIEW'
        ? viewShadow(em, a, ref, t.resource, texts, out, dml, depth)
        : tableShadow(a, ref, t.resource, texts, dml);
    if (!shadow) continue;
    out.push(shadow);
    result = result.split(shadow.from).join(shadow.to);
  }
  return result;
}

function tableShadow(
  a: Access,
  ref: TableRef,
  resource: Json,
  texts: readonly string[],
  dml: boolean,
): Shadow | undefined {
  const fields = ((resource['schema'] as Json | undefined)?.['fields'] ?? []) as FieldSchema[];
  const tagged = taggedColumns(fields);
  if (tagged.length === 0) return undefined;
  const verdicts = new Map<string, Verdict>();
  const refused = new Map<string, string[]>();
  for (const c of tagged) {
    const verdict = verdictFor(a, c.tag);
    verdicts.set(pathKey(c.path), verdict);
    if (verdict.kind === 'raw') continue;
    const cannotMask = verdict.kind === 'masked' && maskExpression(verdict.rule, c.field, 'x') === undefined;
    // Whether the statement reads the column matters only where reading it is refused.
    if (!dml && verdict.kind === 'masked' && !cannotMask) continue;
    if (!texts.every((s) => readsColumn(s, c.path))) continue;
    if (dml) throw new ApiError('accessDenied', DML_REFUSAL);
    const column = `${ref.projectId}.${ref.datasetId}.${ref.tableId}.${c.path.join('.')}`;
    refused.set(c.tag, [...(refused.get(c.tag) ?? []), column]);
  }
  const [first] = refused;
  if (first) throw deniedColumns(first[0], first[1]);
  if (dml || ![...verdicts.values()].some((v) => v.kind === 'masked')) return undefined;
  const list = fields.map((f) => {
    const v = rebuilt(f, quoteIdent(f.name), verdicts, []) ?? `CAST(NULL AS ${duckType(f)})`;
    return v === quoteIdent(f.name) ? v : `${v} AS ${quoteIdent(f.name)}`;
  });
  const select = `SELECT ${list.join(', ')} FROM ${qualifiedName(ref)}`;
  return shadowOf(ref, select);
}

function shadowOf(ref: TableRef, select: string): Shadow {
  const schema = schemaOf(`${qualifiedName(ref)}\n${select}`);
  const to = `${quoteIdent(schema)}.${quoteIdent(ref.tableId)}`;
  return {
    from: qualifiedName(ref),
    to,
    create: `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}; CREATE OR REPLACE VIEW ${to} AS ${select}`,
  };
}

/** A view that reads masked columns: its query over the shadows of what it reads. */
function viewShadow(
  em: Emulator,
  a: Access,
  ref: TableRef,
  resource: Json,
  texts: readonly string[],
  out: Shadow[],
  dml: boolean,
  depth: number,
): Shadow | undefined {
  const query = (resource['view'] as Json | undefined)?.['query'];
  if (typeof query !== 'string' || depth >= 16) return undefined;
  let inner: Translation;
  try {
    inner = translate(query, {
      projectId: ref.projectId,
      defaultDataset: undefined,
      wildcard: wildcardMatches(em),
    });
  } catch {
    return undefined; // a view that no longer translates fails when it runs
  }
  const before = out.length;
  const sql = shadowed(em, a, inner.tables, [...texts, query], inner.sql, out, dml, depth + 1);
  if (out.length === before) return undefined;
  return shadowOf(ref, sql);
}

/** Creates a plan's shadows (on the connection the statement then runs on). */
export async function createShadows(conn: DuckDBConnection, plan: MaskPlan): Promise<void> {
  for (const s of plan.shadows) await conn.run(s.create);
}

/**
 * tabledata.list and copy jobs read every column they return whole: BigQuery lets only a
 * Fine-Grained Reader of each tagged column do that (a Masked Reader too is refused).
 */
export function mayReadWhole(
  a: Access | undefined,
  ref: TableRef,
  resource: Json,
  selected?: readonly string[],
): void {
  if (!a || a.caller.principal === OWNER || a.enforcement.policyTags().length === 0) return;
  const fields = ((resource['schema'] as Json | undefined)?.['fields'] ?? []) as FieldSchema[];
  const refused = new Map<string, string[]>();
  for (const c of taggedColumns(fields)) {
    if (selected && !selected.includes((c.path[0] as string).toLowerCase())) continue;
    if (verdictFor(a, c.tag).kind === 'raw') continue;
    const column = `${ref.projectId}.${ref.datasetId}.${ref.tableId}.${c.path.join('.')}`;
    refused.set(c.tag, [...(refused.get(c.tag) ?? []), column]);
  }
  const [first] = refused;
  if (first) throw deniedColumns(first[0], first[1]);
}
