/**
 * The clauses of `CREATE TABLE` (and CTAS) and `CREATE VIEW` that describe the table rather than
 * its rows: `PARTITION BY`, `CLUSTER BY`, `OPTIONS(...)` and a column's `OPTIONS(description=…)`,
 * read into the table resource's fields as tables.get shows them (`timePartitioning`,
 * `rangePartitioning`, `clustering`, `expirationTime`, `description`, `friendlyName`, `labels`,
 * `requirePartitionFilter`, a field's `description`). What the emulator does not record is
 * refused by name (UnsupportedSqlError, answered 400 invalidQuery), never dropped.
 *
 * Pure: no I/O. Supported:
 * - PARTITION BY `col`, `DATE(col)`, `_PARTITIONDATE`, `DATE(_PARTITIONTIME)`,
 *   `TIMESTAMP_TRUNC|DATETIME_TRUNC|DATE_TRUNC(col | _PARTITIONTIME, DAY|HOUR|MONTH|YEAR)`,
 *   `RANGE_BUCKET(col, GENERATE_ARRAY(start, end, interval))`;
 * - CLUSTER BY up to four columns;
 * - OPTIONS: `expiration_timestamp` (a TIMESTAMP literal or string, or NULL),
 *   `partition_expiration_days`, `require_partition_filter` (both need time partitioning),
 *   `description`, `friendly_name`, `labels` (`[("key", "value"), …]`); on a view, the same but
 *   the partition ones; on a column, `description` (a literal). A table or view option's value
 *   may be a constant expression, as BigQuery allows (`TIMESTAMP_ADD(CURRENT_TIMESTAMP(),
 *   INTERVAL 7 DAY)`): it is translated here and evaluated by DuckDB when the statement runs
 *   (jobs.ts, `applyOption`); one that is not constant (a column, a subquery) is refused.
 */
import type { Group, Node, OptionExpression, TableOptions, Token } from './sql-tree.ts';
import { InvalidSqlError, isGroup, isOp, isWord, splitArgs, UnsupportedSqlError } from './sql-tree.ts';

const UNITS = new Set(['DAY', 'HOUR', 'MONTH', 'YEAR']);
const PARTITION_TIME = new Set(['_PARTITIONTIME', '_PARTITIONDATE']);

const textOf = (nodes: readonly Node[]): string =>
  nodes.map((n) => (isGroup(n) ? `${n.open}…` : (n as Token).text)).join(' ');

/** A column name (a bare or backticked identifier). */
function columnName(n: Node | undefined): string | undefined {
  return n !== undefined && (n.kind === 'ident' || n.kind === 'qident') ? (n as Token).text : undefined;
}

/** `col` or `_PARTITIONTIME`: the partitioning field, or undefined for ingestion time. */
function timeField(n: Node | undefined, expr: string): string | undefined {
  const name = columnName(n);
  if (name === undefined) throw new UnsupportedSqlError(`PARTITION BY ${expr}`);
  return PARTITION_TIME.has(name.toUpperCase()) ? undefined : name;
}

/** A signed number literal (`-5`, `100`). */
function numberAt(nodes: readonly Node[], what: string): string {
  const neg = isOp(nodes[0], '-');
  const n = nodes[neg ? 1 : 0];
  if (n?.kind !== 'number' || nodes.length !== (neg ? 2 : 1))
    throw new InvalidSqlError(`${what} must be an integer literal`);
  return `${neg ? '-' : ''}${(n as Token).text}`;
}

