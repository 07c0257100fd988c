/**
 * The amount rules that run after the late id rules (issue #94): a converted or crypto amount
 * beside the price (converted-amount.ts), then a refund's own amount where nothing is the value
 * (refund-value.ts), then no value for an amount named as an estimate on an event that does not
 * realise it (estimated-value.ts), nor for one named as an end of a range (range-bound.ts), nor
 * for a rate on an event that does not charge it (unit-rate.ts), nor for a document's total before
 * its payment or acceptance (document-total.ts), nor for an amount asked for and not yet paid
 * (pending-request.ts), nor for a cancelled booking's or order's (cancelled-record.ts), nor for an
 * amount zero in every row (zero-amount.ts), and last no value for an event that is no sale
 * (moneyless-event.ts).
 * `guess.ts` is at its size limit: one call from it. Pure, but for the guesses and questions they
 * rewrite.
 */

import type { AmountGuess } from './amounts.ts';
import { cancelledRecordRule } from './cancelled-record.ts';
import { convertedAmountRule } from './converted-amount.ts';
import { currencyFollows as followsValue } from './currency-follows.ts';
import { documentTotalRule } from './document-total.ts';
import { estimatedValueRule } from './estimated-value.ts';
import { moneylessEventRule } from './moneyless-event.ts';
import { numericCurrencyRule } from './numeric-currency.ts';
import { pendingRequestRule } from './pending-request.ts';
import type { Question } from './questions.ts';
import { rangeBoundRule } from './range-bound.ts';
import { refundValueRule } from './refund-value.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { unitRateRule } from './unit-rate.ts';
import { zeroAmountRule } from './zero-amount.ts';

/** Whether a rule asked the value, no answer preselected: later rules leave it asked. */
export { valueAsked } from './moneyless-event.ts';
/**
 * The rules for an amount asked for, for a cancelled booking's or order's and for one zero in
 * every row, run again once an amount written as text is the value (guess.ts takes it after the rules above have run).
 */
export function lateTextAmountRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  pendingRequestRule(fields, base, questions);
  cancelledRecordRule(fields, base, questions);
  zeroAmountRule(fields, base, questions);
}

export function lateAmountRules(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
  questions: Question[],
): void {
  convertedAmountRule(fields, rows, base);
  refundValueRule(fields, rows, base, questions);
  estimatedValueRule(fields, base, questions);
  rangeBoundRule(base, questions);
  unitRateRule(fields, base, questions);
  documentTotalRule(fields, base, questions);
  pendingRequestRule(fields, base, questions);
  cancelledRecordRule(fields, base, questions);
  zeroAmountRule(fields, base, questions);
  moneylessEventRule(fields, base, questions);
}

/**
 * The currency once the value is chosen: a currency written as its ISO 4217 number asked
 * (numeric-currency.ts), then the currency asked where its value is (currency-follows.ts).
 */
export function currencyFollows<G extends Guess & { readonly confidence: number }>(
  columns: G[],
  questions: Question[],
  value: AmountGuess | undefined,
  currency: AmountGuess | undefined,
  fields: readonly InferredField[] = [],
): AmountGuess | undefined {
  return followsValue(columns, questions, value, numericCurrencyRule(fields, questions, value, currency));
}
