/**
 * One question over candidate columns for a target the guesses left empty (party-id.ts,
 * unplaced-email.ts): either the first preselected, its guess rewritten in place to the target,
 * or every candidate offered with the no answer preselected, nothing taken. Pure, but for the
 * guess it rewrites.
 */
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';

/** What the question says: its ask, the first option's why once taken, and why none is preselected. */
export interface AskText {
  readonly ask: string;
  readonly taken: string;
  readonly none: string;
}

/** The question (module comment); `preselect` says whether the first option is taken. */
export function askColumns(
  base: RuleGuess[],
  target: string,
  options: readonly { readonly column: string; readonly why: string }[],
  preselect: boolean,
  text: AskText,
): Question {
  const first = options[0];
  const i = first ? base.findIndex((g) => g.column === first.column) : -1;
  if (!preselect || !first || i < 0)
    return { target, ask: text.ask, options, noneGuessed: { why: text.none } };
  base[i] = { column: first.column, target, why: text.taken };
  return { target, ask: text.ask, options };
}
