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
 * person lives, even in the person's contact object: asked the same way. And a country of a record
 * that only refers to the person (the person's id beside it taken from `userId`, not the record's
 * own `id`: a session, a login, a device) is that record's: asked the same way. Pure.
 */

import { nameWords } from './names.ts';
import { partyOf } from './party.ts';
import { holdsMoney, isPersonRecord, levelOf } from './person-record.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import { PLAIN_ID } from './rule-guess.ts';
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

/** The person's own details: filled beside a country, they make the record the person's. */
const DETAIL_TARGETS = new Set(['user.email', 'user.phone', 'user.first_name', 'user.last_name']);

/**
 * Why a country column is the field of a record that refers to the person and is not the person,
 * or undefined: beside it at its own level the person's id was taken from a reference
 * (`userId`, `customer_id`), not the record's own plain `id`, so the record is something else the
 * person did or owns (a session, a login, a device), and its country is that record's (where the
 * session's address was placed), not the person's address. A place's word on its path, the
 * person's party, a record that is itself the person, or the person's e-mail, phone or name filled
 * beside it unasked keeps the country theirs.
 */
export function referringRecordCountry(
  fields: readonly InferredField[],
  base: readonly Guess[],
  questions: readonly Question[],
  column: string,
): string | undefined {
  const words = column.split('.').flatMap((p) => nameWords(p));
  if (words.some((w) => PLACE_WORDS.has(w)) || partyOf(column)?.party === 'person') return undefined;
  const level = levelOf(column);
  if (isPersonRecord(fields, level)) return undefined;
  const ref = base.find(
    (g) =>
      (g.target === 'user_id' || g.target === 'user.external_id') &&
      levelOf(g.column) === level &&
      !PLAIN_ID.test(g.column.slice(g.column.lastIndexOf('.') + 1)),
  );
  if (!ref) return undefined;
  // The person's e-mail, phone or name filled at the same level, unasked: the record carries the
  // person's own details (a sign-up form's), and its country is theirs too.
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const detail = base.find(
    (g) => DETAIL_TARGETS.has(g.target) && levelOf(g.column) === level && !offered.has(g.column),
  );
  if (detail) return undefined;
  const record = level === '' ? 'the payload' : level;
  return `a field of ${record}, which names the person only by the reference ${ref.column}: a record about the person (a session, a login, a device), not the person's address`;
}

/** Values of a kind column (`type`, `kind`) that say its record is an organisation, not a person. */
const ORGANISATION_KINDS = new Set([
  'company',
  'business',
  'organization',
  'organisation',
  'corporation',
  'enterprise',
]);
/** Leaves of a column that says what kind of party its record is. */
const KIND_LEAVES = new Set(['type', 'kind', 'entitytype', 'customertype', 'accounttype', 'partytype']);

/**
 * Why a place column is an organisation's and not a person's, or undefined: a kind column beside
 * it (`customer.type`, `entity_type`) says, in every row, that its record is a company, a business
 * or an organisation. Such a customer is the event's party, but its address is a business's
 * premises, not where a person lives.
 */
export function organisationPlace(fields: readonly InferredField[], column: string): string | undefined {
  const level = levelOf(column);
  const kind = fields.find(
    (f) =>
      f.name !== column &&
      levelOf(f.name) === level &&
      KIND_LEAVES.has(nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).join('')) &&
      f.examples.length > 0 &&
      f.examples.every((v) => typeof v === 'string' && ORGANISATION_KINDS.has(v.trim().toLowerCase())),
  );
  const record = level === '' ? 'the payload' : level;
  return kind
    ? `a field of ${record}, whose ${kind.name} says "${String(kind.examples[0])}": an organisation's address, not a person's`
    : undefined;
}

/** The place targets the rule reads, each with the word its question uses. */
const PLACES: Readonly<Record<string, string>> = {
  'user.country': 'country',
  'user.region': 'region or state',
};

/**
 * The rule applied to the guesses, in place: the person's country or region taken from a
 * transaction's field, a phone number's, a record's that only refers to the person, or an
 * organisation's (`organisationPlace`), and not yet asked about, is kept as an event field, and
 * its question (none preselected) joins the questions. A region (`state`, `sub_state`) on a
 * charge or an invoice is that record's (its state, or where it was billed), as its country is.
 */
export function transactionCountryQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  for (const [target, word] of Object.entries(PLACES)) placeQuestion(fields, base, questions, target, word);
}

function placeQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
  target: string,
  word: string,
): void {
  const at = base.findIndex((g) => g.target === target);
  const taken = base[at];
  if (!taken || questions.some((q) => q.options.some((o) => o.column === taken.column))) return;
  const organisation = organisationPlace(fields, taken.column);
  const phone = organisation || target !== 'user.country' ? undefined : phoneCountry(taken.column);
  const transaction = organisation || phone ? undefined : transactionCountry(fields, taken.column);
  const why =
    organisation ?? phone ?? transaction ?? referringRecordCountry(fields, base, questions, taken.column);
  if (!why) return;
  const what = organisation
    ? `the organisation's ${word}`
    : phone
      ? 'the country of the number'
      : transaction
        ? `the ${word} of the payment, the invoice or the card`
        : `the record's ${word}`;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named as a ${word}, but ${why}: kept as a field, asked above`,
  };
  questions.push({
    target,
    ask: `Is ${taken.column} the person's ${word}? It is ${why}: ${what}, which may not be where the person lives.`,
    options: [{ column: taken.column, why }],
    noneGuessed: { why: `${why}; nothing says it is where the person lives` },
  });
}
