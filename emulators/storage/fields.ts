/**
 * The `fields` parameter (partial responses, as every Google JSON API has it): a comma list of
 * field names, `a/b` for a nested field and `a(b,c)` for sub-fields of an object or of each element
 * of a list, e.g. `items(name,size),nextPageToken`.
 */
import { StorageError } from './errors.ts';

type Selection = Map<string, Selection | true>;

function parseList(text: string, at: { i: number }): Selection {
  const out: Selection = new Map();
  while (at.i < text.length) {
    let name = '';
    while (at.i < text.length && !',()'.includes(text[at.i] as string)) name += text[at.i++];
    name = name.trim();
    let sub: Selection | true = true;
    if (text[at.i] === '(') {
      at.i++;
      sub = parseList(text, at);
      if (text[at.i] !== ')') throw new StorageError('invalid', `Invalid field selection: ${text}`);
      at.i++;
    }
    if (name === '') throw new StorageError('invalid', `Invalid field selection: ${text}`);
    const path = name.split('/');
    let target = out;
    for (const part of path.slice(0, -1)) {
      const next = target.get(part);
      const map: Selection = next instanceof Map ? next : new Map();
      target.set(part, map);
      target = map;
    }
    target.set(path.at(-1) as string, sub);
    if (text[at.i] === ',') at.i++;
    else break;
  }
  return out;
}

export function parseFields(text: string): Selection {
  const at = { i: 0 };
  const sel = parseList(text, at);
  if (at.i !== text.length) throw new StorageError('invalid', `Invalid field selection: ${text}`);
  return sel;
}

/** Keeps the selected fields of `value` (each element's, for a list). */
export function selectFields(value: unknown, sel: Selection): unknown {
  if (Array.isArray(value)) return value.map((v) => selectFields(v, sel));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of sel) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    out[key] = sub === true ? v : selectFields(v, sub);
  }
  return out;
}
