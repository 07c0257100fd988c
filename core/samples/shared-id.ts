/**
 * An id many events share is not the event's own (issue #94,
 * docs/creator-inference.md#a-bound-a-documents-total-and-a-mailings-id). A mailing's,
 * campaign's, broadcast's, newsletter's or template's id is the same on every recipient's open and
 * click of it: taken as the event's id, it folds them all into one. Two readings say an id taken
 * as the event's may be such a one: its name names a thing sent to many (`campaign_id`,
 * `template_id`, `broadcast.id`), or a second id of the same thing stands beside it
 * (`message_id` beside `message_uid`, `mailing_id` beside `mailing_uuid`): one of the two is the
 * thing sent to many, the other the copy one recipient got, and one body cannot tell which. A
 * third, from held-out-25's delivery reports: the id of a thing that reports its steps (a
 * message's or a job's, `message_id`, `job.id`) beside a status of it is shared by each of its
 * reports, even where the body has no more specific id. From held-out-26's SMS delivery reports,
 * the report is told by its shape, not by its status's words: a status, state or code column
 * beside the id, one value in the sample, a word (`delivered`, `queued`) or a numeric code (`3`)
 * alike. From held-out-27's: the report may be a list's item the page takes as its rows, its id
 * written as one word (`messageid`, `smsid`, `msgid`). And, whatever thing it is, a record that
 * reports its own status (record-status.ts): its own id beside a status change written as a pair
 * (`oldStatus`/`newStatus`), or beside its status and a sign it is called back about more than once
 * (its `callback_url`, its `delivered_at`), where nothing marks the body as one event. And a
 * record's own id (record-object.ts): beside an `object` that names a record, not an event, or in
 * a list of records that name no event and no time.
 * Either way the id is kept under its own name and the page asks which column is the event's own
 * id, nothing preselected, offering first the more specific ids the sample carries (the second
 * id, a column named for the event's id). Pure, but for the guesses and questions it rewrites.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { recordList, recordObject } from './record-object.ts';
import { recordStatus, STATUS } from './record-status.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** Things sent to many recipients at once, whose id every recipient's event shares. */
const SHARED = new Set([
  'campaign',
  'campaigns',
  'mailing',
  'mailings',
  'broadcast',
  'broadcasts',
  'newsletter',
  'newsletters',
  'template',
  'templates',
  'blast',
  'automation',
  'journey',
]);
/** Things whose every status report (queued, sent, delivered; a job's progress) carries their id. */
const REPORTED = new Set(['message', 'msg', 'sms', 'mms', 'job', 'task']);
/** Last words of a second, more specific id of a thing (`message_uid`, `mailingUuid`). */
const SPECIFIC = new Set(['uid', 'uuid', 'guid']);

const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));

/** Second ids of the same thing as `column` (`<stem>_uid` beside `<stem>_id`), in its object. */
export function secondIds(fields: readonly InferredField[], column: string): string[] {
  const leaf = leafWords(column);
  if (leaf.length < 2 || leaf.at(-1) !== 'id') return [];
  const stem = leaf.slice(0, -1).join(' ');
  return fields
    .filter((f) => f.name !== column && parentOf(f.name) === parentOf(column) && f.distinct > 0)
    .filter((f) => {
      const words = leafWords(f.name);
      return SPECIFIC.has(words.at(-1) ?? '') && words.slice(0, -1).join(' ') === stem;
    })
    .map((f) => f.name);
}

/** The words an id's leaf names its thing with, one joined word split (`messageid`, `smsid`). */
function idLeaf(column: string): string[] {
  const leaf = leafWords(column);
  const joined = leaf.length === 1 ? /^(message|msg|sms|mms|job|task)id$/.exec(leaf[0] ?? '') : null;
  if (!joined) return leaf;
  return [joined[1] as string, 'id'];
}

/**
 * The thing an id names and the status its object reports, where the id is a reported thing's
 * (`message_id`, `job.id`) and a status, state or code stands beside it, a word or a number: each
 * report of that thing carries the same id, so it is never one report's own.
 */
