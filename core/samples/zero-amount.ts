/**
 * An amount that is zero in every row is not shown to be the event's money (issue #94,
 * docs/creator-inference.md#a-channels-type-a-webhooks-name-and-an-amount-of-zero). A restaurant
 * account opened for a reservation carries its `totalAmount`, `paidAmount` and `taxAmount`, all 0:
 * nothing was sold yet, and the event has no money. A total of zero is also what a free order
 * carries, so it is asked rather than refused: where the value taken holds 0 in every row of the
 * sample (one distinct value, a number or a numeric text), a currency code stands in the payload (a
 * value without one is asked for that, with its guess preselected) and no question offers it yet,
 * the page asks whether it is the event's
 * value, nothing preselected, and the currency follows the value's answer (currency-follows.ts).
 * A sample whose rows show other amounts keeps its guess. Pure, but for the guesses and questions
 * it rewrites.
 */
import { askValueWhen } from './moneyless-event.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Whether a value is zero written as a number or as numeric text (`0`, `"0.00"`). */
const zero = (v: unknown) =>
  v === 0 || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) === 0);

/** Why the column's amount is zero in every row, or undefined. */
export function zeroAmount(fields: readonly InferredField[], column: string): string | undefined {
  const f = fields.find((c) => c.name === column);
  if (f?.distinct !== 1 || f.examples.length === 0 || !f.examples.every(zero)) return undefined;
  return 'it is 0 in every row of the sample';
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function zeroAmountRule(fields: readonly InferredField[], base: Guess[], questions: Question[]): void {
  askValueWhen(base, questions, (column) => {
    // A value a question already offers is asked already, with its own reason; one without a
    // currency code anywhere is asked later for that (guess.ts, moneyWithoutCurrency).
    if (questions.some((q) => q.options.some((o) => o.column === column))) return undefined;
    if (!fields.some((f) => f.format === 'currency')) return undefined;
    const why = zeroAmount(fields, column);
    return why
      ? {
          why,
          ask: `It is 0 in every row of the sample: a zero total may mean nothing was sold yet, or a free order.`,
        }
      : undefined;
  });
}
