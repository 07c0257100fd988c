/**
 * A transaction's country is not the person's (docs/creator-inference.md#a-transactions-country,
 * issue #94). A country (`country`, `country_code`) that is a field of a payment, order or
 * transaction record (its own level holds an amount or a currency, or the record is named as
 * one) says where the payment was made or the card was issued, not where the person lives: it is
 * not filled as the person's country. The guess is undone, the column kept as an event field, and
 * the page asks with no answer preselected. A country inside an address, a billing or shipping
 * object, under a customer, contact or person (`customer.country`, `billing.country`,
 * `shipping_country`), or on a record that is itself the person (person-record.ts), still is.
 * Likewise a phone number's country (`phone_country`, `mobileCountryCode`, `phone.country`): it is
 * the region the number was issued in, its calling code, named for the number, not for where the
 * person lives, even in the person's contact object: asked the same way. Pure.
 */

import { nameWords } from './names.ts';
import { partyOf } from './party.ts';
import { holdsMoney, isPersonRecord, levelOf } from './person-record.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** Words on a country's path that make it a place of the person's: their address, where they are. */
const PLACE_WORDS = new Set([
  'address',
  'addresses',
  'billing',
  'shipping',
  'delivery',
  'location',
  'geo',
  'geoip',
  'home',
  'residence',
  'mailing',
  'contact',
  'profile',
  'from',
]);
/** Record names that are a transaction: its own country is the transaction's. */
const TRANSACTION_WORDS = new Set([
  'payment',
  'payments',
  'order',
  'orders',
  'transaction',
  'transactions',
  'charge',
  'invoice',
  'refund',
  'checkout',
  'purchase',
  'sale',
]);

/** Words that make a country a phone number's (`phone_country`, `msisdnCountry`). */
const PHONE_WORDS = new Set([
  'phone',
  'mobile',
  'msisdn',
  'tel',
  'telephone',
  'cell',
  'cellphone',
  'sms',
  'whatsapp',
]);

/**
 * Why a country column is a phone number's and not the person's (module comment), or undefined:
 * its name, or the object it sits in, is named for a phone.
 */
export function phoneCountry(column: string): string | undefined {
  const word = column
    .split('.')
    .slice(-2)
    .flatMap((p) => nameWords(p))
    .find((w) => PHONE_WORDS.has(w));
  return word ? `named for a phone number ("${word}"), the region the number was issued in` : undefined;
}

/**
 * Why a country column is a transaction's and not the person's (module comment), or undefined:
 * the record it sits in, and what makes that record a transaction.
 */
export function transactionCountry(fields: readonly InferredField[], column: string): string | undefined {
  const words = column.split('.').flatMap((p) => nameWords(p));
  if (words.some((w) => PLACE_WORDS.has(w)) || partyOf(column)?.party === 'person') return undefined;
  const level = levelOf(column);
  if (isPersonRecord(fields, level)) return undefined;
  const record = level === '' ? 'the payload' : level;
  const named = nameWords(level.slice(level.lastIndexOf('.') + 1)).find((w) => TRANSACTION_WORDS.has(w));
  if (named)
    return `a field of ${record}, ${/^[aeiou]/.test(named) ? 'an' : 'a'} ${named} record, not of the person's address`;
  return holdsMoney(fields, level)
    ? `a field of ${record}, which holds an amount or a currency (a payment, an order), not of the person's address`
    : undefined;
}

/**
 * The rule applied to the guesses, in place: the person's country taken from a transaction's
 * field, and not yet asked about, is kept as an event field, and its question (none preselected)
 * joins the questions.
 */
export function transactionCountryQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const at = base.findIndex((g) => g.target === 'user.country');
  const taken = base[at];
  if (!taken || questions.some((q) => q.options.some((o) => o.column === taken.column))) return;
  const phone = phoneCountry(taken.column);
  const why = phone ?? transactionCountry(fields, taken.column);
  if (!why) return;
  const what = phone ? 'the country of the number' : 'the country of the payment or the card';
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named as a country, but ${why}: kept as a field, asked above`,
  };
  questions.push({
    target: 'user.country',
    ask: `Is ${taken.column} the person's country? It is ${why}: ${what}, which may not be where the person lives.`,
    options: [{ column: taken.column, why }],
    noneGuessed: { why: `${why}; nothing says it is where the person lives` },
  });
}
