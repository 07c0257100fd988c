/**
 * The SELECT list, where BigQuery and DuckDB name and shape a row differently: `SELECT AS STRUCT`
 * and `SELECT AS VALUE`, a bare path item named by its last name (`e.event_id` is `event_id`), an
 * implicit alias (`SELECT x timestamp`), and telling a set operation's EXCEPT from a star's. Pure.
 */
import {
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  quoteIdent,
  type Rewriter,
  stringLiteral,
  type Token,
} from './sql-tree.ts';

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

/** Words that end a SELECT list (with a set operation's EXCEPT, `setExcept`). */
const SELECT_LIST_ENDS = [
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
];

/** `EXCEPT` as a set operation (`EXCEPT DISTINCT`), not a star's `* EXCEPT (columns)`. */
export function setExcept(nodes: readonly Node[], i: number): boolean {
  return isWord(nodes[i], 'EXCEPT') && !isGroup(nodes[i + 1], '(');
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

/**
 * The end of a SELECT item that is a bare path of two or more names (`traffic_source.source`,
 * `e.event_id`) followed by the item's end (`,`, FROM, or nothing); `i` when it is anything else.
 */
export function pathItemEnd(nodes: readonly Node[], i: number): number {
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

/**
 * Whether the name at `i` is a SELECT item's implicit alias: it follows the end of an expression
 * (a name, literal, parameter or bracket, `END`) and ends the item (`,`, FROM, or nothing).
 */
export function implicitAlias(nodes: readonly Node[], i: number): boolean {
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

/** Whether nodes[i] starts `SELECT AS STRUCT` or `SELECT AS VALUE`. */
export function isSelectAs(nodes: readonly Node[], i: number): boolean {
  return isWord(nodes[i], 'SELECT') && isWord(nodes[i + 1], 'AS') && isWord(nodes[i + 2], 'STRUCT', 'VALUE');
}

/**
 * `SELECT AS STRUCT a, b AS c FROM …` makes each row one STRUCT; `SELECT AS VALUE x` a value. Takes
 * the SELECT at nodes[i] (`isSelectAs`); returns its DuckDB form up to where the caller resumes.
 */
export function selectAs(rw: Rewriter, nodes: readonly Node[], i: number): { sql: string; next: number } {
  let end = i + 3;
  while (end < nodes.length && !isWord(nodes[end], ...SELECT_LIST_ENDS) && !setExcept(nodes, end)) end++;
  const items = splitTopLevel(nodes.slice(i + 3, end));
  const star = (item: readonly Node[]) =>
    item.some((x, k) => isOp(x, '*') && (k === 0 || isOp(item[k - 1], '.')));
  if (isWord(nodes[i + 2], 'STRUCT') && items.some(star)) {
    // `SELECT AS STRUCT *` (or `t.*`, `* EXCEPT (…)`): the plain SELECT as a subquery whose
    // row, named as a table, is the STRUCT DuckDB makes of its columns.
    let stop = end;
    while (stop < nodes.length && !isWord(nodes[stop], 'UNION', 'INTERSECT') && !setExcept(nodes, stop))
      stop++;
    const inner = rw.expr([nodes[i] as Node, ...nodes.slice(i + 3, stop)]);
    return { sql: `SELECT __row AS f0_ FROM (${inner}) AS __row`, next: stop };
  }
  if (isWord(nodes[i + 2], 'VALUE')) {
    if (items.length !== 1) throw new InvalidSqlError('SELECT AS VALUE takes exactly one expression');
    return { sql: `SELECT ${rw.expr(items[0] as Node[])}`, next: end };
  }
  const fields = items.map((item, k) => {
    const named = item.length > 2 && isWord(item[item.length - 2], 'AS');
    const body = named ? item.slice(0, -2) : item;
    const last = body[body.length - 1];
    const name = named
      ? (item[item.length - 1] as Token).text
      : pathItemEnd(body, 0) === body.length || (body.length === 1 && last?.kind === 'ident')
        ? (last as Token).text
        : `_field_${k + 1}`;
    return `${stringLiteral(name)}: ${rw.expr(body)}`;
  });
  return { sql: `SELECT {${fields.join(', ')}}`, next: end };
}

/** A bare path item (`pathItemEnd`) at nodes[i] named as BigQuery names it, or undefined for any other item. */
export function pathItem(
  rw: Rewriter,
  nodes: readonly Node[],
  i: number,
): { sql: string; next: number } | undefined {
  const end = pathItemEnd(nodes, i);
  if (end === i) return undefined;
  const last = nodes[end - 1] as Token;
  return { sql: `${rw.expr(nodes.slice(i, end))} AS ${quoteIdent(last.text)}`, next: end };
}
