/**
 * A column named as the event's id that the payload alone cannot vouch for (issue #94,
 * docs/creator-inference.md, "What answered the nineteenth part's errors"). Its name says
 * `event_id`, and most often it is the webhook event's; but a payload that says no event leaves
 * that open: no column at its top, or in its `meta`, names which event it is (a `type`, `event`,
 * `topic`, `trigger`), and no envelope object (`data`, `payload`) wraps a record beneath its top.
 * It is then a record's body, not an event's envelope, and in a record `event_id` is as often the
 * id of an event the record belongs to (a show a ticket is for, a booked meeting) as the
 * webhook's own. The page asks, with no answer preselected, offering it beside the record's own
 * ids at its level.
 *
 * The rule reads no vendor's or field's name beyond the words `event` and `id`, a
 * discriminator's and the envelope's wrappers. Pure, but for the guess it rewrites.
 */
import { everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

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

/** A column at the top or in a holder object names which event the payload is. */
function typeColumn(fields: readonly InferredField[]): InferredField | undefined {
  return fields.find((f) => {
    const segs = f.name.split('.');
    const top =
      segs.length === 1 || (segs.length === 2 && TYPE_HOLDERS.has(nameWords(segs[0] ?? '').join('')));
    const words = nameWords(segs.at(-1) ?? '');
    const named = TYPE_NAMES.has(words.join('')) || TYPE_WORDS.has(words.at(-1) ?? '');
    return top && named && f.distinct > 0 && f.type === 'string';
  });
}

/** Whether the payload wraps a record in an envelope object (`data`, `payload`, `object`). */
const wraps = (fields: readonly InferredField[]) =>
  fields.some((f) => f.name.includes('.') && WRAPPERS.has(nameWords(f.name.split('.')[0] ?? '').join('')));

/**
 * The question of a named event id in a payload that names no event (module comment), undefined
 * where the payload names one, wraps a record in an envelope object (`data`, `payload`: its top is
 * then the event's), or the chosen column is no top-level `event_id`. The guess is
 * rewritten in place as an event field, asked above, nothing preselected.
 */
export function unnamedEventIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const at = base.findIndex((g) => g.target === 'event_id');
  const chosen = base[at];
  if (!chosen || !namedEventId(chosen.column) || typeColumn(fields) || wraps(fields)) return undefined;
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
