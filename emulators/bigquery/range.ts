/**
 * BigQuery's RANGE type (RANGE<DATE>, RANGE<DATETIME>, RANGE<TIMESTAMP>) on DuckDB, which has no
 * such type: a RANGE is stored and computed as `STRUCT("__range_start" T, "__range_end" T)`, a NULL
 * bound being unbounded. The two field names are what marks such a struct as a RANGE when a
 * result's schema is built (`rangeElementOf`), so they are unlikely on purpose.
 *
 * Here: the struct type, the parsing of BigQuery's range text (`[start, end)`, `UNBOUNDED` or
 * `NULL` for an open bound) shared by literals, query parameters and insertAll, and the DuckDB
 * macros behind RANGE(…), RANGE_START, RANGE_END, RANGE_CONTAINS, RANGE_OVERLAPS,
 * RANGE_INTERSECT, GENERATE_RANGE_ARRAY and the casts between RANGE and STRING: typed overloads,
 * one per element type, since RANGE_CONTAINS takes a RANGE or a value as its second argument and
 * only the argument's type tells which. They are temporary macros of the emulator's one
 * connection (store.ts creates them at open), so the database file keeps only data, and a view
 * that uses them binds again after a restart.
 */
import { type DuckDBStructType, type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';

export const RANGE_START = '__range_start';
export const RANGE_END = '__range_end';

/** The element types a RANGE may have, and the DuckDB type of each. */
export const RANGE_ELEMENT_DUCK: Readonly<Record<string, string>> = {
  DATE: 'DATE',
  DATETIME: 'TIMESTAMP',
  TIMESTAMP: 'TIMESTAMPTZ',
};

/** The DuckDB type of a RANGE whose elements have DuckDB type `element`. */
export function rangeDuckType(element: string): string {
  return `STRUCT("${RANGE_START}" ${element}, "${RANGE_END}" ${element})`;
}

/** The BigQuery element type of a DuckDB type that is a RANGE struct; undefined for anything else. */
export function rangeElementOf(t: DuckDBType): string | undefined {
  if (t.typeId !== DuckDBTypeId.STRUCT) return undefined;
  const st = t as DuckDBStructType;
  if (st.entryNames.length !== 2 || st.entryNames[0] !== RANGE_START || st.entryNames[1] !== RANGE_END)
    return undefined;
  switch (st.entryTypes[0]?.typeId) {
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIMESTAMP:
      return 'DATETIME';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'TIMESTAMP';
    default:
      return undefined;
  }
}

/**
 * `[start, end)` as BigQuery writes a RANGE (literals, the REST form of values): each bound's text,
 * undefined where it is `UNBOUNDED` (or `NULL`, which the clients also send); undefined for text
 * that is not a range. Only a closed start and an open end are a RANGE.
 */
export function parseRangeText(text: string): { start?: string; end?: string } | undefined {
  const m = /^\s*\[([^,]*),([^,]*)\)\s*$/.exec(text);
  if (!m) return undefined;
  const bound = (s: string) => {
    const t = s.trim();
    return /^(UNBOUNDED|NULL)$/i.test(t) ? undefined : t;
  };
  const start = bound(m[1] as string);
  const end = bound(m[2] as string);
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}

/** The element's DuckDB type when `duckType` (as parseType gives it) is a RANGE; else undefined. */
export function rangeElementOfDuckType(duckType: string): string | undefined {
  return Object.values(RANGE_ELEMENT_DUCK).find((el) => rangeDuckType(el) === duckType);
}

/** The macro behind CAST(x AS RANGE<T>) (or SAFE_CAST) for an element of DuckDB type `element`. */
export function rangeCastMacro(element: string, safe: boolean): string {
  return `bq_${safe ? 'safe_' : ''}cast_range_${element.toLowerCase()}`;
}

/**
 * The macros of `rangeCastMacro`: a RANGE stays itself; text is read as BigQuery writes a RANGE
 * (`[start, end)`, UNBOUNDED or NULL for an open bound), other text being an error (NULL when
 * safe).
 */
function rangeCastMacros(): string[] {
  return Object.values(RANGE_ELEMENT_DUCK).flatMap((el) =>
    [false, true].map((safe) => {
      const fn = safe ? 'TRY_CAST' : 'CAST';
      const shape = `'^\\s*\\[([^,]*),([^,]*)\\)\\s*$'`;
      const bound = (k: number) =>
        `${fn}(nullif(nullif(upper(trim(regexp_extract(x, ${shape}, ${k}))), 'UNBOUNDED'), 'NULL') AS ${el})`;
      const bad = safe ? 'NULL' : `error('Invalid RANGE value: ' || x)`;
      const parse = `CASE WHEN x IS NULL THEN NULL WHEN NOT regexp_full_match(x, ${shape}) THEN ${bad} ELSE bq_range(${bound(1)}, ${bound(2)}) END`;
      return `CREATE OR REPLACE TEMP MACRO ${rangeCastMacro(el, safe)}(x ${rangeDuckType(el)}) AS x, (x VARCHAR) AS ${parse}`;
    }),
  );
}

/** The error BigQuery gives when a RANGE's start is not before its end. */
export const RANGE_ORDER_MESSAGE = 'RANGE start must be less than end';

/**
 * DuckDB macros for the RANGE functions, one overload per element type (and per kind of
 * argument for RANGE_CONTAINS), created as temporary macros on each connection.
 */
export function rangeMacros(): string[] {
  // In `params` and `body`, $R is the RANGE type, $T its element type, $X the timestamp type a
  // DATE is stepped through (DuckDB's range() has no DATE form).
  const one = (params: string[], body: string) =>
    Object.values(RANGE_ELEMENT_DUCK)
      .map((el) => {
        const typed = (text: string) =>
          text
            .replaceAll('$R', rangeDuckType(el))
            .replaceAll('$T', el)
            .replaceAll('$X', el === 'TIMESTAMPTZ' ? el : 'TIMESTAMP');
        return `(${params.map(typed).join(', ')}) AS ${typed(body)}`;
      })
      .join(', ');
  const s = (r: string) => `${r}."${RANGE_START}"`;
  const e = (r: string) => `${r}."${RANGE_END}"`;
  const pack = (start: string, end: string) =>
    `struct_pack("${RANGE_START}" := ${start}, "${RANGE_END}" := ${end})`;
  // A NULL bound is unbounded: it never limits, so a comparison with it holds.
  const before = (a: string, b: string) => `(${a} IS NULL OR ${b} IS NULL OR ${a} < ${b})`;
  const overlaps = `(a IS NULL OR b IS NULL) THEN NULL ELSE ${before(s('a'), e('b'))} AND ${before(s('b'), e('a'))}`;
  return [
    `CREATE OR REPLACE TEMP MACRO bq_range ${one(['lo $T', 'hi $T'], `CASE WHEN lo >= hi THEN error('${RANGE_ORDER_MESSAGE}') ELSE ${pack('lo', 'hi')} END`)}`,
    `CREATE OR REPLACE TEMP MACRO bq_range_start(r) AS ${s('r')}`,
    `CREATE OR REPLACE TEMP MACRO bq_range_end(r) AS ${e('r')}`,
    `CREATE OR REPLACE TEMP MACRO bq_range_contains ${one(['r $R', 'x $R'], `CASE WHEN r IS NULL OR x IS NULL THEN NULL ELSE (${s('r')} IS NULL OR (${s('x')} IS NOT NULL AND ${s('r')} <= ${s('x')})) AND (${e('r')} IS NULL OR (${e('x')} IS NOT NULL AND ${e('x')} <= ${e('r')})) END`)}, ${one(['r $R', 'x $T'], `CASE WHEN r IS NULL OR x IS NULL THEN NULL ELSE (${s('r')} IS NULL OR ${s('r')} <= x) AND (${e('r')} IS NULL OR x < ${e('r')}) END`)}`,
    `CREATE OR REPLACE TEMP MACRO bq_range_overlaps ${one(['a $R', 'b $R'], `CASE WHEN ${overlaps} END`)}`,
    // greatest/least skip NULLs, so an unbounded side gives way to the other's bound.
    `CREATE OR REPLACE TEMP MACRO bq_range_intersect ${one(['a $R', 'b $R'], `CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN NOT (${before(s('a'), e('b'))} AND ${before(s('b'), e('a'))}) THEN error('Provided RANGE inputs do not overlap. Please check RANGE_OVERLAPS before calling RANGE_INTERSECT') ELSE ${pack(`greatest(${s('a')}, ${s('b')})`, `least(${e('a')}, ${e('b')})`)} END`)}`,
    // CAST(x AS STRING) and SAFE_CAST: a RANGE as BigQuery writes it (each bound as its type's
    // STRING cast, UNBOUNDED for an open one); anything else as DuckDB casts it. Not typed
    // overloads, which an untyped NULL would match all of: DuckDB folds the constant typeof test,
    // so other types keep a plain cast.
    ...[
      ['bq_cast_string', 'CAST'],
      ['bq_safe_cast_string', 'TRY_CAST'],
    ].map(([name, fn]) => {
      const bound = (field: string) => `coalesce(json_extract_string(to_json(x), '$.${field}'), 'UNBOUNDED')`;
      return `CREATE OR REPLACE TEMP MACRO ${name}(x) AS CASE WHEN typeof(x) LIKE 'STRUCT(${RANGE_START} %' THEN (CASE WHEN x IS NULL THEN NULL ELSE '[' || ${bound(RANGE_START)} || ', ' || ${bound(RANGE_END)} || ')' END) ELSE ${fn}(x AS VARCHAR) END`;
    }),
    ...rangeCastMacros(),
    // The range cut into steps, the last one shorter unless `partial` is false (then left out).
    `CREATE OR REPLACE TEMP MACRO bq_generate_range_array ${one(['r $R', 'step INTERVAL', 'partial BOOLEAN'], `CASE WHEN r IS NULL THEN NULL WHEN ${s('r')} IS NULL OR ${e('r')} IS NULL THEN error('GENERATE_RANGE_ARRAY: the range must not be unbounded') ELSE list_transform(list_filter(range(CAST(${s('r')} AS $X), CAST(${e('r')} AS $X), step), lambda x: partial OR x + step <= CAST(${e('r')} AS $X)), lambda x: ${pack('CAST(x AS $T)', `CAST(least(x + step, CAST(${e('r')} AS $X)) AS $T)`)}) END`)}`,
  ];
}
