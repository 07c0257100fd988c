/**
 * A record's own id as the event's (docs/creator-inference.md, "A record's own id"). Many
 * payloads carry no id of their own at their top: the event is a record the body holds (a
 * payment, a message, a booking, an e-mail sent), and that record's id (`payment.txn_id`,
 * `payload.message_id`, `email.id`, `appointment.bookingId`) is what tells one event from
 * another. Its name and place alone do not settle that it is the event's: taken as the event's
 * id, a second webhook about the same record (a later change of it) folds into the first. So the
 * page asks, never fills it silently: the id preselected where the event's type names its record,
 * or where it is the only one and its record is the payload's wrapped object or a kind of record
 * an event is about; otherwise each offered with no answer preselected.
 *
 * A record's own id is, in an object that names no party (not a customer's, a sender's, a
 * company's: party.ts) but the person's own the event's type names (`data.user` beside
 * `user.created`, offered with none preselected, even when taken as the person's), nor who acted (an `actor`, a `sender`, an owner: two-evidence.ts), and
 * sits at most three levels down: its plain `id` (`_id`, `uuid`), or
 * where it has none an id named for the record itself (`message.message_id`), for a kind of
 * record an event is about (`txn_id`, `bookingId`, `message_id`, `chatId`, `documentId`) or for the record
 * the event's type names before its step (`data.leadId` beside `lead.created`,
 * `data.envelopeId` beside `envelope-sent`); in every row, no two alike, shaped as an id; never
 * delivery metadata nor a caller's request reference. A person's record's id (`data.leadId`,
 * `contact.id`) is the person's id as much as the event's: it is offered first with no answer
 * preselected, so that party-id.ts may preselect it as the person's. Pure.
 */
