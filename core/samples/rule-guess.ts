/**
 * What every rule of the creator hands back for a column, before `guess.ts` adds its confidence
 * and evidence (`ColumnGuess`), and the name every rule reads as a record's own plain id. One
 * declaration, so a rule file cannot drift from the others in either.
 */

/** A column's place as a rule decides it: where it goes, under which field name, and why. */
export interface RuleGuess {
  readonly column: string;
  /** `event_data`, a context target, or `skip`. */
  readonly target: string;
  readonly field?: string;
  readonly why: string;
}

/** A record's own id under a plain name (`id`, `_id`, `uuid`), whatever record it sits in. */
export const PLAIN_ID = /^[_$]*(id|uuid)$/i;
