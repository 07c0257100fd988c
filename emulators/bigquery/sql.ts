/**
 * BigQuery standard SQL → DuckDB SQL, for the documented subset (docs/bigquery-emulator.md), one
 * statement at a time: `translate` tells the statement's kind, translates its head by kind (the
 * target of INSERT, UPDATE, DELETE, MERGE, TRUNCATE, DROP and CREATE, a CREATE TABLE's column
 * list, a view's query text), and hands the rest to the token-tree rewriter (sql-translator.ts).
 *
 * Pure: no I/O. It is not a full parser: anything not rewritten is passed through for DuckDB to
 * accept or reject, and constructs known to be unsupported are rejected by name with
 * UnsupportedSqlError. Where the rest lives: tokens, the tree and types in sql-tree.ts; table
 * positions in sql-from.ts; the SELECT list in sql-select.ts; literals, casts and date parts in
 * sql-expressions.ts; one translation per BigQuery function in sql-functions.ts.
 */
import { readName } from './sql-from.ts';
import { columnDescription, readTableClauses } from './sql-table-options.ts';
import { Translator } from './sql-translator.ts';
import {
  buildTree,
  type Group,
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  type OptionExpression,
  parseType,
  qualifiedName,
  quoteIdent,
  type StatementKind,
  splitArgs,
  type TableOptions,
  type TableRef,
  type Token,
  type TranslateOptions,
  type Translation,
  tokenize,
  UnsupportedSqlError,
} from './sql-tree.ts';

export {
  type DatasetRef,
  InvalidSqlError,
  qualifiedName,
  quoteIdent,
  type StatementKind,
  schemaName,
  stringLiteral,
  type TableRef,
  type TranslateOptions,
  type Translation,
  UnsupportedSqlError,
} from './sql-tree.ts';