function partitionBy(expr: readonly Node[], out: TableOptions): void {
  const shown = textOf(expr);
  const [head, args] = expr;
  if (expr.length === 1) {
    const field = timeField(head, shown);
    out.timePartitioning = { type: 'DAY', ...(field ? { field } : {}) };
    return;
  }
  const fn =
    isWord(head) && isGroup(args, '(') && expr.length === 2 ? (head as Token).text.toUpperCase() : '';
  const parts = fn ? splitArgs((args as Group).items) : [];
  if (fn === 'DATE' && parts.length === 1 && parts[0]?.length === 1) {
    const field = timeField(parts[0][0], shown);
    out.timePartitioning = { type: 'DAY', ...(field ? { field } : {}) };
    return;
  }
  if (['TIMESTAMP_TRUNC', 'DATETIME_TRUNC', 'DATE_TRUNC'].includes(fn) && parts.length === 2) {
    const unit =
      parts[1]?.length === 1 && isWord(parts[1][0]) ? (parts[1][0] as Token).text.toUpperCase() : '';
    if (!UNITS.has(unit) || parts[0]?.length !== 1)
      throw new UnsupportedSqlError(`PARTITION BY ${shown}`, 'the unit must be DAY, HOUR, MONTH or YEAR');
    const field = timeField(parts[0][0], shown);
    out.timePartitioning = { type: unit, ...(field ? { field } : {}) };
    return;
  }
  if (fn === 'RANGE_BUCKET' && parts.length === 2) {
    const field = parts[0]?.length === 1 ? columnName(parts[0][0]) : undefined;
    const gen = parts[1] ?? [];
    if (field && isWord(gen[0], 'GENERATE_ARRAY') && isGroup(gen[1], '(') && gen.length === 2) {
      const bounds = splitArgs((gen[1] as Group).items);
      if (bounds.length === 3) {
        const [start, end, interval] = bounds.map((b) => numberAt(b, 'RANGE_BUCKET bounds')) as [
          string,
          string,
          string,
        ];
        out.rangePartitioning = { field, range: { start, end, interval } };
        return;
      }
    }
  }
  throw new UnsupportedSqlError(`PARTITION BY ${shown}`);
}

function clusterBy(list: readonly Node[], out: TableOptions): void {
  const fields = splitArgs(list).map((c) => {
    const name = c.length === 1 ? columnName(c[0]) : undefined;
    if (name === undefined) throw new InvalidSqlError(`CLUSTER BY takes column names, not ${textOf(c)}`);
    return name;
  });
  if (fields.length === 0 || fields.length > 4)
    throw new InvalidSqlError('CLUSTER BY takes between 1 and 4 columns');
  out.clustering = { fields };
}

/** An option's value as BigQuery evaluates it: a TIMESTAMP is given as its text. */
export type OptionValue = string | number | boolean | null | Record<string, string>;
type Literal = OptionValue;

/** Translates an option's expression to DuckDB SQL (sql.ts passes its Translator). */
export type TranslateExpression = (nodes: readonly Node[]) => string;

/** Words a constant expression may hold other than function names: keywords, units, type names. */
const CONSTANT_WORDS = new Set(
  (
    'INTERVAL MICROSECOND MILLISECOND SECOND MINUTE HOUR DAY WEEK MONTH QUARTER YEAR ISOWEEK ' +
    'ISOYEAR DAYOFWEEK DAYOFYEAR TO TRUE FALSE NULL TIMESTAMP DATE DATETIME TIME NUMERIC ' +
    'BIGNUMERIC DECIMAL BIGDECIMAL JSON STRING BYTES INT64 INTEGER FLOAT64 BOOL BOOLEAN AS AND OR ' +
    'NOT IS IN LIKE BETWEEN CASE WHEN THEN ELSE END'
  ).split(' '),
);
const SUBQUERY_WORDS = new Set(['SELECT', 'WITH', 'FROM']);

/** Why `nodes` is not a constant expression (a column, a subquery), or undefined when it is. */
function notConstant(nodes: readonly Node[]): string | undefined {
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as Node;
    if (isGroup(n)) {
      const why = notConstant(n.items);
      if (why) return why;
      continue;
    }
    if (n.kind === 'qident') return `the name ${n.text}`;
    if (n.kind !== 'ident') continue;
    const word = n.text.toUpperCase();
    if (SUBQUERY_WORDS.has(word)) return 'a subquery';
    if (isOp(nodes[i + 1], '.')) return `the name ${n.text}`;
    if (isGroup(nodes[i + 1], '(') || CONSTANT_WORDS.has(word)) continue;
    return `the name ${n.text}`;
  }
  return undefined;
}

/** An option's value: a literal (string, number, TRUE/FALSE, NULL, TIMESTAMP '…', a label list). */
function literal(nodes: readonly Node[], name: string): Literal {
  const v = literalOrNot(nodes, name);
  if (v === NOT_LITERAL)
    throw new UnsupportedSqlError(`OPTIONS(${name}=${textOf(nodes)})`, 'only literal values are supported');
  return v;
}

