/**
 * A rate is no value (issue #94, docs/creator-inference.md#a-rate-and-a-documents-status). An
 * amount named as a rate or a price per unit (a client's `hourlyAmount`, a `daily_rate`, a
 * `unit_price`, a `price_per_seat`, a `tariff`) says what something would cost, not money that
 * changed hands in this event: it is the event's value only when the event is the one that
 * charges it (a payment, a charge, an invoice, an order, a renewal: its name says so) and no total
 * stands beside it (a total is what the event charged, the rate one of its parts). Where the
 * amount taken as the value is so named and the event is not such a charge, or a total stands
 * beside it, the amount is kept under its own name and the page asks with no answer preselected,
 * so no currency is filled. A subscription created with a unit price is no charge (the corpus's
 * truth gives Chargebee's `subscription_created` no value); its renewal is. Pure, but for the
 * guesses and questions it rewrites.
 */
import { mayBeTheValue } from './amounts.ts';
import { askValueWhen, eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/**
 * Words that name an amount as a rate: what one hour, day, seat or unit costs. Not `annual` nor
 * `yearly`: an `Annual_Revenue` is a company's size, which other rules ask about.
 */
const RATE = new Set([
  'rate',
  'rates',
  'hourly',
  'daily',
  'weekly',
  'monthly',
  'per',
  'unit',
  'seat',
  'tariff',
  'tariffs',
]);
/** Leaves that only say which part of a money object holds the amount (`hourly_rate.amount`). */
const MONEY_LEAF = new Set(['amount', 'value', 'cents', 'decimal', 'units']);
/** Words of an event that charges: with one, a rate with no total beside it is what was charged. */
const CHARGE = new Set([
  'paid',
  'payment',
  'payments',
  'charge',
  'charged',
  'billed',
  'invoice',
  'invoiced',
  'renewal',
  'renewed',
  'purchase',
  'purchased',
  'order',
  'orders',
  'checkout',
  'sale',
  'sold',
  'captured',
  'settled',
  'transaction',
]);
/** Words of a total: what the event charged, of which a rate is a part. */
const TOTAL = new Set(['total', 'grand', 'gross']);
/** Words of a count, not money: `total_hours` and `total_seats` are no total charged. */
const COUNT = new Set([
  'hours',
  'hour',
  'days',
  'count',
  'quantity',
  'qty',
  'seats',
  'units',
  'items',
  'number',
  'minutes',
]);

/** The words naming the amount at `column`: its leaf's, and its holder's where the leaf is a money object's part. */
function amountWords(column: string): string[] {
  const parts = column.split('.').filter((p) => !/^\d+$/.test(p));
  const leaf = nameWords(parts.at(-1) ?? '');
  const holder =
    parts.length > 1 && leaf.every((w) => MONEY_LEAF.has(w)) ? nameWords(parts.at(-2) ?? '') : [];
  return [...holder, ...leaf];
}

/** The rate word in the amount's name (module comment), or undefined. */
export function rateWord(column: string): string | undefined {
  return amountWords(column).find((w) => RATE.has(w));
}

/** The numeric columns beside the rate named as a total of money, none of them a rate. */
function totals(fields: readonly InferredField[], column: string): string[] {
  return fields
    .filter((f) => {
      const words = amountWords(f.name);
      return (
        f.name !== column &&
        (f.type === 'number' || f.type === 'integer') &&
        words.some((w) => TOTAL.has(w)) &&
        !words.some((w) => COUNT.has(w)) &&
        mayBeTheValue(f) &&
        !rateWord(f.name)
      );
    })
    .map((f) => f.name);
}

/**
 * Why the rate at `column` is not this event's value (module comment), or undefined: the rate's
 * word, and the event that does not charge it or the total beside it.
 */
export function rateNotCharged(fields: readonly InferredField[], column: string): string | undefined {
  const word = rateWord(column);
  if (!word) return undefined;
  const beside = totals(fields, column);
  if (beside.length > 0) return `named as ${word}, a rate, beside a total (${beside[0]})`;
  const named = eventNamed(fields);
  if (named && nameWords(named.value).some((w) => CHARGE.has(w))) return undefined;
  return `named as ${word}, a rate, and ${
    named ? `the event is "${named.value}", which charges nothing` : 'no event name says it was charged'
  }`;
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function unitRateRule(fields: readonly InferredField[], base: Guess[], questions: Question[]): void {
  askValueWhen(base, questions, (column) => {
    const why = rateNotCharged(fields, column);
    return why
      ? {
          why,
          ask: 'A rate says what something would cost (an hour, a day, a seat, a unit), the value only of the event that charges it.',
        }
      : undefined;
  });
}
