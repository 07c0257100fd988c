/**
 * BigQuery standard SQL → DuckDB SQL, for the documented subset (docs/bigquery-emulator.md).
 *
 * Pure: no I/O. The translator tokenises, groups tokens by brackets, and rewrites the
 * token tree (table references, functions whose names or semantics differ, literals,
 * parameters). It is not a full parser: anything it does not rewrite is passed through
 * for DuckDB to accept or reject, and constructs known to be unsupported are rejected
 * here, by name, with UnsupportedSqlError.
 *
 * Its size (~950 lines) is the Translator class: one recursive rewriter over the token tree whose
 * steps (sequences, table references, UNNEST, calls, casts, literals) call each other at every
 * depth, so they stay together. Tokens and the tree are in sql-tree.ts; the function
 * translations, one per BigQuery function, in sql-functions.ts.
 */

import {
  INFORMATION_SCHEMA_VIEWS,
  type InformationSchemaView,
  informationSchemaSql,
} from './information-schema.ts';
import { parseRangeText, rangeCastMacro, rangeElementOfDuckType } from './range.ts';
import { callOf, FUNCTIONS } from './sql-functions.ts';
import {
  buildTree,
  type Group,
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  normaliseTimestampText,
  parseType,
  qualifiedName,
  quoteIdent,
  rangeElementDuck,
  SIMPLE_TYPES,
  type StatementKind,
  splitArgs,
  stringLiteral,
  type TableRef,
  type Token,
  type TranslateOptions,
  type Translation,
  tokenize,
  UnsupportedSqlError,
} from './sql-tree.ts';

