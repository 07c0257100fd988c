/**
 * The person record's own id (docs/creator-inference.md#the-person-records-own-id, issue #94).
 * A payload whose record IS the person (a CRM contact, a subscriber, a user: their names beside
 * their e-mails, phones or address, at the record's own level, and no money there) has its own
 * `id`, and that id is the person's. A sibling compound id (`customerId`, `account_id`,
 * `companyId`, `list_id`) points at ANOTHER record: the customer organisation the contact belongs
 * to, the account, the list. It is not the person's id on its name alone: the guess that took it
 * is undone, the column kept as an event field, and the page asks with no answer preselected,
 * offering the record's own id beside it; the record's own id, when no other guess holds it,
 * takes the person's id instead. A `customer_id` on an ORDER record stays the buyer's: an order
 * carries money, and is not the person. Pure.
 */

import { askColumns } from './ask-columns.ts';
import { nameWords } from './names.ts';
import { ACTING_WORDS, heldByBusiness, otherParty } from './party.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PERSON_ID, PLAIN_ID, personIdAnswered } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';
import { actorAbove } from './two-evidence.ts';

/** Leaf names of a person's own name, written whole (`firstName`, `last_name`, `fullname`). */
const NAME_LEAVES = new Set(['firstname', 'lastname', 'fullname', 'givenname', 'familyname', 'surname']);
/** Leaf words of a person's contact detail or address (`emails`, `phoneNumbers`, `addressDetails`). */
const CONTACT_WORDS = new Set(['email', 'emails', 'phone', 'phones', 'mobile', 'address', 'addresses']);
/** Leaf words of money: a record holding them is a payment, an order, a transaction. */
const MONEY_WORDS = new Set(['amount', 'total', 'subtotal', 'price', 'currency', 'value', 'fee']);
/** Words of a record that is a place or a copy of a person's details, not the person. */
const PLACE_WORDS = new Set(['address', 'addresses', 'billing', 'shipping', 'delivery', 'location']);
const ID_TYPES = new Set(['string', 'integer']);

const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
/** The object a column sits in: its path without the leaf (`` for the payload's top). */
export const levelOf = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.')));
/** The next path segment under `level` (the column's own leaf, or the object it sits in below). */
function childOf(level: string, column: string): string | undefined {
  const prefix = level === '' ? '' : `${level}.`;
  return column.startsWith(prefix) ? column.slice(prefix.length).split('.')[0] : undefined;
}

/** The columns whose path runs through `level` (every column for the payload's top). */
const under = (fields: readonly InferredField[], level: string) =>
  fields.filter((f) => f.distinct > 0 && (level === '' || f.name.startsWith(`${level}.`)));

/**
 * Whether the record at `level` holds money at its own level (an amount, a total, a currency
 * code): then it is a payment, an order or a transaction, whatever person's details it carries.
 */
export function holdsMoney(fields: readonly InferredField[], level: string): boolean {
  return under(fields, level).some((f) => {
    if (levelOf(f.name) !== level) return false;
    if (f.format === 'currency') return true;
    const words = nameWords(leafOf(f.name));
    return (f.type === 'integer' || f.type === 'number') && words.some((w) => MONEY_WORDS.has(w));
  });
}

/**
 * Whether the record at `level` is itself a person: its own level (an object directly under it
 * counts, `addressDetails.city`) holds the person's name written as one (`firstName`, `fullName`)
 * and a contact detail or an address, holds no money, and is no business party's (`company`) nor
 * an address's.
 */
export function isPersonRecord(fields: readonly InferredField[], level: string): boolean {
  if (level !== '' && otherParty(`${level}.x`) !== undefined) return false;
  // An address (`address`, `billing`, `shipping_address`) holds a person's name and phone, but
  // is a record of its own whose owner another id names: the customer's `address.customer_id`.
  if (nameWords(leafOf(level)).some((w) => PLACE_WORDS.has(w))) return false;
  if (holdsMoney(fields, level)) return false;
  const children = under(fields, level).map((f) => ({ f, child: childOf(level, f.name) ?? '' }));
  const named = children.some(
    ({ f, child }) => child === leafOf(f.name) && NAME_LEAVES.has(nameWords(child).join('')),
  );
  const contact = children.some(
    ({ f, child }) =>
      f.format === 'email' || f.format === 'phone' || nameWords(child).some((w) => CONTACT_WORDS.has(w)),
  );
  return named && contact;
}

/** The record's own plain id at `level` (`id`, `uuid`), shaped as an id, or undefined. */
function ownIdAt(fields: readonly InferredField[], level: string): InferredField | undefined {
  return fields.find(
    (f) =>
      f.distinct > 0 && levelOf(f.name) === level && PLAIN_ID.test(leafOf(f.name)) && ID_TYPES.has(f.type),
  );
}

/**
 * The rule (module comment) applied to the guesses, in place; the question it asks, if any. Only
 * a compound id (`customerId`: more than one word, ending in an id word) beside the record's own
 * id is undone, and only where the record is the person; one holding the record's own id in every
 * row is that id under another name, and stays.
 */
