/**
 * insertAll rows as JSON text for DuckDB's own JSON reader: the fast ingestion path.
 *
 * Building DuckDB values in JavaScript and appending them costs the event loop about
 * 20 µs per event row (value objects, one native call per string, then a synchronous
 * flush that also waits for the fsync). Instead, rows that are plainly valid are written
 * as one JSON array (one native JSON.stringify per request) and inserted by a single
 * asynchronous statement that parses it in C++ (`from_json`) on DuckDB's thread, so the
 * event loop reads the next requests meanwhile.
 *
 * A row goes this way only when the values it stores are exactly those the compiled
 * converter (insert-rows.ts) would append: `prepareRowText` accepts a strict subset of rows,
 * and anything else (unknown fields, loose types, other timestamp forms, types without a
 * text form) takes the appender path, which also reports every error.
 */
import { duckType, type FieldSchema, isPicoTimestamp } from './schema.ts';
import { quoteIdent, stringLiteral } from './sql.ts';
import { isCanonicalTimestamp } from './time-text.ts';

/**
 * Checks one value and, where its JSON text would not read back as the stored value,
 * replaces it in `parent` by one that does (a replacement the converter maps to the same
 * value, so a row prepared and then converted after all stores the same). False: the row
 * must be converted instead.
 */
type Preparer = (parent: Record<string, unknown>, name: string, v: unknown) => boolean;

function scalarPreparer(f: FieldSchema): Preparer | undefined {
  // A picosecond timestamp is stored as the text the converter makes of it.
  if (isPicoTimestamp(f)) return undefined;
  switch (f.type) {
    case 'STRING':
    case 'GEOGRAPHY':
      return (parent, name, v) => {
        // DuckDB's reader refuses lone surrogates; the appender path decides what they become.
        if (typeof v === 'string') return v.isWellFormed();
        // A boolean for a STRING column is refused (the converter says why).
        if (typeof v !== 'number') return false;
        put(parent, name, String(v));
        return true;
      };
    case 'INTEGER':
      return (_p, _n, v) => typeof v === 'number' && Number.isSafeInteger(v);
    case 'FLOAT':
      // JSON.stringify writes the shortest text that reads back as the same double, but
      // writes -0 as 0 and infinities (JSON.parse reads 1e400 as one) as null.
      return (_p, _n, v) => typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0);
    case 'BOOLEAN':
      return (_p, _n, v) => typeof v === 'boolean';
    case 'TIMESTAMP':
      // Only the canonical form, which DuckDB reads to the same microseconds (fraction truncated).
      return (_p, _n, v) => typeof v === 'string' && isCanonicalTimestamp(v);
    case 'JSON':
      // Stored as the converter stores it: a string as given (once it parses), anything
      // else re-serialised; the row then holds that text as a JSON string.
      return (parent, name, v) => {
        if (typeof v !== 'string') {
          // JSON.stringify escapes lone surrogates, so its output always reads back.
          put(parent, name, JSON.stringify(v));
          return true;
        }
        if (!v.isWellFormed()) return false;
        try {
          JSON.parse(v);
        } catch {
          return false;
        }
        return true;
      };
    case 'RECORD': {
      const rec = recordPreparer(f.fields ?? []);
      return (_p, _n, v) => rec(v);
    }
    default:
      // NUMERIC, BYTES, DATE, TIME, DATETIME: no text form here; only their absence is written.
      return undefined;
  }
}

/**
 * Replaces a value in place as an own property: plain assignment to a field named `__proto__`
 * would run Object.prototype's setter (changing the row's prototype, or nothing) instead.
 */
function put(parent: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(parent, name, { value, enumerable: true, writable: true, configurable: true });
  else parent[name] = value;
}

function fieldPreparer(f: FieldSchema): Preparer {
  const one = scalarPreparer(f);
  if (f.mode === 'REPEATED') {
    // Items are checked (and replaced) in place: the array is their parent.
    return (parent, name, v) => {
      if (v === undefined || v === null) {
        // The converter stores an empty array; DuckDB would read a missing list as NULL.
        put(parent, name, []);
        return true;
      }
      if (!one || !Array.isArray(v)) return false;
      const items = v as unknown[] & Record<string, unknown>;
      for (let i = 0; i < items.length; i++) {
        const item: unknown = items[i];
        if (item === null || item === undefined || !one(items, String(i), item)) return false;
      }
      return true;
    };
  }
  const required = f.mode === 'REQUIRED';
  return (parent, name, v) => {
    if (v === undefined || v === null) return !required;
    return one ? one(parent, name, v) : false;
  };
}

function recordPreparer(fields: readonly FieldSchema[]): (v: unknown) => boolean {
  const names = fields.map((f) => f.name);
  const exact = new Set(names);
  const preparers = fields.map(fieldPreparer);
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const input = v as Record<string, unknown>;
    for (const k in input) if (!exact.has(k)) return false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      if (!(preparers[i] as Preparer)(input, name, Object.hasOwn(input, name) ? input[name] : undefined))
        return false;
    }
    return true;
  };
}

const compiledRows = new WeakMap<readonly FieldSchema[], (v: unknown) => boolean>();

/**
 * Prepares one insertAll row (its `json` member) for `JSON.stringify` and
 * `rowTextInsertSql`, in place; false when the row must be converted and appended instead
 * (see the module comment). A prepared row still converts to the same values.
 */
export function prepareRowText(fields: readonly FieldSchema[], json: unknown): boolean {
  let prepare = compiledRows.get(fields);
  if (!prepare) {
    prepare = fields.length === 0 ? () => false : recordPreparer(fields);
    compiledRows.set(fields, prepare);
  }
  return prepare(json);
}

/** The `from_json` structure of a record: DuckDB types, JSON columns read as their text. */
function structure(fields: readonly FieldSchema[]): string {
  const parts = fields.map((f) => {
    const base =
      f.type === 'RECORD'
        ? structure(f.fields ?? [])
        : JSON.stringify(f.type === 'JSON' ? 'VARCHAR' : duckType({ ...f, mode: 'NULLABLE' }));
    return `${JSON.stringify(f.name)}:${f.mode === 'REPEATED' ? `[${base}]` : base}`;
  });
  return `{${parts.join(',')}}`;
}

/**
 * One statement that inserts a JSON array of prepared rows (`prepareRowText`) (parameter $1) into `table`:
 * one transaction, committed (WAL synced) when it returns, like an appender flush. The array is
 * bound as text, or (`utf8`) as the bytes of its UTF-8 text, which DuckDB checks as it decodes.
 */
export function rowTextInsertSql(
  table: string,
  fields: readonly FieldSchema[],
  source: 'text' | 'utf8' = 'text',
): string {
  // Named columns: a column added to the table after the texts were written stays NULL.
  const names = fields.map((f) => quoteIdent(f.name));
  return `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.map((n) => `r.${n}`).join(', ')} FROM (SELECT unnest(from_json(${source === 'utf8' ? 'decode($1::BLOB)' : '$1::VARCHAR'}, ${stringLiteral(`[${structure(fields)}]`)})) AS r)`;
}