const NOT_LITERAL = Symbol('not a literal');

function literalOrNot(nodes: readonly Node[], name: string): Literal | typeof NOT_LITERAL {
  const [a, b] = nodes;
  if (nodes.length === 1 && a?.kind === 'string') return (a as Token).text;
  if (nodes.length === 1 && a?.kind === 'number') return Number((a as Token).text);
  if (nodes.length === 1 && isWord(a, 'TRUE', 'FALSE')) return (a as Token).text.toUpperCase() === 'TRUE';
  if (nodes.length === 1 && isWord(a, 'NULL')) return null;
  if (nodes.length === 2 && isWord(a, 'TIMESTAMP') && b?.kind === 'string') return (b as Token).text;
  if (nodes.length === 1 && isGroup(a, '[')) {
    const labels: Record<string, string> = {};
    for (const pair of splitArgs(a.items)) {
      const kv = pair.length === 1 && isGroup(pair[0], '(') ? splitArgs((pair[0] as Group).items) : [];
      const [k, v] = kv.map((x) =>
        x.length === 1 && x[0]?.kind === 'string' ? (x[0] as Token).text : undefined,
      );
      if (kv.length !== 2 || k === undefined || v === undefined)
        throw new InvalidSqlError(`OPTIONS(${name}) takes a list of ("key", "value") pairs`);
      labels[k] = v;
    }
    return labels;
  }
  return NOT_LITERAL;
}

