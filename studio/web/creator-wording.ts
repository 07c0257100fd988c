/**
 * How the creator page words its counts (issue #94: "All 1 sample rows fit the definitions of
 * their 1 types"): a number with its noun in the singular or the plural as the number wants, and
 * the row check's sentence built from them. Pure, so the unit test reads what a person sees.
 */

/** `1 row`, `3 rows`, `0 rows`; nouns whose plural is not an added `s` pass it. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** What the rows fit: the one catalogue event, the definitions of several types, or the definition. */
export function fitTarget(target: string | undefined, types: number | undefined): string {
  if (target) return `the ${target} event`;
  if (types === undefined) return 'the definition';
  return types === 1 ? 'the definition of its one type' : `the definitions of their ${types} types`;
}

/** The row check's verdict on the sample: every row fits, or how many would be refused. */
export function rowCheckVerdict(rows: number, refused: number, fit: string): string {
  if (refused === 0)
    return rows === 1 ? `The sample row fits ${fit}.` : `All ${rows} sample rows fit ${fit}.`;
  if (rows === 1) return 'The sample row would be refused: see the marked row.';
  return `${refused} of ${counted(rows, 'sample row')} would be refused: see the marked ${refused === 1 ? 'row' : 'rows'}.`;
}

/** While the rows are checked. */
export function rowCheckPending(rows: number): string {
  return rows === 1 ? 'Checking the sample row…' : `Checking the ${rows} sample rows…`;
}
