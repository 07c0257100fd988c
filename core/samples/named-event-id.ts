/**
 * A column named as the event's id that the payload alone cannot vouch for (issue #94,
 * docs/creator-inference.md, "What answered the nineteenth part's errors"). Its name says
 * `event_id`, and most often it is the webhook event's; but two kinds of payload leave that open:
 *
 * - a payload that says no event: no column at its top, or in its `meta`, names which event it
 *   is (a `type`, `event`, `topic`, `trigger`), and it nests no object (`data`, `payload`,
 *   `subscriber`): a flat record. A column named for the same thing as the id (`event_name`
 *   beside `event_id`) whose values are a title (`Angels East Fest`: words, no code's dots or
 *   underscores) is that thing's name, an occasion's, and says no event either. It is then a record's body, not an event's envelope, and in a
 *   record `event_id` is as often the id of an event the record belongs to (a show a ticket is
 *   for, a booked meeting) as the webhook's own. The page asks, with no answer preselected,
 *   offering it beside the record's own ids at its level;
 * - an envelope whose named event id sits beside the own id of the record it wraps (`data.id`, or
 *   `data.subscriptionSlug` beside `subscription.created`): nothing in one body shows whether the
 *   envelope's id stays the same when the vendor sends the event again, and some vendors give
 *   each delivery its own (a retry is then a second row). Its name is evidence enough to
 *   preselect it, not to fill it silently: the page asks, the record's id offered beside it.
 *
 * Neither rule reads a vendor's or a field's name beyond the words `event` and `id`, a
 * discriminator's, the envelope's wrappers and the record its type names. Pure, but for the
 * guess the first rewrites.
 */
import { deliveryColumns, everyRowOwn, idShaped } from './delivery.ts';
import { wrappedIdShaped } from './envelope-id.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PLAIN_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');

/** Names of the column that says which event a payload is (its discriminator), read as one word. */
const TYPE_NAMES = new Set(['event', 'eventname', 'action', 'kind', 'triggerevent']);
/** Last words of a discriminator's name (`type`, `subscriptionType`, `event_fqn`, `topic`). */
const TYPE_WORDS = new Set(['type', 'topic', 'trigger', 'fqn']);
/** Objects an envelope keeps its discriminator in, beside the top (`meta.type`, `metadata.topic`). */
const TYPE_HOLDERS = new Set(['meta', 'metadata', 'event', 'header', 'headers']);
/** Last words of a record's own id: an id, a UUID, or a slug (a stable name that identifies it). */
const OWN_ID_WORDS = new Set(['id', 'uid', 'uuid', 'guid', 'slug']);
/** Targets of a person's id: never a record's own id offered for the event's. */
const PERSON_TARGET = /^(user_id|user\.|anonymous_id)/;

/** A top-level column named for the event itself (`event_id`, `eventId`, `EventID`). */
function namedEventId(column: string): boolean {
  const words = nameWords(column);
  return !column.includes('.') && words.length === 2 && words[0] === 'event' && words[1] === 'id';
}

/** A value written as a title (`Angels East Fest`): words and spaces, none of a code's separators. */
const TITLE = /^[^\s._/:]+( [^\s._/:]+)+$/u;

/**
 * A column named for the same thing as the id (`event_name`, `eventTitle` beside `event_id`: its
 * first word is the id's) whose every value is a title: the name of the occasion the id
 * identifies, not a discriminator.
 */
function namesTheIdsThing(f: InferredField, id: string): boolean {
  const words = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
  return (
    words.length > 1 &&
    words[0] === nameWords(id)[0] &&
    f.examples.length > 0 &&
    f.examples.every((v) => typeof v === 'string' && TITLE.test(v.trim()))
  );
}

/**
 * A column at the top or in a holder object names which event the payload is; with `id`, not one
 * that names the thing that id identifies (`namesTheIdsThing`).
 */
function typeColumn(fields: readonly InferredField[], id?: string): InferredField | undefined {
  return fields.find((f) => {
    if (id !== undefined && namesTheIdsThing(f, id)) return false;
    const segs = f.name.split('.');
    const top =
      segs.length === 1 || (segs.length === 2 && TYPE_HOLDERS.has(nameWords(segs[0] ?? '').join('')));
    const words = nameWords(segs.at(-1) ?? '');
    const named = TYPE_NAMES.has(words.join('')) || TYPE_WORDS.has(words.at(-1) ?? '');
    return top && named && f.distinct > 0 && f.type === 'string';
  });
}

