/**
 * An estimate is no value (issue #94, docs/creator-inference.md#an-estimate-is-no-value). An amount
 * named as an estimate, a forecast, a projection, an expected, potential or weighted value (a
 * deal's `estimated_value`, an opportunity's `expected_revenue`, a lead's `potential_value`) says
 * what may be earned later, not money that changed hands: it is the event's value only when the
 * event is the one that realises it (a deal won, a quote accepted, an order paid). Where the amount
 * taken as the value is so named and the event's name (event-name columns at the top, one value)
 * does not say it is realised, the amount is kept under its own name and the page asks with no
 * answer preselected; a question that preselects none fills nothing, and so no currency either.
 * Pure, but for the guesses and questions it rewrites.
 */
import { askValue, eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Words that name an amount as one not yet earned. */
const ESTIMATE = new Set([
  'estimate',
  'estimated',
  'est',
  'expected',
  'forecast',
  'forecasted',
  'projected',
  'projection',
  'potential',
  'weighted',
  'anticipated',
  'prospective',
  'probable',
]);
/** Words of an event that realises what was estimated: money changed hands, or was agreed. */
const REALISED = new Set([
  'won',
  'win',
  'accepted',
  'signed',
  'paid',
  'payment',
  'payments',
  'charge',
  'charged',
  'order',
  'orders',
  'purchase',
  'purchased',
  'sale',
  'sold',
  'checkout',
  'invoice',
  'invoiced',
  'booked',
]);

/** The estimate word in the column's name (its path's words), or undefined. */
export function estimateWord(column: string): string | undefined {
  return nameWords(column).find((w) => ESTIMATE.has(w));
}

/** Whether the event's name says the estimate is realised (module comment); its name either way. */
export function realised(fields: readonly InferredField[]): {
  readonly name?: string;
  readonly yes: boolean;
} {
  const named = eventNamed(fields);
  if (!named) return { yes: false };
  const words = nameWords(named.value);
  return { name: named.value, yes: !words.includes('lost') && words.some((w) => REALISED.has(w)) };
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function estimatedValueRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const at = base.findIndex((g) => g.target === 'event_data' && g.field === 'value');
  const taken = base[at];
  if (!taken) return;
  const word = estimateWord(taken.column);
  if (!word) return;
  const event = realised(fields);
  if (event.yes) return;
  const why = `named as ${word}, an amount not yet earned, and ${
    event.name
      ? `the event is "${event.name}", which does not realise it`
      : 'no event name says it was realised'
  }`;
  askValue(
    base,
    questions,
    at,
    why,
    `It is ${word}: what may be earned later, the value only of an event that realises it (a deal won, an order paid).`,
  );
}
