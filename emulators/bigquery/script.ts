/**
 * Multi-statement queries (BigQuery scripts) in the emulator: statements split at top-level
 * semicolons and run one after the other on the emulator's one DuckDB connection.
 * - `DECLARE a, b TYPE [DEFAULT expr]` and `SET a = expr` keep values in DuckDB variables
 *   (`SET VARIABLE`), read back where a later statement names the variable (as a query parameter
 *   whose text is `getvariable('…')`, so the translator places it like any other value);
 * - `CREATE TEMP FUNCTION f(x TYPE, …) [RETURNS TYPE] AS (expr)` (SQL UDFs) become DuckDB
 *   temporary macros for the script, dropped when it ends;
 * - `CREATE [OR REPLACE] TEMP TABLE t AS <query>` makes a DuckDB temporary table that later
 *   statements of the script read by its bare name (`FROM t`, `MERGE … USING t`), dropped when the
 *   script ends, as BigQuery drops a script's temporary tables;
 * - `BEGIN … END` blocks run their statements; `BEGIN TRANSACTION` / `COMMIT` are accepted.
 * The script's result is its last statement's, with statementType SCRIPT, as BigQuery answers.
 * Control flow (IF, LOOP, WHILE, FOR, CALL, EXECUTE IMMEDIATE, RAISE, exception handlers) and
 * JavaScript UDFs are refused as unsupported in the emulator.
 */
import { ApiError } from './errors.ts';
import { buildTree, parseType, tokenize } from './sql-tree.ts';

/** Whitespace and comments before the first word. */
const LEADING = /^(?:\s+|--[^\n]*(?:\n|$)|#[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

/** The statements of a query, split at semicolons outside strings, quoted names and comments. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let depth = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      i = sql.indexOf('\n', i);
      if (i < 0) i = n;
      continue;
    }
    if (c === '#') {
      i = sql.indexOf('\n', i);
      if (i < 0) i = n;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      // Triple-quoted strings too; a backslash escapes the next character (not in names).
      const triple = c !== '`' && sql.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      i += close.length;
      while (i < n && !sql.startsWith(close, i)) i += sql[i] === '\\' && c !== '`' ? 2 : 1;
      i += close.length;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ';' && depth === 0) {
      out.push(sql.slice(start, i));
      start = i + 1;
    }
    i++;
  }
  out.push(sql.slice(start));
  return out.map((s) => s.replace(LEADING, '').trim()).filter((s) => s !== '');
}

const SCRIPT_HEAD =
  /^(DECLARE|SET|BEGIN|CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+(?:FUNCTION|TABLE))\b/i;

/** True when the query is a script: several statements, or one that only a script has. */
export function isScript(statements: readonly string[]): boolean {
  return statements.length > 1 || (statements[0] !== undefined && SCRIPT_HEAD.test(statements[0]));
}

const UNSUPPORTED =
  /^(IF|ELSEIF|ELSE|WHILE|LOOP|REPEAT|FOR|CALL|EXECUTE\s+IMMEDIATE|RAISE|RETURN|BREAK|CONTINUE|LEAVE|ITERATE|CASE\s+WHEN|EXCEPTION|ASSERT)\b/i;

/** One step of a script, parsed. */
export type ScriptStep =
  | { readonly kind: 'skip' }
  | {
      readonly kind: 'declare';
      readonly names: readonly string[];
      readonly type?: string;
      readonly value?: string;
    }
  | { readonly kind: 'set'; readonly name: string; readonly value: string }
  | {
      readonly kind: 'function';
      readonly name: string;
      /** Each parameter with its BigQuery type (undefined: ANY TYPE). */
      readonly params: readonly { readonly name: string; readonly type?: string }[];
      readonly returns?: string;
      readonly body: string;
    }
  | { readonly kind: 'temp_table'; readonly name: string; readonly replace: boolean; readonly query: string }
  | { readonly kind: 'statement'; readonly sql: string };

const unsupported = (what: string) =>
  new ApiError('invalidQuery', `Unsupported in the BigQuery emulator: ${what} in scripts`);

/** The index of a top-level keyword (outside parentheses and angle brackets), or -1. */
function topLevel(text: string, word: RegExp): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '<') depth++;
    else if (c === ')' || c === '>') depth--;
    else if (depth === 0 && /\s/.test(c as string)) {
      const m = word.exec(text.slice(i + 1));
      if (m && m.index === 0) return i + 1;
    }
  }
  return -1;
}