function reportStatus(
  fields: readonly InferredField[],
  column: string,
): { readonly thing: string; readonly status: string } | undefined {
  const parent = parentOf(column);
  const leaf = idLeaf(column);
  const own = recordStatus(fields, column);
  if (own) return own;
  if (leaf.at(-1) !== 'id') return undefined;
  const named = leaf.length > 1 ? leaf.slice(0, -1) : nameWords(parent.slice(parent.lastIndexOf('.') + 1));
  const thing = named.find((w) => REPORTED.has(w));
  if (!thing) return undefined;
  const status = fields.find(
    (f) =>
      parentOf(f.name) === parent &&
      STATUS.test(leafWords(f.name).join(' ')) &&
      f.distinct === 1 &&
      (typeof f.examples[0] === 'string' || typeof f.examples[0] === 'number'),
  );
  return status ? { thing, status: `${status.name}: ${String(status.examples[0])}` } : undefined;
}

/** Why an id taken as the event's may be shared by many events (module comment), or undefined. */
export function sharedIdReason(fields: readonly InferredField[], column: string): string | undefined {
  const thing = nameWords(column).find((w) => SHARED.has(w));
  if (thing) return `named for a ${thing.replace(/s$/, '')}, whose id every recipient's event shares`;
  const reported = reportStatus(fields, column);
  if (reported?.thing === 'record the body is')
    return `the id of the record the body is, which every later event about it repeats (${reported.status})`;
  if (reported)
    return `the id of the ${reported.thing}, which each of its status reports shares (${reported.status})`;
  const object = recordObject(fields, column);
  if (object) return `the id of the record its object names (${object}), which every event about it repeats`;
  if (recordList(fields, column))
    return "a row's own id in a list of records that name no event and no time: each later event about the record repeats it";
  const second = secondIds(fields, column)[0];
  if (second)
    return `beside ${second}, a second id of the same thing: one names what was sent to many, the other one recipient's copy`;
  return undefined;
}

/**
 * Keeps the column taken as the event's id under its own name and asks which column is the
 * event's own id, nothing preselected: the `first` options, then the taken column, then what an
 * earlier question on the event id offered. Shared by the rules that find an event id not the
 * event's own (this one, domain-event.ts).
 */
export function askEventId(
  base: Guess[],
  questions: Question[],
  at: number,
  why: string,
  ask: string,
  first: readonly { readonly column: string; readonly why: string }[],
): void {
  const taken = base[at] as Guess;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `an id, but ${why}: kept as a field, asked above`,
  };
  const asked = questions.filter((q) => (q.field ?? q.target) === 'event_id');
  const shown = new Set([taken.column, ...first.map((o) => o.column)]);
  const others = asked.flatMap((q) => q.options).filter((o) => !shown.has(o.column));
  for (const q of asked) questions.splice(questions.indexOf(q), 1);
  questions.push({
    target: 'event_id',
    ask: `Which column is the event's own id? ${taken.column} is ${why}: ${ask}`,
    options: [...first, { column: taken.column, why }, ...others],
    noneGuessed: { why: `${taken.column} may not be the event's own id; nothing preselected` },
  });
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function sharedIdRule(fields: readonly InferredField[], base: Guess[], questions: Question[]): void {
  const at = base.findIndex((g) => g.target === 'event_id');
  const taken = base[at];
  if (!taken) return;
  const why = sharedIdReason(fields, taken.column);
  if (!why) return;
  const named = fields
    .filter((f) => f.name !== taken.column && /^event (id|uid|uuid)$/.test(nameWords(f.name).join(' ')))
    .map((f) => f.name);
  const specific = [...new Set([...secondIds(fields, taken.column), ...named])].filter((c) =>
    base.some((g) => g.column === c && g.target === 'event_data'),
  );
  askEventId(
    base,
    questions,
    at,
    why,
    "taken as the event's id, it would fold every event that shares it into one.",
    specific.map((column) => ({ column, why: `a more specific id than ${taken.column}` })),
  );
}
