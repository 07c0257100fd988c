/**
 * JSON and NDJSON samples: every object is one row, nested objects flattened to dotted paths
 * (`user.email`), arrays kept whole as values. A line or item that is not an object is reported
 * and skipped.
 */
import { setField } from '../formats/records.ts';
import { nestedBatchPath } from './batch-envelope.ts';
import type { SampleProblem } from './sample.ts';

/** Objects nested deeper than this are kept whole, as one value. */
const MAX_FLATTEN_DEPTH = 8;

export interface JsonResult {
  columns: string[];
  rows: Record<string, unknown>[];
  problems: SampleProblem[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function flatten(
  value: Record<string, unknown>,
  prefix: string,
  depth: number,
  out: Record<string, unknown>,
) {
  for (const [key, v] of Object.entries(value)) {
    const path = `${prefix}${key}`;
    if (isObject(v) && Object.keys(v).length > 0 && depth < MAX_FLATTEN_DEPTH)
      flatten(v, `${path}.`, depth + 1, out);
    else setField(out, path, v);
  }
}

/** Collects rows and the union of their columns, in order of first appearance. */
function collector() {
  const columns = new Set<string>();
  const rows: Record<string, unknown>[] = [];
  return {
    add(value: Record<string, unknown>) {
      const row: Record<string, unknown> = {};
      flatten(value, '', 1, row);
      for (const k of Object.keys(row)) columns.add(k);
      rows.push(row);
    },
    result: (problems: SampleProblem[]): JsonResult => ({ columns: [...columns], rows, problems }),
  };
}

/** The 1-based line of a JSON.parse error, when the runtime's message gives a position. */
function errorLine(text: string, message: string): number | undefined {
  const m = /position (\d+)/.exec(message);
  if (!m) return undefined;
  let line = 1;
  const end = Math.min(Number(m[1]), text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Parses JSON text, or reports why it is not JSON. */
export function readJson(text: string): { value: unknown } | { problem: SampleProblem } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const line = errorLine(text, message);
    return { problem: { ...(line === undefined ? {} : { line }), message: `not valid JSON: ${message}` } };
  }
}

const isRecords = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(isObject);

/**
 * The path of the records a translator's `format.records` reads: the key of an object that holds
 * one array of objects among its values (`events` in GA4's Measurement Protocol, `data` in
 * Meta's), else a batch of events nested under the body's envelopes (`data.events`:
 * batch-envelope.ts `nestedBatchPath`). Undefined when there is none or more than one (an
 * order's `line_items` beside `tax_lines`).
 */
export function recordsPath(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value).filter((k) => isRecords(value[k]));
  if (keys.length > 1) return undefined;
  if (keys.length === 1) return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(keys[0] as string) ? keys[0] : undefined;
  return nestedBatchPath(value);
}

/** The value at a dotted path as the translator reads `format.records`: the exact key, else step by step. */
function atPath(value: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(value, path)) return value[path];
  let at: unknown = value;
  for (const part of path.split('.')) at = isObject(at) && Object.hasOwn(at, part) ? at[part] : undefined;
  return at;
}

/**
 * Rows of a parsed JSON value: an object is one row, an array holds one object per row; with
 * `records`, the items of the array at that path are the rows.
 */
export function jsonRows(parsed: unknown, records?: string): JsonResult {
  const value = records !== undefined && isObject(parsed) ? atPath(parsed, records) : parsed;
  const out = collector();
  const problems: SampleProblem[] = [];
  if (isObject(value)) out.add(value);
  else if (Array.isArray(value))
    value.forEach((item, i) => {
      if (isObject(item)) out.add(item);
      else problems.push({ message: `item ${i + 1} of the array is not an object: skipped` });
    });
  else problems.push({ message: 'the JSON is neither an object nor an array of objects' });
  return out.result(problems);
}

/** Rows of NDJSON text: one object per non-empty line; a bad line is reported with its number. */
export function ndjsonRows(text: string): JsonResult {
  const out = collector();
  const problems: SampleProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const source = raw.trim();
    if (source === '') return;
    const line = i + 1;
    const read = readJson(source);
    if ('problem' in read) problems.push({ line, message: read.problem.message });
    else if (isObject(read.value)) out.add(read.value);
    else problems.push({ line, message: 'is not a JSON object: skipped' });
  });
  return out.result(problems);
}