/** Parses one statement of a script. */
export function parseStep(statement: string): ScriptStep {
  let s = statement.trim();
  if (/^(BEGIN(\s+TRANSACTION)?|END|COMMIT(\s+TRANSACTION)?)$/i.test(s)) return { kind: 'skip' };
  // `BEGIN <statement>` (the first statement of a block) runs the statement.
  const begin = /^BEGIN\s+(?!TRANSACTION\b)/i.exec(s);
  if (begin) s = s.slice(begin[0].length).trim();
  const bad = UNSUPPORTED.exec(s);
  if (bad) throw unsupported((bad[1] as string).toUpperCase());
  const declare = /^DECLARE\s+([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*([\s\S]*)$/i.exec(s);
  if (declare) {
    const names = (declare[1] as string).split(',').map((x) => x.trim().toLowerCase());
    const rest = (declare[2] as string).trim();
    const at = /^DEFAULT\b/i.test(rest) ? 0 : topLevel(rest, /^DEFAULT\b/i);
    const type = (at < 0 ? rest : rest.slice(0, at)).trim();
    const value = at < 0 ? undefined : rest.slice(at + 'DEFAULT'.length).trim();
    if (!type && value === undefined) throw new ApiError('invalidQuery', 'DECLARE needs a type or a DEFAULT');
    return { kind: 'declare', names, ...(type ? { type } : {}), ...(value !== undefined ? { value } : {}) };
  }
  const set = /^SET\s+([A-Za-z_][\w]*)\s*=\s*([\s\S]+)$/i.exec(s);
  if (set) return { kind: 'set', name: (set[1] as string).toLowerCase(), value: (set[2] as string).trim() };
  if (/^SET\s*\(/i.test(s)) throw unsupported('SET of several variables at once');
  const table =
    /^CREATE\s+(OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+TABLE\s+([A-Za-z_][\w]*)\s+AS\s+([\s\S]+)$/i.exec(s);
  if (table)
    return {
      kind: 'temp_table',
      name: (table[2] as string).toLowerCase(),
      replace: table[1] !== undefined,
      query: table[3] as string,
    };
  if (/^CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+TABLE\b/i.test(s))
    throw unsupported('CREATE TEMP TABLE without AS <query> (give the rows as a query)');
  const fn =
    /^CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+FUNCTION\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][\w]*)\s*\(([\s\S]*?)\)\s*(?:RETURNS\s+([\s\S]+?)\s+)?(LANGUAGE\s+\w+\s+)?AS\s*\(([\s\S]*)\)\s*$/i.exec(
      s,
    );
  if (/^CREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+FUNCTION\b/i.test(s)) {
    if (!fn) {
      if (/\bLANGUAGE\b/i.test(s)) throw unsupported('JavaScript functions');
      throw new ApiError(
        'invalidQuery',
        'CREATE TEMP FUNCTION needs name(params) [RETURNS type] AS (expression)',
      );
    }
    if (fn[4]) throw unsupported('JavaScript functions');
    const params = (fn[2] as string)
      .split(/,(?![^<]*>)/)
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => {
        const m = /^([A-Za-z_][\w]*)\s+([\s\S]+)$/.exec(p);
        if (!m) throw new ApiError('invalidQuery', `A function parameter needs a name and a type: ${p}`);
        const type = (m[2] as string).trim();
        return { name: (m[1] as string).toLowerCase(), ...(/^ANY\s+TYPE$/i.test(type) ? {} : { type }) };
      });
    return {
      kind: 'function',
      name: (fn[1] as string).toLowerCase(),
      params,
      ...(fn[3] ? { returns: (fn[3] as string).trim() } : {}),
      body: fn[5] as string,
    };
  }
  return { kind: 'statement', sql: s };
}

/**
 * Replaces bare references to the script's variables (not qualified, not called, outside strings
 * and quoted names) with `@name` parameters, which `named` renders as the variable's value.
 */
export function bindVariables(sql: string, variables: ReadonlySet<string>): string {
  if (variables.size === 0) return sql;
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    if (c === "'" || c === '"' || c === '`') {
      const triple = c !== '`' && sql.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      let j = i + close.length;
      while (j < n && !sql.startsWith(close, j)) j += sql[j] === '\\' && c !== '`' ? 2 : 1;
      j += close.length;
      out += sql.slice(i, j);
      i = j;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i);
      out += sql.slice(i, j < 0 ? n : j);
      i = j < 0 ? n : j;
      continue;
    }
    if (/[A-Za-z_@]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w]/.test(sql[j] as string)) j++;
      const word = sql.slice(i, j);
      const head = sql.slice(0, i).trimEnd();
      const before = head.at(-1);
      const after = sql.slice(j).trimStart()[0];
      // Not a name being given (`AS n`), a field (`t.n`, `n.x`) or a call (`n(`).
      const alias = /(^|[^\w])AS$/i.test(head);
      const bare = !word.startsWith('@') && !alias && before !== '.' && after !== '.' && after !== '(';
      out += bare && variables.has(word.toLowerCase()) ? `@${word.toLowerCase()}` : word;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** What a script needs of the emulator: one statement run, an expression translated, raw DuckDB. */
