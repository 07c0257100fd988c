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
import { businessParty } from './party.ts';
import type { Question, QuestionColumn } from './questions.ts';
import { PERSON_WORDS, WRAPPERS } from './roles.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
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

const joined = (part: string) => nameWords(part).join('');

/** Whether a column holds one of the person's details: by its values' shape or by its name. */
function personDetail(f: InferredField): boolean {
  if (f.format === 'email' || f.format === 'phone') return true;
  const leaf = f.name.slice(f.name.lastIndexOf('.') + 1);
  const words = nameWords(leaf);
  return DETAIL_LEAVES.has(words.join('')) || words.some((w) => CONTACT_WORDS.has(w));
}

/**
 * Why a column named as the person's id has only its name for it, or undefined when its place
 * agrees: an object above it is the person's (not an envelope), or the object it sits in (the
 * whole payload for a top-level column) holds one of the person's details that is neither under
 * an actor nor named as the business's, nor a business party's (party.ts: `assignedUserPhone`),
 * nor always empty (a `Name: null` shows nobody's name).
 */
export function lonePersonId(column: string, fields: readonly InferredField[]): string | undefined {
  const above = column.split('.').slice(0, -1);
  if (above.some((p) => !WRAPPERS.has(joined(p)) && PERSON_WORDS.test(joined(p)))) return undefined;
  const prefix = above.length > 0 ? `${above.join('.')}.` : '';
  const beside = fields.some(
    (f) =>
      f.name !== column &&
      f.distinct > 0 &&
      f.name.startsWith(prefix) &&
      actorAbove(f.name) === undefined &&
      leafSide(f.name)?.side !== 'business' &&
      businessParty(f.name) === undefined &&
      personDetail(f),
  );
  return beside
    ? undefined
    : "named as the person's id, but nothing beside it (an e-mail, a name, a phone) or above it (a customer, a user) says it is the person's";
}

/**
 * The questions a person's id with its name alone asks (the guess preselected, as every question):
 * one per column guessed as the person's id that no other question already offers.
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
    const why = lonePersonId(column, fields);
    if (why)
      out.push({
        target: c.target,
        ask: `Is ${column} the person's id? Its name says so, but nothing beside it says it is the person's and not the business's.`,
        options: [{ column, why }],
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