export {
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

  /** A script's temporary table named by an unqualified name, as DuckDB names it; else undefined. */
  tempTable(parts: readonly string[]): string | undefined {
    return parts.length === 1 ? this.opts.temp?.get((parts[0] as string).toLowerCase()) : undefined;
  }

  /** `[project.]dataset.INFORMATION_SCHEMA.<view>` as a subquery, or undefined for other names. */
  informationSchema(parts: string[]): string | undefined {
    const clean = parts.flatMap((p) => p.split('.'));
    const at = clean.findIndex((p) => p.toUpperCase() === 'INFORMATION_SCHEMA');
    if (at < 0) return undefined;
    const view = (clean[at + 1] ?? '').toUpperCase();
    // Without a dataset, the job's default dataset is the scope (Cube's schema introspection reads
    // `INFORMATION_SCHEMA.COLUMNS` so).
    const dd = this.opts.defaultDataset;
    const scope = at === 0 && dd ? [dd.projectId ?? this.opts.projectId, dd.datasetId] : clean.slice(0, at);
    if (
      at !== clean.length - 2 ||
      scope.length === 0 ||
      scope.length > 2 ||
      /^region-/i.test(scope.at(-1) ?? '')
    )
      throw new UnsupportedSqlError(
        'INFORMATION_SCHEMA outside a dataset (only [<dataset>.]INFORMATION_SCHEMA.TABLES and .COLUMNS, the dataset given or the default one)',
      );
    if (!INFORMATION_SCHEMA_VIEWS.includes(view as InformationSchemaView))
      throw new UnsupportedSqlError(`INFORMATION_SCHEMA.${view} (only TABLES and COLUMNS)`);
    const projectId = scope.length === 2 ? (scope[0] as string) : this.opts.projectId;
    return `(${informationSchemaSql(projectId, scope.at(-1) as string, view as InformationSchemaView)})`;
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
      const temp = this.ctes.has((parts[0] as string).toLowerCase()) ? undefined : this.tempTable(parts);
      if (temp !== undefined) {
        out.push(temp);
        return j;
      }
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
      const info = this.informationSchema(parts);
      if (info !== undefined) {
        // Without an alias the view is named by its last part, as a table is (`columns.column_name`).
        const next = nodes[j];
        const aliased =
          isWord(next, 'AS') ||
          next?.kind === 'qident' ||
          (next?.kind === 'ident' &&
            !CLAUSE_ENDS_FROM.has(next.text.toUpperCase()) &&
            !isWord(next, 'WITH', 'LEFT', 'RIGHT', 'INNER', 'CROSS', 'JOIN', 'FULL', 'ON', 'USING'));
        const view = (parts.at(-1) ?? '').split('.').pop() ?? '';
        out.push(aliased ? info : `${info} AS ${quoteIdent(view)}`);
      } else out.push(qualifiedName(this.resolveTable(parts, n.pos)));
      if (isWord(nodes[j], 'FOR') && isWord(nodes[j + 1], 'SYSTEM_TIME'))
        throw new UnsupportedSqlError('FOR SYSTEM_TIME AS OF');
      return j;
    }
    return i;
  }

  /** `UNNEST(arr) [AS] x [WITH OFFSET [AS] o]` → a lateral subquery producing column x (and o). */
  unnestRef(nodes: readonly Node[], i: number, out: string[]): number {
    const arg = this.expr((nodes[i + 1] as Group).items);
    let j = i + 2;
    if (isWord(nodes[j], 'AS')) j++;
    let alias: string | undefined;
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
    // Without an alias, BigQuery makes an array of structs' fields the row's columns (`FROM t,
    // UNNEST(items)` then `item_id`; `(SELECT value.int_value FROM UNNEST(event_params) WHERE key
    // = …)`), and names a scalar element f0_. DuckDB's unnest to depth 2 does both: a struct's
    // fields become columns (the alias is then unused), a scalar keeps the alias.
    // With an alias x, the range is named x too: `x.field` is then the field of an element of
    // structs, and `UNNEST(items) AS items` shadows the column items as in BigQuery instead of
    // being ambiguous; a scalar element is the column x.
    const cols = [`unnest(__arr, max_depth := 2) AS ${quoteIdent(alias ?? 'f0_')}`];
    if (offset !== undefined) cols.push(`generate_subscripts(__arr, 1) - 1 AS ${quoteIdent(offset)}`);
    this.unnestCounter++;
    const name = alias === undefined ? `__unnest_${this.unnestCounter}` : quoteIdent(alias);
    out.push(`(SELECT ${cols.join(', ')} FROM (SELECT ${arg} AS __arr)) AS ${name}`);
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
    // In a SELECT list, at the start of an item: a bare path `a.b.c` is named `c`, as BigQuery
    // names it (DuckDB would not let GROUP BY or an outer query use that name).
    let inSelect = false;
    let selectItem = false;
    let i = 0;
    const emit = (s: string, node?: Node) => {
      if (out.length > 0 && (node === undefined || node.space)) out.push(' ');
      out.push(s);
    };
    while (i < nodes.length) {
      const n = nodes[i] as Node;
      if (selectItem && !isWord(n, 'DISTINCT', 'ALL')) {
        selectItem = false;
        const end = pathItemEnd(nodes, i);
        if (end > i) {
          const last = nodes[end - 1] as Token;
          emit(`${this.sequence(nodes.slice(i, end))} AS ${quoteIdent(last.text)}`, n);
          i = end;
          continue;
        }
      }
      // `SELECT AS STRUCT a, b AS c FROM …` makes each row one STRUCT; `SELECT AS VALUE x` a value.
      if (isWord(n, 'SELECT') && isWord(nodes[i + 1], 'AS') && isWord(nodes[i + 2], 'STRUCT', 'VALUE')) {
        let end = i + 3;
        while (
          end < nodes.length &&
          !isWord(
            nodes[end],
            'FROM',
            'WHERE',
            'GROUP',
            'HAVING',
            'ORDER',
            'LIMIT',
            'WINDOW',
            'QUALIFY',
            'UNION',
            'INTERSECT',
          ) &&
          !setExcept(nodes, end)
        )
          end++;
        const items = splitTopLevel(nodes.slice(i + 3, end));
        const star = (item: readonly Node[]) =>
          item.some((x, k) => isOp(x, '*') && (k === 0 || isOp(item[k - 1], '.')));
        if (isWord(nodes[i + 2], 'STRUCT') && items.some(star)) {
          // `SELECT AS STRUCT *` (or `t.*`, `* EXCEPT (…)`): the plain SELECT as a subquery whose
          // row, named as a table, is the STRUCT DuckDB makes of its columns.
          let stop = end;
          while (stop < nodes.length && !isWord(nodes[stop], 'UNION', 'INTERSECT') && !setExcept(nodes, stop))
            stop++;
          const inner = this.sequence([n, ...nodes.slice(i + 3, stop)]);
          emit(`SELECT __row AS f0_ FROM (${inner}) AS __row`, n);
          i = stop;
          inSelect = false;
          continue;
        }
        if (isWord(nodes[i + 2], 'VALUE')) {
          if (items.length !== 1) throw new InvalidSqlError('SELECT AS VALUE takes exactly one expression');
          emit(`SELECT ${this.expr(items[0] as Node[])}`, n);
        } else {
          const fields = items.map((item, k) => {
            const named = item.length > 2 && isWord(item[item.length - 2], 'AS');
            const body = named ? item.slice(0, -2) : item;
            const last = body[body.length - 1];
            const name = named
              ? (item[item.length - 1] as Token).text
              : pathItemEnd(body, 0) === body.length || (body.length === 1 && last?.kind === 'ident')
                ? (last as Token).text
                : `_field_${k + 1}`;
            return `${stringLiteral(name)}: ${this.expr(body)}`;
          });
          emit(`SELECT {${fields.join(', ')}}`, n);
        }
        i = end;
        inSelect = false;
        continue;
      }
      if (isWord(n, 'SELECT')) {
        inSelect = true;
        selectItem = true;
      } else if (isWord(n, 'FROM')) inSelect = false;
      else if (inSelect && !inFrom && isOp(n, ',')) selectItem = true;
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
      // An implicit alias (`SELECT x timestamp`): quoted, since it may be a DuckDB keyword.
      if (inSelect && !inFrom && implicitAlias(nodes, i)) {
        emit(quoteIdent(n.text), n);
        i++;
        continue;
      }
      // RANGE is a window frame's keyword, and RANGE(start, end) BigQuery's RANGE constructor.
      if (isGroup(next, '(') && !next.space && (!NOT_FUNCTIONS.has(word) || word === 'RANGE')) {
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
        emit(`try(${this.call(nodes[i + 2] as Token, nodes[i + 3] as Group, nodes, i + 2)})`, n);
        i += 4;
        continue;
      }
      // RANGE<DATE> '[2020-01-01, 2021-01-01)'
      if (word === 'RANGE' && isOp(next, '<') && isOp(nodes[i + 3], '>') && nodes[i + 4]?.kind === 'string') {
        emit(this.rangeLiteral(nodes[i + 2], (nodes[i + 4] as Token).text), n);
        i += 5;
        continue;
      }
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

  /** A RANGE literal: its bounds as literals of the element type, open ones NULL (range.ts). */
  rangeLiteral(elementNode: Node | undefined, text: string): string {
    const duck = rangeElementDuck(elementNode);
    const word = (elementNode as Token).text.toUpperCase();
    const bounds = parseRangeText(text);
    if (!bounds) throw new InvalidSqlError(`Invalid RANGE literal: '${text}' (expected '[start, end)')`);
    const one = (b: string | undefined) =>
      b === undefined ? `CAST(NULL AS ${duck})` : this.typedLiteral(word, b);
    return `bq_range(${one(bounds.start)}, ${one(bounds.end)})`;
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
    const translator = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    return translator ? translator(callOf(nameTok, g, this)) : `${nameTok.text}${this.group(g)}`;
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
    // To and from RANGE, in BigQuery's text (range.ts); a DuckDB cast would write or read its
    // struct text.
    const rangeElement = rangeElementOfDuckType(type);
    if (rangeElement !== undefined) return `${rangeCastMacro(rangeElement, name === 'SAFE_CAST')}(${value})`;
    if (type === 'VARCHAR')
      return `${name === 'SAFE_CAST' ? 'bq_safe_cast_string' : 'bq_cast_string'}(${value})`;
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
/**
 * The end of a SELECT item that is a bare path of two or more names (`traffic_source.source`,
 * `e.event_id`) followed by the item's end (`,`, FROM, or nothing); `i` when it is anything else.
 */
function pathItemEnd(nodes: readonly Node[], i: number): number {
  const name = (n: Node | undefined) =>
    n !== undefined &&
    (n.kind === 'qident' || (n.kind === 'ident' && !PATH_STOP_WORDS.has(n.text.toUpperCase())));
  if (!name(nodes[i])) return i;
  let k = i + 1;
  while (isOp(nodes[k], '.') && name(nodes[k + 1])) k += 2;
  if (k === i + 1) return i;
  const after = nodes[k];
  return after === undefined || isOp(after, ',') || isWord(after, 'FROM') ? k : i;
}

/** Nodes split at their top-level commas. */
function splitTopLevel(nodes: readonly Node[]): Node[][] {
  const out: Node[][] = [[]];
  for (const n of nodes) {
    if (isOp(n, ',')) out.push([]);
    else (out[out.length - 1] as Node[]).push(n);
  }
  return out.filter((x) => x.length > 0);
}

/** Words after which a name is not an alias: they do not end an expression. */
const NOT_EXPRESSION_ENDS = new Set([
  'SELECT',
  'DISTINCT',
  'ALL',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IS',
  'IN',
  'LIKE',
  'BETWEEN',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'BY',
  'ON',
  'OVER',
  'INTERVAL',
  'EXCEPT',
  'REPLACE',
  'STRUCT',
  'ARRAY',
]);

/**
 * Whether the name at `i` is a SELECT item's implicit alias: it follows the end of an expression
 * (a name, literal, parameter or bracket, `END`) and ends the item (`,`, FROM, or nothing).
 */
function implicitAlias(nodes: readonly Node[], i: number): boolean {
  const n = nodes[i];
  const prev = nodes[i - 1];
  const after = nodes[i + 1];
  if (n === undefined || n.kind !== 'ident' || prev === undefined) return false;
  if (!(after === undefined || isOp(after, ',') || isWord(after, 'FROM'))) return false;
  // END closes a CASE (`… ELSE 'b' END,`): never an alias.
  if (PATH_STOP_WORDS.has(n.text.toUpperCase()) || isWord(n, 'FROM') || isWord(n, 'END')) return false;
  if (prev.kind === 'op') return false;
  if (prev.kind === 'ident') return !NOT_EXPRESSION_ENDS.has(prev.text.toUpperCase());
  return true;
}

/** Words that start something other than a path in a SELECT item. */
const PATH_STOP_WORDS = new Set([
  'AS',
  'DISTINCT',
  'ALL',
  'CASE',
  'NOT',
  'NULL',
  'TRUE',
  'FALSE',
  'INTERVAL',
  'EXISTS',
  'ARRAY',
  'STRUCT',
]);

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
  if (w === 'MERGE') return { kind: 'merge' };
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

/** `EXCEPT` as a set operation (`EXCEPT DISTINCT`), not a star's `* EXCEPT (columns)`. */
function setExcept(nodes: readonly Node[], i: number): boolean {
  return isWord(nodes[i], 'EXCEPT') && !isGroup(nodes[i + 1], '(');
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
    case 'merge': {
      // MERGE [INTO] target [[AS] alias] USING source ... : DuckDB's MERGE INTO takes the same
      // clauses (WHEN [NOT] MATCHED [BY TARGET | BY SOURCE] [AND cond] THEN ...).
      let j = 1;
      if (isWord(nodes[j], 'INTO')) j++;
      const [parts, k] = t.readName(nodes, j);
      target = t.resolveTable(parts, nodes[j]?.pos ?? 0);
      const using = nodes.findIndex((n, q) => q >= k && isWord(n, 'USING'));
      if (using < 0) throw new InvalidSqlError('Syntax error: MERGE needs USING');
      if (nodes.some((n, q) => isWord(n, 'ROW') && isWord(nodes[q - 1], 'INSERT')))
        throw new UnsupportedSqlError(
          'MERGE ... INSERT ROW (name the columns: INSERT (a, b) VALUES (S.a, S.b))',
        );
      const alias = t.sequence(nodes.slice(k, using));
      let source = '';
      let m = using + 1;
      if (!isGroup(nodes[m], '(')) {
        const [sparts, e] = t.readName(nodes, m);
        source = ` ${t.tempTable(sparts) ?? qualifiedName(t.resolveTable(sparts, nodes[m]?.pos ?? 0))}`;
        m = e;
      }
      prefix = `MERGE INTO ${qualifiedName(target)}${alias ? ` ${alias}` : ''} USING${source}`;
      body = nodes.slice(m);
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
