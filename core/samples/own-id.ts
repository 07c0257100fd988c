/**
 * Whose id a column named as the event's is (#94, docs/creator-inference.md#the-events-own-id).
 * A wrong event id filled without asking folds two different events into one, as they share it,
 * and the second is lost without a trace; so a column the creator takes as the event's id must be
 * the event's, or the payload's own (the id of what it is about), never the id of something the
 * payload mentions. Its name alone does not settle that: `eventId` in a booking is the booked
 * calendar event's, and `message_id` in a bounce the bounced message's. The evidence read here:
 *
 * - the payload's own id, a plain `id` (`_id`, `uuid`) at the same level, each row's own and
 *   shaped as an id: beside it, a compound name (`eventId`, `message_id`) may refer to another
 *   thing as well as name the event, so the page asks which is the event's own id, never fills
 *   one silently;
 * - an object named by the compound's first words (`eventData`, `event_details`, `message`) that
 *   the payload describes with fields of its own: the compound is then that object's id, a
 *   reference, and the payload's own id is preselected.
 *
 * Delivery and request ids (`delivery_id`, `request_id`) and ids inside another object are kept
 * out before this (delivery.ts, guess.ts), and trace ids are never named as an event's. Pure.
 */
import { recordNamedByType } from './actor.ts';
import { atEnvelopeTop, deliveryColumns, everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PLAIN_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');

/** The words before `id` of a compound id's name (`eventId` → `event`), or none for a plain id. */
function refersTo(column: string): string[] {
  const words = nameWords(leafOf(column));
  return words.length > 1 && /^(id|uuid)$/.test(words.at(-1) ?? '') ? words.slice(0, -1) : [];
}

/**
 * The object of the payload, beside the column, that the compound's words name and that holds
 * fields other than ids (`eventData` with `eventData.name`): the thing whose id the column is.
 */
function describedObject(fields: readonly InferredField[], column: string, words: readonly string[]) {
  const parent = parentOf(column);
  const depth = parent === '' ? 0 : parent.split('.').length;
  const described = fields.find((f) => {
    const segs = f.name.split('.');
    if (f.name === column || segs.length < depth + 2) return false;
    if (parent !== '' && !f.name.startsWith(`${parent}.`)) return false;
    const own = nameWords(segs[depth] ?? '');
    if (!words.every((w, i) => own[i] === w)) return false;
    const leaf = nameWords(segs.at(-1) ?? '');
    return f.distinct > 0 && leaf.at(-1) !== 'id' && leaf.at(-1) !== 'uuid';
  });
  return described?.name
    .split('.')
    .slice(0, depth + 1)
    .join('.');
}

/**
 * The question of which column is the event's own id, where the column taken as it is named as
 * an event id beside the payload's own plain id (module comment); undefined where no doubt. The
 * guesses are rewritten in place so that the question's first option is the one taken: the
 * named column, or the payload's own id when the named one is the id of an object the payload
 * describes.
 */
export function ownIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const named = base.findIndex((g) => g.target === 'event_id');
  const chosen = base[named];
  if (!chosen || !atEnvelopeTop(chosen.column)) return undefined;
  const words = refersTo(chosen.column);
  if (words.length === 0) return undefined;
  const parent = parentOf(chosen.column);
  const own = base.findIndex((g) => {
    const f = fields.find((x) => x.name === g.column);
    return (
      g.target === 'event_data' &&
      f !== undefined &&
      (f.type === 'string' || f.type === 'integer') &&
      parentOf(g.column) === parent &&
      PLAIN_ID.test(leafOf(g.column)) &&
      everyRowOwn(rows, g.column) &&
      idShaped(rows, g.column)
    );
  });
  const mine = base[own];
  if (!mine) return undefined;
  const object = describedObject(fields, chosen.column, words);
  const ownWhy = "the payload's own id: the id of what it is about";
  const namedWhy = object
    ? `named as an event id, but the payload describes that ${words.join(' ')} (${object}): its id, a reference`
    : `named as an event id, but the payload has its own id (${mine.column}) beside it, and the name may refer to something it mentions`;
  if (object) {
    base[own] = { column: mine.column, target: 'event_id', why: `${ownWhy}; asked above, preselected` };
    base[named] = {
      column: chosen.column,
      target: 'event_data',
      field: dataFieldName(chosen.column),
      why: `${namedWhy}; kept as a field, asked above`,
    };
  }
  const first = object ? { column: mine.column, why: ownWhy } : { column: chosen.column, why: namedWhy };
  const second = object ? { column: chosen.column, why: namedWhy } : { column: mine.column, why: ownWhy };
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? ${chosen.column} is named as one, ${mine.column} is the payload's own: a wrong one folds different events into one.`,
    options: [first, second],
  };
}

