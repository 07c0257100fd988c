/**
 * `application/x-www-form-urlencoded` bodies (Mailchimp's and Unbounce's webhooks, most form
 * tools) as one record: `+` is a space, percent escapes are decoded (a malformed one is kept as
 * written), and bracketed keys nest — `data[merges][FNAME]=Ann` is `{data: {merges: {FNAME:
 * "Ann"}}}`, `tags[]=a&tags[]=b` a list, a repeated plain key a list too. Nesting deeper than
 * `maxDepth` refuses the body, so a hostile key cannot build a deep structure. Pure. One reader
 * for the translators (core/translate/) and the creator's form samples (core/samples/form.ts).
 */
import { setField } from './records.ts';

/** How deep bracketed keys may nest unless the translator says otherwise. */
export const DEFAULT_FORM_DEPTH = 5;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function decodePart(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The parts of a key: `a[b][]` → ['a', 'b', ''] (an empty part appends to a list). */
function keyParts(key: string): string[] | undefined {
  const open = key.indexOf('[');
  if (open <= 0 || !key.endsWith(']')) return [key];
  const parts = [key.slice(0, open)];
  const rest = key.slice(open);
  const re = /\[([^[\]]*)\]/g;
  let consumed = 0;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    if (m.index !== consumed) return undefined;
    parts.push(m[1] as string);
    consumed = m.index + m[0].length;
  }
  return consumed === rest.length ? parts : undefined;
}

/** Reads a form body into one record, or why it cannot be read. */
export function parseForm(
  text: string,
  maxDepth = DEFAULT_FORM_DEPTH,
): { record: Record<string, unknown> } | { why: string } {
  const record: Record<string, unknown> = {};
  // A body saved to a file ends with a line end (`curl --data-binary @file` sends it): not part of
  // the last value (a form writes its own blanks and line ends as `+` and `%0A`).
  for (const pair of text.trimEnd().split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodePart(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodePart(pair.slice(eq + 1));
    // A key that is not cleanly bracketed (`a[b`, `a]b[`) is one plain name.
    const parts = keyParts(key) ?? [key];
    if (parts.length - 1 > maxDepth)
      return {
        why: `the field ${key.slice(0, 80)} nests ${parts.length - 1} levels deep; at most ${maxDepth}`,
      };
    let at: Record<string, unknown> | unknown[] = record;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      const last = i === parts.length - 1;
      if (Array.isArray(at)) {
        // Inside a list only appending makes sense: `a[][b]` starts a new object.
        if (last) at.push(value);
        else {
          const next: Record<string, unknown> = {};
          at.push(next);
          at = next;
        }
        continue;
      }
      const existing = Object.hasOwn(at, part) ? at[part] : undefined;
      if (last) {
        if (part === '') continue;
        if (existing === undefined) setField(at, part, value);
        else if (Array.isArray(existing)) existing.push(value);
        else if (typeof existing === 'string') setField(at, part, [existing, value]);
        // An object already there keeps its place: `a=1` after `a[b]=2` does not replace it.
        continue;
      }
      const wantList = parts[i + 1] === '';
      if (wantList ? Array.isArray(existing) : isObject(existing)) {
        at = existing as Record<string, unknown> | unknown[];
        continue;
      }
      if (existing !== undefined) break; // `a=1&a[b]=2`: the first meaning wins
      const created: Record<string, unknown> | unknown[] = wantList ? [] : {};
      setField(at, part, created);
      at = created;
    }
  }
  return { record };
}