/** Milliseconds since the epoch, as BigQuery's `expirationTime`, from a TIMESTAMP literal's text. */
function timestampMs(text: string): string {
  const iso = text
    .trim()
    .replace(/\s+UTC$/i, 'Z')
    .replace(/^(\d{4}-\d{2}-\d{2})[ T]/, '$1T');
  const ms = Date.parse(
    /T/.test(iso) ? (/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`) : `${iso}T00:00:00Z`,
  );
  if (!Number.isFinite(ms)) throw new InvalidSqlError(`Invalid timestamp: '${text}'`);
  return String(ms);
}

const stringOrNull = (v: Literal, name: string): string | undefined => {
  if (v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidSqlError(`OPTIONS(${name}) takes a STRING`);
  return v;
};

/** Whether a table (`view`: a view) records option `name`; refused by name when it does not. */
function checkName(name: string, view: boolean): void {
  const known = ['description', 'friendly_name', 'labels', 'expiration_timestamp'];
  if (!view) known.push('partition_expiration_days', 'require_partition_filter');
  if (!known.includes(name))
    throw new UnsupportedSqlError(`OPTIONS(${name})`, 'the emulator does not record it');
}

/**
 * Sets option `name` of a table (`view`: of a view) to its value `v` on `out`, checked as BigQuery
 * checks it. Throws InvalidSqlError or UnsupportedSqlError.
 */
export function applyOption(name: string, v: OptionValue, out: TableOptions, view: boolean): void {
  checkName(name, view);
  if (name === 'description') {
    const d = stringOrNull(v, name);
    if (d !== undefined) out.description = d;
  } else if (name === 'friendly_name') {
    const f = stringOrNull(v, name);
    if (f !== undefined) out.friendlyName = f;
  } else if (name === 'labels') {
    if (typeof v !== 'object' || v === null)
      throw new InvalidSqlError('OPTIONS(labels) takes ("key", "value") pairs');
    out.labels = v;
  } else if (name === 'expiration_timestamp') {
    if (v !== null) {
      if (typeof v !== 'string') throw new InvalidSqlError('OPTIONS(expiration_timestamp) takes a TIMESTAMP');
      out.expirationTime = timestampMs(v);
    }
  } else if (name === 'partition_expiration_days') {
    if (typeof v !== 'number' || !(v > 0))
      throw new InvalidSqlError('OPTIONS(partition_expiration_days) takes a positive number');
    if (!out.timePartitioning)
      throw new InvalidSqlError('partition_expiration_days can only be set on a time-partitioned table');
    out.timePartitioning.expirationMs = String(Math.round(v * 86_400_000));
  } else if (name === 'require_partition_filter') {
    if (typeof v !== 'boolean') throw new InvalidSqlError('OPTIONS(require_partition_filter) takes a BOOL');
    if (!out.timePartitioning && !out.rangePartitioning)
      throw new InvalidSqlError('require_partition_filter can only be set on a partitioned table');
    out.requirePartitionFilter = v;
  }
}

/**
 * The OPTIONS list of a table (`view`: of a view), into `out`; a value that is a constant
 * expression is translated (`translateExpr`) into `exprs`, to be evaluated when the statement runs.
 */
function tableOptions(
  items: readonly Node[],
  out: TableOptions,
  view: boolean,
  exprs: OptionExpression[],
  translateExpr: TranslateExpression | undefined,
): void {
  for (const opt of splitArgs(items)) {
    const name = columnName(opt[0])?.toLowerCase();
    if (name === undefined || !isOp(opt[1], '='))
      throw new InvalidSqlError(`Syntax error in OPTIONS: ${textOf(opt)}`);
    const value = opt.slice(2);
    const v = literalOrNot(value, name);
    if (v !== NOT_LITERAL) {
      applyOption(name, v, out, view);
      continue;
    }
    checkName(name, view);
    if (value.length === 0) throw new InvalidSqlError(`Syntax error in OPTIONS: ${textOf(opt)}`);
    const why = notConstant(value);
    if (why !== undefined)
      throw new InvalidSqlError(
        `OPTIONS(${name}) takes a constant expression; ${why} is not constant: ${textOf(value)}`,
      );
    if (translateExpr === undefined)
      throw new UnsupportedSqlError(`OPTIONS(${name}=${textOf(value)})`, 'only literal values are supported');
    exprs.push({ name, sql: translateExpr(value), view });
  }
}

/**
 * Reads the clauses between a CREATE statement's name (or column list) and its `AS` (or end):
 * the table resource fields they set, and the index where the rest (`AS query`) starts.
 */
export function readTableClauses(
  nodes: readonly Node[],
  view: boolean,
  translateExpr?: TranslateExpression,
): { options: TableOptions; expressions: OptionExpression[]; rest: number } {
  const options: TableOptions = {};
  const expressions: OptionExpression[] = [];
  const isClause = (n: Node | undefined, next: Node | undefined) =>
    isWord(n, 'AS') ||
    (isWord(n, 'OPTIONS') && isGroup(next, '(')) ||
    (isWord(n, 'PARTITION', 'CLUSTER') && isWord(next, 'BY'));
  let m = 0;
  while (m < nodes.length && !isWord(nodes[m], 'AS')) {
    const n = nodes[m];
    if (isWord(n, 'OPTIONS') && isGroup(nodes[m + 1], '(')) {
      tableOptions((nodes[m + 1] as Group).items, options, view, expressions, translateExpr);
      m += 2;
      continue;
    }
    if (!view && isWord(n, 'PARTITION', 'CLUSTER') && isWord(nodes[m + 1], 'BY')) {
      let end = m + 2;
      while (end < nodes.length && !isClause(nodes[end], nodes[end + 1])) end++;
      const expr = nodes.slice(m + 2, end);
      if (isWord(n, 'PARTITION')) partitionBy(expr, options);
      else clusterBy(expr, options);
      m = end;
      continue;
    }
    throw new UnsupportedSqlError(`CREATE ${view ? 'VIEW' : 'TABLE'} … ${textOf(nodes.slice(m, m + 3))}`);
  }
  return { options, expressions, rest: m };
}

/** A column definition's `OPTIONS(description = '…')`: the description (other options refused). */
export function columnDescription(items: readonly Node[], column: string): string | undefined {
  let description: string | undefined;
  for (const opt of splitArgs(items)) {
    const name = columnName(opt[0])?.toLowerCase();
    if (name === undefined || !isOp(opt[1], '='))
      throw new InvalidSqlError(`Syntax error in OPTIONS: ${textOf(opt)}`);
    if (name !== 'description')
      throw new UnsupportedSqlError(
        `column OPTIONS(${name})`,
        `column ${column}: only description is recorded`,
      );
    description = stringOrNull(literal(opt.slice(2), name), name);
  }
  return description;
}