/** A compound id's words that name the event itself, or a key kept to tell its copies apart. */
const EVENT_WORDS = /^(event|webhook event|ereignis|dedup|dedupe|deduplication)$/;

/**
 * Why a column named like an event id for another record (`message_id`: the e-mail every event
 * of it shares, sent, delivered, opened) may not take the event's id, or undefined: at the
 * envelope's top beside it, a column is named for the event itself (`event_id`, `eventUuid`)
 * and holds values. Two names that both read as the event's id are otherwise told apart by
 * their order in the payload, which says nothing; the one that names the event is its id.
 */
export function namedForAnotherRecord(fields: readonly InferredField[], column: string): string | undefined {
  const words = refersTo(column);
  if (words.length === 0 || EVENT_WORDS.test(words.join(' ')) || !atEnvelopeTop(column)) return undefined;
  const event = fields.find(
    (f) =>
      f.name !== column &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      atEnvelopeTop(f.name) &&
      parentOf(f.name) === parentOf(column) &&
      /^(event|webhook event|ereignis)$/.test(refersTo(f.name).join(' ')),
  );
  return event
    ? `named for a ${words.join(' ')}, which every event of it may share; ${event.name} beside it is named for the event`
    : undefined;
}

/** What a delivery was sent to, at the envelope's top: the vendor's webhook subscription, endpoint or hook. */
const SENT_TO = /^(webhook )?(subscription|endpoint|hook|destination|webhook) (id|uuid)$/;
/** A compound id's words naming a notification: one sending of an event to one subscriber. */
const NOTIFICATION = /^(webhook )?(notification|notif)$/;
const isTime = (f: InferredField) =>
  f.type === 'timestamp' ||
  f.type === 'date' ||
  f.pattern === 'epoch_seconds' ||
  f.pattern === 'epoch_millis';

/**
 * The question of whether a compound event id (`eventId`, `notification_id`) is the event's or
 * one delivery's, undefined where no doubt. An envelope that names the subscription or endpoint
 * it was delivered to (`subscriptionId`, `webhook_id`) is one delivery of the event; when it says
 * nothing of when the event happened (no time anywhere in the payload) and counts no attempts (a
 * counter would tell a retry apart on its own, so the id is the event's), nothing shows that its
 * id stays the same on a retry: a vendor may give each delivery attempt its own. The page asks,
 * the named column preselected (a delivery's id makes a retry a second row; the record's id alone
 * would fold every later change of the record into the first), the record the event's type names
 * (`booking.created` → `identifiers.bookingId`) offered beside it. An id named for a notification
 * (`notification_id`) says the same of itself, with nothing beside it: a notification is one
 * sending of the event, which a vendor may send again, and for some its id is the event's
 * (beside a time), for others one sending's (beside an `event_id` of the event's own).
 */
export function deliveredIdQuestion(
  fields: readonly InferredField[],
  base: readonly Guess[],
): Question | undefined {
  const chosen = base.find((g) => g.target === 'event_id');
  if (!chosen || !atEnvelopeTop(chosen.column) || refersTo(chosen.column).length === 0) return undefined;
  const sentTo = fields.find(
    (f) => f.distinct > 0 && atEnvelopeTop(f.name) && SENT_TO.test(nameWords(leafOf(f.name)).join(' ')),
  );
  const notification = NOTIFICATION.test(refersTo(chosen.column).join(' '));
  if (
    (!sentTo && !notification) ||
    fields.some(isTime) ||
    deliveryColumns(fields).some((d) => d.kind === 'attempt')
  )
    return undefined;
  const record = recordNamedByType(fields, (c) => c !== chosen.column && c !== sentTo?.name);
  const says = sentTo
    ? `The payload names what it was delivered to (${sentTo.name}) and`
    : "Its name says it is a notification's, one sending of the event, and the payload says";
  return {
    target: 'event_id',
    ask: `Is ${chosen.column} the event's own id? ${says} nothing of when the event happened: a vendor may give each delivery attempt its own id, and then a retry is a second row.`,
    options: [
      {
        column: chosen.column,
        why: sentTo
          ? `named as an event id, beside ${sentTo.name}: the event's, or one delivery's`
          : "named for a notification: the event's, or one sending's",
      },
      ...(record
        ? [
            {
              column: record.id,
              why: `the id of the ${record.kind?.value} the event's type (${record.kind?.column}) names: a later change of it would be folded into the first`,
            },
          ]
        : []),
    ],
  };
}
