/**
 * The BigQuery SQL translator's first steps: tokens (with BigQuery's literals and escapes),
 * the token tree grouped by brackets, argument lists and types, the statement's table
 * references and errors. Pure.
 */
import { RANGE_ELEMENT_DUCK, rangeDuckType } from './range.ts';
import { SQL_TYPES } from './types.ts';

/** A table reference after resolution: DuckDB schema `"<project>.<dataset>"`, table name. */
export interface TableRef {
  readonly projectId: string;
  readonly datasetId: string;
  readonly tableId: string;
}

export interface TranslateOptions {
  readonly projectId: string;
  readonly defaultDataset?: { readonly projectId?: string; readonly datasetId: string } | undefined;
  /** Named parameters, already rendered as DuckDB literals (see params.ts). */
  readonly named?: Readonly<Record<string, string>>;
  /** Positional parameters, already rendered as DuckDB literals. */
  readonly positional?: readonly string[];
  /** A script's temporary tables: the name a statement uses (lower case) → its DuckDB name. */
  readonly temp?: ReadonlyMap<string, string>;
  /**
   * The tables and views of a dataset whose names start with a prefix, for a wildcard table
   * (`dataset.events_*`); undefined when the dataset does not exist. Without it a wildcard table
   * is refused as unsupported.
   */
  readonly wildcard?: (
    projectId: string,
    datasetId: string,
    prefix: string,
  ) => readonly WildcardMatch[] | undefined;
}

/** A table or view a wildcard table's prefix matches. */
export interface WildcardMatch {
  readonly tableId: string;
  readonly type: 'TABLE' | 'VIEW' | 'OTHER';
  /** Milliseconds since the epoch: the newest table's schema is the wildcard table's. */
  readonly created: number;
  /** Its top-level column names, in order. */
  readonly columns: readonly string[];
}

/** The pseudo-column of a wildcard table: what the `*` matched of each table's name. */
export const TABLE_SUFFIX = '_TABLE_SUFFIX';

export type StatementKind =
  | 'select'
  | 'insert'
  | 'update'
  | 'delete'
  | 'create_view'
  | 'create_table'
  | 'drop_table'
  | 'drop_view'
  | 'truncate'
  | 'merge';

export interface Translation {
  readonly sql: string;
  readonly kind: StatementKind;
  /** The table or view a DML/DDL statement writes. */
  readonly target?: TableRef;
  /** For CREATE VIEW: the BigQuery text of the view's query, kept as `view.query`. */
  readonly viewQuery?: string;
  /** Every table referenced, in order of appearance. */
  readonly tables: readonly TableRef[];
  /** The datasets whose INFORMATION_SCHEMA views it reads (`<dataset>.INFORMATION_SCHEMA.TABLES`). */
  readonly informationSchema: readonly DatasetRef[];
  /** CREATE TABLE / VIEW: what its PARTITION BY, CLUSTER BY and OPTIONS set (sql-table-options.ts). */
  readonly tableOptions?: TableOptions;
  /** CREATE TABLE with a column list: each column's OPTIONS(description), by column name. */
  readonly columnDescriptions?: Readonly<Record<string, string>>;
  /** CREATE TABLE / VIEW: OPTIONS whose values are constant expressions, evaluated when it runs. */
  readonly optionExpressions?: readonly OptionExpression[];
}

/** A table or view option whose value is a constant expression: its DuckDB SQL, evaluated when run. */
export interface OptionExpression {
  readonly name: string;
  readonly sql: string;
  readonly view: boolean;
}

/** What PARTITION BY, CLUSTER BY and OPTIONS set on a table resource (sql-table-options.ts reads them). */
export interface TableOptions {
  timePartitioning?: { type: string; field?: string; expirationMs?: string };
  rangePartitioning?: { field: string; range: { start: string; end: string; interval: string } };
  clustering?: { fields: string[] };
  expirationTime?: string;
  description?: string;
  friendlyName?: string;
  labels?: Record<string, string>;
  requirePartitionFilter?: boolean;
}

/** A dataset, by its project and id. */
export interface DatasetRef {
  readonly projectId: string;
  readonly datasetId: string;
}

/** The query uses BigQuery SQL this emulator does not support; `construct` names it. */
export class UnsupportedSqlError extends Error {
  readonly construct: string;
  constructor(construct: string, detail?: string) {
    super(`Unsupported in the BigQuery emulator: ${construct}${detail ? ` (${detail})` : ''}`);
    this.construct = construct;
  }
}

/** The query is invalid BigQuery SQL in a way we can tell without running it. */
export class InvalidSqlError extends Error {}

/** DuckDB schema name for a BigQuery dataset: projects are kept apart by naming schemas `project.dataset`. */
export function schemaName(projectId: string, datasetId: string): string {
  return `${projectId}.${datasetId}`;
}

