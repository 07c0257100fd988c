/**
 * A currency written as its ISO 4217 number (issue #94, docs/creator-inference.md, "What answered
 * the twenty-eighth part's errors"). Card acquirers and older payment gateways send the currency as
 * its three-digit number (`"currency": 978` for EUR, `"currency_code": "840"` for USD): no value
 * reads as a letter code, so the column was either refused as a currency (digits written as text)
 * or filled as the currency on its own name alone (a number under `currency`). Where a value is
 * taken and a column named as a currency (`currency`, `currency_code`, `currencyCode`) holds only
 * numbers that ISO 4217 gives to a currency, the column is offered as the value's currency, its
 * letter code said beside it, with no answer preselected: three digits under that name are
 * likely the code, but nothing beyond the name says so, and the definition would need the numbers
 * read as letters. Pure, but for the questions it rewrites.
 */
import type { AmountGuess } from './amounts.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { InferredField } from './sample.ts';

/** A currency's column names, read as one word. */
const CURRENCY_NAMES = new Set(['currency', 'currencycode', 'currencyiso', 'isocurrency', 'isocurrencycode']);

/** ISO 4217 numbers of currencies in wide use, and their letter codes. */
const NUMERIC: ReadonlyMap<string, string> = new Map(
  Object.entries({
    '978': 'EUR',
    '840': 'USD',
    '826': 'GBP',
    '392': 'JPY',
    '756': 'CHF',
    '124': 'CAD',
    '036': 'AUD',
    '554': 'NZD',
    '752': 'SEK',
    '578': 'NOK',
    '208': 'DKK',
    '985': 'PLN',
    '203': 'CZK',
    '348': 'HUF',
    '946': 'RON',
    '975': 'BGN',
    '980': 'UAH',
    '949': 'TRY',
    '376': 'ILS',
    '356': 'INR',
    '156': 'CNY',
    '344': 'HKD',
    '702': 'SGD',
    '410': 'KRW',
    '764': 'THB',
    '458': 'MYR',
    '360': 'IDR',
    '608': 'PHP',
    '704': 'VND',
    '986': 'BRL',
    '484': 'MXN',
    '032': 'ARS',
    '152': 'CLP',
    '170': 'COP',
    '604': 'PEN',
    '710': 'ZAR',
    '566': 'NGN',
    '404': 'KES',
    '818': 'EGP',
    '784': 'AED',
    '682': 'SAR',
    '634': 'QAR',
    '414': 'KWD',
    '048': 'BHD',
    '512': 'OMR',
    '400': 'JOD',
    '586': 'PKR',
    '398': 'KZT',
    '981': 'GEL',
    '941': 'RSD',
    '352': 'ISK',
    '504': 'MAD',
  }),
);

/** The letter code of an ISO 4217 number (`978` → `EUR`, `"036"` → `AUD`), or undefined. */
export function letterCode(value: unknown): string | undefined {
  const digits =
    typeof value === 'number' && Number.isInteger(value)
      ? String(value).padStart(3, '0')
      : typeof value === 'string' && /^\d{3}$/.test(value)
        ? value
        : undefined;
  return digits === undefined ? undefined : NUMERIC.get(digits);
}

/** The letter codes of a column named as a currency whose every value is an ISO 4217 number, or undefined. */
export function numericCurrency(f: InferredField): string[] | undefined {
  const leaf = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).join('');
  if (!CURRENCY_NAMES.has(leaf) || f.distinct === 0 || f.examples.length === 0) return undefined;
  if (f.type !== 'integer' && f.type !== 'string') return undefined;
  const codes = f.examples.map(letterCode);
  return codes.every((c) => c !== undefined) ? (codes as string[]) : undefined;
}

/**
 * The rule (module comment), before the currency follows its value: the currency guess as it then
 * stands, undefined where the numbered column is asked instead.
 */
export function numericCurrencyRule(
  fields: readonly InferredField[],
  questions: Question[],
  value: AmountGuess | undefined,
  currency: AmountGuess | undefined,
): AmountGuess | undefined {
  if (!value) return currency;
  const taken = currency ? fields.find((f) => f.name === currency.column) : undefined;
  if (currency && (!taken || taken.format === 'currency' || !numericCurrency(taken))) return currency;
  const found = taken ? [taken] : fields.filter((f) => numericCurrency(f) !== undefined);
  const [first] = found;
  if (!first) return currency;
  for (const q of questions.filter(
    (x) => x.field === 'currency' && x.options.some((o) => o.column === first.name),
  ))
    questions.splice(questions.indexOf(q), 1);
  const said = (f: InferredField) => {
    const pairs = f.examples.map((v, i) => `${String(v)} is ${numericCurrency(f)?.[i]}`);
    return `ISO 4217 numbers under a currency's name (${pairs.join(', ')})`;
  };
  const why = 'only its name and the numbers say it is the currency: the page asks';
  questions.push({
    target: 'event_data',
    field: 'currency',
    ask: `Is ${first.name} the currency of ${value.column}? It holds ${said(first)}, not letter codes.`,
    options: found.slice(0, 3).map((f) => ({ column: f.name, why: said(f) })),
    noneGuessed: { why },
  });
  return undefined;
}
