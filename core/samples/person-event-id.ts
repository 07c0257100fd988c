/**
 * The person as what an id-less event is about (issue #94, docs/creator-inference.md, "The
 * person's id offered as the event's"). A payload with nothing taken or asked as the event's id,
 * whose only id of what it is about is the person's (a sign-up's `user_id`, a lead form's
 * `lead_id`, a client record's `client_id` beside `entity_name: client`), is about that person:
 * their id tells one such event from another as far as anything in the payload does, though a
 * later event about the same person shares it. The page offers it as the event's id too, with no
 * answer preselected (a column is mapped once, and it stays the person's until the person picks).
 * Only a person's id or reference (never a name) at the payload's top or under envelopes only
 * (`data.client_id`), the one id there, is offered: an id inside another object is that object's
 * party's, and beside another id at the top the payload may be about that other record. Pure.
 */
import { everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

const PERSON_ID = new Set(['user_id', 'user.external_id']);
/** Last words of an id's name. */
const ID_WORDS = new Set(['id', 'uid', 'uuid', 'guid']);
/** Last words of a person's id offered: an id, or a reference (`customer_reference`); never a name. */
const OFFERED_WORDS = new Set([...ID_WORDS, 'reference', 'ref']);
const lastWord = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1)).at(-1) ?? '';

/** Whether a column sits at the payload's top, or under envelopes only (`data.client_id`). */
const atTop = (column: string) =>
  column
    .split('.')
    .slice(0, -1)
    .every((p) => WRAPPERS.has(nameWords(p).join('')));

/**
 * The question offering the person's id as the event's (module comment), undefined where an
 * event id is taken or asked, no person's id sits at the top, or another id stands there beside it.
 */
export function personEventIdQuestion(
  base: readonly Guess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_id')) return undefined;
  const person = [
    ...base.filter((g) => PERSON_ID.has(g.target)).map((g) => g.column),
    ...questions.filter((q) => PERSON_ID.has(q.target) && !q.noneGuessed).map((q) => q.options[0]?.column),
  ].find(
    (c): c is string =>
      c !== undefined &&
      OFFERED_WORDS.has(lastWord(c)) &&
      atTop(c) &&
      everyRowOwn(rows, c) &&
      idShaped(rows, c),
  );
  if (!person) return undefined;
  const others = fields.filter(
    (f) =>
      f.name !== person &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      atTop(f.name) &&
      ID_WORDS.has(lastWord(f.name)),
  );
  if (others.length > 0) return undefined;
  return {
    target: 'event_id',
    ask: `Is ${person} the event's own id? Nothing else in the payload identifies what it is about; ${person} is the person's id, and a later event about the same person shares it.`,
    options: [{ column: person, why: "the person's id, the only id at the payload's top" }],
    noneGuessed: {
      why: "it is the person's id: a second event about the same person would fold into the first",
    },
  };
}
