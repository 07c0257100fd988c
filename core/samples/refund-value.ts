/**
 * A refund's own amount is a refund event's value (issue #94,
 * docs/creator-inference.md#a-refunds-own-amount). `refund` in a name rules an amount out as the
 * value (amounts.ts): an order's `refund_total` beside its `total` is not what the order is worth.
 * But a refund event's payload holds the refund itself (`data.refund.refund_amount`,
 * `payload.refund.entity.amount`), and nothing else is its worth. Where no column is kept as the
 * value, an amount in an object named as a refund, ruled out by that word alone, is offered as the
 * value, preselected, and asked about: the name says it is the refund's, not that the event is the
 * refund. Pure, but for the guesses and questions it rewrites.
 */
import { notTheValue, timeShapedAmount } from './amounts.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

const REFUND = new Set(['refund', 'refunds']);
const AMOUNT = new Set(['amount', 'total', 'value']);

/** Whether an object on the column's path, above its leaf, is named as a refund (`data.refund`). */
const inRefund = (column: string) =>
  column
    .split('.')
    .slice(0, -1)
    .some((p) => {
      const words = nameWords(p);
      return words.length === 1 && REFUND.has(words[0] as string);
    });

/** Numbers, or whole numbers written as text. */
const numeric = (f: InferredField) =>
  f.type === 'integer' ||
  f.type === 'number' ||
  (f.type === 'string' && /^\d+(\.\d+)?$/.test(String(f.examples[0])));

/** The rule applied to the guesses and questions, in place (module comment). */
export function refundValueRule(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
  questions: Question[],
): void {
  if (base.some((g) => g.target === 'event_data' && g.field === 'value')) return;
  const amount = fields.find((f) => {
    const leaf = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
    const ruledOut = notTheValue(f.name);
    return (
      f.distinct > 0 &&
      numeric(f) &&
      inRefund(f.name) &&
      leaf.some((w) => AMOUNT.has(w)) &&
      ruledOut !== undefined &&
      REFUND.has(ruledOut) &&
      nameWords(f.name).every((w) => REFUND.has(w) || notTheValue(w) === undefined) &&
      timeShapedAmount(f, rows) === undefined
    );
  });
  const i = amount ? base.findIndex((g) => g.column === amount.name) : -1;
  const was = base[i];
  if (!amount || !was || was.target !== 'event_data') return;
  const why = `an amount in ${amount.name.slice(0, amount.name.lastIndexOf('.'))}, a refund, and no other amount is the value: the refund's own amount`;
  base[i] = { column: amount.name, target: 'event_data', field: 'value', why: `${why}; asked above` };
  questions.push({
    target: 'event_data',
    field: 'value',
    ask: `Is ${amount.name} the event's value? It is a refund's amount: the value of a refund event, but not of an order that carries a refund.`,
    options: [{ column: amount.name, why }],
  });
}