/** Quotes a DuckDB identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quoted DuckDB name of a BigQuery table. */
export function qualifiedName(ref: TableRef): string {
  return `${quoteIdent(schemaName(ref.projectId, ref.datasetId))}.${quoteIdent(ref.tableId)}`;
}

/** A DuckDB string literal. */
export function stringLiteral(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

// ---------------------------------------------------------------------------
// Tokens

export type TokenKind = 'ident' | 'qident' | 'string' | 'bytes' | 'number' | 'param' | 'op';

export interface Token {
  readonly kind: TokenKind;
  /** ident: as written; qident: inside the backticks; string/bytes: decoded value; param: name or '?'. */
  readonly text: string;
  readonly space: boolean;
  readonly pos: number;
}

export const TWO_CHAR_OPS = new Set(['<=', '>=', '<>', '!=', '||', '=>', '->', '<<', '>>', '**']);

export function decodeEscapes(raw: string, pos: number): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const n = raw[++i];
    switch (n) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '0':
        out += '\0';
        break;
      case 'x': {
        out += String.fromCharCode(Number.parseInt(raw.slice(i + 1, i + 3), 16));
        i += 2;
        break;
      }
      case 'u': {
        out += String.fromCharCode(Number.parseInt(raw.slice(i + 1, i + 5), 16));
        i += 4;
        break;
      }
      case undefined:
        throw new InvalidSqlError(`Syntax error: Illegal escape sequence at [${pos}]`);
      default:
        out += n;
    }
  }
  return out;
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let space = false;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i] as string;
    if (/\s/.test(ch)) {
      space = true;
      i++;
      continue;
    }
    if ((ch === '-' && sql[i + 1] === '-') || ch === '#') {
      while (i < n && sql[i] !== '\n') i++;
      space = true;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new InvalidSqlError('Syntax error: Unclosed comment');
      i = end + 2;
      space = true;
      continue;
    }
    const start = i;
    const push = (kind: TokenKind, text: string) => {
      tokens.push({ kind, text, space, pos: start });
      space = false;
    };
    // String and bytes literals, with optional r/b prefixes and triple quotes.
    const prefix = /^([rRbB]{0,2})(['"])/.exec(sql.slice(i, i + 3));
    if (prefix && (prefix[1] === '' || /^[rRbB]+$/.test(prefix[1] as string))) {
      const flags = (prefix[1] as string).toLowerCase();
      const q = prefix[2] as string;
      let j = i + (prefix[1] as string).length;
      const triple = sql.startsWith(q.repeat(3), j);
      const delim = triple ? q.repeat(3) : q;
      j += delim.length;
      let raw = '';
      for (;;) {
        if (j >= n) throw new InvalidSqlError(`Syntax error: Unclosed string literal at [${start}]`);
        if (sql[j] === '\\' && !flags.includes('r')) {
          raw += sql.slice(j, j + 2);
          j += 2;
          continue;
        }
        if (sql.startsWith(delim, j)) break;
        if (!triple && sql[j] === '\n')
          throw new InvalidSqlError(`Syntax error: Unclosed string literal at [${start}]`);
        raw += sql[j];
        j++;
      }
      i = j + delim.length;
      const value = flags.includes('r') ? raw : decodeEscapes(raw, start);
      push(flags.includes('b') ? 'bytes' : 'string', value);
      continue;
    }
    if (ch === '`') {
      const end = sql.indexOf('`', i + 1);
      if (end < 0) throw new InvalidSqlError('Syntax error: Unclosed identifier literal');
      push('qident', sql.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j] as string)) j++;
      push('ident', sql.slice(i, j));
      i = j;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(sql.slice(i)) as RegExpExecArray;
      push('number', m[0]);
      i += m[0].length;
      continue;
    }
    if (ch === '@') {
      if (sql[i + 1] === '@') throw new UnsupportedSqlError('@@ system variables');
      let j = i + 1;
      if (sql[j] === '`') {
        const end = sql.indexOf('`', j + 1);
        push('param', sql.slice(j + 1, end));
        i = end + 1;
        continue;
      }
      while (j < n && /[A-Za-z0-9_]/.test(sql[j] as string)) j++;
      push('param', sql.slice(i + 1, j));
      i = j;
      continue;
    }
    if (ch === '?') {
      push('param', '?');
      i++;
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      push('op', two);
      i += 2;
      continue;
    }
    push('op', ch);
    i++;
  }
  return tokens;
}

// ---------------------------------------------------------------------------
// Token tree: brackets group their contents.

export interface Group {
  readonly kind: 'group';
  readonly open: '(' | '[';
  readonly items: Node[];
  readonly space: boolean;
  readonly pos: number;
}
export type Node = Token | Group;

export function isGroup(n: Node | undefined, open?: '(' | '['): n is Group {
  return n !== undefined && n.kind === 'group' && (open === undefined || n.open === open);
}
export function isWord(n: Node | undefined, ...words: string[]): boolean {
  return (
    n !== undefined && n.kind === 'ident' && (words.length === 0 || words.includes(n.text.toUpperCase()))
  );
}
export function isOp(n: Node | undefined, op?: string): boolean {
  return n !== undefined && n.kind === 'op' && (op === undefined || n.text === op);
}

