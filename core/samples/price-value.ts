/**
 * A price beside its currency (docs/creator-inference.md, "A price beside its currency"). An
 * invoice, an offer or a store's payment often names what was paid `price` (`offerPrice`,
 * `payment.price`), a name the value's synonyms do not take: a price may also be a unit price or
 * a list price, not the sum paid. When no column is the value, a number named as a price that
 * sits in one record beside a column of currency codes is offered as the value: the page asks,
 * the price preselected, and never fills it without the person's answer. The currency beside it
 * then follows the value as any currency does (guess.ts). Pure.
 */
import { mayBeTheValue } from './amounts.ts';
import { valueAsked } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** A price's name in the languages the synonyms cover: `price`, `Preis`, `prix`, `precio`, `prezzo`. */
const PRICE = new Set(['price', 'preis', 'prix', 'precio', 'prezzo', 'preco']);
/** A part of a sum, or one item's: a unit price is not what the whole event is worth. */
const PART = new Set('unit item items line per each list base original old compare'.split(' '));

/** A column's guess as far as this reads and rewrites it (guess.ts's `ColumnGuess`). */
interface PriceGuess extends RuleGuess {
  readonly confidence: number;
}

/** The index of a currency column in the same object as `column` (`amount.currency` beside `amount.value`), or -1. */
export function currencyBeside(fields: readonly InferredField[], column: string): number {
  const parent = column.slice(0, column.lastIndexOf('.') + 1);
  return fields.findIndex(
    (f) => f.format === 'currency' && f.name.startsWith(parent) && !f.name.slice(parent.length).includes('.'),
  );
}

/** Whether a column's own name says it is a price of the whole (`price`, `offerPrice`), not a unit's. */
export function priceNamed(column: string): boolean {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  return words.some((w) => PRICE.has(w)) && !words.some((w) => PART.has(w));
}

/**
 * With no column kept as the value, the prices beside a currency code in their own record, the
 * payload's own first: the first becomes the value's guess, asked about, preselected, the others
 * offered beside it. Rewrites the guess in place and adds the question; nothing when no price
 * fits, something is the value already, or a rule asked the value with no answer preselected.
 */
export function priceBesideCurrency<C extends PriceGuess>(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  columns: C[],
  questions: Question[],
): void {
  // A value a rule asked, nothing preselected, stays asked (moneyless-event.ts `valueAsked`).
  if (valueAsked(questions) || columns.some((c) => c.target === 'event_data' && c.field === 'value')) return;
  const depth = (c: string) => c.split('.').length;
  const prices = fields
    .filter(
      (f) =>
        (f.type === 'number' || f.type === 'integer') &&
        f.distinct > 0 &&
        priceNamed(f.name) &&
        mayBeTheValue(f, rows) &&
        currencyBeside(fields, f.name) >= 0,
    )
    .sort((a, b) => depth(a.name) - depth(b.name));
  const first = prices[0];
  const i = first ? columns.findIndex((c) => c.column === first.name) : -1;
  const was = columns[i];
  if (!first || !was || was.target !== 'event_data') return;
  const currency = fields[currencyBeside(fields, first.name)]?.name;
  columns[i] = {
    ...was,
    field: 'value',
    confidence: 0.5,
    why: `event field: named as a price beside the currency ${currency}; asked above, preselected: a price may be a unit's or a list price, not what was paid`,
  } as C;
  questions.push({
    target: 'event_data',
    field: 'value',
    ask: `Is ${first.name} the event's value? It is named as a price, beside the currency ${currency}: a price may be a unit's or a list price rather than what the event is worth.`,
    options: prices.slice(0, 3).map((f) => ({
      column: f.name,
      why: `a number named as a price, beside the currency ${fields[currencyBeside(fields, f.name)]?.name}`,
    })),
  });
}

/**
 * Of several amounts asked about, the one beside a currency code (docs/creator-inference.md, "An
 * amount beside its currency"): when the value's guess has no currency code in its own object and
 * exactly one rival the question offers has (`sale.amount` beside `sale.currency`, over a link's
 * running `saleAmount`), the money the event is about is the one its currency is written beside.
 * That rival becomes the guess and the question's first, preselected option; the old guess is kept
 * under its own name and still offered. Rewrites `base` and the question in place; nothing when
 * the guess has a currency beside it, or none or several rivals have.
 */
export function valueBesideCurrency<G extends RuleGuess>(
  fields: readonly InferredField[],
  base: G[],
  question: Question,
  ownName: (column: string) => string,
): Question {
  const [chosen, ...rivals] = question.options;
  if (!chosen || currencyBeside(fields, chosen.column) >= 0) return question;
  const beside = rivals.filter((o) => currencyBeside(fields, o.column) >= 0);
  const rival = beside.length === 1 ? beside[0] : undefined;
  const from = base.findIndex((g) => g.column === chosen.column);
  const to = base.findIndex((g) => g.column === rival?.column);
  const was = base[from];
  const now = base[to];
  if (!rival || !was || !now || now.target !== 'event_data') return question;
  const currency = fields[currencyBeside(fields, rival.column)]?.name;
  const why = `named like an amount, beside the currency ${currency}; ${chosen.column} has no currency beside it`;
  base[to] = { ...now, field: 'value', why: `event field: ${why}; asked above, preselected` };
  base[from] = {
    ...was,
    field: ownName(was.column),
    why: `event field: the value went to ${rival.column}, the amount beside a currency; asked above`,
  };
  return {
    ...question,
    options: [{ column: rival.column, why }, ...question.options.filter((o) => o !== rival)],
  };
}
