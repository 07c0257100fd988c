/**
 * An event that is no sale has no value (issue #94,
 * docs/creator-inference.md#an-event-that-is-no-sale). An e-mail capture, a sign-up, an opt-in, a
 * lead, a click or an open, a delivery or a bounce, an unsubscribe: none is worth money, whatever
 * amount its payload carries beside it (the coupon offered for the capture, a lead's budget, a
 * plan's price on the subscriber's record). Where the event's name (the top-level `event`,
 * `type`, `topic`, `event_type` or `event_name`, one value in the sample) says it is such an act
 * and names nothing sold (an order, a payment, a charge, a subscription), the amount taken as the
 * value is kept under its own name, and the page asks with no answer preselected. Pure, but for
 * the guesses and questions it rewrites.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** Columns that name the event (words joined), as the event's name is read (event-name.ts). */
const NAME_COLUMNS = new Set(['event', 'type', 'topic', 'eventtype', 'eventname']);
/** Words of an act that is worth nothing. */
const NO_SALE = new Set([
  'signup',
  'optin',
  'lead',
  'leads',
  'click',
  'clicked',
  'open',
  'opened',
  'delivered',
  'bounce',
  'bounced',
  'unsubscribe',
  'unsubscribed',
]);
/** Two words that together name such an act (`email_capture`, `sign_up`, `opt_in`). */
const NO_SALE_PAIRS: readonly (readonly [string, string])[] = [
  ['email', 'capture'],
  ['sign', 'up'],
  ['opt', 'in'],
];
/** Words of something sold: with one of them, the event may be worth money after all. */
const SALE = new Set([
  'order',
  'orders',
  'payment',
  'payments',
  'paid',
  'purchase',
  'purchased',
  'charge',
  'charged',
  'invoice',
  'checkout',
  'sale',
  'refund',
  'subscription',
  'transaction',
  'donation',
  'booking',
  'ticket',
  'renewal',
  'renewed',
]);

/**
 * The event's name as these rules read it: a column at the top named as the event's name, one
 * text value in the sample; its column and value, or undefined.
 */
export function eventNamed(
  fields: readonly InferredField[],
): { readonly column: string; readonly value: string } | undefined {
  const named = fields.find(
    (f) =>
      !f.name.includes('.') &&
      NAME_COLUMNS.has(nameWords(f.name).join('')) &&
      f.distinct === 1 &&
      typeof f.examples[0] === 'string',
  );
  return named ? { column: named.name, value: String(named.examples[0]) } : undefined;
}

/** Why the event's name says it is worth nothing (module comment), or undefined. */
export function noSale(fields: readonly InferredField[]): string | undefined {
  const named = eventNamed(fields);
  if (!named) return undefined;
  const { value } = named;
  const words = nameWords(value);
  if (words.some((w) => SALE.has(w))) return undefined;
  const act =
    words.find((w) => NO_SALE.has(w)) ??
    NO_SALE_PAIRS.find(([a, b]) => words.some((w, i) => w === a && words[i + 1] === b))?.join(' ');
  return act
    ? `the event is "${value}" (${named.column}): ${act === 'lead' || act === 'leads' ? 'a lead' : `a ${act}`}, which is worth no money`
    : undefined;
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function moneylessEventRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  askValueWhen(base, questions, () => {
    const why = noSale(fields);
    return why ? { why, ask: `It is named like an amount, but ${why}.` } : undefined;
  });
}

/**
 * Whether a rule asked the event's value with no answer preselected (askValue, or any question on
 * the value whose guess is its no answer): a rule that runs later never fills or preselects a value
 * then, so what a rule asked stays asked.
 */
export const valueAsked = (questions: readonly Question[]): boolean =>
  questions.some((q) => q.field === 'value' && q.noneGuessed !== undefined);

/**
 * The value guess asked (askValue) when `judge`, given its column, says why it is no value: the
 * one shape of the rules that stop trusting a taken value. The index it is at, or -1 when no value
 * was taken or the judge found nothing.
 */
export function askValueWhen<G extends Guess>(
  base: G[],
  questions: Question[],
  judge: (column: string) => { readonly why: string; readonly ask: string } | undefined,
): number {
  const at = base.findIndex((g) => g.target === 'event_data' && g.field === 'value');
  const taken = base[at];
  if (!taken) return -1;
  const found = judge(taken.column);
  if (!found) return -1;
  askValue(base, questions, at, found.why, found.ask);
  return at;
}

/**
 * The value guess at `at` that a rule no longer trusts, in place: kept as an event field, the
 * questions that offered its column as the value dropped, and one question that asks, `ask`
 * after "Is <column> the event's value?", with nothing preselected; `why` says why.
 */
export function askValue<G extends Guess>(
  base: G[],
  questions: Question[],
  at: number,
  why: string,
  ask: string,
): void {
  const taken = base[at] as G;
  base[at] = {
    ...taken,
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named like an amount, but ${why}: kept as a field, asked above`,
  };
  for (const q of questions.filter(
    (x) => x.field === 'value' && x.options.some((o) => o.column === taken.column),
  ))
    questions.splice(questions.indexOf(q), 1);
  questions.push({
    target: 'event_data',
    field: 'value',
    ask: `Is ${taken.column} the event's value? ${ask}`,
    options: [{ column: taken.column, why: `named like an amount; ${why}` }],
    noneGuessed: { why },
  });
}
