/**
 * Which tables the console's SQL (`/sql`, `eventbus sql`) may read: those of the environment's
 * own datasets (the plan's and the ops dataset) in its project, nothing else (issue #61). Two
 * checks, both the application's own, since in the cloud the account running the query may be
 * able to read elsewhere through grants this product does not control:
 * - the tables and routines a dry run says the query references (`referencedTables`,
 *   `referencedRoutines`), each in one of the datasets;
 * - the query's text for `INFORMATION_SCHEMA`, which a dry run does not list among the tables
 *   (neither does the emulator): only `<dataset>.INFORMATION_SCHEMA.<view>` or
 *   `<project>.<dataset>.INFORMATION_SCHEMA.<view>` of an own dataset. A region's
 *   (`region-eu.INFORMATION_SCHEMA.JOBS`, every job's query text), another dataset's or
 *   project's, and an unqualified one (which BigQuery may resolve outside the default dataset)
 *   are refused.
 */

/** The environment a console query may read: its project and its own datasets. */
export interface SqlScope {
  readonly project: string;
  readonly datasets: readonly string[];
}

/** A table or routine as a dry run names it (BigQuery's TableReference / RoutineReference). */
export interface ReferencedName {
  readonly projectId?: string;
  readonly datasetId?: string;
  readonly tableId?: string;
  readonly routineId?: string;
}

/** The first `INFORMATION_SCHEMA` a query's text reads outside the scope, as why it may not run; else undefined. */
export function informationSchemaOutside(sql: string, scope: SqlScope): string | undefined {
  for (const path of informationSchemaPaths(sql)) {
    const at = path.findIndex((part) => part.toUpperCase() === 'INFORMATION_SCHEMA');
    const qualifier = path.slice(0, at);
    if (ownQualifier(qualifier, scope)) continue;
    const name = path.join('.');
    return qualifier.length === 0
      ? `${outside(name, scope)} (name the dataset: ${scope.datasets[0]}.${name})`
      : outside(name, scope);
  }
  return undefined;
}

/** The first table or routine a dry run names outside the scope, as why the query may not run; else undefined. */
export function referenceOutside(referenced: readonly ReferencedName[], scope: SqlScope): string | undefined {
  const foreign = referenced.find(
    (r) => r.projectId !== scope.project || !scope.datasets.includes(r.datasetId ?? ''),
  );
  if (!foreign) return undefined;
  const parts = [foreign.projectId, foreign.datasetId, foreign.tableId ?? foreign.routineId];
  return outside(parts.filter((p) => p !== undefined).join('.'), scope);
}

function outside(name: string, scope: SqlScope): string {
  const own = scope.datasets.map((d) => `${scope.project}.${d}`).join(' and ');
  return `reads ${name}, outside this environment: a query here reads only ${own}`;
}

/** `[dataset]` or `[project, dataset]` of the scope (project ids are lower case in BigQuery). */
function ownQualifier(q: readonly string[], scope: SqlScope): boolean {
  if (q.length === 1) return scope.datasets.includes(q[0] as string);
  if (q.length === 2) return q[0]?.toLowerCase() === scope.project && scope.datasets.includes(q[1] as string);
  return false;
}

/**
 * The dotted paths of a query's text that name `INFORMATION_SCHEMA` (in any case), each as its
 * parts from the first to the view: `otherds.INFORMATION_SCHEMA.TABLES` → `['otherds',
 * 'INFORMATION_SCHEMA', 'TABLES']`. String literals and comments are skipped as GoogleSQL
 * reads them; a quoted identifier counts with its escapes decoded and split at its dots
 * (`` `region-eu.INFORMATION_SCHEMA.JOBS` ``); an unquoted part may hold dashes (`region-eu`,
 * `my-project`), and parts may be separated by spaces or comments.
 */
export function informationSchemaPaths(sql: string): string[][] {
  const paths: string[][] = [];
  let path: string[] | undefined;
  let afterDot = false;
  const close = () => {
    if (path?.some((p) => p.toUpperCase() === 'INFORMATION_SCHEMA')) paths.push(path);
    path = undefined;
    afterDot = false;
  };
  const part = (parts: readonly string[]) => {
    if (path && afterDot) path.push(...parts);
    else {
      close();
      path = [...parts];
    }
    afterDot = false;
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#' || (c === '-' && next === '-')) {
      i = lineEnd(sql, i);
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"') {
      close();
      i = stringEnd(sql, i);
    } else if (c === '`') {
      const end = stringEnd(sql, i);
      part(decodeEscapes(sql.slice(i + 1, end - 1)).split('.'));
      i = end;
    } else if (/[A-Za-z0-9_]/.test(c)) {
      const m = /^[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*/.exec(sql.slice(i)) as RegExpExecArray;
      const word = m[0];
      i += word.length;
      // r'…', b"…", rb'''…''': the prefix of a string literal, not a name.
      if (/^(r|b|rb|br)$/i.test(word) && (sql[i] === "'" || sql[i] === '"')) continue;
      part([word]);
    } else if (c === '.') {
      // A dot after something not a name (`(…).x`) starts a path with nothing before it.
      path ??= [];
      afterDot = true;
      i++;
    } else {
      close();
      i++;
    }
  }
  close();
  return paths;
}

function lineEnd(sql: string, from: number): number {
  const end = sql.indexOf('\n', from);
  return end < 0 ? sql.length : end + 1;
}

/**
 * Where the quoted text opening at `from` ends (just past its closing quote): '…', "…", '''…''',
 * """…""" or `…`; a backslash always takes the next character with it (raw strings too: a raw
 * string cannot end in an odd number of backslashes). An unclosed one runs to the end.
 */
function stringEnd(sql: string, from: number): number {
  const q = sql[from] as string;
  const triple = q !== '`' && sql.startsWith(q.repeat(3), from);
  const close = triple ? q.repeat(3) : q;
  let i = from + close.length;
  while (i < sql.length) {
    if (sql[i] === '\\') i += 2;
    else if (sql.startsWith(close, i)) return i + close.length;
    else i++;
  }
  return sql.length;
}

/** A quoted identifier's escapes decoded (GoogleSQL's: \n, \xhh, \uhhhh, \Uhhhhhhhh, \ooo, \c). */
function decodeEscapes(text: string): string {
  const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  return text.replace(
    /\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|([0-7]{3})|([\s\S]))/g,
    (_, x, u, U, o, c: string | undefined) => {
      const code = x ?? u ?? U;
      if (code) return String.fromCodePoint(Number.parseInt(code, 16));
      if (o) return String.fromCodePoint(Number.parseInt(o, 8));
      return simple[c as string] ?? (c as string);
    },
  );
}
