/**
 * Form posts as samples (docs/creator-inference.md, "Form posts"): an
 * `application/x-www-form-urlencoded` body such as a Mailchimp webhook's is recognised, and read
 * with the translators' own form reader (core/formats/form.ts), so the creator's columns are
 * exactly the paths the saved translator will find: `data[merges][FNAME]` is `data.merges.FNAME`.
 * A field holding a JSON object is read as nested columns, which the draft reads with `json`.
 */

import { jsonValue } from '../formats/embedded.ts';
import { DEFAULT_FORM_DEPTH, parseForm } from '../formats/form.ts';
import { type JsonResult, jsonRows } from './json.ts';

/** One `key=value` pair: a key of URL characters (brackets allowed), a value without blanks. */
const PAIR = /^[A-Za-z0-9_.~%[\]-]+=[^\s&=]*$/;

/**
 * Whether a text is one form body: a single line (blank lines around it allowed) of `key=value`
 * pairs joined by `&`, with no blank inside (a form writes spaces as `+`). Two pairs at least, or
 * one with a bracketed key, so a lone `a=1` stays a one-column CSV.
 */
export function looksLikeForm(text: string): boolean {
  const body = text.trim();
  if (body === '' || /\s/.test(body)) return false;
  const pairs = body.split('&');
  if (!pairs.every((p) => PAIR.test(p))) return false;
  return pairs.length >= 2 || /\[|%5B/i.test(pairs[0] as string);
}

/**
 * The one row of a form body, nested keys as dotted columns (as JSON's are). Every value is the
 * text it was sent as, so types are inferred as for CSV cells. A body the translator would refuse
 * (keys nested too deep) is a problem, not a row.
 */
export function formRows(text: string): JsonResult & { embedded?: string[] } {
  const read = parseForm(text.trim(), DEFAULT_FORM_DEPTH);
  if ('why' in read) return { columns: [], rows: [], problems: [{ message: read.why }] };
  // A field whose text is a JSON object (Unbounce's `data.json`) is read as one, under the
  // translators' own bounded `json` transform, so its keys are columns to map.
  const embedded: string[] = [];
  const record = { ...read.record };
  for (const [key, value] of Object.entries(record)) {
    if (typeof value !== 'string' || !value.trimStart().startsWith('{')) continue;
    const step = jsonValue(value);
    if (!step.ok || typeof step.value !== 'object' || step.value === null || Array.isArray(step.value))
      continue;
    record[key] = step.value;
    embedded.push(key);
  }
  return { ...jsonRows(record), ...(embedded.length > 0 ? { embedded } : {}) };
}
