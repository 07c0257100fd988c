/**
 * A currency column holding a stand-in (issue #94, docs/creator-inference.md, "A stand-in
 * currency"). A vendor's page often writes `"currency": "<string>"` or `"currency_code":
 * "string"` where a real event carries a code: no value confirms the column as a currency, so the
 * value was guessed and its currency missed. Where a value is guessed and no currency is, a
 * column named as a currency (`currency`, `currency_code`, `currencyCode`) whose every value is a
 * stand-in (a bracketed name, or a type's or a sample's word) is offered as the value's currency
 * with no answer preselected: only its name says what it holds. Pure.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { InferredField } from './sample.ts';

/** A currency's column names, read as one word. */
const CURRENCY_NAMES = new Set(['currency', 'currencycode', 'currencyiso', 'isocurrency', 'isocurrencycode']);
/** Words of a documentation page's stand-in for a value. */
const STAND_IN = /^(string|text|str|example|sample|placeholder|value|currency|code|xxx+)$/;

/** Whether every value of a column is a stand-in (`<string>`, `{{currency}}`, `string`). */
export function standInValue(f: InferredField): boolean {
  if (f.type !== 'string' || f.distinct === 0 || f.examples.length === 0) return false;
  return f.examples.every((v) => {
    if (typeof v !== 'string') return false;
    if (/^\s*[<{[].*[>}\]]\s*$/.test(v)) return true;
    const words = nameWords(v);
    return words.length > 0 && words.every((w) => STAND_IN.test(w));
  });
}

/** The question (module comment), undefined where a currency is guessed or no column fits. */
export function standInCurrencyQuestion(fields: readonly InferredField[]): Question | undefined {
  const stand = fields.filter(
    (f) =>
      CURRENCY_NAMES.has(nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).join('')) && standInValue(f),
  );
  if (stand.length === 0) return undefined;
  return {
    target: 'event_data',
    field: 'currency',
    ask: `Is ${stand.length === 1 ? `${stand[0]?.name} the value's currency` : 'one of these the value’s currency'}? ${stand.length === 1 ? 'It is' : 'They are'} named as one, but the sample holds a stand-in, not a code.`,
    options: stand.slice(0, 3).map((f) => ({
      column: f.name,
      why: `named as a currency, but ${JSON.stringify(f.examples[0])} in the sample`,
    })),
    noneGuessed: { why: 'a stand-in in the sample: nothing but the name says it is the currency' },
  };
}
