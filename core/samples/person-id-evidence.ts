/**
 * The second kind of evidence for the person's id (docs/creator-inference.md#two-kinds-of-evidence,
 * issue #94): a column named as the person's id (`user_id`, `customer_id`) is filled without asking
 * only when its place says so too: it sits under the person's object (`customer.id`,
 * `data.user.id`), or the object it sits in also holds the person's other details (an e-mail, a
 * name, a phone) that are not the business's. A payment's top-level `user_id` beside nothing of
 * the person's may be the merchant's account at the vendor: the page asks. A reference named for
 * the person (`customer_reference`, `clientRef`) is another party's as often as the person's: the
 * customer's number at the business, or the business's own reference for the request it made for
 * that customer. Its name cannot tell which: it is not filled, the page asks with none
 * preselected. Pure.
 */
import { leafSide } from './evidence.ts';
import { nameWords } from './names.ts';
import { otherParty } from './party.ts';
import type { Question, QuestionColumn } from './questions.ts';
import { PERSON_WORDS, WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PERSON_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';
import { actorAbove } from './two-evidence.ts';

/** Whole leaf names that are a person's detail (`email`, `first_name`, `phoneNumber`…). */
const DETAIL_LEAVES = new Set([
  'email',
  'emailaddress',
  'mail',
  'name',
  'fullname',
  'firstname',
  'lastname',
  'givenname',
  'familyname',
  'displayname',
  'phone',
  'phonenumber',
  'mobile',
  'msisdn',
  'telephone',
]);
/** Words that make any leaf a contact detail (`customer_email`, `contact_phone`). */
const CONTACT_WORDS = new Set(['email', 'phone', 'mobile', 'msisdn']);
/** Last words that make a leaf a record's id (`emailId`), whatever it is named for. */
const RECORD_ID_WORDS = new Set(['id', 'ids', 'uuid', 'guid']);

const joined = (part: string) => nameWords(part).join('');

/** Whether a column holds one of the person's details: by its values' shape or by its name. */
function personDetail(f: InferredField): boolean {
  if (f.format === 'email' || f.format === 'phone') return true;
  const leaf = f.name.slice(f.name.lastIndexOf('.') + 1);
  const words = nameWords(leaf);
  // An id named for an e-mail or a phone (`emailId`, `phone_id`) is a message's or a number's
  // record, not the person's address or number.
  if (RECORD_ID_WORDS.has(words.at(-1) ?? '')) return false;
  return DETAIL_LEAVES.has(words.join('')) || words.some((w) => CONTACT_WORDS.has(w));
}

/** A record's own plain id leaf (`id`, `_id`, `uuid`). */
const OWN_ID = /^[_$]*(id|uuid)$/i;

/**
 * Why a detail below a top-level id sits in a record with its own plain id whose values are
 * not the id's (`data.email` beside `data.id`, for a top-level `customerId`): that record is
 * someone's own (a participant's, a contact's), and its details vouch for its id, not for an id
 * named as a customer's or user's at the envelope's top, which is then as likely the account's
 * the payload is sent for. A record whose id holds the same values is the same party's.
 */
function ownRecordBelow(
  fields: readonly InferredField[],
  column: string,
  detail: string,
): string | undefined {
  if (column.includes('.')) return undefined;
  const id = fields.find((f) => f.name === column);
  const parts = detail.split('.').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const level = `${parts.slice(0, i).join('.')}.`;
    const own = fields.find(
      (f) =>
        f.distinct > 0 &&
        f.name.startsWith(level) &&
        OWN_ID.test(f.name.slice(level.length)) &&
        String(f.examples[0]) !== String(id?.examples[0]),
    );
    if (own)
      return `the details below it (${detail}) sit in a record with its own id (${own.name}), another party's than an id at the payload's top`;
  }
  return undefined;
}

/** First words of a message's recipient (`to`, `to_email`, `recipient`, `rcpt_to`). */
const RECIPIENT_WORDS = new Set(['to', 'recipient', 'recipients', 'rcpt']);

/**
 * Why a detail is a message's recipient's and the id is not named for the recipient, or
 * undefined: the address an e-mail was sent `to` says who received it, not whose a `userId` beside
 * it is (the account that sent it, as often).
 */
function recipientOnly(column: string, detail: string): string | undefined {
  const first = nameWords(detail.slice(detail.lastIndexOf('.') + 1))[0];
  if (first === undefined || !RECIPIENT_WORDS.has(first)) return undefined;
  if (nameWords(column.slice(column.lastIndexOf('.') + 1)).some((w) => RECIPIENT_WORDS.has(w)))
    return undefined;
  return `the only detail beside it is a message's recipient (${detail}), whom a ${column} does not name`;
}

/**
 * Why a column named as the person's id has only its name for it, or undefined when its place
 * agrees: an object above it is the person's (not an envelope), or the object it sits in (the
 * whole payload for a top-level column) holds one of the person's details that is neither under
 * an actor nor named as the business's, nor a business party's (party.ts: `assignedUserPhone`),
 * nor always empty (a `Name: null` shows nobody's name), nor an id named for an e-mail or phone
 * (`emailId`). Details that are another party's vouch for nothing: a message's recipient (`to`)
 * beside an id not named for it, and, for an id at the payload's top, details in a record below
 * with its own id (`data.email` beside `data.id`, a participant's, under the account's
 * `customerId`).
 */
