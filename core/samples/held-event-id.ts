/**
 * An event id the envelope keeps in its header object (issue #94, docs/creator-inference.md, "An
 * event id in the envelope's header"). Some vendors put the envelope's own fields in an object
 * beside the record rather than at the top (`metadata: { eventId, eventType, subscriptionId }`,
 * `source: { shopId, eventId }`), and an `eventId` there was read by no rule: the page asked which
 * record's id the event is about, or nothing. Where no column is taken as the event's id, a column
 * named for the event's id (`eventId`, `event_id`) directly under such an object (`meta`,
 * `metadata`, `source`, `header`, `headers`, `context`) is preselected in the question of the
 * event's id, the record ids an earlier rule offered kept after it: its name is evidence enough to
 * preselect it, as a top-level `event_id` beside its record's own id is (named-event-id.ts), not
 * to fill it silently, since nothing in one body shows whether a retry keeps it. Never under a
 * record's wrapper (`payload.event_id`, the show a ticket is for), unless that object holds the
 * event's type too (event-envelope.ts: an envelope wrapped once more), when it is asked the same
 * way. Pure, but for the guesses and questions it rewrites.
 */
import { everyRowOwn, idShaped } from './delivery.ts';
import { besideEventType } from './event-envelope.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Objects an envelope keeps its own fields in, beside the record it carries. */
const HEADERS = new Set(['meta', 'metadata', 'source', 'header', 'headers', 'context']);

/** Whether a column is named for the event's id directly under an envelope's header object. */
export function heldEventId(column: string): boolean {
  const parts = column.split('.');
  if (parts.length !== 2) return false;
  const leaf = nameWords(parts[1] ?? '');
  return HEADERS.has(nameWords(parts[0] ?? '').join('')) && leaf.join(' ') === 'event id';
}

/** The rule applied in place (module comment): the guess and the event id's question rewritten. */
export function heldEventIdRule(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
  questions: Question[],
): void {
  if (base.some((g) => g.target === 'event_id')) return;
  const held = fields.find(
    (f) =>
      (heldEventId(f.name) || besideEventType(f.name, fields, rows)) &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      everyRowOwn(rows, f.name) &&
      idShaped(rows, f.name),
  );
  const at = base.findIndex((g) => g.column === held?.name && g.target === 'event_data');
  if (!held || at < 0) return;
  const holder = held.name.slice(0, held.name.lastIndexOf('.'));
  base[at] = {
    column: held.name,
    target: 'event_id',
    why: `named as the event's id in ${holder}, the envelope's own fields: asked above, preselected`,
  };
  const option = { column: held.name, why: `named as the event's id, in the envelope's ${holder}` };
  const qi = questions.findIndex((q) => (q.field ?? q.target) === 'event_id');
  const asked = questions[qi];
  if (asked) {
    const { noneGuessed: _, ...rest } = asked;
    questions[qi] = {
      ...rest,
      ask: `Is ${held.name} the event's own id? It is named as one, in ${holder}, where the envelope keeps its own fields; the other columns are ids of records the payload holds.`,
      options: [option, ...asked.options.filter((o) => o.column !== held.name)],
    };
    return;
  }
  questions.push({
    target: 'event_id',
    ask: `Is ${held.name} the event's own id? It is named as one, in ${holder}, where the envelope keeps its own fields; nothing in one payload shows whether it stays the same when the event is sent again.`,
    options: [option],
  });
}
