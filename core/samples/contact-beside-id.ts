/**
 * The person's id beside their contact details (issue #94, docs/creator-inference.md, "An id
 * beside the person's contact details"). Where nothing is taken or asked as the person's id but
 * the page fills or asks the person's e-mail or phone, an id in the same object is offered as the
 * person's id with no answer preselected, when its name says whose it is: a plain id (`id`, `uid`,
 * `external_id`) of an object named for a person's role (`contactIdentity`, `customer`), or an id
 * named for one (`visitorId`, `customer_user_id`). Not a `user`'s alone (whoever uses the product,
 * the business's account too), nor one named for the business's side. It offers and never fills:
 * the details say a person is there, not that this id is theirs. Pure.
 */
import { type AskText, askColumns } from './ask-columns.ts';
import { nameWords } from './names.ts';
import { otherParty, personWord } from './party.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, personIdAnswered } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** The person's contact targets whose column places the person. */
const CONTACT = new Set(['user.email', 'user.phone']);
/** Last words of an id's name. */
const ID_END = new Set(['id', 'uid', 'uuid']);
/** Words a plain id may carry before its last (`external_id`, `objectId`). */
const PLAIN = new Set(['external', 'object']);

const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');
/** A word naming a person's role, never `user` alone. */
const roleWord = (w: string) => w !== 'user' && w !== 'users' && personWord(w);

/** The objects holding the person's e-mail or phone, filled or offered. */
function contactHolders(base: readonly Guess[], questions: readonly Question[]): Set<string> {
  const columns = [
    ...base.filter((g) => CONTACT.has(g.target)).map((g) => g.column),
    ...questions
      .filter((q) => CONTACT.has(q.field ?? q.target))
      .flatMap((q) => q.options.map((o) => o.column)),
  ];
  return new Set(columns.map(parentOf));
}

/** Why the id at `column` names a person's role (module comment), or undefined. */
export function personNamedId(column: string): string | undefined {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  if (!ID_END.has(words.at(-1) ?? '') || otherParty(column) !== undefined) return undefined;
  const lead = words.slice(0, -1);
  const role = lead.find(roleWord);
  if (role) return `named for a ${role}`;
  if (!lead.every((w) => PLAIN.has(w))) return undefined;
  const key = parentOf(column)
    .split('.')
    .filter((p) => !/^\d+$/.test(p))
    .at(-1);
  const holder = key ? nameWords(key).find(roleWord) : undefined;
  return holder ? `the id of ${key}, named for a ${holder}` : undefined;
}

const TEXT: AskText = {
  ask: "Is one of these the person's id? Each sits beside the person's e-mail or phone and is named for a person's role.",
  taken: '',
  none: "the contact details say a person is there, not that this id is the event's person's",
};

/** The question (module comment), or undefined where it does not apply. */
export function contactBesideIdQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const holders = contactHolders(base, questions);
  if (holders.size === 0) return undefined;
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const options = fields.flatMap((f) => {
    if (!holders.has(parentOf(f.name)) || offered.has(f.name) || f.distinct === 0) return [];
    if (f.type !== 'string' && f.type !== 'integer') return [];
    if (!base.some((g) => g.column === f.name && g.target === 'event_data')) return [];
    const why = personNamedId(f.name);
    return why ? [{ column: f.name, why: `${why}, beside the person's contact details` }] : [];
  });
  if (options.length === 0) return undefined;
  return askColumns(base, 'user_id', options.slice(0, 3), false, TEXT);
}