export interface ScriptDeps<R> {
  /** Runs one BigQuery statement with extra named parameters (the variables); its result. */
  run(sql: string, named: Readonly<Record<string, string>>, temp: ReadonlyMap<string, string>): Promise<R>;
  /** Creates DuckDB temporary table `duckName` from a BigQuery query (checked as a statement is). */
  createTemp(
    duckName: string,
    query: string,
    named: Readonly<Record<string, string>>,
    temp: ReadonlyMap<string, string>,
  ): Promise<void>;
  /** Translates `SELECT …` (BigQuery, with the variables as parameters) to DuckDB SQL. */
  translate(sql: string, named: Readonly<Record<string, string>>): string;
  /** Runs DuckDB SQL as it is (variables, macros). */
  raw(sql: string): Promise<void>;
  /** The result of a script whose statements returned nothing. */
  readonly empty: R;
}

let scripts = 0;

/** Runs a script's statements in order; the last statement's result. */
export async function runScript<R>(statements: readonly string[], deps: ScriptDeps<R>): Promise<R> {
  const id = `__bqs${++scripts}_`;
  const variables = new Map<string, { duck: string; type?: string }>();
  const macros: string[] = [];
  const temp = new Map<string, string>();
  const named = (): Record<string, string> =>
    Object.fromEntries([...variables].map(([name, v]) => [name, `getvariable('${v.duck}')`]));
  const bound = (sql: string) => bindVariables(sql, new Set(variables.keys()));
  const value = (expr: string | undefined, type: string | undefined): string => {
    const inner = expr === undefined ? 'NULL' : `(${bound(expr)})`;
    return deps.translate(`SELECT ${type ? `CAST(${inner} AS ${type})` : inner}`, named());
  };
  let last = deps.empty;
  try {
    for (const statement of statements) {
      const step = parseStep(statement);
      if (step.kind === 'skip') continue;
      if (step.kind === 'declare') {
        for (const name of step.names) {
          if (variables.has(name)) throw new ApiError('invalidQuery', `Variable ${name} is already declared`);
          const duck = `${id}${name}`;
          await deps.raw(`SET VARIABLE ${duck} = (${value(step.value, step.type)})`);
          variables.set(name, { duck, ...(step.type ? { type: step.type } : {}) });
        }
        continue;
      }
      if (step.kind === 'set') {
        const v = variables.get(step.name);
        if (!v) throw new ApiError('invalidQuery', `Unrecognized variable ${step.name}: DECLARE it first`);
        await deps.raw(`SET VARIABLE ${v.duck} = (${value(step.value, v.type)})`);
        continue;
      }
      if (step.kind === 'function') {
        // Typed parameters are read as their type (a FLOAT64 stays a double in `x * 1.2`), and
        // the result is cast to RETURNS, as BigQuery coerces them.
        const args = Object.fromEntries(
          step.params.map((p) => [
            p.name,
            p.type ? `CAST("${p.name}" AS ${duckType(p.type)})` : `"${p.name}"`,
          ]),
        );
        const inner = bindVariables(bound(step.body), new Set(Object.keys(args)));
        const expr = step.returns ? `CAST((${inner}) AS ${step.returns})` : `(${inner})`;
        const body = deps
          .translate(`SELECT ${expr}`, { ...named(), ...args })
          .replace(/^\s*SELECT\s+/i, '')
          .replace(/\s+AS\s+"[^"]*"\s*$/i, '');
        await deps.raw(
          `CREATE OR REPLACE TEMP MACRO ${step.name}(${step.params.map((p) => `"${p.name}"`).join(', ')}) AS (${body})`,
        );
        macros.push(step.name);
        continue;
      }
      if (step.kind === 'temp_table') {
        if (temp.has(step.name) && !step.replace)
          throw new ApiError('invalidQuery', `Already Exists: Table ${step.name}`);
        const duck = `temp.main."${id}${step.name}"`;
        await deps.createTemp(duck, bound(step.query), named(), temp);
        temp.set(step.name, duck);
        continue;
      }
      last = await deps.run(bound(step.sql), named(), temp);
    }
    return last;
  } finally {
    for (const v of variables.values()) await deps.raw(`RESET VARIABLE ${v.duck}`).catch(() => undefined);
    for (const m of macros) await deps.raw(`DROP MACRO IF EXISTS ${m}`).catch(() => undefined);
    for (const t of temp.values()) await deps.raw(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
  }
}

/**
 * DuckDB's name of a BigQuery type, by the translator's own type table (a cast of text to INT64
 * is a checked expression, not a type name, so it cannot be read off a translated CAST).
 */
function duckType(type: string): string {
  const nodes = buildTree(tokenize(type));
  const [duck, end] = parseType(nodes, 0);
  if (end < nodes.length)
    throw new ApiError('invalidQuery', `Unsupported in the BigQuery emulator: parameter type ${type}`);
  return duck;
}
