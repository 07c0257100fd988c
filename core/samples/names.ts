/**
 * Names in a sample: column names made unique, names reduced to a comparable key (case,
 * separators, accents), and names turned into definition field names (`^[a-z][a-z0-9_]{0,63}$`).
 */

/** The words of a name: accents dropped, ß as ss, split at separators, camelCase and before digits. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * A definition field name for a column: snake_case ASCII, starting with a letter, at most 64
 * characters (`E-Mail Adresse` → `e_mail_adresse`, `Währung` → `wahrung`, `1st` → `f_1st`).
 */
export function fieldName(name: string): string {
  let out = nameWords(name).join('_');
  if (out === '') out = 'field';
  if (!/^[a-z]/.test(out)) out = `f_${out}`;
  return out.slice(0, 64).replace(/_+$/, '');
}

/**
 * Makes names unique and non-empty, in order: an empty name becomes `column_<position>`, a
 * repeated one gets `_2`, `_3`… (skipping names already taken). `key` says when two names clash.
 */
export function uniqueNames(names: readonly string[], key: (n: string) => string = (n) => n): string[] {
  const taken = new Set(names.filter((n) => n !== '').map(key));
  const used = new Set<string>();
  return names.map((raw, i) => {
    let name = raw === '' ? `column_${i + 1}` : raw;
    if (used.has(key(name)) || (raw === '' && taken.has(key(name)))) {
      const base = name;
      for (let n = 2; used.has(key(name)) || taken.has(key(name)); n++) name = `${base}_${n}`;
    }
    used.add(key(name));
    return name;
  });
}

/** The longest glued name split into words; real ones (`deliverycontactname`) are far shorter. */
export const MAX_GLUED = 64;

/**
 * A word glued from known words, split back into them (`deliverycontactname` → `delivery`,
 * `contact`, `name`): the fewest pieces, each at least two letters and in `known`, covering the
 * whole word; the word itself when it is known or no such split exists. Names written in
 * lowercase without separators (`invoicezipcode`) then read like their camelCase forms. A word
 * longer than `MAX_GLUED` is left whole: the split's work grows with the square of the length,
 * and a sample's keys come from outside.
 */
export function splitGlued(word: string, known: ReadonlySet<string>): string[] {
  if (known.has(word) || word.length > MAX_GLUED) return [word];
  // best[i]: the fewest known pieces that make up word.slice(0, i)
  const best: (string[] | undefined)[] = [[]];
  for (let end = 2; end <= word.length; end++)
    for (let start = 0; start <= end - 2; start++) {
      const head = best[start];
      const piece = word.slice(start, end);
      if (head && known.has(piece) && (!best[end] || (best[end] as string[]).length > head.length + 1))
        best[end] = [...head, piece];
    }
  return best[word.length] ?? [word];
}
