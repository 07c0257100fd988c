/**
 * Expressions whose BigQuery form DuckDB spells differently, below the clause level: typed, RANGE
 * and bytes literals, array subscripts, date parts (DATE_TRUNC's, EXTRACT's), format strings,
 * casts, and the argument syntax of ARRAY_AGG and STRUCT. Pure; each takes the translator's
 * rewrite (`Rewriter`) for the expressions nested in it.
 */
import { parseRangeText, rangeCastMacro, rangeElementOfDuckType } from './range.ts';
import {
  type Group,
  InvalidSqlError,
  isGroup,
  isOp,
  isWord,
  type Node,
  normaliseTimestampText,
  parseType,
  quoteIdent,
  type Rewriter,
  rangeElementDuck,
  splitArgs,
  stringLiteral,
  type Token,
  UnsupportedSqlError,
} from './sql-tree.ts';
import { SQL_TYPES } from './types.ts';

const DAYS_FROM_MONDAY: Record<string, number> = {
  MONDAY: 0,
  TUESDAY: 1,
  WEDNESDAY: 2,
  THURSDAY: 3,
  FRIDAY: 4,
  SATURDAY: 5,
  SUNDAY: 6,
};

/** `TIMESTAMP '…'`, `DATE '…'` and the other typed literals as DuckDB casts of the text. */
export function typedLiteral(word: string, text: string): string {
  switch (word) {
    case 'TIMESTAMP':
      return `CAST(${stringLiteral(normaliseTimestampText(text))} AS TIMESTAMPTZ)`;
    case 'DATETIME':
      return `CAST(${stringLiteral(text)} AS TIMESTAMP)`;
    case 'JSON':
      return `CAST(${stringLiteral(text)} AS JSON)`;
    default:
      return `CAST(${stringLiteral(text)} AS ${SQL_TYPES[word]})`;
  }
}

/** A RANGE literal: its bounds as literals of the element type, open ones NULL (range.ts). */
export function rangeLiteral(elementNode: Node | undefined, text: string): string {
  const duck = rangeElementDuck(elementNode);
  const word = (elementNode as Token).text.toUpperCase();
  const bounds = parseRangeText(text);
  if (!bounds) throw new InvalidSqlError(`Invalid RANGE literal: '${text}' (expected '[start, end)')`);
  const one = (b: string | undefined) => (b === undefined ? `CAST(NULL AS ${duck})` : typedLiteral(word, b));
  return `bq_range(${one(bounds.start)}, ${one(bounds.end)})`;
}

/** A bytes literal (`b'…'`, already decoded) as a DuckDB BLOB, every unprintable byte escaped. */
export function bytesLiteral(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 32 || code > 126 || ch === '\\' || ch === "'")
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `CAST('${out}' AS BLOB)`;
}

/** `arr[OFFSET(i)]`, `[ORDINAL(i)]`, `[i]` (an offset) and `json['key']` as DuckDB's 1-based subscripts. */
export function subscript(t: Rewriter, g: Group): string {
  const items = g.items;
  const first = items[0];
  if (items.length === 2 && isGroup(items[1], '(')) {
    const inner = t.expr((items[1] as Group).items);
    if (isWord(first, 'OFFSET', 'SAFE_OFFSET')) return `[(${inner}) + 1]`;
    if (isWord(first, 'ORDINAL', 'SAFE_ORDINAL')) return `[${inner}]`;
  }
  if (items.length === 1 && first?.kind === 'string') return `[${stringLiteral(first.text)}]`;
  return `[(${t.expr(items)}) + 1]`;
}

/** A date part (`DAY`, `WEEK`, `ISOYEAR`) as the string DuckDB's date functions take. */
export function partName(nodes: readonly Node[]): string {
  const w = nodes[0];
  if (!isWord(w)) throw new InvalidSqlError('expected a date part such as DAY');
  const part = (w as Token).text.toUpperCase();
  if (part === 'WEEK' || part === 'ISOWEEK') return "'week'";
  if (part === 'ISOYEAR') return "'isoyear'";
  return stringLiteral(part.toLowerCase());
}

/** `value` truncated to a date part, BigQuery's WEEK(<day>) included, in time zone `tz` if given. */
export function truncate(value: string, partNodes: readonly Node[], tz: string | undefined): string {
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

/** `EXTRACT(part FROM value [AT TIME ZONE tz])`'s arguments, with BigQuery's numbering of each part. */
export function extract(t: Rewriter, items: readonly Node[]): string {
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
    tz = t.expr(rest.slice(atIdx + 3));
    rest = rest.slice(0, atIdx);
  }
  let v = t.expr(rest);
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

/** A FORMAT_/PARSE_ function's format: a literal's BigQuery-only elements as DuckDB's strftime spells them. */
export function formatString(t: Rewriter, nodes: readonly Node[]): string {
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
  return t.expr(nodes);
}

/** `CAST(x AS T)` and `SAFE_CAST(x AS T)`'s arguments, where BigQuery's conversions differ from DuckDB's. */
export function cast(t: Rewriter, name: string, items: readonly Node[]): string {
  const asIdx = items.findLastIndex((n) => isWord(n, 'AS'));
  if (asIdx < 0) throw new InvalidSqlError(`${name}: expected AS`);
  const [type, end] = parseType(items, asIdx + 1);
  if (end < items.length) {
    if (isWord(items[end], 'FORMAT')) throw new UnsupportedSqlError('CAST ... FORMAT');
  }
  const value = t.expr(items.slice(0, asIdx));
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

/** `ARRAY_AGG(x [IGNORE|RESPECT NULLS] [ORDER BY …] [LIMIT n])`'s arguments. */
export function arrayAgg(t: Rewriter, items: readonly Node[]): string {
  let end = items.length;
  let limit: string | undefined;
  let ignoreNulls = false;
  const limitIdx = items.findIndex((n) => isWord(n, 'LIMIT'));
  if (limitIdx >= 0) {
    limit = t.expr(items.slice(limitIdx + 1));
    end = limitIdx;
  }
  const orderIdx = items.findIndex((n, k) => isWord(n, 'ORDER') && isWord(items[k + 1], 'BY'));
  const nullsIdx = items.findIndex((n, k) => isWord(n, 'IGNORE', 'RESPECT') && isWord(items[k + 1], 'NULLS'));
  let valueEnd = orderIdx >= 0 ? orderIdx : end;
  if (nullsIdx >= 0) {
    ignoreNulls = isWord(items[nullsIdx], 'IGNORE');
    valueEnd = Math.min(valueEnd, nullsIdx);
  }
  const valueNodes = items.slice(0, valueEnd);
  const value = t.expr(valueNodes);
  const order = orderIdx >= 0 ? ` ${t.expr(items.slice(orderIdx, end))}` : '';
  const valueExpr = isWord(valueNodes[0], 'DISTINCT') ? t.expr(valueNodes.slice(1)) : value;
  let out = `array_agg(${value}${order})`;
  if (ignoreNulls) out += ` FILTER (WHERE ${valueExpr} IS NOT NULL)`;
  if (limit !== undefined) out = `list_slice(${out}, 1, ${limit})`;
  return out;
}

/** `STRUCT(a, b AS c, t.d)`'s arguments: each field named as BigQuery names it (`_field_<k>` when unnamed). */
export function struct(t: Rewriter, items: readonly Node[]): string {
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
    named.push(`${quoteIdent(fname)} := ${t.expr(valueNodes)}`);
  }
  return `struct_pack(${named.join(', ')})`;
}
