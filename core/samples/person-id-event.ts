/**
 * The person's id where no event id is (issue #94,
 * docs/creator-inference.md#the-persons-id-where-no-event-id-is). A payload about the person's
 * own record (an end user created, a customer's details updated) often carries no id but the
 * person's: nothing is taken or asked as the event's id. The person's record (person-record.ts)
 * already offers its own plain id; here, once every other id rule has run and still nothing is
 * taken or offered as the event's id, where a column at the payload's top names the event (its
 * leaf ends in `event`, `type`, `topic`, `template` or `name`; one text value) as a person's
 * record created, updated, changed, amended or deleted (`v1.end_user.created`,
 * `CARD_CUSTOMER_UPDATE_WEBHOOK`), the one column taken as the person's id, whatever its name
 * (`data.end_user_id`, `customerHashId`), is offered as the event's id with no answer
 * preselected. It keeps the person's id until the person picks: a later change of the same
 * person's record shares it. A login, a conversion or a message about the person is no change
 * of their record, and is not asked. Pure.
 */
import { nameWords } from './names.ts';
import { PERSON_PARTY } from './party.ts';
import type { Question } from './questions.ts';
import { PERSON_ID, type RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Last words of a top-level column that names the event. */
const NAMING = new Set(['event', 'type', 'topic', 'template', 'name']);
/** Steps of a record's own life. */
const CHANGE = new Set([
  'created',
  'create',
  'updated',
  'update',
  'changed',
  'amended',
  'amendment',
  'deleted',
]);

/** The event's name, where it says a person's record changed (module comment), or undefined. */
export function personRecordChange(fields: readonly InferredField[]): string | undefined {
  for (const f of fields) {
    const value = f.examples[0];
    if (f.name.includes('.') || f.distinct !== 1 || typeof value !== 'string') continue;
    if (!NAMING.has(nameWords(f.name).at(-1) ?? '')) continue;
    const words = nameWords(value);
    if (words.some((w) => PERSON_PARTY.has(w)) && words.some((w) => CHANGE.has(w)))
      return `${f.name}: ${value}`;
  }
  return undefined;
}

/** The question (module comment), or undefined where an event id is taken or asked, or the name says no change. */
export function personIdEventQuestion(
  fields: readonly InferredField[],
  base: readonly RuleGuess[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_id')) return undefined;
  const asked = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const taken = base.filter((g) => PERSON_ID.has(g.target) && !asked.has(g.column));
  const own = taken.length === 1 ? taken[0] : undefined;
  const named = own ? personRecordChange(fields) : undefined;
  if (!own || !named) return undefined;
  return {
    target: 'event_id',
    ask: `Is ${own.column} the event's own id? The event is a change of the person's record (${named}) and nothing else names it; a later change of the same person's record shares it.`,
    options: [{ column: own.column, why: `the person's id, whose record the event (${named}) changed` }],
    noneGuessed: {
      why: "it is the person's id: a second change of the same person's record would fold into the first",
    },
  };
}
