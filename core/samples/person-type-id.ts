/**
 * The record the event's type names as a person's (issue #94, docs/creator-inference.md, "A
 * person's record the type names"). A webhook about a person's record (`contact.created`,
 * `leads.created`, `CustomerLastNameSet`) often carries that record's id only as the event's
 * (`data.id`, `resource.id`, `contactCreated.id`), and with no column named for the person's id
 * the person's id was missed. Where nothing is taken or asked as the person's id, and the event's
 * type, at the top or in its `meta`, names a person's record, the own id of the record the
 * payload wraps (a plain `id` under envelopes or under an object the type names) taken or asked as
 * the event's, or of a top-level object named for that record, is offered as the person's, with
 * no answer preselected: a column is mapped once, and it keeps what it was until the person
 * picks. A column that says the kind of the record rather than the event (`subscriptionType:
 * contact.creation`, `eventCategory: CONTACT`, `resource.typeId: customer`) names it as well, and
 * an id named for the object or resource the event is about (`objectId`, `resourceId`) is that
 * record's own id as a plain one is. Pure.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PLAIN_ID, personIdAnswered } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Words of a type that name a person's record. */
const PERSON_RECORDS = new Set([
  'lead',
  'leads',
  'contact',
  'contacts',
  'subscriber',
  'subscribers',
  'customer',
  'customers',
  'member',
  'members',
  'client',
  'clients',
  'patient',
  'patients',
  'applicant',
  'person',
  'people',
  'candidate',
  'attendee',
  'guest',
]);
/** Last words of a type that say what befell the record (`created`, `update`, `new`). */
const CHANGE =
  /^(\w+ed|new|add|create|update|delete|remove|change|set|upsert|merge|creation|deletion|addition|removal)$/;
/** Names of the column that says which event a payload is (its type), read as one word. */
const TYPE_NAMES = new Set([
  'type',
  'event',
  'eventtype',
  'eventname',
  'topic',
  'trigger',
  'action',
  'notificationtype',
  // Names of a column that says the record's kind (`subscriptionType`, `eventCategory`, `typeId`).
  'subscriptiontype',
  'eventcategory',
  'objecttype',
  'resourcetype',
  'entitytype',
  'typeid',
]);
/** Objects a type sits in beside the top: an envelope's `meta`, or the resource it describes. */
const TYPE_HOLDERS = new Set(['meta', 'metadata', 'resource']);
/** An id named for the object or resource the event is about (`objectId`, `resource_id`). */
const SUBJECT_ID = /^(object|resource|entity)(id|uuid)$/;

/** The person's record word the payload's type names, or undefined. */
function personTyped(fields: readonly InferredField[]): string | undefined {
  for (const f of fields) {
    const segs = f.name.split('.');
    const top =
      segs.length === 1 || (segs.length === 2 && TYPE_HOLDERS.has(nameWords(segs[0] ?? '').join('')));
    if (
      !top ||
      f.type !== 'string' ||
      f.distinct !== 1 ||
      !TYPE_NAMES.has(nameWords(segs.at(-1) ?? '').join(''))
    )
      continue;
    const value = f.examples[0];
    // The record is the last noun before what befell it (`customer.subscription.created` names a
    // subscription, not a customer).
    const words = typeof value === 'string' ? nameWords(value) : [];
    while (words.length > 1 && CHANGE.test(words.at(-1) ?? '')) words.pop();
    const word = words.at(-1);
    if (word && PERSON_RECORDS.has(word)) return word;
  }
  return undefined;
}

/** Whether a column is the plain id of the record the payload wraps, or of an object named for the person's record. */
function recordOwnId(column: string, word: string): boolean {
  const parts = column.split('.');
  const leaf = parts.at(-1) ?? '';
  if (SUBJECT_ID.test(nameWords(leaf).join('')))
    return parts.slice(0, -1).every((p) => WRAPPERS.has(nameWords(p).join('')));
  if (parts.length < 2 || !PLAIN_ID.test(leaf)) return false;
  const stem = word.replace(/s$/, '');
  return parts
    .slice(0, -1)
    .every(
      (p) => WRAPPERS.has(nameWords(p).join('')) || nameWords(p).some((w) => w.replace(/s$/, '') === stem),
    );
}

/** The question (module comment), undefined where it does not apply. */
export function personTypeIdQuestion(
  base: readonly Guess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const word = personTyped(fields);
  if (!word) return undefined;
  // The record's own id, preferably the one taken or asked as the event's, else any the payload
  // wraps or names for the record (`contactCreated.id` beside `contact.created`).
  const asEvent = [
    ...base.filter((g) => g.target === 'event_id').map((g) => g.column),
    ...questions
      .filter((q) => (q.field ?? q.target) === 'event_id')
      .flatMap((q) => q.options.map((o) => o.column)),
  ];
  const wrapped = fields.filter((f) => f.distinct > 0 && f.name.split('.').length <= 3).map((f) => f.name);
  const column = [...asEvent, ...wrapped].find((c) => recordOwnId(c, word));
  if (!column) return undefined;
  return {
    target: 'user_id',
    ask: `Is ${column} the person's id? The event's type names a ${word}'s record, and ${column} is that record's own id: nothing else says the record is the person's, so the page asks.`,
    options: [{ column, why: `the own id of the ${word}'s record the event is about` }],
    noneGuessed: { why: "nothing but the event's type says the record is the person's" },
  };
}