export function lonePersonId(column: string, fields: readonly InferredField[]): string | undefined {
  const found = voucher(column, fields);
  if (found === true) return undefined;
  if (found !== false) return `named as the person's id, but ${found}`;
  return "named as the person's id, but nothing beside it (an e-mail, a name, a phone) or above it (a customer, a user) says it is the person's";
}

/**
 * Whether the place of a column named as the person's id vouches for it (true), nothing does
 * (false), or only details that are another party's do (why: a message's recipient beside a
 * `userId`, or a record with its own id below a top-level `customerId`).
 */
function voucher(column: string, fields: readonly InferredField[]): boolean | string {
  const above = column.split('.').slice(0, -1);
  if (above.some((p) => !WRAPPERS.has(joined(p)) && PERSON_WORDS.test(joined(p)))) return true;
  const prefix = above.length > 0 ? `${above.join('.')}.` : '';
  const details = fields.filter(
    (f) =>
      f.name !== column &&
      f.distinct > 0 &&
      f.name.startsWith(prefix) &&
      actorAbove(f.name) === undefined &&
      leafSide(f.name)?.side !== 'business' &&
      otherParty(f.name) === undefined &&
      personDetail(f),
  );
  if (details.length === 0) return false;
  let why: string | undefined;
  for (const f of details) {
    const own = ownRecordBelow(fields, column, f.name);
    const recipient = own ? undefined : recipientOnly(column, f.name);
    if (!own && !recipient) return true;
    why ??= own ?? recipient;
  }
  return why ?? false;
}

/**
 * The questions a person's id with its name alone asks: one per column guessed as the person's id
 * that no other question already offers. The guess is preselected where nothing beside it speaks
 * either way; where the only details beside it are another party's (a message's recipient, a
 * record with its own id), the question preselects its no answer.
 */
export function lonePersonIdQuestions(
  columns: readonly QuestionColumn[],
  asked: ReadonlySet<string>,
): Question[] {
  const fields = columns.map((c) => c.field);
  const out: Question[] = [];
  for (const c of columns) {
    const column = c.field.name;
    if (asked.has(column) || (c.target !== 'user_id' && c.target !== 'user.external_id')) continue;
    const found = voucher(column, fields);
    const why = lonePersonId(column, fields);
    if (why)
      out.push({
        target: c.target,
        ask: `Is ${column} the person's id? Its name says so, but nothing beside it says it is the person's and not the business's.`,
        options: [{ column, why }],
        ...(typeof found === 'string'
          ? { noneGuessed: { why: `${found}: nothing says it is the event's person's` } }
          : {}),
      });
  }
  return out;
}

/** Leaf words that make a person-named column a reference (`customer_reference`, `clientRef`). */
const REFERENCE_WORDS = new Set(['ref', 'reference', 'referenceid', 'refid']);

/**
 * Why a column named as the person's id is a reference whose owner its name cannot tell (module
 * comment), or undefined: its leaf says reference, not id.
 */
export function personReference(column: string): string | undefined {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  const word = words.find((w) => REFERENCE_WORDS.has(w));
  return word
    ? `"${word}" in its name: a reference, which may be the business's own for the request it made, not the person's id`
    : undefined;
}

/**
 * The rule applied to the guesses, in place: the person's id taken from a reference no question
 * offers yet is kept as an event field, and the page asks about it with none preselected.
 */
export function personReferenceQuestion(base: Guess[], questions: Question[]): void {
  const asked = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const at = base.findIndex(
    (g) => (g.target === 'user_id' || g.target === 'user.external_id') && !asked.has(g.column),
  );
  const taken = base[at];
  const why = taken ? personReference(taken.column) : undefined;
  if (!taken || !why) return;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named as the person's id, but ${why}: kept as a field, asked above`,
  };
  questions.push({
    target: taken.target,
    ask: `Is ${taken.column} the person's id? Its name says reference: it may be the person's number at the business, or the business's own reference for its request.`,
    options: [{ column: taken.column, why }],
    noneGuessed: { why: `${why}; nothing says whose reference it is` },
  });
}

/**
 * A question that preselects its no answer fills nothing: the person's id it asks about is kept
 * as an event field under its own name until the person picks it (questions.ts `noneGuessed`),
 * the guesses rewritten in place.
 */
export function askedIdsAsFields(base: Guess[], questions: readonly Question[]): void {
  for (const q of questions) {
    if (!q.noneGuessed || !PERSON_ID.has(q.target)) continue;
    for (const o of q.options) {
      const i = base.findIndex((g) => g.column === o.column && g.target === q.target);
      if (i >= 0)
        base[i] = {
          column: o.column,
          target: 'event_data',
          field: dataFieldName(o.column),
          why: `named as the person's id, but ${q.noneGuessed.why}: kept as a field, asked above`,
        };
    }
  }
}
