/**
 * JSON inside a sample's text values (docs/creator-inference.md, "JSON inside a value"): a column
 * every value of which is base64 (standard or URL-safe) of a JSON object, as Snowplow's `ue_px`
 * and `cx` are, is read as nested columns (`ue_px.data.data.plan`), decoded with the translators'
 * own bounded `base64` and `json` transforms; the draft reads them back the same way (draft.ts).
 * A column with one value that does not decode stays as it is.
 */
import { base64Text, jsonValue } from '../formats/embedded.ts';
import type { JsonResult } from './json.ts';
import { jsonRows } from './json.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object a value decodes to, or undefined. */
function decoded(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'string' || value.length < 8) return undefined;
  const text = base64Text(value);
  const step = text.ok ? jsonValue(text.value) : text;
  return step.ok && isObject(step.value) && Object.keys(step.value).length > 0 ? step.value : undefined;
}

/** The sample's rows with base64-JSON columns read as nested columns, and which columns those were. */
export function withEncodedColumns(result: JsonResult): JsonResult & { encoded?: string[] } {
  const encoded = result.columns.filter((c) => {
    const values = result.rows.map((r) => r[c]).filter((v) => v !== undefined && v !== null);
    return values.length > 0 && values.every((v) => decoded(v) !== undefined);
  });
  if (encoded.length === 0) return result;
  const columns: string[] = [];
  const rows = result.rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (!encoded.includes(k)) {
        out[k] = v;
        continue;
      }
      const inner = decoded(v);
      if (!inner) continue;
      for (const [path, value] of Object.entries(jsonRows(inner).rows[0] ?? {})) out[`${k}.${path}`] = value;
    }
    return out;
  });
  for (const c of result.columns) {
    if (!encoded.includes(c)) columns.push(c);
    else
      for (const r of rows)
        for (const k of Object.keys(r)) if (k.startsWith(`${c}.`) && !columns.includes(k)) columns.push(k);
  }
  return { columns, rows, problems: result.problems, encoded };
}
