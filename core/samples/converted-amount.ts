/**
 * A converted or crypto amount beside the price is not the event's value (issue #94,
 * docs/creator-inference.md#a-converted-amount-beside-the-price). A charge paid in a
 * cryptocurrency, or converted at checkout, carries the price in the merchant's currency beside
 * the amount in the unit paid with (`crypto_amount` beside `amount` and `currency`): the event is
 * worth the price, and the converted amount moves with an exchange rate. Where the value was taken
 * from an amount whose name says it is crypto or converted, and another amount named like one (or
 * a price) sits beside a currency code in its own object, that amount becomes the value and the
 * converted one is kept under its own name. A crypto amount alone, with no price beside a
 * currency, stays the value. Pure, but for the guesses it rewrites.
 */
import { mayBeTheValue } from './amounts.ts';
import { nameWords } from './names.ts';
import { currencyBeside, priceNamed } from './price-value.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName, suggestMappings } from './suggest.ts';

/** Words that make an amount one in another unit than the price: paid in crypto, or converted. */
const OTHER_UNIT = new Set(['crypto', 'converted', 'conversion', 'exchanged']);

const otherUnit = (column: string) => nameWords(column).find((w) => OTHER_UNIT.has(w));

/** Numbers, or numbers written as text (`"599"`, `"0.35"`), in every row that has one. */
function numeric(f: InferredField, rows: readonly Record<string, unknown>[]): boolean {
  if (f.type === 'integer' || f.type === 'number') return true;
  if (f.type !== 'string' || f.format || f.distinct === 0) return false;
  return rows.every((r) => {
    const v = r[f.name];
    return v === undefined || v === null || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()));
  });
}

/** The rule applied to the guesses, in place (module comment). */
export function convertedAmountRule(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): void {
  const at = base.findIndex((g) => g.target === 'event_data' && g.field === 'value');
  const taken = base[at];
  const word = taken ? otherUnit(taken.column) : undefined;
  if (!taken || !word) return;
  const price = fields.find(
    (f) =>
      f.name !== taken.column &&
      f.distinct > 0 &&
      otherUnit(f.name) === undefined &&
      numeric(f, rows) &&
      mayBeTheValue(f, rows) &&
      currencyBeside(fields, f.name) >= 0 &&
      (priceNamed(f.name) || suggestMappings([{ name: f.name, type: 'number' }])[0]?.field === 'value'),
  );
  const j = price ? base.findIndex((g) => g.column === price.name) : -1;
  const was = base[j];
  if (!price || !was || was.target !== 'event_data') return;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named like an amount, but "${word}" in its name: the amount in the unit paid with, beside the price ${price.name}; kept as a field`,
  };
  base[j] = {
    column: price.name,
    target: 'event_data',
    field: 'value',
    why: `the price beside its currency code, over ${taken.column}, an amount in the unit paid with ("${word}")`,
  };
}