import { deliveryColumns, everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import { partyOf, personWord } from './party.ts';
import type { Question } from './questions.ts';
import { requestReference } from './request-ref.ts';
import { WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PERSON_ID, PLAIN_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';

/** Kinds of record an event is about, as an id's name says them (`txn_id`, `bookingId`). */
const RECORDS = new Set(
  'transaction txn payment order message msg booking appointment reservation ticket invoice charge purchase sale subscription submission response entry email mail chat conversation document'.split(
    ' ',
  ),
);
/** Objects that are who acted, not what the event is about (`actor`, `sender`, `changer`). */
const ACTING = new Set(
  'actor changer author sender from creator editor modifier initiator performer'.split(' '),
);

/** Names of the columns that name the event's type, whose values may name its record. */
const TYPE_NAMES = new Set(['type', 'event', 'eventtype', 'eventname', 'topic', 'trigger', 'category']);

const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const parentOf = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.')));

/** The record an object path names: its last segment that is no envelope (`data.message` → message), or ''. */
function recordName(parent: string): string {
  const named = parent.split('.').filter((s) => !WRAPPERS.has(nameWords(s).join('')));
  return nameWords(named.at(-1) ?? '').join(' ');
}

/**
 * An id named for a record: its words before `id` are the record's own name, a kind of record, or
 * the record the event's type names (`leadId` beside `event: lead.created`; `typed` holds the
 * records the type names, typeRecords).
 */
function namedForRecord(column: string, typed: ReadonlySet<string> = new Set()): boolean {
  const words = nameWords(leafOf(column));
  if (words.length < 2 || !['id', 'uuid'].includes(words.at(-1) as string)) return false;
  const head = words.slice(0, -1);
  return (
    head.join(' ') === recordName(parentOf(column)) ||
    (head.length === 1 && RECORDS.has(head[0] as string)) ||
    typed.has(head.join(' '))
  );
}

/** The records' own ids (module comment), the shallowest first. */
function recordIds(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: readonly Guess[],
): string[] {
  const skip = new Set(deliveryColumns(fields).map((d) => d.column));
  const typed = typeRecords(fields);
  // A person's own object the event's type names (`data.user` beside `user.created`): its id is
  // what the event is about, and may already be taken as the person's.
  const typedPerson = (parent: string) => {
    const record = recordName(parent);
    return record !== '' && personWord(record.split(' ').at(-1) as string) && typed.has(record);
  };
  const fits = fields.filter((f) => {
    const depth = f.name.split('.').length;
    const parent = parentOf(f.name);
    return (
      // At the payload's top only an id named for a kind of record (`submissionId`): the payload
      // is that record, sent without a plain id of its own.
      (depth >= 2 || namedForRecord(f.name, typed)) &&
      depth <= 4 &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      f.format !== 'email' &&
      f.format !== 'url' &&
      !skip.has(f.name) &&
      requestReference(f.name) === undefined &&
      (partyOf(parent) === undefined || typedPerson(parent)) &&
      actorAbove(f.name) === undefined &&
      !parent.split('.').some((p) => ACTING.has(nameWords(p).join(''))) &&
      base.some(
        (g) =>
          g.column === f.name &&
          (g.target === 'event_data' || (typedPerson(parent) && PERSON_ID.has(g.target))),
      ) &&
      everyRowOwn(rows, f.name) &&
      idShaped(rows, f.name) &&
      (PLAIN_ID.test(leafOf(f.name)) || namedForRecord(f.name, typed))
    );
  });
  // Beside a record's plain id, an id named for another thing refers to that thing.
  const own = fits.filter(
    (f) =>
      PLAIN_ID.test(leafOf(f.name)) ||
      !fits.some((o) => o !== f && parentOf(o.name) === parentOf(f.name) && PLAIN_ID.test(leafOf(o.name))),
  );
  return own.map((f) => f.name).sort((a, b) => a.split('.').length - b.split('.').length);
}

/**
 * Whether an id's record is, by its place or name, what an event is about: the payload's wrapped
 * object (`data.id`, `payload.message_id`) or a kind of record an event is about (`payment`,
 * `message`, `booking`); another object (a `plan`, a `product`, a `gender`) may be a thing the
 * event mentions.
 */
function aboutIt(column: string): boolean {
  const record = recordName(parentOf(column));
  return record === '' || RECORDS.has(record.split(' ').at(-1) as string);
}

/** The event type's values, from its top-level column (`lead.created`). */
const typeValues = (fields: readonly InferredField[]) =>
  fields
    .filter((f) => !f.name.includes('.') && TYPE_NAMES.has(nameWords(f.name).join('')))
    .flatMap((t) => t.examples.filter((v): v is string => typeof v === 'string'));

/**
 * The records the event's type names before its step (`lead.created` → lead,
 * `crm_contact.created` → crm contact): every word of a type's value but its last.
 */
const typeRecords = (fields: readonly InferredField[]) =>
  new Set(
    typeValues(fields)
      .map((v) => nameWords(v).slice(0, -1).join(' '))
      .filter((r) => r !== ''),
  );

/**
 * The record the event's type names (`message_sent`, `campaign.email.sent`), among the ids'
 * records, or by an id's own name (`data.leadId` beside `lead.created`).
 */
function namedByType(fields: readonly InferredField[], ids: readonly string[]): string | undefined {
  const words = new Set(typeValues(fields).flatMap((v) => nameWords(v)));
  const records = typeRecords(fields);
  const named = ids.filter((c) => {
    const record = recordName(parentOf(c));
    if (record !== '') return record.split(' ').every((w) => words.has(w));
    return records.has(nameWords(leafOf(c)).slice(0, -1).join(' '));
  });
  return named.length === 1 ? named[0] : undefined;
}

/**
 * Whether an id's record, by its object or its own name, is a person party's (`data.leadId`,
 * `contact.id`), or, for the plain id of the wrapped record (`data.id`), by the record the event's
 * type names (`user.created`, `users.created`: `records`, typeRecords).
 */
function personsRecord(column: string, records: ReadonlySet<string>): boolean {
  const named = nameWords(leafOf(column)).slice(0, -1);
  const object = recordName(parentOf(column));
  const record = named.length > 0 ? named : object.split(' ');
  if (personWord(record.at(-1) as string)) return true;
  return (
    named.length === 0 && object === '' && [...records].some((r) => personWord(r.split(' ').at(-1) as string))
  );
}

/**
 * With no column taken as the event's id and no id at the payload's top, the question of which
 * record's own id is the event's (module comment), undefined where there is none. The one
 * preselected, when there is one, is rewritten in place as the event's id.
 */
export function recordIdQuestion(
  base: Guess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (fields.some((f) => !f.name.includes('.') && f.distinct > 0 && PLAIN_ID.test(f.name))) return undefined;
  const ids = recordIds(fields, rows, base);
  if (ids.length === 0) return undefined;
  const first =
    namedByType(fields, ids) ?? (ids.length === 1 && aboutIt(ids[0] as string) ? ids[0] : undefined);
  // A person's record (`data.leadId` beside `lead.created`) is the person's id as much as the
  // event's: offered first, nothing preselected, so that the person's may be (party-id.ts).
  const chosen = first !== undefined && personsRecord(first, typeRecords(fields)) ? undefined : first;
  const folds =
    'taken as the event’s id, a second webhook about the same record (a later change of it) is folded into the first';
  const options = [...(first ? [first] : []), ...ids.filter((c) => c !== first)].slice(0, 4).map((c) => ({
    column: c,
    why: `the own id of ${parentOf(c)}, a record the payload holds`,
  }));
  if (chosen) {
    const i = base.findIndex((g) => g.column === chosen);
    base[i] = {
      column: chosen,
      target: 'event_id',
      why: `the own id of ${parentOf(chosen)}, the record the event is about; the payload has no id at its top: asked above, preselected`,
    };
    return {
      target: 'event_id',
      ask: `Is ${chosen} the event's own id? The payload has no id at its top; ${chosen} is the id of the record it holds, ${parentOf(chosen)}: ${folds}.`,
      options,
    };
  }
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? The payload has no id at its top; these are ids of records it holds, and nothing says which the event is about: ${folds}.`,
    options,
    noneGuessed: { why: 'nothing says which record, if any, the event is about' },
  };
}