export function buildTree(tokens: Token[]): Node[] {
  const root: Node[] = [];
  const stack: { items: Node[]; close: string; pos: number }[] = [{ items: root, close: '', pos: 0 }];
  for (const t of tokens) {
    const top = stack[stack.length - 1] as { items: Node[]; close: string };
    if (t.kind === 'op' && (t.text === '(' || t.text === '[')) {
      const g: Group = { kind: 'group', open: t.text, items: [], space: t.space, pos: t.pos };
      top.items.push(g);
      stack.push({ items: g.items, close: t.text === '(' ? ')' : ']', pos: t.pos });
    } else if (t.kind === 'op' && (t.text === ')' || t.text === ']')) {
      if (top.close !== t.text)
        throw new InvalidSqlError(`Syntax error: Unexpected "${t.text}" at [${t.pos}]`);
      stack.pop();
    } else {
      top.items.push(t);
    }
  }
  if (stack.length > 1)
    throw new InvalidSqlError('Syntax error: Unexpected end of script (unclosed bracket)');
  return root;
}

/** Splits a group's items on top-level commas. */
export function splitArgs(items: readonly Node[]): Node[][] {
  const out: Node[][] = [[]];
  for (const it of items) {
    if (isOp(it, ',')) out.push([]);
    else (out[out.length - 1] as Node[]).push(it);
  }
  if (out.length === 1 && (out[0] as Node[]).length === 0) return [];
  return out;
}

// ---------------------------------------------------------------------------
// Types

/** Parses a BigQuery type from nodes starting at `i`; returns the DuckDB type and the next index. */
export function parseType(nodes: readonly Node[], i: number): [string, number] {
  const n = nodes[i];
  if (!isWord(n)) throw new InvalidSqlError('Syntax error: expected a type name');
  const name = (n as Token).text.toUpperCase();
  if (name === 'ARRAY' && isOp(nodes[i + 1], '<')) {
    const [inner, j] = parseType(nodes, i + 2);
    if (!isOp(nodes[j], '>') && !isOp(nodes[j], '>>'))
      throw new InvalidSqlError('Syntax error: expected ">" closing ARRAY<');
    return [`${inner}[]`, j + 1];
  }
  if (name === 'STRUCT' && isOp(nodes[i + 1], '<')) {
    const fields: string[] = [];
    let j = i + 2;
    for (;;) {
      const fname = nodes[j];
      if (!isWord(fname) && fname?.kind !== 'qident')
        throw new InvalidSqlError('Syntax error: expected a field name');
      const [ft, k] = parseType(nodes, j + 1);
      fields.push(`${quoteIdent((fname as Token).text)} ${ft}`);
      j = k;
      if (isOp(nodes[j], ',')) {
        j++;
        continue;
      }
      if (isOp(nodes[j], '>')) return [`STRUCT(${fields.join(', ')})`, j + 1];
      throw new InvalidSqlError('Syntax error: expected ">" closing STRUCT<');
    }
  }
  if (name === 'RANGE' && isOp(nodes[i + 1], '<')) {
    const element = rangeElementDuck(nodes[i + 2]);
    if (!isOp(nodes[i + 3], '>')) throw new InvalidSqlError('Syntax error: expected ">" closing RANGE<');
    return [rangeDuckType(element), i + 4];
  }
  const mapped = SQL_TYPES[name];
  if (!mapped) throw new UnsupportedSqlError(`type ${name}`);
  // Parameterised types (STRING(10), NUMERIC(10,2)) keep our fixed DuckDB mapping.
  const next = isGroup(nodes[i + 1], '(') ? i + 2 : i + 1;
  return [mapped, next];
}

/** The DuckDB type of a RANGE's element type named by `n` (DATE, DATETIME or TIMESTAMP). */
export function rangeElementDuck(n: Node | undefined): string {
  const element = isWord(n) ? RANGE_ELEMENT_DUCK[(n as Token).text.toUpperCase()] : undefined;
  if (element === undefined)
    throw new InvalidSqlError('RANGE element type must be DATE, DATETIME or TIMESTAMP');
  return element;
}

// ---------------------------------------------------------------------------
// Translation

/**
 * What the translator lends the rewrites of clauses, expressions and functions: its rewrite of
 * a node list (an expression, or a whole subquery) and of a bracketed group, at any depth.
 */
export interface Rewriter {
  expr(nodes: readonly Node[]): string;
  group(g: Group): string;
}

/** BigQuery TIMESTAMP literal text → text DuckDB's TIMESTAMPTZ cast reads the same way. */
export function normaliseTimestampText(text: string): string {
  return text.trim().replace(/\s*(UTC|Z)$/i, '+00');
}
