/**
 * The rewriter of a statement's token tree (sql-tree.ts), one bracket level at a time: it walks
 * the nodes, tracks where it is (a SELECT list, a FROM clause, a table position), and hands each
 * construct to its rewrite: table positions to sql-from.ts, SELECT items to sql-select.ts,
 * literals and subscripts to sql-expressions.ts, calls to sql-functions.ts (each function's
 * translation), query parameters to the values given. What it does not rewrite passes through
 * for DuckDB to accept or reject; what is known unsupported is refused by name. Pure.
 */
import { bytesLiteral, rangeLiteral, subscript, typedLiteral } from './sql-expressions.ts';
import { CLAUSE_ENDS_FROM, readName, TableScope } from './sql-from.ts';
import { callOf, FUNCTIONS } from './sql-functions.ts';
import { implicitAlias, isSelectAs, pathItem, selectAs } from './sql-select.ts';
import {
  type Group,
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  quoteIdent,
  type Rewriter,
  stringLiteral,
  TABLE_SUFFIX,
  type Token,
  type TranslateOptions,
  UnsupportedSqlError,
} from './sql-tree.ts';

/** Functions (and `NAMESPACE.` prefixes) refused by name: nothing here stands in for them. */
const UNSUPPORTED_FUNCTIONS = new Set([
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
  'MATCH_RECOGNIZE',
]);

/** Keywords that may stand before a parenthesised group without making it a call. */
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

/** Words after which `[…]` is an array literal, not a subscript. */
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

/** Translates one statement's nodes; `scope` holds what its table positions resolved to. */
export class Translator implements Rewriter {
  readonly opts: TranslateOptions;
  readonly scope: TableScope;
  positionalIndex = 0;