/**
 * Whether the payload nests an object (`data`, `payload`, or a record it is about, `subscriber`,
 * `payment`): its top is then an envelope's, and a flat record's body it is not.
 */
const nests = (fields: readonly InferredField[]) => fields.some((f) => f.name.includes('.'));

/**
 * The question of a named event id in a payload that names no event (module comment), undefined
 * where the payload names one, nests an object (`data`, `payload`, `subscriber`: its top is then
 * an envelope's), or the chosen column is no top-level `event_id`. The guess is
 * rewritten in place as an event field, asked above, nothing preselected.
 */
export function unnamedEventIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const at = base.findIndex((g) => g.target === 'event_id');
  const chosen = base[at];
  if (!chosen || !namedEventId(chosen.column) || typeColumn(fields, chosen.column) || nests(fields))
    return undefined;
  const own = base.filter((g) => {
    const f = fields.find((x) => x.name === g.column);
    return (
      g.column !== chosen.column &&
      !g.column.includes('.') &&
      !PERSON_TARGET.test(g.target) &&
      f !== undefined &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      OWN_ID_WORDS.has(nameWords(g.column).at(-1) ?? '') &&
      everyRowOwn(rows, g.column) &&
      idShaped(rows, g.column)
    );
  });
  base[at] = {
    column: chosen.column,
    target: 'event_data',
    field: dataFieldName(chosen.column),
    why: `named as an event id, but nothing in the payload names an event: ${chosen.column} may be the id of an event the record belongs to (a show, a meeting); kept as a field, asked above`,
  };
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? ${chosen.column} is named as one, but nothing in the payload says which event it is: it may be the id of an event the record belongs to (a show, a booked meeting), shared by every record of it.`,
    options: [
      {
        column: chosen.column,
        why: "named as an event id: the webhook event's, or an event the record belongs to",
      },
      ...own.map((g) => ({ column: g.column, why: "an id of the record's own, at the payload's top" })),
    ],
    noneGuessed: { why: 'nothing in the payload names an event, so nothing says whose event id it is' },
  };
}

/** The own id of the record an envelope wraps: under wrappers only, a plain id or one named for the record its type names. */
function wrappedOwnId(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  envelope: string,
  record: readonly string[],
): InferredField | undefined {
  return fields.find((f) => {
    const parts = f.name.split('.');
    const words = nameWords(parts.at(-1) ?? '');
    const named =
      PLAIN_ID.test(parts.at(-1) ?? '') ||
      (record.length > 0 &&
        OWN_ID_WORDS.has(words.at(-1) ?? '') &&
        words.slice(0, -1).join(' ') === record.join(' '));
    return named && wrappedIdShaped(f, rows, envelope);
  });
}

/**
 * The question of an envelope's named event id beside its record's own id (module comment),
 * undefined where there is no such record, the envelope counts its delivery attempts (a counter
 * tells a retry apart by itself, so the id beside it stays the same), or another question already
 * offers the column. The named id stays the guess, preselected.
 */
export function envelopeNamedIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: readonly Guess[],
  questions: readonly Question[],
): Question | undefined {
  const chosen = base.find((g) => g.target === 'event_id');
  if (!chosen || !namedEventId(chosen.column) || parentOf(chosen.column) !== '') return undefined;
  if (questions.some((q) => q.options.some((o) => o.column === chosen.column))) return undefined;
  if (deliveryColumns(fields).some((d) => d.kind === 'attempt')) return undefined;
  const type = typeColumn(fields);
  const value = type?.examples[0];
  // `subscription.created` names the record before what befell it: a last word that is a past
  // participle (`created`, `renewed`); `form_response` names no change, and no record before it.
  const words = typeof value === 'string' ? nameWords(value) : [];
  const record = words.length > 1 && /ed$/.test(words.at(-1) ?? '') ? words.slice(0, -1) : [];
  const own = wrappedOwnId(fields, rows, chosen.column, record.slice(0, 3));
  if (!own) return undefined;
  const holder = parentOf(own.name);
  return {
    target: 'event_id',
    ask: `Is ${chosen.column} the event's own id? It is named as one, beside ${own.name}, the own id of the record the envelope wraps (${holder}); nothing in one payload shows whether it stays the same when the event is sent again: if each delivery gets its own, a retry becomes a second row.`,
    options: [
      { column: chosen.column, why: "named as the event's id: the event's, or one delivery's" },
      { column: own.name, why: `the own id of ${holder}, the record the envelope wraps` },
    ],
  };
}
