/**
 * What every rule of the creator hands back for a column, before `guess.ts` adds its confidence
 * and evidence (`ColumnGuess`), the name every rule reads as a record's own plain id, and the
 * targets that hold the person's id. One declaration, so a rule file cannot drift from the others
 * in any of them.
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

/** The targets that hold the person's id: the page's `user_id` and `user.external_id`. */
export const PERSON_ID: ReadonlySet<string> = new Set(['user_id', 'user.external_id']);

/**
 * Whether the person's id is already taken (a guess) or asked (a question, by its field or its
 * target): a rule that would offer one stands back then.
 */
export function personIdAnswered(
  base: readonly RuleGuess[],
  questions: readonly { readonly target: string; readonly field?: string }[],
): boolean {
  return (
    base.some((g) => PERSON_ID.has(g.target)) || questions.some((q) => PERSON_ID.has(q.field ?? q.target))
  );
}