  constructor(opts: TranslateOptions) {
    this.opts = opts;
    this.scope = new TableScope(opts);
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
    // In a SELECT list, at the start of an item: a bare path `a.b.c` is named `c`, as BigQuery
    // names it (DuckDB would not let GROUP BY or an outer query use that name).
    let inSelect = false;
    let selectItem = false;
    let i = 0;
    const emit = (s: string, node?: Node) => {
      if (out.length > 0 && (node === undefined || node.space)) out.push(' ');
      out.push(s);
    };
    // A wildcard table's `_TABLE_SUFFIX` is a pseudo-column: BigQuery leaves it out of `SELECT *`.
    // The stars of each SELECT of this level, made `* EXCLUDE` once its FROM names a wildcard table.
    let stars: number[] = [];
    let wildcardFrom = false;
    const closeSelect = () => {
      if (wildcardFrom) for (const k of stars) out[k] = `* EXCLUDE (${quoteIdent(TABLE_SUFFIX)})`;
      stars = [];
      wildcardFrom = false;
    };
    while (i < nodes.length) {
      const n = nodes[i] as Node;
      if (selectItem && !isWord(n, 'DISTINCT', 'ALL')) {
        selectItem = false;
        const item = pathItem(this, nodes, i);
        if (item) {
          emit(item.sql, n);
          i = item.next;
          continue;
        }
      }
      if (isSelectAs(nodes, i)) {
        const select = selectAs(this, nodes, i);
        emit(select.sql, n);
        i = select.next;
        inSelect = false;
        continue;
      }
      if (isWord(n, 'SELECT')) {
        closeSelect();
        inSelect = true;
        selectItem = true;
      } else if (isWord(n, 'FROM')) inSelect = false;
      else if (inSelect && !inFrom && isOp(n, ',')) selectItem = true;
      if (expectTable) {
        expectTable = false;
        const parts: string[] = [];
        const wildcards = this.scope.wildcards;
        const j = this.scope.tableRef(this, nodes, i, parts);
        if (this.scope.wildcards > wildcards) wildcardFrom = true;
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
          out.push(subscript(this, n));
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
          const [parts, j] = readName(nodes, i);
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
          if (
            n.text === '*' &&
            inSelect &&
            (isWord(nodes[i - 1], 'SELECT', 'DISTINCT', 'ALL') || isOp(nodes[i - 1], ',')) &&
            !isWord(nodes[i + 1], 'EXCEPT', 'REPLACE')
          ) {
            emit('*', n);
            stars.push(out.length - 1);
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
      // An implicit alias (`SELECT x timestamp`): quoted, since it may be a DuckDB keyword.
      if (inSelect && !inFrom && implicitAlias(nodes, i)) {
        emit(quoteIdent(n.text), n);
        i++;
        continue;
      }
      // RANGE is a window frame's keyword, and RANGE(start, end) BigQuery's RANGE constructor.
      if (isGroup(next, '(') && !next.space && (!NOT_FUNCTIONS.has(word) || word === 'RANGE')) {
        emit(this.call(n as Token, next), n);
        i += 2;
        // ARRAY_AGG etc. may be followed by OVER(...), which passes through.
        continue;
      }
      if (isGroup(next, '(') && next.space && FUNCTIONS_ALLOWING_SPACE.has(word)) {
        emit(this.call(n as Token, next), n);
        i += 2;
        continue;
      }
      // `OVER (w)` names a window of the WINDOW clause; DuckDB copies a named window with a frame
      // only as `OVER w`.
      if (
        word === 'OVER' &&
        isGroup(next, '(') &&
        next.items.length === 1 &&
        (next.items[0]?.kind === 'ident' || next.items[0]?.kind === 'qident')
      ) {
        emit(`OVER ${quoteIdent((next.items[0] as Token).text)}`, n);
        i += 2;
        continue;
      }
      // Namespaced functions such as NET.HOST(...) or SAFE.PARSE_DATE(...).
      if (isOp(next, '.') && UNSUPPORTED_FUNCTIONS.has(word))
        throw new UnsupportedSqlError(`${word}.* functions`);
      // SAFE.f(…) is NULL where f would raise an error: DuckDB's try().
      if (
        word === 'SAFE' &&
        isOp(next, '.') &&
        nodes[i + 2]?.kind === 'ident' &&
        isGroup(nodes[i + 3], '(')
      ) {
        emit(`try(${this.call(nodes[i + 2] as Token, nodes[i + 3] as Group)})`, n);
        i += 4;
        continue;
      }
      // RANGE<DATE> '[2020-01-01, 2021-01-01)'
      if (word === 'RANGE' && isOp(next, '<') && isOp(nodes[i + 3], '>') && nodes[i + 4]?.kind === 'string') {
        emit(rangeLiteral(nodes[i + 2], (nodes[i + 4] as Token).text), n);
        i += 5;
        continue;
      }
      if (TYPED_LITERALS.has(word) && next?.kind === 'string') {
        emit(typedLiteral(word, next.text), n);
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
          // `PIVOT(SUM(v) FOR k IN ('a', 'b'))` and `UNPIVOT(v FOR k IN (a, b))`: DuckDB takes
          // BigQuery's syntax and names the columns as BigQuery does.
          if (isGroup(next, '(')) {
            emit(`${word}(${this.sequence(next.items)})`, n);
            i += 2;
            continue;
          }
          break;
        case 'MATCH_RECOGNIZE':
          if (isGroup(next, '(')) throw new UnsupportedSqlError(word);
          break;
        // `TABLESAMPLE SYSTEM (n PERCENT)` is DuckDB's syntax too (a random sample in both).
        case 'WITH':
          if (isWord(next, 'RECURSIVE')) {
            emit('WITH RECURSIVE', n);
            i += 2;
          } else {
            emit('WITH', n);
            i++;
          }
          this.scope.registerCtes(nodes, i);
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
        case TABLE_SUFFIX:
          // A wildcard table's pseudo-column (sql-from.ts); without one DuckDB finds no such column.
          emit(quoteIdent(TABLE_SUFFIX), n);
          i++;
          continue;
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
    closeSelect();
    return out.join('');
  }

  /** A query parameter (`@name` or `?`) as the DuckDB literal it was given as. */
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

  /** A function call `name(args)`. */
  call(nameTok: Token, g: Group): string {
    const name = nameTok.text.toUpperCase();
    if (UNSUPPORTED_FUNCTIONS.has(name)) throw new UnsupportedSqlError(`function ${name}`);
    if (name.startsWith('ST_')) throw new UnsupportedSqlError(`geography function ${name}`);
    const translator = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    return translator ? translator(callOf(nameTok, g, this)) : `${nameTok.text}${this.group(g)}`;
  }
}
