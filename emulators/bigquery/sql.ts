/**
 * BigQuery standard SQL → DuckDB SQL, for the documented subset (docs/bigquery-emulator.md).
 *
 * Pure: no I/O. The translator tokenises, groups tokens by brackets, and rewrites the
 * token tree (table references, functions whose names or semantics differ, literals,
 * parameters). It is not a full parser: anything it does not rewrite is passed through
 * for DuckDB to accept or reject, and constructs known to be unsupported are rejected
 * here, by name, with UnsupportedSqlError.
 */

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
}

export type StatementKind =
  | 'select'
  | 'insert'
  | 'update'
  | 'delete'
  | 'create_view'
  | 'create_table'
  | 'drop_table'
  | 'drop_view'
  | 'truncate';

export interface Translation {
  readonly sql: string;
  readonly kind: StatementKind;
  /** The table or view a DML/DDL statement writes. */
  readonly target?: TableRef;
  /** For CREATE VIEW: the BigQuery text of the view's query, kept as `view.query`. */
  readonly viewQuery?: string;
  /** Every table referenced, in order of appearance. */
  readonly tables: readonly TableRef[];
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

type TokenKind = 'ident' | 'qident' | 'string' | 'bytes' | 'number' | 'param' | 'op';

interface Token {
  readonly kind: TokenKind;
  /** ident: as written; qident: inside the backticks; string/bytes: decoded value; param: name or '?'. */
  readonly text: string;
  readonly space: boolean;
  readonly pos: number;
}

const TWO_CHAR_OPS = new Set(['<=', '>=', '<>', '!=', '||', '=>', '->', '<<', '>>', '**']);

function decodeEscapes(raw: string, pos: number): string {
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

function tokenize(sql: string): Token[] {
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

interface Group {
  readonly kind: 'group';
  readonly open: '(' | '[';
  readonly items: Node[];
  readonly space: boolean;
  readonly pos: number;
}
type Node = Token | Group;

function isGroup(n: Node | undefined, open?: '(' | '['): n is Group {
  return n !== undefined && n.kind === 'group' && (open === undefined || n.open === open);
}
function isWord(n: Node | undefined, ...words: string[]): boolean {
  return (
    n !== undefined && n.kind === 'ident' && (words.length === 0 || words.includes(n.text.toUpperCase()))
  );
}
function isOp(n: Node | undefined, op?: string): boolean {
  return n !== undefined && n.kind === 'op' && (op === undefined || n.text === op);
}

function buildTree(tokens: Token[]): Node[] {
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
function splitArgs(items: readonly Node[]): Node[][] {
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

const SIMPLE_TYPES: Record<string, string> = {
  INT64: 'BIGINT',
  INT: 'BIGINT',
  INTEGER: 'BIGINT',
  SMALLINT: 'BIGINT',
  BIGINT: 'BIGINT',
  TINYINT: 'BIGINT',
  BYTEINT: 'BIGINT',
  FLOAT64: 'DOUBLE',
  FLOAT: 'DOUBLE',
  STRING: 'VARCHAR',
  BOOL: 'BOOLEAN',
  BOOLEAN: 'BOOLEAN',
  NUMERIC: 'DECIMAL(38,9)',
  DECIMAL: 'DECIMAL(38,9)',
  BIGNUMERIC: 'DECIMAL(38,9)',
  BIGDECIMAL: 'DECIMAL(38,9)',
  BYTES: 'BLOB',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATETIME: 'TIMESTAMP',
  DATE: 'DATE',
  TIME: 'TIME',
  JSON: 'JSON',
  INTERVAL: 'INTERVAL',
};

/** Parses a BigQuery type from nodes starting at `i`; returns the DuckDB type and the next index. */
function parseType(nodes: readonly Node[], i: number): [string, number] {
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
  const mapped = SIMPLE_TYPES[name];
  if (!mapped) throw new UnsupportedSqlError(`type ${name}`);
  // Parameterised types (STRING(10), NUMERIC(10,2)) keep our fixed DuckDB mapping.
  const next = isGroup(nodes[i + 1], '(') ? i + 2 : i + 1;
  return [mapped, next];
}

// ---------------------------------------------------------------------------
// Translation

const UNSUPPORTED_FUNCTIONS = new Set([
  'APPROX_QUANTILES',
  'APPROX_TOP_COUNT',
  'APPROX_TOP_SUM',
  'FARM_FINGERPRINT',
  'ML',
  'NET',
  'HLL_COUNT',
  'KEYS',
  'AEAD',
  'DETERMINISTIC_ENCRYPT',
  'ERROR',
  'SESSION_USER',
  'EXTERNAL_QUERY',
  'VECTOR_SEARCH',
  'PIVOT',
  'UNPIVOT',
  'MATCH_RECOGNIZE',
]);

const UNSUPPORTED_LEADING = new Set([
  'MERGE',
  'DECLARE',
  'SET',
  'BEGIN',
  'EXECUTE',
  'CALL',
  'EXPORT',
  'LOAD',
  'ASSERT',
  'IF',
  'LOOP',
  'WHILE',
  'GRANT',
  'REVOKE',
  'ALTER',
]);

const CLAUSE_ENDS_FROM = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'QUALIFY',
  'WINDOW',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTERSECT',
  'SELECT',
  'ON',
  'USING',
  'SET',
  'VALUES',
  'OFFSET',
]);

const DAYS_FROM_MONDAY: Record<string, number> = {
  MONDAY: 0,
  TUESDAY: 1,
  WEDNESDAY: 2,
  THURSDAY: 3,
  FRIDAY: 4,
  SATURDAY: 5,
  SUNDAY: 6,
};

class Translator {
  readonly opts: TranslateOptions;
  readonly ctes = new Set<string>();
  readonly tables: TableRef[] = [];
  positionalIndex = 0;
  unnestCounter = 0;

  constructor(opts: TranslateOptions) {
    this.opts = opts;
  }

  resolveTable(parts: string[], pos: number): TableRef {
    const clean = parts.flatMap((p) => p.split('.'));
    for (const p of clean) {
      if (p.endsWith('*')) throw new UnsupportedSqlError('wildcard tables', clean.join('.'));
      if (p.toUpperCase() === 'INFORMATION_SCHEMA') throw new UnsupportedSqlError('INFORMATION_SCHEMA');
    }
    let ref: TableRef;
    if (clean.length === 3) {
      ref = { projectId: clean[0] as string, datasetId: clean[1] as string, tableId: clean[2] as string };
    } else if (clean.length === 2) {
      ref = { projectId: this.opts.projectId, datasetId: clean[0] as string, tableId: clean[1] as string };
    } else if (clean.length === 1) {
      const dd = this.opts.defaultDataset;
      if (!dd)
        throw new InvalidSqlError(
          `Table "${clean[0]}" must be qualified with a dataset (e.g. dataset.table) at [${pos}]`,
        );
      ref = {
        projectId: dd.projectId ?? this.opts.projectId,
        datasetId: dd.datasetId,
        tableId: clean[0] as string,
      };
    } else {
      throw new InvalidSqlError(`Invalid table name: ${clean.join('.')}`);
    }
    this.tables.push(ref);
    return ref;
  }

  /** Reads a dotted name (idents and backticked parts) from nodes at i. */
  readName(nodes: readonly Node[], i: number): [string[], number] {
    const parts: string[] = [];
    let j = i;
    for (;;) {
      const n = nodes[j];
      if (n === undefined || (n.kind !== 'ident' && n.kind !== 'qident')) break;
      parts.push(n.text);
      j++;
      // A hyphenated unquoted project id (my-project.d.t) arrives as ident '-' ident.
      if (isOp(nodes[j], '.') || (isOp(nodes[j], '-') && n.kind === 'ident' && parts.length === 1)) {
        if (isOp(nodes[j], '-')) {
          let name = parts.pop() as string;
          while (isOp(nodes[j], '-') && (nodes[j + 1]?.kind === 'ident' || nodes[j + 1]?.kind === 'number')) {
            name += `-${(nodes[j + 1] as Token).text}`;
            j += 2;
          }
          parts.push(name);
          if (!isOp(nodes[j], '.')) break;
        }
        j++;
        continue;
      }
      break;
    }
    return [parts, j];
  }

  /** Translates a table reference position: a name, a subquery or UNNEST(...). */
  tableRef(nodes: readonly Node[], i: number, out: string[]): number {
    const n = nodes[i];
    if (isWord(n, 'UNNEST') && isGroup(nodes[i + 1], '(')) {
      return this.unnestRef(nodes, i, out);
    }
    if (isWord(n, 'LATERAL')) {
      out.push('LATERAL');
      return i + 1;
    }
    if (isGroup(n, '(')) {
      out.push(this.group(n));
      return i + 1;
    }
    if (n !== undefined && (n.kind === 'ident' || n.kind === 'qident')) {
      const [parts, j] = this.readName(nodes, i);
      if (parts.length === 1 && n.kind === 'ident' && this.ctes.has((parts[0] as string).toLowerCase())) {
        out.push(quoteIdent(parts[0] as string));
        return j;
      }
      if (
        parts.length === 1 &&
        n.kind === 'qident' &&
        !n.text.includes('.') &&
        this.ctes.has(n.text.toLowerCase())
      ) {
        out.push(quoteIdent(n.text));
        return j;
      }
      out.push(qualifiedName(this.resolveTable(parts, n.pos)));
      if (isWord(nodes[j], 'FOR') && isWord(nodes[j + 1], 'SYSTEM_TIME'))
        throw new UnsupportedSqlError('FOR SYSTEM_TIME AS OF');
      if (isWord(nodes[j], 'TABLESAMPLE')) throw new UnsupportedSqlError('TABLESAMPLE');
      return j;
    }
    return i;
  }

  /** `UNNEST(arr) [AS] x [WITH OFFSET [AS] o]` → a lateral subquery producing column x (and o). */
  unnestRef(nodes: readonly Node[], i: number, out: string[]): number {
    const arg = this.expr((nodes[i + 1] as Group).items);
    let j = i + 2;
    if (isWord(nodes[j], 'AS')) j++;
    let alias = 'f0_';
    const aliasNode = nodes[j];
    if (
      aliasNode !== undefined &&
      (aliasNode.kind === 'qident' ||
        (aliasNode.kind === 'ident' &&
          !CLAUSE_ENDS_FROM.has(aliasNode.text.toUpperCase()) &&
          !isWord(aliasNode, 'WITH', 'LEFT', 'RIGHT', 'INNER', 'CROSS', 'JOIN', 'FULL', 'CROSS')))
    ) {
      alias = aliasNode.text;
      j++;
    }
    let offset: string | undefined;
    if (isWord(nodes[j], 'WITH') && isWord(nodes[j + 1], 'OFFSET')) {
      j += 2;
      if (isWord(nodes[j], 'AS')) j++;
      offset = 'offset';
      const on = nodes[j];
      if (
        on !== undefined &&
        (on.kind === 'qident' || (on.kind === 'ident' && !CLAUSE_ENDS_FROM.has(on.text.toUpperCase())))
      ) {
        offset = on.text;
        j++;
      }
    }
    const cols = [`unnest(__arr) AS ${quoteIdent(alias)}`];
    if (offset !== undefined) cols.push(`generate_subscripts(__arr, 1) - 1 AS ${quoteIdent(offset)}`);
    this.unnestCounter++;
    out.push(`(SELECT ${cols.join(', ')} FROM (SELECT ${arg} AS __arr)) AS __unnest_${this.unnestCounter}`);
    return j;
  }

  group(g: Group): string {
    return `(${this.sequence(g.items)})`;
  }

  expr(nodes: readonly Node[]): string {
    return this.sequence(nodes);
  }

  /** Translates a sequence of nodes at one bracket level. */
  sequence(nodes: readonly Node[]): string {
    const out: string[] = [];
    let inFrom = false;
    let expectTable = false;
    let i = 0;
    const emit = (s: string, node?: Node) => {
      if (out.length > 0 && (node === undefined || node.space)) out.push(' ');
      out.push(s);
    };
    while (i < nodes.length) {
      const n = nodes[i] as Node;
      if (expectTable) {
        expectTable = false;
        const parts: string[] = [];
        const j = this.tableRef(nodes, i, parts);
        if (j > i) {
          emit(parts.join(' '), n);
          // BigQuery's `LEFT JOIN UNNEST(x) AS e` has no ON; DuckDB needs one.
          const joined = isWord(nodes[i - 1], 'JOIN') && !isWord(nodes[i - 2], 'CROSS');
          if (joined && isWord(n, 'UNNEST') && !isWord(nodes[j], 'ON', 'USING')) out.push(' ON true');
          i = j;
          continue;
        }
      }
      if (n.kind === 'group') {
        const prev = nodes[i - 1];
        if (n.open === '[' && prev !== undefined && !isOp(prev) && !isWord(prev, ...KEYWORDS_BEFORE_ARRAY)) {
          out.push(this.subscript(n));
        } else if (n.open === '[') {
          emit(`[${this.sequence(n.items)}]`, n);
        } else {
          // A subquery or parenthesised expression; `WITH x AS (...)` registered CTEs already.
          const attached =
            prev !== undefined && (prev.kind === 'ident' || prev.kind === 'qident') && !n.space;
          if (attached) out.push(this.group(n));
          else emit(this.group(n), n);
        }
        i++;
        continue;
      }
      switch (n.kind) {
        case 'string':
          emit(stringLiteral(n.text), n);
          i++;
          continue;
        case 'bytes':
          emit(bytesLiteral(n.text), n);
          i++;
          continue;
        case 'number':
          emit(n.text, n);
          i++;
          continue;
        case 'param':
          emit(this.param(n), n);
          i++;
          continue;
        case 'qident': {
          const [parts, j] = this.readName(nodes, i);
          emit(parts.map(quoteIdent).join('.'), n);
          i = j;
          continue;
        }
        case 'op':
          if (n.text === ',' && inFrom) expectTable = true;
          if (n.text === ';') {
            if (nodes.slice(i + 1).length > 0) throw new UnsupportedSqlError('multi-statement scripts');
            i++;
            continue;
          }
          if (n.text === '.') {
            out.push('.');
            i++;
            // `.` glues to both sides; the next token must not get a leading space.
            const next = nodes[i];
            if (next !== undefined && next.kind === 'ident') {
              out.push(next.text);
              i++;
            } else if (next !== undefined && next.kind === 'qident') {
              out.push(quoteIdent(next.text));
              i++;
            } else if (isOp(next, '*')) {
              out.push('*');
              i++;
            }
            continue;
          }
          emit(n.text, n);
          i++;
          continue;
        case 'ident':
          break;
      }
      // Identifiers and keywords.
      const word = n.text.toUpperCase();
      const next = nodes[i + 1];
      if (isGroup(next, '(') && !next.space && !NOT_FUNCTIONS.has(word)) {
        emit(this.call(n as Token, next, nodes, i), n);
        i += 2;
        // ARRAY_AGG etc. may be followed by OVER(...), which passes through.
        continue;
      }
      if (isGroup(next, '(') && next.space && FUNCTIONS_ALLOWING_SPACE.has(word)) {
        emit(this.call(n as Token, next, nodes, i), n);
        i += 2;
        continue;
      }
      // Namespaced functions such as NET.HOST(...) or SAFE.PARSE_DATE(...).
      if (isOp(next, '.') && UNSUPPORTED_FUNCTIONS.has(word))
        throw new UnsupportedSqlError(`${word}.* functions`);
      if (word === 'SAFE' && isOp(next, '.') && isGroup(nodes[i + 3], '('))
        throw new UnsupportedSqlError('SAFE. function prefix');
      if (TYPED_LITERALS.has(word) && next?.kind === 'string') {
        emit(this.typedLiteral(word, next.text), n);
        i += 2;
        continue;
      }
      switch (word) {
        case 'FROM':
        case 'JOIN':
          emit(n.text, n);
          inFrom = true;
          expectTable = true;
          i++;
          continue;
        case 'EXCEPT':
          if (isOp(nodes[i - 1], '*')) {
            emit('EXCLUDE', n);
            i++;
            continue;
          }
          inFrom = false;
          emit(n.text, n);
          i++;
          continue;
        case 'CURRENT_TIMESTAMP':
          emit('current_timestamp', n);
          i++;
          continue;
        case 'CURRENT_DATE':
          emit('current_date', n);
          i++;
          continue;
        case 'PIVOT':
        case 'UNPIVOT':
        case 'TABLESAMPLE':
        case 'MATCH_RECOGNIZE':
          if (isGroup(next, '(') || word === 'TABLESAMPLE') throw new UnsupportedSqlError(word);
          break;
        case 'WITH':
          if (isWord(next, 'RECURSIVE')) {
            emit('WITH RECURSIVE', n);
            i += 2;
          } else {
            emit('WITH', n);
            i++;
          }
          this.registerCtes(nodes, i);
          continue;
        case 'INTERVAL': {
          // BigQuery: INTERVAL <expr> <part>; DuckDB needs a parenthesised expression.
          const partAt = nodes.findIndex((m, k) => k > i + 1 && isWord(m, ...DATE_PARTS));
          if (
            nodes[i + 1]?.kind !== 'string' &&
            partAt > i + 1 &&
            !nodes.slice(i + 1, partAt).some((m) => isOp(m, ','))
          ) {
            const amount = this.expr(nodes.slice(i + 1, partAt));
            emit(`INTERVAL (${amount}) ${(nodes[partAt] as Token).text}`, n);
            i = partAt + 1;
            continue;
          }
          break;
        }
        case '_TABLE_SUFFIX':
          throw new UnsupportedSqlError('_TABLE_SUFFIX');
        case 'IN':
          if (isWord(next, 'UNNEST') && isGroup(nodes[i + 2], '(')) {
            emit(`IN (SELECT unnest(${this.expr((nodes[i + 2] as Group).items)}))`, n);
            i += 3;
            continue;
          }
          break;
        case 'SAFE_OFFSET':
        case 'OFFSET':
        case 'ORDINAL':
        case 'SAFE_ORDINAL':
          break;
        default:
          if (CLAUSE_ENDS_FROM.has(word)) inFrom = false;
      }
      emit(n.text, n);
      i++;
    }
    return out.join('');
  }

  registerCtes(nodes: readonly Node[], i: number): void {
    // name AS (...) [, name AS (...)]*
    let j = i;
    for (;;) {
      const name = nodes[j];
      if (name === undefined || (name.kind !== 'ident' && name.kind !== 'qident')) return;
      if (!isWord(nodes[j + 1], 'AS') || !isGroup(nodes[j + 2], '(')) return;
      this.ctes.add(name.text.toLowerCase());
      j += 3;
      if (!isOp(nodes[j], ',')) return;
      j++;
    }
  }

  param(t: Token): string {
    if (t.text === '?') {
      const v = this.opts.positional?.[this.positionalIndex++];
      if (v === undefined)
        throw new InvalidSqlError(`Query has more positional parameters than were supplied`);
      return v;
    }
    const v = this.opts.named?.[t.text] ?? this.opts.named?.[t.text.toLowerCase()];
    if (v === undefined) throw new InvalidSqlError(`Query parameter '${t.text}' not found at [${t.pos}]`);
    return v;
  }

  typedLiteral(word: string, text: string): string {
    switch (word) {
      case 'TIMESTAMP':
        return `CAST(${stringLiteral(normaliseTimestampText(text))} AS TIMESTAMPTZ)`;
      case 'DATETIME':
        return `CAST(${stringLiteral(text)} AS TIMESTAMP)`;
      case 'JSON':
        return `CAST(${stringLiteral(text)} AS JSON)`;
      default:
        return `CAST(${stringLiteral(text)} AS ${SIMPLE_TYPES[word]})`;
    }
  }

  subscript(g: Group): string {
    const items = g.items;
    const first = items[0];
    if (items.length === 2 && isGroup(items[1], '(')) {
      const inner = this.expr((items[1] as Group).items);
      if (isWord(first, 'OFFSET', 'SAFE_OFFSET')) return `[(${inner}) + 1]`;
      if (isWord(first, 'ORDINAL', 'SAFE_ORDINAL')) return `[${inner}]`;
    }
    if (items.length === 1 && first?.kind === 'string') return `[${stringLiteral(first.text)}]`;
    return `[(${this.expr(items)}) + 1]`;
  }

  /** A function call `name(args)`. */
  call(nameTok: Token, g: Group, _nodes: readonly Node[], _i: number): string {
    const name = nameTok.text.toUpperCase();
    if (UNSUPPORTED_FUNCTIONS.has(name)) throw new UnsupportedSqlError(`function ${name}`);
    if (name.startsWith('ST_')) throw new UnsupportedSqlError(`geography function ${name}`);
    const raw = () => splitArgs(g.items);
    const args = () => raw().map((a) => this.expr(a));
    const arg = (k: number, what = 'argument'): string => {
      const a = raw()[k];
      if (a === undefined) throw new InvalidSqlError(`${name}: missing ${what}`);
      return this.expr(a);
    };
    switch (name) {
      case 'JSON_VALUE':
      case 'JSON_EXTRACT_SCALAR': {
        const a = args();
        const path = a[1] ?? "'$'";
        return `(CASE WHEN json_type(${a[0]}, ${path}) IN ('OBJECT', 'ARRAY') THEN NULL ELSE (${a[0]}) ->> ${path} END)`;
      }
      case 'JSON_QUERY':
      case 'JSON_EXTRACT': {
        const a = args();
        return `((${a[0]}) -> ${a[1] ?? "'$'"})`;
      }
      case 'JSON_QUERY_ARRAY':
      case 'JSON_EXTRACT_ARRAY': {
        const a = args();
        return `CAST((${a[0]}) -> ${a[1] ?? "'$'"} AS JSON[])`;
      }
      case 'JSON_VALUE_ARRAY':
      case 'JSON_EXTRACT_STRING_ARRAY': {
        const a = args();
        return `CAST((${a[0]}) -> ${a[1] ?? "'$'"} AS VARCHAR[])`;
      }
      case 'TO_JSON_STRING':
        return `CAST(to_json(${arg(0)}) AS VARCHAR)`;
      case 'TO_JSON':
        return `to_json(${arg(0)})`;
      case 'PARSE_JSON':
        return `json(${arg(0)})`;
      case 'TIMESTAMP_TRUNC':
      case 'DATETIME_TRUNC':
      case 'DATE_TRUNC':
      case 'TIME_TRUNC': {
        const a = raw();
        const value = this.expr(a[0] ?? []);
        const trunc = this.truncate(value, a[1] ?? [], a[2] ? this.expr(a[2]) : undefined);
        if (name === 'DATE_TRUNC') return `CAST(${trunc} AS DATE)`;
        if (name === 'DATETIME_TRUNC') return `CAST(${trunc} AS TIMESTAMP)`;
        return trunc;
      }
      case 'DATE': {
        const a = args();
        if (a.length === 3) return `make_date(${a.join(', ')})`;
        if (a.length === 2) return `CAST(timezone(${a[1]}, ${a[0]}) AS DATE)`;
        return `CAST(${a[0]} AS DATE)`;
      }
      case 'DATETIME': {
        const a = args();
        if (a.length === 2 && /^'/.test(a[1] ?? '')) return `timezone(${a[1]}, ${a[0]})`;
        if (a.length === 2) return `CAST(${a[0]} AS TIMESTAMP) + CAST(${a[1]} AS TIME)`;
        if (a.length === 6) return `make_timestamp(${a.join(', ')})`;
        return `CAST(${a[0]} AS TIMESTAMP)`;
      }
      case 'TIMESTAMP': {
        const a = args();
        if (a.length === 2) return `timezone(${a[1]}, CAST(${a[0]} AS TIMESTAMP))`;
        const only = raw()[0];
        if (only?.length === 1 && only[0]?.kind === 'string')
          return `CAST(${stringLiteral(normaliseTimestampText(only[0].text))} AS TIMESTAMPTZ)`;
        return `CAST(${a[0]} AS TIMESTAMPTZ)`;
      }
      case 'STRING': {
        const a = args();
        if (a.length === 2) return `CAST(timezone(${a[1]}, ${a[0]}) AS VARCHAR)`;
        return `CAST(${a[0]} AS VARCHAR)`;
      }
      case 'CURRENT_TIMESTAMP':
        return 'current_timestamp';
      case 'CURRENT_DATE':
        return raw().length ? `CAST(timezone(${arg(0)}, current_timestamp) AS DATE)` : 'current_date';
      case 'CURRENT_DATETIME':
        return raw().length
          ? `timezone(${arg(0)}, current_timestamp)`
          : 'CAST(current_timestamp AS TIMESTAMP)';
      case 'CURRENT_TIME':
        return 'CAST(current_timestamp AS TIME)';
      case 'TIMESTAMP_ADD':
      case 'DATETIME_ADD':
      case 'TIME_ADD':
        return `(${arg(0)} + ${arg(1, 'INTERVAL')})`;
      case 'TIMESTAMP_SUB':
      case 'DATETIME_SUB':
      case 'TIME_SUB':
        return `(${arg(0)} - ${arg(1, 'INTERVAL')})`;
      case 'DATE_ADD':
        return `CAST(${arg(0)} + ${arg(1, 'INTERVAL')} AS DATE)`;
      case 'DATE_SUB':
        return `CAST(${arg(0)} - ${arg(1, 'INTERVAL')} AS DATE)`;
      case 'TIMESTAMP_DIFF':
      case 'DATETIME_DIFF':
      case 'TIME_DIFF':
        return `date_sub(${this.partName(raw()[2] ?? [])}, ${arg(1)}, ${arg(0)})`;
      case 'DATE_DIFF':
        return `date_diff(${this.partName(raw()[2] ?? [])}, ${arg(1)}, ${arg(0)})`;
      case 'EXTRACT':
        return this.extract(g.items);
      case 'FORMAT_TIMESTAMP':
      case 'FORMAT_DATETIME':
      case 'FORMAT_DATE':
      case 'FORMAT_TIME': {
        const a = raw();
        const fmt = this.formatString(a[0] ?? []);
        let value = this.expr(a[1] ?? []);
        if (a[2]) value = `timezone(${this.expr(a[2])}, ${value})`;
        return `strftime(${value}, ${fmt})`;
      }
      case 'PARSE_TIMESTAMP': {
        const a = raw();
        return `CAST(strptime(${this.expr(a[1] ?? [])}, ${this.formatString(a[0] ?? [])}) AS TIMESTAMPTZ)`;
      }
      case 'PARSE_DATETIME': {
        const a = raw();
        return `strptime(${this.expr(a[1] ?? [])}, ${this.formatString(a[0] ?? [])})`;
      }
      case 'PARSE_DATE': {
        const a = raw();
        return `CAST(strptime(${this.expr(a[1] ?? [])}, ${this.formatString(a[0] ?? [])}) AS DATE)`;
      }
      case 'UNIX_SECONDS':
        return `CAST(floor(epoch(${arg(0)})) AS BIGINT)`;
      case 'UNIX_MILLIS':
        return `epoch_ms(${arg(0)})`;
      case 'UNIX_MICROS':
        return `epoch_us(${arg(0)})`;
      case 'UNIX_DATE':
        return `(${arg(0)} - DATE '1970-01-01')`;
      case 'TIMESTAMP_SECONDS':
        return `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT) * 1000000) AS TIMESTAMPTZ)`;
      case 'TIMESTAMP_MILLIS':
        return `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT) * 1000) AS TIMESTAMPTZ)`;
      case 'TIMESTAMP_MICROS':
        return `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT)) AS TIMESTAMPTZ)`;
      case 'COUNTIF':
        return `count_if(${this.expr(g.items)})`;
      case 'LOGICAL_AND':
        return `bool_and(${this.expr(g.items)})`;
      case 'LOGICAL_OR':
        return `bool_or(${this.expr(g.items)})`;
      case 'CAST':
      case 'SAFE_CAST':
        return this.cast(name, g.items);
      case 'SAFE_DIVIDE':
        return `(CAST(${arg(0)} AS DOUBLE) / NULLIF(${arg(1)}, 0))`;
      case 'SAFE_MULTIPLY':
        return `(${arg(0)} * ${arg(1)})`;
      case 'SAFE_ADD':
        return `(${arg(0)} + ${arg(1)})`;
      case 'SAFE_SUBTRACT':
        return `(${arg(0)} - ${arg(1)})`;
      case 'SAFE_NEGATE':
        return `(-${arg(0)})`;
      case 'DIV':
        return `(${arg(0)} // ${arg(1)})`;
      case 'IEEE_DIVIDE':
        return `(CAST(${arg(0)} AS DOUBLE) / ${arg(1)})`;
      case 'IFNULL':
        return `coalesce(${args().join(', ')})`;
      case 'ARRAY_AGG':
        return this.arrayAgg(g.items);
      case 'ARRAY_LENGTH':
        return `len(${arg(0)})`;
      case 'ARRAY_CONCAT':
        return `list_concat(${args().join(', ')})`;
      case 'ARRAY_REVERSE':
        return `list_reverse(${arg(0)})`;
      case 'ARRAY_TO_STRING':
        return `array_to_string(${args().join(', ')})`;
      case 'GENERATE_ARRAY': {
        const a = args();
        return `generate_series(${a.join(', ')})`;
      }
      case 'GENERATE_DATE_ARRAY': {
        const a = args();
        const step = a[2] ?? 'INTERVAL 1 DAY';
        return `list_transform(generate_series(CAST(${a[0]} AS DATE), CAST(${a[1]} AS DATE), ${step}), lambda __d: CAST(__d AS DATE))`;
      }
      case 'GENERATE_TIMESTAMP_ARRAY': {
        const a = args();
        return `generate_series(${a[0]}, ${a[1]}, ${a[2]})`;
      }
      case 'STRUCT':
        return this.struct(g.items);
      case 'ARRAY':
        return `ARRAY${this.group(g)}`;
      case 'UNNEST':
        // UNNEST outside FROM (e.g. in a scalar subquery) is DuckDB's too.
        return `unnest(${this.expr(g.items)})`;
      case 'REGEXP_CONTAINS':
        return `regexp_matches(${arg(0)}, ${arg(1)})`;
      case 'REGEXP_EXTRACT': {
        const a = raw();
        const pattern = a[1] ?? [];
        const groupNo =
          pattern.length === 1 && pattern[0]?.kind === 'string' && /\((?!\?)/.test(pattern[0].text) ? 1 : 0;
        const s = arg(0);
        const p = arg(1);
        return `(CASE WHEN regexp_matches(${s}, ${p}) THEN regexp_extract(${s}, ${p}, ${groupNo}) END)`;
      }
      case 'REGEXP_EXTRACT_ALL':
        return `regexp_extract_all(${arg(0)}, ${arg(1)})`;
      case 'REGEXP_REPLACE':
        return `regexp_replace(${arg(0)}, ${arg(1)}, ${arg(2)}, 'g')`;
      case 'SPLIT': {
        const a = args();
        return `string_split(${a[0]}, ${a[1] ?? "','"})`;
      }
      case 'GENERATE_UUID':
        return 'CAST(uuid() AS VARCHAR)';
      case 'STARTS_WITH':
        return `starts_with(${arg(0)}, ${arg(1)})`;
      case 'ENDS_WITH':
        return `suffix(${arg(0)}, ${arg(1)})`;
      case 'BYTE_LENGTH': {
        // STRING or BYTES. DuckDB casts only ASCII text to BLOB; strlen counts a string's UTF-8 bytes.
        const x = arg(0);
        return `(CASE WHEN typeof(${x}) = 'BLOB' THEN octet_length(TRY_CAST(${x} AS BLOB)) ELSE strlen(CAST(${x} AS VARCHAR)) END)`;
      }
      case 'CHAR_LENGTH':
      case 'CHARACTER_LENGTH':
        return `length(${arg(0)})`;
      case 'FORMAT':
        return `printf(${args().join(', ')})`;
      case 'TO_BASE64':
        return `to_base64(${arg(0)})`;
      case 'FROM_BASE64':
        return `from_base64(${arg(0)})`;
      case 'TO_HEX':
        return `lower(hex(${arg(0)}))`;
      case 'SHA256':
        return `unhex(sha256(${arg(0)}))`;
      case 'MD5':
        return `unhex(md5(${arg(0)}))`;
      case 'ANY_VALUE':
        return `any_value(${this.expr(g.items)})`;
      case 'APPROX_COUNT_DISTINCT':
        return `approx_count_distinct(${this.expr(g.items)})`;
      case 'STRING_AGG':
        return `string_agg(${this.expr(g.items)})`;
      case 'LAST_DAY':
        return `last_day(${arg(0)})`;
      default:
        return `${nameTok.text}${this.group(g)}`;
    }
  }

  partName(nodes: readonly Node[]): string {
    const w = nodes[0];
    if (!isWord(w)) throw new InvalidSqlError('expected a date part such as DAY');
    const part = (w as Token).text.toUpperCase();
    if (part === 'WEEK' || part === 'ISOWEEK') return "'week'";
    if (part === 'ISOYEAR') return "'isoyear'";
    return stringLiteral(part.toLowerCase());
  }

  truncate(value: string, partNodes: readonly Node[], tz: string | undefined): string {
    const w = partNodes[0];
    if (!isWord(w)) throw new InvalidSqlError('expected a date part such as DAY');
    const part = (w as Token).text.toUpperCase();
    const inner = tz ? `timezone(${tz}, ${value})` : value;
    let out: string;
    if (part === 'WEEK' || part === 'ISOWEEK') {
      let startDay = part === 'ISOWEEK' ? 0 : 6; // BigQuery's WEEK starts on Sunday, DuckDB's on Monday.
      const day = partNodes[1];
      if (isGroup(day, '(') && isWord(day.items[0])) {
        const d = DAYS_FROM_MONDAY[(day.items[0] as Token).text.toUpperCase()];
        if (d === undefined) throw new InvalidSqlError(`Invalid week day ${(day.items[0] as Token).text}`);
        startDay = d;
      }
      out =
        startDay === 0
          ? `date_trunc('week', ${inner})`
          : `(date_trunc('week', ${inner} - INTERVAL ${startDay} DAY) + INTERVAL ${startDay} DAY)`;
    } else if (part === 'ISOYEAR') {
      throw new UnsupportedSqlError('truncation to ISOYEAR');
    } else {
      out = `date_trunc(${stringLiteral(part.toLowerCase())}, ${inner})`;
    }
    return tz ? `timezone(${tz}, ${out})` : out;
  }

  extract(items: readonly Node[]): string {
    const part = items[0];
    if (!isWord(part)) throw new InvalidSqlError('EXTRACT: expected a date part');
    let fromIdx = 1;
    let partName = (part as Token).text.toUpperCase();
    if (isGroup(items[1], '(')) {
      partName = `${partName}(${((items[1] as Group).items[0] as Token | undefined)?.text ?? ''})`;
      fromIdx = 2;
    }
    if (!isWord(items[fromIdx], 'FROM')) throw new InvalidSqlError('EXTRACT: expected FROM');
    let rest = items.slice(fromIdx + 1);
    let tz: string | undefined;
    const atIdx = rest.findIndex(
      (n, k) => isWord(n, 'AT') && isWord(rest[k + 1], 'TIME') && isWord(rest[k + 2], 'ZONE'),
    );
    if (atIdx >= 0) {
      tz = this.expr(rest.slice(atIdx + 3));
      rest = rest.slice(0, atIdx);
    }
    let v = this.expr(rest);
    if (tz) v = `timezone(${tz}, ${v})`;
    switch (partName) {
      case 'DAYOFWEEK':
        return `(dayofweek(${v}) + 1)`;
      case 'DAYOFYEAR':
        return `dayofyear(${v})`;
      case 'WEEK':
      case 'WEEK(SUNDAY)':
        return `CAST(strftime(${v}, '%U') AS BIGINT)`;
      case 'ISOWEEK':
        return `week(${v})`;
      case 'ISOYEAR':
        return `isoyear(${v})`;
      case 'DATE':
        return `CAST(${v} AS DATE)`;
      case 'TIME':
        return `CAST(${v} AS TIME)`;
      case 'DATETIME':
        return `CAST(${v} AS TIMESTAMP)`;
      case 'MICROSECOND':
        return `(microsecond(${v}) % 1000000)`;
      case 'MILLISECOND':
        return `(millisecond(${v}) % 1000)`;
      default:
        if (partName.includes('(')) throw new UnsupportedSqlError(`EXTRACT(${partName})`);
        return `extract(${partName.toLowerCase()} FROM ${v})`;
    }
  }

  formatString(nodes: readonly Node[]): string {
    const only = nodes[0];
    if (nodes.length === 1 && only?.kind === 'string') {
      const f = only.text
        .replaceAll('%F', '%Y-%m-%d')
        .replaceAll('%T', '%H:%M:%S')
        .replaceAll('%E*S', '%S.%f')
        .replaceAll('%E6S', '%S.%f')
        .replaceAll('%E3S', '%S.%g')
        .replaceAll('%Ez', '%z')
        .replaceAll('%D', '%m/%d/%y')
        .replaceAll('%R', '%H:%M')
        .replaceAll('%e', '%-d')
        .replaceAll('%Q', '')
        .replaceAll('%s', '');
      return stringLiteral(f);
    }
    return this.expr(nodes);
  }

  cast(name: string, items: readonly Node[]): string {
    const asIdx = items.findLastIndex((n) => isWord(n, 'AS'));
    if (asIdx < 0) throw new InvalidSqlError(`${name}: expected AS`);
    const [type, end] = parseType(items, asIdx + 1);
    if (end < items.length) {
      if (isWord(items[end], 'FORMAT')) throw new UnsupportedSqlError('CAST ... FORMAT');
    }
    const value = this.expr(items.slice(0, asIdx));
    const fn = name === 'SAFE_CAST' ? 'TRY_CAST' : 'CAST';
    // BigQuery accepts 'YYYY-MM-DD HH:MM:SS UTC' and similar in string → TIMESTAMP casts.
    if (type === 'TIMESTAMPTZ' && items.length === 3 && items[0]?.kind === 'string')
      return `${fn}(${stringLiteral(normaliseTimestampText(items[0].text))} AS TIMESTAMPTZ)`;
    if (type === 'BIGINT') {
      // DuckDB reads '1.5' and '1e3' as numbers and rounds them into integers; BigQuery takes
      // only integer text (decimal or 0x hex) and fails (CAST) or gives NULL (SAFE_CAST).
      const integerText = `regexp_full_match(trim(CAST(${value} AS VARCHAR)), '[+-]?([0-9]+|0[xX][0-9a-fA-F]+)')`;
      const otherwise =
        name === 'SAFE_CAST' ? 'NULL' : `error('Bad int64 value: ' || CAST(${value} AS VARCHAR))`;
      return `(CASE WHEN ${value} IS NULL THEN NULL WHEN typeof(${value}) <> 'VARCHAR' OR ${integerText} THEN ${fn}(${value} AS BIGINT) ELSE ${otherwise} END)`;
    }
    return `${fn}(${value} AS ${type})`;
  }

  arrayAgg(items: readonly Node[]): string {
    let end = items.length;
    let limit: string | undefined;
    let ignoreNulls = false;
    const limitIdx = items.findIndex((n) => isWord(n, 'LIMIT'));
    if (limitIdx >= 0) {
      limit = this.expr(items.slice(limitIdx + 1));
      end = limitIdx;
    }
    const orderIdx = items.findIndex((n, k) => isWord(n, 'ORDER') && isWord(items[k + 1], 'BY'));
    const nullsIdx = items.findIndex(
      (n, k) => isWord(n, 'IGNORE', 'RESPECT') && isWord(items[k + 1], 'NULLS'),
    );
    let valueEnd = orderIdx >= 0 ? orderIdx : end;
    if (nullsIdx >= 0) {
      ignoreNulls = isWord(items[nullsIdx], 'IGNORE');
      valueEnd = Math.min(valueEnd, nullsIdx);
    }
    const valueNodes = items.slice(0, valueEnd);
    const value = this.expr(valueNodes);
    const order = orderIdx >= 0 ? ` ${this.expr(items.slice(orderIdx, end))}` : '';
    const valueExpr = isWord(valueNodes[0], 'DISTINCT') ? this.expr(valueNodes.slice(1)) : value;
    let out = `array_agg(${value}${order})`;
    if (ignoreNulls) out += ` FILTER (WHERE ${valueExpr} IS NOT NULL)`;
    if (limit !== undefined) out = `list_slice(${out}, 1, ${limit})`;
    return out;
  }

  struct(items: readonly Node[]): string {
    const args = splitArgs(items);
    if (args.length === 0) throw new UnsupportedSqlError('empty STRUCT()');
    const named: string[] = [];
    let k = 0;
    for (const a of args) {
      k++;
      const asIdx = a.findLastIndex((n) => isWord(n, 'AS'));
      let fname: string;
      let valueNodes: Node[];
      if (asIdx >= 0 && asIdx === a.length - 2) {
        fname = (a[a.length - 1] as Token).text;
        valueNodes = a.slice(0, asIdx);
      } else {
        valueNodes = a;
        const last = a[a.length - 1];
        const isPath = a.every((n, idx) =>
          idx % 2 === 0 ? n.kind === 'ident' || n.kind === 'qident' : isOp(n, '.'),
        );
        fname = isPath && last && !isGroup(last) ? (last as Token).text : `_field_${k}`;
      }
      named.push(`${quoteIdent(fname)} := ${this.expr(valueNodes)}`);
    }
    return `struct_pack(${named.join(', ')})`;
  }
}

const NOT_FUNCTIONS = new Set([
  'IN',
  'AS',
  'AND',
  'OR',
  'NOT',
  'EXISTS',
  'FROM',
  'JOIN',
  'ON',
  'USING',
  'OVER',
  'WHERE',
  'SELECT',
  'VALUES',
  'INTO',
  'WITH',
  'BY',
  'THEN',
  'ELSE',
  'WHEN',
  'CASE',
  'END',
  'EXCEPT',
  'REPLACE',
  'UNION',
  'ALL',
  'DISTINCT',
  'INTERSECT',
  'LATERAL',
  'UNNEST',
  'FILTER',
  'TABLE',
  'VIEW',
  'IS',
  'LIKE',
  'BETWEEN',
  'WINDOW',
  'PARTITION',
  'SET',
  'UPDATE',
  'INSERT',
  'DELETE',
  'QUALIFY',
  'HAVING',
  'LIMIT',
  'ORDER',
  'GROUP',
  'ROWS',
  'RANGE',
  'CURRENT_TIMESTAMP_',
]);

// BigQuery allows `CAST (x AS T)` and `EXTRACT (...)`; those must still be rewritten.
const FUNCTIONS_ALLOWING_SPACE = new Set(['CAST', 'SAFE_CAST', 'EXTRACT', 'STRUCT', 'COUNTIF', 'ARRAY_AGG']);

const DATE_PARTS = [
  'MICROSECOND',
  'MILLISECOND',
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'QUARTER',
  'YEAR',
];

const TYPED_LITERALS = new Set(['TIMESTAMP', 'DATE', 'DATETIME', 'TIME', 'NUMERIC', 'BIGNUMERIC', 'JSON']);

const KEYWORDS_BEFORE_ARRAY = [
  'SELECT',
  'IN',
  'AND',
  'OR',
  'NOT',
  'THEN',
  'ELSE',
  'WHEN',
  'RETURN',
  'VALUES',
  'BY',
  'AS',
  'ARRAY',
  'UNNEST',
  'DISTINCT',
  'CASE',
  'WHERE',
  'ON',
  'HAVING',
  'LIKE',
  'IS',
  'SET',
];

/** BigQuery TIMESTAMP literal text → text DuckDB's TIMESTAMPTZ cast reads the same way. */
function normaliseTimestampText(text: string): string {
  return text.trim().replace(/\s*(UTC|Z)$/i, '+00');
}

function bytesLiteral(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 32 || code > 126 || ch === '\\' || ch === "'")
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `CAST('${out}' AS BLOB)`;
}

function detectKind(nodes: readonly Node[], t: Translator): { kind: StatementKind; targetIdx?: number } {
  const first = nodes[0];
  if (first === undefined) throw new InvalidSqlError('Syntax error: Unexpected end of script');
  if (isGroup(first, '(')) return { kind: 'select' };
  if (!isWord(first)) throw new InvalidSqlError(`Syntax error: Unexpected "${(first as Token).text}"`);
  const w = (first as Token).text.toUpperCase();
  if (w === 'SELECT' || w === 'WITH') return { kind: 'select' };
  if (w === 'INSERT') return { kind: 'insert' };
  if (w === 'UPDATE') return { kind: 'update' };
  if (w === 'DELETE') return { kind: 'delete' };
  if (w === 'TRUNCATE') return { kind: 'truncate' };
  if (w === 'CREATE') {
    const words = nodes
      .slice(1, 6)
      .filter((n) => isWord(n))
      .map((n) => (n as Token).text.toUpperCase());
    if (words.includes('FUNCTION') || words.includes('PROCEDURE'))
      throw new UnsupportedSqlError('CREATE FUNCTION');
    if (words.includes('MATERIALIZED')) throw new UnsupportedSqlError('CREATE MATERIALIZED VIEW');
    if (words.includes('VIEW')) return { kind: 'create_view' };
    if (words.includes('TABLE')) {
      if (words.includes('TEMP') || words.includes('TEMPORARY'))
        throw new UnsupportedSqlError('CREATE TEMP TABLE');
      return { kind: 'create_table' };
    }
    if (words.includes('SCHEMA'))
      throw new UnsupportedSqlError('CREATE SCHEMA (create datasets through the API)');
    throw new UnsupportedSqlError(`CREATE ${words[0] ?? ''}`.trim());
  }
  if (w === 'DROP') {
    const second = (nodes[1] as Token | undefined)?.text.toUpperCase();
    if (second === 'TABLE') return { kind: 'drop_table' };
    if (second === 'VIEW') return { kind: 'drop_view' };
    throw new UnsupportedSqlError(`DROP ${second ?? ''}`.trim());
  }
  void t;
  if (UNSUPPORTED_LEADING.has(w)) throw new UnsupportedSqlError(`${w} statements`);
  throw new UnsupportedSqlError(`statement starting with ${w}`);
}

/**
 * Translates one BigQuery statement to DuckDB SQL.
 * Throws UnsupportedSqlError for constructs outside the subset and InvalidSqlError for
 * mistakes visible without running the query.
 */
export function translate(bqSql: string, opts: TranslateOptions): Translation {
  const tokens = tokenize(bqSql);
  const nodes = buildTree(tokens);
  while (nodes.length > 0 && isOp(nodes[nodes.length - 1], ';')) nodes.pop();
  const t = new Translator(opts);
  const { kind } = detectKind(nodes, t);
  let body = nodes;
  let target: TableRef | undefined;
  let viewQuery: string | undefined;
  let prefix = '';
  switch (kind) {
    case 'insert': {
      // INSERT [INTO] name ...
      let j = 1;
      if (isWord(nodes[j], 'INTO')) j++;
      const [parts, k] = t.readName(nodes, j);
      target = t.resolveTable(parts, nodes[j]?.pos ?? 0);
      prefix = `INSERT INTO ${qualifiedName(target)}`;
      body = nodes.slice(k);
      if (isWord(body[0], 'ROW')) throw new UnsupportedSqlError('INSERT ROW');
      break;
    }
    case 'update': {
      const [parts, k] = t.readName(nodes, 1);
      target = t.resolveTable(parts, nodes[1]?.pos ?? 0);
      prefix = `UPDATE ${qualifiedName(target)}`;
      body = nodes.slice(k);
      if (!body.some((n) => isWord(n, 'WHERE'))) throw new InvalidSqlError('UPDATE must have a WHERE clause');
      break;
    }
    case 'delete': {
      let j = 1;
      if (isWord(nodes[j], 'FROM')) j++;
      const [parts, k] = t.readName(nodes, j);
      target = t.resolveTable(parts, nodes[j]?.pos ?? 0);
      prefix = `DELETE FROM ${qualifiedName(target)}`;
      body = nodes.slice(k);
      if (!body.some((n) => isWord(n, 'WHERE'))) throw new InvalidSqlError('DELETE must have a WHERE clause');
      break;
    }
    case 'truncate': {
      if (!isWord(nodes[1], 'TABLE')) throw new InvalidSqlError('Syntax error: expected TRUNCATE TABLE');
      const [parts] = t.readName(nodes, 2);
      target = t.resolveTable(parts, nodes[2]?.pos ?? 0);
      return { sql: `DELETE FROM ${qualifiedName(target)}`, kind, target, tables: t.tables };
    }
    case 'drop_table':
    case 'drop_view': {
      let j = 2;
      let ifExists = '';
      if (isWord(nodes[j], 'IF') && isWord(nodes[j + 1], 'EXISTS')) {
        ifExists = 'IF EXISTS ';
        j += 2;
      }
      const [parts] = t.readName(nodes, j);
      target = t.resolveTable(parts, nodes[j]?.pos ?? 0);
      const what = kind === 'drop_table' ? 'TABLE' : 'VIEW';
      return { sql: `DROP ${what} ${ifExists}${qualifiedName(target)}`, kind, target, tables: t.tables };
    }
    case 'create_view':
    case 'create_table': {
      const what = kind === 'create_view' ? 'VIEW' : 'TABLE';
      const whatIdx = nodes.findIndex((n) => isWord(n, what));
      const head = nodes
        .slice(0, whatIdx)
        .map((n) => (n as Token).text.toUpperCase())
        .join(' ');
      let j = whatIdx + 1;
      let ifNotExists = '';
      if (isWord(nodes[j], 'IF') && isWord(nodes[j + 1], 'NOT') && isWord(nodes[j + 2], 'EXISTS')) {
        ifNotExists = 'IF NOT EXISTS ';
        j += 3;
      }
      const [parts, k] = t.readName(nodes, j);
      target = t.resolveTable(parts, nodes[j]?.pos ?? 0);
      prefix = `${head} ${what} ${ifNotExists}${qualifiedName(target)}`;
      body = nodes.slice(k);
      if (kind === 'create_table' && isGroup(body[0], '(')) {
        // Column definitions: name TYPE [NOT NULL] [OPTIONS(...)], ...
        const cols = splitArgs((body[0] as Group).items).map((c) => {
          const cname = c[0] as Token;
          const [type, end] = parseType(c, 1);
          const notNull = isWord(c[end], 'NOT') && isWord(c[end + 1], 'NULL') ? ' NOT NULL' : '';
          return `${quoteIdent(cname.text)} ${type}${notNull}`;
        });
        prefix += ` (${cols.join(', ')})`;
        body = body.slice(1);
      }
      for (let m = 0; m < body.length; m++) {
        if (isWord(body[m], 'PARTITION', 'CLUSTER', 'OPTIONS')) {
          // Physical layout and options do not change results; skip to AS.
          const asIdx = body.findIndex((n, q) => q > m && isWord(n, 'AS'));
          body = asIdx >= 0 ? body.slice(asIdx) : [];
          break;
        }
      }
      if (kind === 'create_view') {
        const asNode = body[0];
        if (!isWord(asNode, 'AS')) throw new InvalidSqlError('Syntax error: expected AS after the view name');
        viewQuery = bqSql
          .slice((body[1] as Token | Group | undefined)?.pos ?? bqSql.length)
          .replace(/;\s*$/, '');
      }
      break;
    }
    default:
      break;
  }
  const rest = t.sequence(body);
  const sql = prefix ? `${prefix}${rest ? ` ${rest}` : ''}` : rest;
  const result: Translation = { sql, kind, tables: t.tables };
  return {
    ...result,
    ...(target ? { target } : {}),
    ...(viewQuery !== undefined ? { viewQuery } : {}),
  };
}
