/**
 * A currency follows its value (issue #94,
 * docs/creator-inference.md#a-currency-that-follows-its-value-a-status-reports-shape-and-a-desks-user).
 * The currency says what the value is in: it means nothing alone. Where any rule asks about the
 * value (a question offers its column as the value, preselected or not), the currency beside it
 * is not filled silently either: the page asks about it too, as it asks about the value, so
 * answering the value's question no does not leave an order's currency sent as the event's. It
 * stays the value's currency when the value's guess stands (preselected), and is kept as a field
 * when the person answers no. Where a rule took the value back and asks it with nothing
 * preselected (money asked for, not moved; a document's total), the currency column beside it is
 * no event field either, but it is offered the same way, nothing preselected, so that a person who
 * answers yes to the value finds its currency asked beside it rather than lost. Pure, but for the
 * questions and the currency's confidence it rewrites.
 */
import type { AmountGuess } from './amounts.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';

/** A question's column offered for an event field (`value`, `currency`). */
const offers = (questions: readonly Question[], field: string, column: string) =>
  questions.some((q) => q.field === field && q.options.some((o) => o.column === column));

/**
 * The currency guess as it stands, once asked where the value is asked (module comment): a
 * question on the currency joins the value's, preselected as the value's is, and the currency's
 * confidence becomes a question's. Undefined stays undefined.
 */
export function currencyFollows<G extends Guess & { readonly confidence: number }>(
  columns: G[],
  questions: Question[],
  taken: AmountGuess | undefined,
  currency: AmountGuess | undefined,
): AmountGuess | undefined {
  if (!taken) {
    if (currency) currencyOfAsked(columns, questions, currency);
    return undefined;
  }
  const value = taken.column;
  if (!currency || !offers(questions, 'value', value) || offers(questions, 'currency', currency.column))
    return currency;
  const valueAsk = questions.find((q) => q.field === 'value' && q.options.some((o) => o.column === value));
  const why = `the currency of ${value}, which is asked above: a currency follows its value`;
  questions.push({
    target: 'event_data',
    field: 'currency',
    ask: `Is ${currency.column} the event's currency? It says what ${value} is in, and ${value} is asked above: answer as you answer that.`,
    options: [{ column: currency.column, why }],
    ...(valueAsk?.noneGuessed ? { noneGuessed: { why: `${value} is not preselected as the value` } } : {}),
  });
  const i = columns.findIndex((c) => c.column === currency.column);
  const was = columns[i];
  if (was) columns[i] = { ...was, confidence: 0.5 };
  return currency;
}

/**
 * The currency column offered, nothing preselected, where no value was taken and the only value
 * question asks an amount with nothing preselected (module comment); nothing is filled.
 */
function currencyOfAsked<G extends Guess & { readonly confidence: number }>(
  columns: G[],
  questions: Question[],
  currency: AmountGuess,
): void {
  const asked = questions.filter((q) => q.field === 'value');
  const amount = asked[0]?.options[0]?.column;
  if (
    asked.length !== 1 ||
    !asked[0]?.noneGuessed ||
    !amount ||
    offers(questions, 'currency', currency.column)
  )
    return;
  const why = `the currency beside ${amount}, which is asked above with nothing preselected`;
  questions.push({
    target: 'event_data',
    field: 'currency',
    ask: `Is ${currency.column} the event's currency? It says what ${amount} is in: answer as you answer that.`,
    options: [{ column: currency.column, why }],
    noneGuessed: { why: `${amount} is not preselected as the value` },
  });
  const i = columns.findIndex((c) => c.column === currency.column);
  const was = columns[i];
  if (was) columns[i] = { ...was, confidence: 0.5 };
}
