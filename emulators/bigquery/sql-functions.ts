/**
 * BigQuery functions whose names or semantics differ in DuckDB, one translator each: the
 * translator gets the call's arguments (raw nodes, or translated SQL text) and returns DuckDB
 * SQL. A function not in the table is passed through by name for DuckDB to run or refuse.
 */
import { arrayAgg, cast, extract, formatString, partName, struct, truncate } from './sql-expressions.ts';
import {
  type Group,
  InvalidSqlError,
  type Node,
  normaliseTimestampText,
  type Rewriter,
  splitArgs,
  stringLiteral,
  type Token,
} from './sql-tree.ts';

/** One call being translated. */
export interface Call {
  /** The function's name, upper case. */
  readonly name: string;
  readonly nameTok: Token;
  /** The parenthesised arguments. */
  readonly g: Group;
  readonly t: Rewriter;
  /** The arguments as node lists. */
  raw(): Node[][];
  /** The arguments translated. */
  args(): string[];
  /** One argument translated; a missing one is an InvalidSqlError naming `what`. */
  arg(k: number, what?: string): string;
}

export type FunctionTranslator = (call: Call) => string;

const TRANSLATORS: Readonly<Record<string, FunctionTranslator>> = {
  JSON_VALUE: ({ args }) => {
    const a = args();
    const path = a[1] ?? "'$'";
    return `(CASE WHEN json_type(${a[0]}, ${path}) IN ('OBJECT', 'ARRAY') THEN NULL ELSE (${a[0]}) ->> ${path} END)`;
  },
  JSON_QUERY: ({ args }) => {
    const a = args();
    return `((${a[0]}) -> ${a[1] ?? "'$'"})`;
  },
  JSON_QUERY_ARRAY: ({ args }) => {
    const a = args();
    return `CAST((${a[0]}) -> ${a[1] ?? "'$'"} AS JSON[])`;
  },
  JSON_VALUE_ARRAY: ({ args }) => {
    const a = args();
    return `CAST((${a[0]}) -> ${a[1] ?? "'$'"} AS VARCHAR[])`;
  },
  // RANGE: DuckDB macros over the RANGE struct (range.ts).
  RANGE: ({ arg }) => `bq_range(${arg(0, 'start')}, ${arg(1, 'end')})`,
  RANGE_START: ({ arg }) => `bq_range_start(${arg(0)})`,
  RANGE_END: ({ arg }) => `bq_range_end(${arg(0)})`,
  RANGE_CONTAINS: ({ arg }) => `bq_range_contains(${arg(0)}, ${arg(1)})`,
  RANGE_OVERLAPS: ({ arg }) => `bq_range_overlaps(${arg(0)}, ${arg(1)})`,
  RANGE_INTERSECT: ({ arg }) => `bq_range_intersect(${arg(0)}, ${arg(1)})`,
  // include_last_partial_range defaults to TRUE.
  GENERATE_RANGE_ARRAY: ({ raw, arg }) =>
    `bq_generate_range_array(${arg(0)}, ${arg(1, 'step')}, ${raw()[2] ? arg(2) : 'true'})`,
  // BigQuery's CONCAT is NULL when any argument is (DuckDB's concat() skips NULLs; `||` does not).
  CONCAT: ({ args }) =>
    `(${args()
      .map((a) => `(${a})`)
      .join(' || ')})`,
  TO_JSON_STRING: ({ arg }) => `CAST(to_json(${arg(0)}) AS VARCHAR)`,
  TO_JSON: ({ arg }) => `to_json(${arg(0)})`,
  PARSE_JSON: ({ arg }) => `json(${arg(0)})`,
  TIMESTAMP_TRUNC: ({ raw, name, t }) => {
    const a = raw();
    const value = t.expr(a[0] ?? []);
    const trunc = truncate(value, a[1] ?? [], a[2] ? t.expr(a[2]) : undefined);
    if (name === 'DATE_TRUNC') return `CAST(${trunc} AS DATE)`;
    if (name === 'DATETIME_TRUNC') return `CAST(${trunc} AS TIMESTAMP)`;
    return trunc;
  },
  DATE: ({ args }) => {
    const a = args();
    if (a.length === 3) return `make_date(${a.join(', ')})`;
    if (a.length === 2) return `CAST(timezone(${a[1]}, ${a[0]}) AS DATE)`;
    return `CAST(${a[0]} AS DATE)`;
  },
  DATETIME: ({ args }) => {
    const a = args();
    if (a.length === 2 && /^'/.test(a[1] ?? '')) return `timezone(${a[1]}, ${a[0]})`;
    if (a.length === 2) return `CAST(${a[0]} AS TIMESTAMP) + CAST(${a[1]} AS TIME)`;
    if (a.length === 6) return `make_timestamp(${a.join(', ')})`;
    return `CAST(${a[0]} AS TIMESTAMP)`;
  },
  TIMESTAMP: ({ raw, args }) => {
    const a = args();
    if (a.length === 2) return `timezone(${a[1]}, CAST(${a[0]} AS TIMESTAMP))`;
    const only = raw()[0];
    if (only?.length === 1 && only[0]?.kind === 'string')
      return `CAST(${stringLiteral(normaliseTimestampText(only[0].text))} AS TIMESTAMPTZ)`;
    return `CAST(${a[0]} AS TIMESTAMPTZ)`;
  },
  STRING: ({ args }) => {
    const a = args();
    if (a.length === 2) return `CAST(timezone(${a[1]}, ${a[0]}) AS VARCHAR)`;
    return `CAST(${a[0]} AS VARCHAR)`;
  },
  CURRENT_TIMESTAMP: (_c) => 'current_timestamp',
  CURRENT_DATE: ({ raw, arg }) =>
    raw().length ? `CAST(timezone(${arg(0)}, current_timestamp) AS DATE)` : 'current_date',
  CURRENT_DATETIME: ({ raw, arg }) =>
    raw().length ? `timezone(${arg(0)}, current_timestamp)` : 'CAST(current_timestamp AS TIMESTAMP)',
  CURRENT_TIME: (_c) => 'CAST(current_timestamp AS TIME)',
  TIMESTAMP_ADD: ({ arg }) => `(${arg(0)} + ${arg(1, 'INTERVAL')})`,
  TIMESTAMP_SUB: ({ arg }) => `(${arg(0)} - ${arg(1, 'INTERVAL')})`,
  DATE_ADD: ({ arg }) => `CAST(${arg(0)} + ${arg(1, 'INTERVAL')} AS DATE)`,
  DATE_SUB: ({ arg }) => `CAST(${arg(0)} - ${arg(1, 'INTERVAL')} AS DATE)`,
  TIMESTAMP_DIFF: ({ raw, arg }) => `date_sub(${partName(raw()[2] ?? [])}, ${arg(1)}, ${arg(0)})`,
  DATE_DIFF: ({ raw, arg }) => `date_diff(${partName(raw()[2] ?? [])}, ${arg(1)}, ${arg(0)})`,
  EXTRACT: ({ g, t }) => extract(t, g.items),
  FORMAT_TIMESTAMP: ({ raw, t }) => {
    const a = raw();
    const fmt = formatString(t, a[0] ?? []);
    let value = t.expr(a[1] ?? []);
    if (a[2]) value = `timezone(${t.expr(a[2])}, ${value})`;
    return `strftime(${value}, ${fmt})`;
  },
  PARSE_TIMESTAMP: ({ raw, t }) => {
    const a = raw();
    return `CAST(strptime(${t.expr(a[1] ?? [])}, ${formatString(t, a[0] ?? [])}) AS TIMESTAMPTZ)`;
  },
  PARSE_DATETIME: ({ raw, t }) => {
    const a = raw();
    return `strptime(${t.expr(a[1] ?? [])}, ${formatString(t, a[0] ?? [])})`;
  },
  PARSE_DATE: ({ raw, t }) => {
    const a = raw();
    return `CAST(strptime(${t.expr(a[1] ?? [])}, ${formatString(t, a[0] ?? [])}) AS DATE)`;
  },
  UNIX_SECONDS: ({ arg }) => `CAST(floor(epoch(${arg(0)})) AS BIGINT)`,
  UNIX_MILLIS: ({ arg }) => `epoch_ms(${arg(0)})`,
  UNIX_MICROS: ({ arg }) => `epoch_us(${arg(0)})`,
  UNIX_DATE: ({ arg }) => `(${arg(0)} - DATE '1970-01-01')`,
  TIMESTAMP_SECONDS: ({ arg }) => `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT) * 1000000) AS TIMESTAMPTZ)`,
  TIMESTAMP_MILLIS: ({ arg }) => `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT) * 1000) AS TIMESTAMPTZ)`,
  TIMESTAMP_MICROS: ({ arg }) => `CAST(make_timestamp(CAST(${arg(0)} AS BIGINT)) AS TIMESTAMPTZ)`,
  // count over CASE, not DuckDB's count_if, which gives NULL over no rows where BigQuery gives 0
  // (and stays valid as a window function).
  COUNTIF: ({ g, t }) => `count(CASE WHEN (${t.expr(g.items)}) THEN 1 END)`,
  LOGICAL_AND: ({ g, t }) => `bool_and(${t.expr(g.items)})`,
  LOGICAL_OR: ({ g, t }) => `bool_or(${t.expr(g.items)})`,
  CAST: ({ name, g, t }) => cast(t, name, g.items),
  SAFE_DIVIDE: ({ arg }) => `(CAST(${arg(0)} AS DOUBLE) / NULLIF(${arg(1)}, 0))`,
  SAFE_MULTIPLY: ({ arg }) => `(${arg(0)} * ${arg(1)})`,
  SAFE_ADD: ({ arg }) => `(${arg(0)} + ${arg(1)})`,
  SAFE_SUBTRACT: ({ arg }) => `(${arg(0)} - ${arg(1)})`,
  SAFE_NEGATE: ({ arg }) => `(-${arg(0)})`,
  DIV: ({ arg }) => `(${arg(0)} // ${arg(1)})`,
  IEEE_DIVIDE: ({ arg }) => `(CAST(${arg(0)} AS DOUBLE) / ${arg(1)})`,
  IFNULL: ({ args }) => `coalesce(${args().join(', ')})`,
  ARRAY_AGG: ({ g, t }) => arrayAgg(t, g.items),
  ARRAY_LENGTH: ({ arg }) => `len(${arg(0)})`,
  ARRAY_CONCAT: ({ args }) => `list_concat(${args().join(', ')})`,
  ARRAY_REVERSE: ({ arg }) => `list_reverse(${arg(0)})`,
  // Upper case after a delimiter (BigQuery's default set) and at the start, lower case elsewhere.
  INITCAP: ({ args }) => {
    const [text, delimiters] = args();
    const d = delimiters ?? stringLiteral(' [](){}/|\\<>!?@"^#$&~_,.:;*%+-\t\n\r');
    const agg = `(SELECT string_agg(CASE WHEN __i = 1 OR contains(${d}, substr(__s, __i - 1, 1)) THEN upper(substr(__s, __i, 1)) ELSE lower(substr(__s, __i, 1)) END, '' ORDER BY __i) FROM (SELECT ${text} AS __s), range(1, coalesce(length(${text}), 0) + 1) AS __r(__i))`;
    return `CASE WHEN ${text} IS NULL THEN NULL ELSE coalesce(${agg}, '') END`;
  },
  ARRAY_TO_STRING: ({ args }) => `array_to_string(${args().join(', ')})`,
  GENERATE_ARRAY: ({ args }) => {
    const a = args();
    return `generate_series(${a.join(', ')})`;
  },
  GENERATE_DATE_ARRAY: ({ args }) => {
    const a = args();
    const step = a[2] ?? 'INTERVAL 1 DAY';
    return `list_transform(generate_series(CAST(${a[0]} AS DATE), CAST(${a[1]} AS DATE), ${step}), lambda __d: CAST(__d AS DATE))`;
  },
  GENERATE_TIMESTAMP_ARRAY: ({ args }) => {
    const a = args();
    return `generate_series(${a[0]}, ${a[1]}, ${a[2]})`;
  },
  STRUCT: ({ g, t }) => struct(t, g.items),
  ARRAY: ({ g, t }) => `ARRAY${t.group(g)}`,
  UNNEST: ({ g, t }) => {
    // UNNEST outside FROM (e.g. in a scalar subquery) is DuckDB's too.
    return `unnest(${t.expr(g.items)})`;
  },
  REGEXP_CONTAINS: ({ arg }) => `regexp_matches(${arg(0)}, ${arg(1)})`,
  REGEXP_EXTRACT: ({ raw, arg }) => {
    const a = raw();
    const pattern = a[1] ?? [];
    const groupNo =
      pattern.length === 1 && pattern[0]?.kind === 'string' && /\((?!\?)/.test(pattern[0].text) ? 1 : 0;
    const s = arg(0);
    const p = arg(1);
    return `(CASE WHEN regexp_matches(${s}, ${p}) THEN regexp_extract(${s}, ${p}, ${groupNo}) END)`;
  },
  REGEXP_EXTRACT_ALL: ({ arg }) => `regexp_extract_all(${arg(0)}, ${arg(1)})`,
  REGEXP_REPLACE: ({ arg }) => `regexp_replace(${arg(0)}, ${arg(1)}, ${arg(2)}, 'g')`,
  SPLIT: ({ args }) => {
    const a = args();
    return `string_split(${a[0]}, ${a[1] ?? "','"})`;
  },
  GENERATE_UUID: (_c) => 'CAST(uuid() AS VARCHAR)',
  STARTS_WITH: ({ arg }) => `starts_with(${arg(0)}, ${arg(1)})`,
  ENDS_WITH: ({ arg }) => `suffix(${arg(0)}, ${arg(1)})`,
  BYTE_LENGTH: ({ arg }) => {
    // STRING or BYTES. DuckDB casts only ASCII text to BLOB; strlen counts a string's UTF-8 bytes.
    const x = arg(0);
    return `(CASE WHEN typeof(${x}) = 'BLOB' THEN octet_length(TRY_CAST(${x} AS BLOB)) ELSE strlen(CAST(${x} AS VARCHAR)) END)`;
  },
  CHAR_LENGTH: ({ arg }) => `length(${arg(0)})`,
  FORMAT: ({ args }) => `printf(${args().join(', ')})`,
  TO_BASE64: ({ arg }) => `to_base64(${arg(0)})`,
  FROM_BASE64: ({ arg }) => `from_base64(${arg(0)})`,
  TO_HEX: ({ arg }) => `lower(hex(${arg(0)}))`,
  SHA256: ({ arg }) => `unhex(sha256(${arg(0)}))`,
  MD5: ({ arg }) => `unhex(md5(${arg(0)}))`,
  ANY_VALUE: ({ g, t }) => `any_value(${t.expr(g.items)})`,
  // BigQuery's HyperLogLog++ is exact at dashboard sizes; DuckDB's sketch was visibly off (45 users
  // for 40), so the emulator counts exactly.
  APPROX_COUNT_DISTINCT: ({ g, t }) => `count(DISTINCT ${t.expr(g.items)})`,
  STRING_AGG: ({ g, t }) => `string_agg(${t.expr(g.items)})`,
  // The n most frequent values with their counts, most first (exact here, as BigQuery's answer
  // is at dashboard sizes); n a literal, as in BigQuery.
  APPROX_TOP_COUNT: ({ arg, raw }) => {
    const n = Number((raw()[1]?.[0] as Token | undefined)?.text);
    if (!Number.isInteger(n) || n < 1 || n > 100_000)
      throw new InvalidSqlError('APPROX_TOP_COUNT takes a number of values from 1 to 100000, as a literal');
    return `list_transform(list_slice(list_sort(list_transform(map_entries(histogram(${arg(0)})), e -> {'c': e.value, 'v': e.key}), 'DESC'), 1, ${n}), e -> {'value': e.v, 'count': CAST(e.c AS BIGINT)})`;
  },
  // Analytic in BigQuery (with OVER), aggregates DuckDB also runs over a window.
  PERCENTILE_CONT: ({ arg }) => `quantile_cont(${arg(0)}, ${arg(1)})`,
  PERCENTILE_DISC: ({ arg }) => `quantile_disc(${arg(0)}, ${arg(1)})`,
  // n + 1 boundaries from the minimum to the maximum; exact here, as BigQuery's approximation is
  // at dashboard sizes. The number of quantiles must be a literal, as in BigQuery.
  APPROX_QUANTILES: ({ arg, raw }) => {
    const n = Number((raw()[1]?.[0] as Token | undefined)?.text);
    if (!Number.isInteger(n) || n < 1 || n > 10_000)
      throw new InvalidSqlError('APPROX_QUANTILES takes a number of quantiles from 1 to 10000, as a literal');
    const fractions = Array.from({ length: n + 1 }, (_, i) => String(i / n));
    return `quantile_disc(${arg(0)}, [${fractions.join(', ')}])`;
  },
  LAST_DAY: ({ arg }) => `last_day(${arg(0)})`,
};

/** Other names BigQuery has for the same function (legacy JSON names, the date/time families). */
const ALIASES: Readonly<Record<string, string>> = {
  JSON_EXTRACT_SCALAR: 'JSON_VALUE',
  JSON_EXTRACT: 'JSON_QUERY',
  JSON_EXTRACT_ARRAY: 'JSON_QUERY_ARRAY',
  JSON_EXTRACT_STRING_ARRAY: 'JSON_VALUE_ARRAY',
  DATETIME_TRUNC: 'TIMESTAMP_TRUNC',
  DATE_TRUNC: 'TIMESTAMP_TRUNC',
  TIME_TRUNC: 'TIMESTAMP_TRUNC',
  DATETIME_ADD: 'TIMESTAMP_ADD',
  TIME_ADD: 'TIMESTAMP_ADD',
  DATETIME_SUB: 'TIMESTAMP_SUB',
  TIME_SUB: 'TIMESTAMP_SUB',
  DATETIME_DIFF: 'TIMESTAMP_DIFF',
  TIME_DIFF: 'TIMESTAMP_DIFF',
  FORMAT_DATETIME: 'FORMAT_TIMESTAMP',
  FORMAT_DATE: 'FORMAT_TIMESTAMP',
  FORMAT_TIME: 'FORMAT_TIMESTAMP',
  SAFE_CAST: 'CAST',
  CHARACTER_LENGTH: 'CHAR_LENGTH',
};

/** Function name → translator. */
export const FUNCTIONS: Readonly<Record<string, FunctionTranslator>> = Object.freeze({
  ...TRANSLATORS,
  ...Object.fromEntries(
    Object.entries(ALIASES).map(([alias, name]) => [alias, TRANSLATORS[name] as FunctionTranslator]),
  ),
});

/** Builds the Call for a function call node; `t` translates nested expressions. */
export function callOf(nameTok: Token, g: Group, t: Rewriter): Call {
  const name = nameTok.text.toUpperCase();
  const raw = () => splitArgs(g.items);
  return {
    name,
    nameTok,
    g,
    t,
    raw,
    args: () => raw().map((a) => t.expr(a)),
    arg: (k, what = 'argument') => {
      const a = raw()[k];
      if (a === undefined) throw new InvalidSqlError(`${name}: missing ${what}`);
      return t.expr(a);
    },
  };
}