/** Statements BigQuery has and the emulator refuses, by their first word. */
const UNSUPPORTED_LEADING = new Set([
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

/** A statement's head in DuckDB SQL (`INSERT INTO "p.d"."t"`), the nodes left to rewrite, and what it writes. */
interface Head {
  readonly prefix: string;
  readonly body: readonly Node[];
  readonly target?: TableRef;
  readonly viewQuery?: string;
  readonly tableOptions?: TableOptions;
  readonly columnDescriptions?: Record<string, string>;
  readonly optionExpressions?: readonly OptionExpression[];
}

/** The statement's kind, from its first words; refuses the kinds outside the subset. */
function statementKind(nodes: readonly Node[]): StatementKind {
  const first = nodes[0];
  if (first === undefined) throw new InvalidSqlError('Syntax error: Unexpected end of script');
  if (isGroup(first, '(')) return 'select';
  if (!isWord(first)) throw new InvalidSqlError(`Syntax error: Unexpected "${(first as Token).text}"`);
  const w = (first as Token).text.toUpperCase();
  if (w === 'SELECT' || w === 'WITH') return 'select';
  if (w === 'INSERT') return 'insert';
  if (w === 'UPDATE') return 'update';
  if (w === 'DELETE') return 'delete';
  if (w === 'TRUNCATE') return 'truncate';
  if (w === 'MERGE') return 'merge';
  if (w === 'CREATE') {
    const words = nodes
      .slice(1, 6)
      .filter((n) => isWord(n))
      .map((n) => (n as Token).text.toUpperCase());
    if (words.includes('FUNCTION') || words.includes('PROCEDURE'))
      throw new UnsupportedSqlError('CREATE FUNCTION');
    if (words.includes('MATERIALIZED')) throw new UnsupportedSqlError('CREATE MATERIALIZED VIEW');
    if (words.includes('VIEW')) return 'create_view';
    if (words.includes('TABLE')) {
      if (words.includes('TEMP') || words.includes('TEMPORARY'))
        throw new UnsupportedSqlError('CREATE TEMP TABLE');
      return 'create_table';
    }
    if (words.includes('SCHEMA'))
      throw new UnsupportedSqlError('CREATE SCHEMA (create datasets through the API)');
    throw new UnsupportedSqlError(`CREATE ${words[0] ?? ''}`.trim());
  }
  if (w === 'DROP') {
    const second = (nodes[1] as Token | undefined)?.text.toUpperCase();
    if (second === 'TABLE') return 'drop_table';
    if (second === 'VIEW') return 'drop_view';
    throw new UnsupportedSqlError(`DROP ${second ?? ''}`.trim());
  }
  if (UNSUPPORTED_LEADING.has(w)) throw new UnsupportedSqlError(`${w} statements`);
  throw new UnsupportedSqlError(`statement starting with ${w}`);
}

/** The table named at nodes[j], resolved (and recorded as one the statement names), and the next index. */
function targetAt(t: Translator, nodes: readonly Node[], j: number): [TableRef, number] {
  const [parts, k] = readName(nodes, j);
  return [t.scope.resolveTable(parts, nodes[j]?.pos ?? 0), k];
}

/** `INSERT [INTO] t …`. */
function insertHead(t: Translator, nodes: readonly Node[]): Head {
  const [target, k] = targetAt(t, nodes, isWord(nodes[1], 'INTO') ? 2 : 1);
  const body = nodes.slice(k);
  if (isWord(body[0], 'ROW')) throw new UnsupportedSqlError('INSERT ROW');
  return { prefix: `INSERT INTO ${qualifiedName(target)}`, body, target };
}

/** `UPDATE t … WHERE …` and `DELETE [FROM] t WHERE …`: BigQuery requires the WHERE. */
function updateOrDeleteHead(t: Translator, nodes: readonly Node[], kind: 'update' | 'delete'): Head {
  const [target, k] = targetAt(t, nodes, kind === 'delete' && isWord(nodes[1], 'FROM') ? 2 : 1);
  const body = nodes.slice(k);
  const verb = kind === 'update' ? 'UPDATE' : 'DELETE';
  if (!body.some((n) => isWord(n, 'WHERE'))) throw new InvalidSqlError(`${verb} must have a WHERE clause`);
  return {
    prefix: kind === 'update' ? `UPDATE ${qualifiedName(target)}` : `DELETE FROM ${qualifiedName(target)}`,
    body,
    target,
  };
}

/**
 * `MERGE [INTO] target [[AS] alias] USING source …`: DuckDB's MERGE INTO takes the same clauses
 * (WHEN [NOT] MATCHED [BY TARGET | BY SOURCE] [AND cond] THEN …).
 */
function mergeHead(t: Translator, nodes: readonly Node[]): Head {
  const [target, k] = targetAt(t, nodes, isWord(nodes[1], 'INTO') ? 2 : 1);
  const using = nodes.findIndex((n, q) => q >= k && isWord(n, 'USING'));
  if (using < 0) throw new InvalidSqlError('Syntax error: MERGE needs USING');
  if (nodes.some((n, q) => isWord(n, 'ROW') && isWord(nodes[q - 1], 'INSERT')))
    throw new UnsupportedSqlError('MERGE ... INSERT ROW (name the columns: INSERT (a, b) VALUES (S.a, S.b))');
  const alias = t.sequence(nodes.slice(k, using));
  let source = '';
  let m = using + 1;
  if (!isGroup(nodes[m], '(')) {
    const [sparts, e] = readName(nodes, m);
    source = ` ${t.scope.tempTable(sparts) ?? qualifiedName(t.scope.resolveTable(sparts, nodes[m]?.pos ?? 0))}`;
    m = e;
  }
  return {
    prefix: `MERGE INTO ${qualifiedName(target)}${alias ? ` ${alias}` : ''} USING${source}`,
    body: nodes.slice(m),
    target,
  };
}

/** `TRUNCATE TABLE t` (a DELETE of every row) and `DROP TABLE|VIEW [IF EXISTS] t`. */
function truncateOrDropHead(t: Translator, nodes: readonly Node[], kind: StatementKind): Head {
  if (kind === 'truncate') {
    if (!isWord(nodes[1], 'TABLE')) throw new InvalidSqlError('Syntax error: expected TRUNCATE TABLE');
    const [target] = targetAt(t, nodes, 2);
    return { prefix: `DELETE FROM ${qualifiedName(target)}`, body: [], target };
  }
  const ifExists = isWord(nodes[2], 'IF') && isWord(nodes[3], 'EXISTS');
  const [target] = targetAt(t, nodes, ifExists ? 4 : 2);
  const what = kind === 'drop_table' ? 'TABLE' : 'VIEW';
  return { prefix: `DROP ${what} ${ifExists ? 'IF EXISTS ' : ''}${qualifiedName(target)}`, body: [], target };
}

/**
 * `CREATE [OR REPLACE] TABLE|VIEW [IF NOT EXISTS] t [(columns)] [PARTITION BY …] [CLUSTER BY …]
 * [OPTIONS(…)] [AS query]`; a view keeps its query's BigQuery text (`bqSql`) as `view.query`.
 */
function createHead(
  t: Translator,
  nodes: readonly Node[],
  kind: 'create_table' | 'create_view',
  bqSql: string,
): Head {
  const what = kind === 'create_view' ? 'VIEW' : 'TABLE';
  const whatIdx = nodes.findIndex((n) => isWord(n, what));
  const head = nodes
    .slice(0, whatIdx)
    .map((n) => (n as Token).text.toUpperCase())
    .join(' ');
  const ifNotExists =
    isWord(nodes[whatIdx + 1], 'IF') &&
    isWord(nodes[whatIdx + 2], 'NOT') &&
    isWord(nodes[whatIdx + 3], 'EXISTS');
  const [target, k] = targetAt(t, nodes, whatIdx + (ifNotExists ? 4 : 1));
  let prefix = `${head} ${what} ${ifNotExists ? 'IF NOT EXISTS ' : ''}${qualifiedName(target)}`;
  let body = nodes.slice(k);
  const columnDescriptions: Record<string, string> = {};
  if (kind === 'create_table' && isGroup(body[0], '(')) {
    // Column definitions: name TYPE [NOT NULL] [OPTIONS(description = '…')], ...
    const cols = splitArgs((body[0] as Group).items).map((c) => {
      const cname = c[0] as Token;
      const [type, end] = parseType(c, 1);
      const notNull = isWord(c[end], 'NOT') && isWord(c[end + 1], 'NULL');
      let next = notNull ? end + 2 : end;
      if (isWord(c[next], 'OPTIONS') && isGroup(c[next + 1], '(')) {
        const description = columnDescription((c[next + 1] as Group).items, cname.text);
        if (description !== undefined) columnDescriptions[cname.text] = description;
        next += 2;
      }
      // Anything else (DEFAULT, COLLATE, a constraint) would be dropped: refused by name.
      const left = c[next];
      if (left !== undefined)
        throw new UnsupportedSqlError(
          `column ${cname.text} ${isGroup(left) ? `${left.open}…` : (left as Token).text}`,
          'a column takes a type, NOT NULL and OPTIONS(description) here',
        );
      return `${quoteIdent(cname.text)} ${type}${notNull ? ' NOT NULL' : ''}`;
    });
    prefix += ` (${cols.join(', ')})`;
    body = body.slice(1);
  }
  // PARTITION BY, CLUSTER BY and OPTIONS describe the table, not its rows: recorded on its
  // resource (sql-table-options.ts), or refused by name.
  // An option's constant expression is translated here and evaluated when the statement runs.
  const {
    options: tableOptions,
    expressions,
    rest,
  } = readTableClauses(body, kind === 'create_view', (expr) => t.sequence(expr));
  body = body.slice(rest);
  const described = {
    ...(Object.keys(columnDescriptions).length > 0 ? { columnDescriptions } : {}),
    ...(expressions.length > 0 ? { optionExpressions: expressions } : {}),
  };
  if (kind === 'create_table') return { prefix, body, target, tableOptions, ...described };
  if (!isWord(body[0], 'AS')) throw new InvalidSqlError('Syntax error: expected AS after the view name');
  const viewQuery = bqSql
    .slice((body[1] as Token | Group | undefined)?.pos ?? bqSql.length)
    .replace(/;\s*$/, '');
  return {
    prefix,
    body,
    target,
    viewQuery,
    tableOptions,
    ...(expressions.length > 0 ? { optionExpressions: expressions } : {}),
  };
}

function headOf(t: Translator, nodes: readonly Node[], kind: StatementKind, bqSql: string): Head {
  switch (kind) {
    case 'select':
      return { prefix: '', body: nodes };
    case 'insert':
      return insertHead(t, nodes);
    case 'update':
    case 'delete':
      return updateOrDeleteHead(t, nodes, kind);
    case 'merge':
      return mergeHead(t, nodes);
    case 'truncate':
    case 'drop_table':
    case 'drop_view':
      return truncateOrDropHead(t, nodes, kind);
    case 'create_table':
    case 'create_view':
      return createHead(t, nodes, kind, bqSql);
  }
}

/**
 * Translates one BigQuery statement to DuckDB SQL.
 * Throws UnsupportedSqlError for constructs outside the subset and InvalidSqlError for
 * mistakes visible without running the query.
 */
export function translate(bqSql: string, opts: TranslateOptions): Translation {
  const nodes = buildTree(tokenize(bqSql));
  while (nodes.length > 0 && isOp(nodes[nodes.length - 1], ';')) nodes.pop();
  const kind = statementKind(nodes);
  const t = new Translator(opts);
  const { prefix, body, target, viewQuery, tableOptions, columnDescriptions, optionExpressions } = headOf(
    t,
    nodes,
    kind,
    bqSql,
  );
  const rest = t.sequence(body);
  const sql = prefix ? `${prefix}${rest ? ` ${rest}` : ''}` : rest;
  return {
    sql,
    kind,
    tables: t.scope.tables,
    informationSchema: t.scope.schemaViews,
    ...(target ? { target } : {}),
    ...(viewQuery !== undefined ? { viewQuery } : {}),
    ...(tableOptions && Object.keys(tableOptions).length > 0 ? { tableOptions } : {}),
    ...(columnDescriptions ? { columnDescriptions } : {}),
    ...(optionExpressions ? { optionExpressions } : {}),
  };
}
