/**
 * The creator's money guesses (docs/creator-inference.md#guesses): which column is the event's
 * value (the order's total, never a discount, refund, tax or shipping amount), which holds its
 * currency, and whether the amounts are minor units (cents) to offer scaling for. Pure.
 */
import type { TranslatorTransform } from '../../schemas/translator.ts';
import { nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

/**
 * Words that make an amount a part of the total or something else (an id, a count, a measure that
 * is not money, an incentive or reward offered for the act rather than paid in it): never the
 * event's value. A number named as a count of days, nights, hours or guests (`total_days`,
 * `nights_count`, `number_of_guests`) is no amount, even beside a currency (held-out-27's
 * cancelled booking).
 */
const NOT_THE_VALUE = new Set(
  `discount discounts rabatt remise descuento refund refunds refunded erstattung remboursement tax taxes
  vat mwst steuer tva iva shipping versand livraison envio fee fees gebuhr frais tip tips duty duties
  outstanding balance weight quantity qty count captured fx rate cost costs kosten coste commission
  commissions payout payouts earnings incentive incentives reward rewards bonus bonuses cashback id
  ids number no code version sequence index percent percentage score rating age duration size length
  days nights hours minutes seconds weeks months years guests attendees participants seats persons
  people pax`
    .trim()
    .split(/\s+/),
);

/** Epoch seconds and milliseconds from 2001-09-09 to 2099-12-31, as infer.ts reads them. */
const SECONDS = [1e9, 4102444800] as const;
const MILLIS = [1e12, 4102444800000] as const;

/** A whole number as a JSON sender writes it, or as a CSV cell or form field does (`"1751328000000"`). */
const wholeNumber = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : undefined;

const within = (v: unknown, [low, high]: readonly [number, number]) => {
  const n = wholeNumber(v);
  return n !== undefined && Number.isInteger(n) && n >= low && n <= high;
};

/**
 * Why a column named like an amount is a time and never the event's value, or undefined: a date
 * or timestamp column (ISO dates, epoch times under a time's name), or whole numbers, written as
 * numbers or as digits in text, that are all instants in epoch milliseconds (no sale is worth a
 * trillion) or all in epoch seconds from 2001 to 2099 (FastSpring's `changedValue:
 * 1751328000000`, a `value: 1751328000`): a sale of one to four billion in a currency's units
 * (rupiah, dong) is then kept as a field too, and the person chooses it as the value by hand.
 * Every non-empty value of `rows` is read, or the column's examples without them. The one rule
 * every path that proposes a value crosses: the guesses' refusal of the target and their reading
 * of digits written as text (guess.ts), and the studio page's value slot
 * (studio/web/creator-targets.ts).
 */
export function timeShapedAmount(
  f: InferredField,
  rows: readonly Record<string, unknown>[] = [],
): string | undefined {
  if (f.type === 'timestamp' || f.type === 'date')
    return `its values (${String(f.examples[0])}) are times, not an amount`;
  if (f.type !== 'integer' && f.type !== 'string') return undefined;
  const read = rows.length > 0 ? rows.map((r) => r[f.name]) : f.examples;
  const values = read.filter((v) => v !== undefined && v !== null && v !== '');
  if (values.length === 0) return undefined;
  if (values.every((v) => within(v, MILLIS)))
    return `its values (${String(values[0])}) are instants in epoch milliseconds, not an amount`;
  if (values.every((v) => within(v, SECONDS)))
    return `its values (${String(values[0])}, ${new Date((wholeNumber(values[0]) ?? 0) * 1000).toISOString()}) are instants in epoch seconds, not an amount`;
  return undefined;
}

/**
 * Whether a column may be the event's value at all, whatever its name matches: no word of its name
 * says it is a part of the total or something else (`notTheValue`), and its values are no times
 * (`timeShapedAmount`). The guesses' readings of amounts (guess.ts) and the studio page's value
 * slot (studio/web/creator-targets.ts) all ask this.
 */
export function mayBeTheValue(f: InferredField, rows: readonly Record<string, unknown>[] = []): boolean {
  return notTheValue(f.name) === undefined && timeShapedAmount(f, rows) === undefined;
}

/**
 * Words a money object's leaf is named with when it says only how the amount is written: a plain
 * `value` or `amount`, or one in minor units (`value_in_cents`, `amount_minor`); such a leaf is
 * named by its object's key.
 */
const MONEY_FORM = new Set(['value', 'amount', 'in', 'cents', 'minor', 'units', 'micros']);
/** The words of a leaf in minor units among those. */
const MINOR_FORM = new Set(['cents', 'minor', 'micros']);
/** Words of a sum before discounts, tax and shipping: a value only when no total is there. */
const PART_SUM = new Set(['subtotal', 'sub', 'line', 'items', 'item', 'unit', 'net']);
/**
 * Words of an amount still owed (`amount_due`, `amount_remaining`): what is left to pay, not what
 * the event is worth where an amount paid or a total sits beside it; alone, an invoice's due
 * amount is still its value.
 */
const STILL_OWED = new Set(['due', 'remaining', 'owed', 'owing', 'unpaid']);

/** The word that rules a column out as the event's value (`discount` in `discount_total`), if any. */
export function notTheValue(column: string): string | undefined {
  return nameWords(column).find((w) => NOT_THE_VALUE.has(w));
}

/**
 * How much more or less a column named like an amount is the event's value than its name match
 * says: a nested amount (`total_price_set.shop_money.amount`) is less than the payload's own, a
 * name with more words (`current_total_price`, `total_usd`) less than the plain `total`, a
 * subtotal less than a total, an amount still owed (`amount_due`) less than one paid. Small steps: they only order candidates whose names match alike.
 */
export function valueNameShift(column: string): number {
  const parts = column.split('.');
  const depth = parts.length - 1;
  // A money object's generic leaf (`amounts.total.value`, `subtotal.amount`) is named by its key.
  const own = nameWords(parts[depth] ?? '');
  const generic =
    (own.length === 1 && (own[0] === 'value' || own[0] === 'amount')) ||
    (own.some((w) => MINOR_FORM.has(w)) && own.every((w) => MONEY_FORM.has(w)));
  const leaf = generic && depth > 0 ? [...nameWords(parts[depth - 1] ?? ''), ...own] : own;
  const part = leaf.some((w) => PART_SUM.has(w) || STILL_OWED.has(w)) ? 0.1 : 0;
  const total = leaf.includes('total') || leaf.includes('grand') ? 0.03 : 0;
  return total - part - depth * 0.03 - Math.max(0, leaf.length - 1) * 0.01;
}

/** Words of a currency that is an account's or a person's setting, not an amount's. */
const SETTING_WORDS = new Set(['default', 'preferred', 'preference', 'favorite', 'favourite']);

/**
 * Why a currency column is a setting (`default_currency_id`, `preferredCurrency`) and not the
 * currency an amount is written in, or undefined: the account's choice for what is to come, which
 * the event's own amount need not be in.
 */
export function currencySetting(column: string): string | undefined {
  const word = nameWords(column.slice(column.lastIndexOf('.') + 1)).find((w) => SETTING_WORDS.has(w));
  return word ? `"${word}" in its name: a setting, not the currency of an amount beside it` : undefined;
}

/** A currency column nested deeper is less the payload's own (`data.currency_code` over `data.details.totals.currency_code`). */
export function currencyNameShift(column: string): number {
  return -(column.split('.').length - 1) * 0.03;
}

/** One money guess: the column, the event field it is kept under, and why. */
export interface AmountGuess {
  readonly column: string;
  readonly field: string;
  readonly why: string;
}

/**
 * Offered, never applied: the value column's amounts are minor units (Stripe's `amount: 2000` is
 * USD 20.00). `transform` is the translator step that scales them (schemas/translator.ts
 * `major_units`), reading the code from the currency column; the page sets it as the value
 * column's `majorUnits` (draft.ts) when the person takes the offer.
 */
export interface MinorUnitsOffer {
  readonly column: string;
  /**
   * The currency column to scale by; absent when the payload has none (Patreon's
   * `amount_cents`): the page then asks for the one currency every record is in, and writes
   * `major_units: { currency }`, never assuming one.
   */
  readonly majorUnits?: { readonly source: string };
  readonly transform?: TranslatorTransform;
  readonly why: string;
}

/** Whether an amount's own name says it is in cents (`amount_cents`, `pledge_amount_cents`, `price_in_cents`). */
export const centsNamed = (column: string) =>
  nameWords(column.slice(column.lastIndexOf('.') + 1)).some((w) => w === 'cents' || w === 'cent');

/** Vendors whose webhooks carry amounts in minor units, and how their payloads are told apart. */
const MINOR_UNIT_SENDERS: readonly [string, (columns: ReadonlySet<string>) => boolean][] = [
  ['Stripe', (c) => c.has('object') && [...c].some((n) => n.startsWith('data.object.'))],
  ['Adyen', (c) => [...c].some((n) => /notificationItems|NotificationRequestItem/.test(n))],
  [
    'Paddle',
    (c) => c.has('notification_id') || (c.has('event_type') && c.has('data.details.totals.grand_total')),
  ],
  ['Lemon Squeezy', (c) => c.has('meta.event_name') && [...c].some((n) => n.startsWith('data.attributes.'))],
];

const DIGITS = /^-?\d{1,15}$/;

/**
 * Whether every non-empty value of a column is a whole number: JSON integers, CSV cells of
 * digits, or digits a JSON sender writes as text (Paddle's `"grand_total": "65215"`, which
 * infer.ts keeps as text, as it does ids and postal codes).
 */
export function wholeNumbers(f: InferredField, rows: readonly Record<string, unknown>[]): boolean {
  if (f.type === 'integer') return f.pattern === undefined;
  if (f.type !== 'string' || f.format || f.distinct === 0) return false;
  for (const row of rows) {
    const v = row[f.name];
    if (v !== undefined && v !== null && !(typeof v === 'string' && DIGITS.test(v))) return false;
  }
  return true;
}

/**
 * The minor-units offer for the value column: when its values are whole numbers beside a
 * currency column, or the payload is a vendor's known to send minor units (Stripe, Adyen,
 * Paddle, Lemon Squeezy; Mollie sends `"10.00"` in major units and is not one).
 */
export function minorUnitsOffer(
  fields: readonly InferredField[],
  value: AmountGuess | undefined,
  currency: AmountGuess | undefined,
  rows: readonly Record<string, unknown>[],
): MinorUnitsOffer | undefined {
  const f = value && fields.find((x) => x.name === value.column);
  if (!value || !f || !wholeNumbers(f, rows)) return undefined;
  if (!currency)
    return centsNamed(value.column)
      ? {
          column: value.column,
          why: `${value.column}'s name says cents, and no column holds a currency: type the one currency every record is in, and the amounts are scaled by its ISO 4217 exponent (JPY 0, EUR 2, KWD 3)`,
        }
      : undefined;
  const columns = new Set(fields.map((x) => x.name));
  const vendor = MINOR_UNIT_SENDERS.find(([, test]) => test(columns))?.[0];
  const example = Number(f.examples[0]);
  const cents = Number.isSafeInteger(example)
    ? ` (${example} is ${(example / 100).toFixed(2)} in a currency with cents)`
    : '';
  const why = vendor
    ? `${vendor} sends amounts in minor units${cents}`
    : `${value.column} holds whole numbers beside the currency column ${currency.column}: if they are minor units${cents}, scale them`;
  return {
    column: value.column,
    majorUnits: { source: currency.column },
    transform: { major_units: { source: currency.column } },
    why: `${why}: by each row's currency's ISO 4217 exponent (JPY 0, EUR 2, KWD 3)`,
  };
}