export function personRecordIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const at = base.findIndex((g) => PERSON_ID.has(g.target));
  const taken = base[at];
  if (!taken) return undefined;
  const words = nameWords(leafOf(taken.column));
  if (words.length < 2 || !['id', 'uuid'].includes(words.at(-1) as string)) return undefined;
  const level = levelOf(taken.column);
  const own = ownIdAt(fields, level);
  if (!own || own.name === taken.column || !isPersonRecord(fields, level)) return undefined;
  if (rows.every((r) => String(r[own.name]) === String(r[taken.column]))) return undefined;
  const record = level === '' ? 'the payload' : level;
  const refers = `names another record (${words.slice(0, -1).join(' ')}) beside ${record}'s own id ${own.name}, where ${record} is the person (their name and contact details, no money)`;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `named as the person's id, but it ${refers}: kept as a field`,
  };
  const i = base.findIndex((g) => g.column === own.name);
  const mine = base[i];
  if (mine && mine.target === 'event_data') {
    base[i] = {
      column: own.name,
      target: taken.target,
      why: `the id of ${record}, which is the person: their own record's id`,
    };
    return undefined;
  }
  return {
    target: taken.target,
    ask: `Is ${taken.column} the person's id? It ${refers}. ${own.name} is the person's own id, but it is taken as the event's id.`,
    options: [
      { column: own.name, why: `${record}'s own id: the person's, as ${record} is the person` },
      { column: taken.column, why: `it ${refers}` },
    ],
    noneGuessed: { why: `${taken.column} names another record; ${own.name} is taken as the event's id` },
  };
}

/**
 * A person record's own id no rule took (docs/creator-inference.md, "The person record's own
 * id"): with no column taken or asked about as the person's id, the plain `id` of a record that
 * is a person (`isPersonRecord`: their name beside their e-mail, phone or address, no money, no
 * business party's nor an actor's, nor one that says it holds an agent), kept as a field, is the person's id by the record it
 * identifies, not by its name. A record of a person may still be a staff user's, so the page asks,
 * never fills it: the one such id preselected, several offered with no answer preselected. An id
 * taken as the event's (the record the event is about is the person: `partner.updated` carrying the
 * partner's record) is offered as the person's too, with no answer preselected.
 */
export function personRecordOwnIdQuestion(
  base: Guess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  // The event's id taken from a person record's own id: that record is what the event is about.
  const event = new Set(base.filter((g) => g.target === 'event_id').map((g) => g.column));
  const levels = [...new Set(fields.map((f) => levelOf(f.name)))];
  const held = heldByBusiness(fields);
  const ids = levels.flatMap((level) => {
    const own = ownIdAt(fields, level);
    if (!own || !(kept.has(own.name) || event.has(own.name))) return [];
    if ((actorAbove(own.name) ?? held(own.name)) !== undefined) return [];
    if (level.split('.').some((p) => nameWords(p).some((w) => ACTING_WORDS.has(w)))) return [];
    return isPersonRecord(fields, level) ? [{ own, record: level === '' ? 'the payload' : level }] : [];
  });
  if (ids.length === 0) return undefined;
  const options = ids.slice(0, 3).map(({ own, record }) => ({
    column: own.name,
    why: `the own id of ${record}, a record of a person (a name beside contact details, no money)`,
  }));
  const one = ids.length === 1 ? ids[0] : undefined;
  // Taken as the event's id, it keeps that target: the page offers it as the person's too, none preselected.
  const asEvent = one !== undefined && event.has(one.own.name);
  return askColumns(base, 'user_id', options, one !== undefined && !asEvent, {
    ask: asEvent
      ? `Is ${one.own.name} the person's id too? ${one.record} holds a person's name and contact details, and this, its own id, is taken as the event's id: the record the event is about is the person.`
      : one
        ? `Is ${one.own.name} the person's id? ${one.record} holds a person's name and contact details, and this is its own id, but nothing names it as the person's.`
        : "Is one of these the person's id? Each is the own id of a record of a person, and nothing says which is the event's.",
    taken: "the own id of a record of a person, no other id being the person's: asked above, preselected",
    none: asEvent
      ? "taken as the event's id: a column is mapped once, so the page asks before it is the person's"
      : 'several records of people, and nothing says which is the person the event is about',
  });
}

/**
 * The person's record as what the event is about (docs/creator-inference.md, "The person record
 * as the event's subject"): a payload with no id of its own, nothing taken or asked as the event's
 * id, that carries a person's record whole (`subscriber: { id, first_name, email }`) whose own
 * plain id is taken as the person's, is about that record (a subscriber activated, an account to
 * confirm). Its id tells one such event from another as far as anything does, but a later event
 * about the same person shares it, so the page offers it as the event's id with no answer
 * preselected; it keeps the person's id until the person picks.
 */
export function personRecordEventIdQuestion(
  base: readonly Guess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_id')) return undefined;
  const own = base.find(
    (g) =>
      PERSON_ID.has(g.target) &&
      PLAIN_ID.test(leafOf(g.column)) &&
      levelOf(g.column) !== '' &&
      isPersonRecord(fields, levelOf(g.column)),
  );
  if (!own) return undefined;
  const record = levelOf(own.column);
  return {
    target: 'event_id',
    ask: `Is ${own.column} the event's own id? The payload has no id of its own and carries ${record}, a person's record, whole: its id is the person's, and a later event about the same person shares it.`,
    options: [
      { column: own.column, why: `the own id of ${record}, the person's record the payload carries` },
    ],
    noneGuessed: {
      why: `it is the person's id: a second event about the same person would fold into the first`,
    },
  };
}
