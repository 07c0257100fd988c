/**
 * An end of a range is no value (issue #94, docs/creator-inference.md#a-bound-a-documents-total-and-a-mailings-id).
 * An amount named as one end of a range (a lower or upper bound, a minimum or maximum, a floor or
 * ceiling, a limit, a threshold or a cap: an expected payment's `amount_lower_bound`, a card's
 * `spending_limit`, a price rule's `min_amount`) says how much may or must change hands, never
 * how much did: the event's value is another amount, or none. Where the amount taken as the value
 * is so named, it is kept under its own name and the page asks with no answer preselected, so no
 * currency is filled either. Pure, but for the guesses and questions it rewrites.
 */
import { askValue } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';

/** Words that name an end of a range, each with what the page says it is. */
const BOUND: ReadonlyMap<string, string> = new Map([
  ['bound', 'a bound'],
  ['bounds', 'a bound'],
  ['min', 'a minimum'],
  ['minimum', 'a minimum'],
  ['max', 'a maximum'],
  ['maximum', 'a maximum'],
  ['floor', 'a floor'],
  ['ceiling', 'a ceiling'],
  ['limit', 'a limit'],
  ['limits', 'a limit'],
  ['threshold', 'a threshold'],
  ['cap', 'a cap'],
]);

/** What the column's name (its path's words) says it bounds, or undefined. */
export function boundWord(column: string): string | undefined {
  const word = nameWords(column).find((w) => BOUND.has(w));
  return word === undefined ? undefined : BOUND.get(word);
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function rangeBoundRule(base: Guess[], questions: Question[]): void {
  const at = base.findIndex((g) => g.target === 'event_data' && g.field === 'value');
  const taken = base[at];
  if (!taken) return;
  const bound = boundWord(taken.column);
  if (!bound) return;
  const why = `named as ${bound}, one end of a range: how much may or must change hands, not how much did`;
  askValue(
    base,
    questions,
    at,
    why,
    `It is ${bound}: one end of a range of amounts, not money that changed hands; the event's value is another amount, or none.`,
  );
}
