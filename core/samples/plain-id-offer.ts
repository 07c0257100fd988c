/**
 * A plain id offered where no event id is (issue #94, docs/creator-inference.md, "A plain id
 * where no event id is offered"). Some payloads carry the id of the event, or of the record it is
 * about, under a plain name that other rules set aside: an `id` whose sample value is a
 * placeholder (`"0"`), a `uid` that is not the person's, an `object.uid` whose values are not
 * shaped like an id. Where no column is taken or asked as the event's id, a plain id (`id`, `_id`,
 * `uid`, `uuid`) at the payload's top, or directly in the object it wraps its record in
 * (`object`, `data`, `payload`, `record`, `resource`, `entity`), is offered with no answer
 * preselected. It offers and never fills: a plain name says whose id it is only where nothing
 * else was found. Pure.
 */
import { type AskText, askColumns } from './ask-columns.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** A plain id's name: the record's own id, whatever record it is. */
const PLAIN = /^[_$]*(id|uid|uuid)$/i;
/** Objects a payload wraps its record in. */
export const WRAPPERS = new Set(['object', 'data', 'payload', 'record', 'resource', 'entity']);

/** Why `column` is a plain id at the top or in a record's wrapper, or undefined. */
export function plainIdPlace(column: string): string | undefined {
  const parts = column.split('.');
  if (!PLAIN.test(parts.at(-1) ?? '')) return undefined;
  if (parts.length === 1) return "a plain id at the payload's top";
  if (parts.length === 2 && WRAPPERS.has((parts[0] ?? '').toLowerCase()))
    return `a plain id of ${parts[0]}, the object the payload wraps its record in`;
  return undefined;
}

const TEXT: AskText = {
  ask: "Which column is the event's own id? Nothing else was found for it; these are plain ids of the payload or its record.",
  taken: '',
  none: "a plain name says whose id it is only weakly: the event's, or the record's it is about",
};

/** The question (module comment), or undefined where it does not apply. */
export function plainIdQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: readonly Question[],
): Question | undefined {
  return offerEventIds(fields, base, questions, TEXT, (f) => plainIdPlace(f.name));
}

/**
 * Where no column is taken or asked as the event's id: asks among the columns kept as event
 * fields, with values, that `why` gives a reason for (the first three), nothing preselected; the
 * question, or undefined. The offering rules (this file, event-record-id.ts) differ only in `why`.
 */
export function offerEventIds(
  fields: readonly InferredField[],
  base: Guess[],
  questions: readonly Question[],
  text: AskText,
  why: (field: InferredField) => string | undefined,
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_id')) return undefined;
  const options = fields.flatMap((f) => {
    if (f.distinct === 0 || (f.type !== 'string' && f.type !== 'integer')) return [];
    if (!base.some((g) => g.column === f.name && g.target === 'event_data')) return [];
    const reason = why(f);
    return reason ? [{ column: f.name, why: reason }] : [];
  });
  if (options.length === 0) return undefined;
  return askColumns(base, 'event_id', options.slice(0, 3), false, text);
}
