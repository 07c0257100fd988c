/**
 * An empty column named for the person's id (issue #94,
 * docs/creator-inference.md#an-empty-person-id). As with the person's e-mail and phone
 * (empty-detail.ts), a vendor's test event often leaves the person's id blank (`"contact_id":
 * null`, `"userId": ""`): the column is left out, as nothing shows its type, and the person's id
 * is missed, though the next real event fills it. Where no column is taken or asked about as the
 * person's id, an always-empty column whose leaf names a person's id (a person word before an id
 * word: `contact_id`, `customerId`, `user_id`, `member_uuid`, never a `client_id`, as often an API
 * client's; or a bare `uid`) and that no business party, actor or business-held object holds is
 * offered with no answer preselected: its name is the only evidence, and no value can confirm it.
 * It asks and never fills. Pure.
 */
import { nameWords } from './names.ts';
import { heldByBusiness, otherParty, PERSON_PARTY } from './party.ts';
import type { Question } from './questions.ts';
import { personIdAnswered, type RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';

const ID = new Set(['id', 'uid', 'uuid', 'guid']);

/** Whether a column's leaf names a person's id (module comment). */
export function namedPersonId(column: string): boolean {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  if (words.join('') === 'uid') return true;
  // A `client_id` is as often an API client's as a person's: not offered.
  const [party, id] = words;
  return words.length === 2 && party !== 'client' && PERSON_PARTY.has(party ?? '') && ID.has(id ?? '');
}

/** The question (module comment), or undefined where the person's id is answered or none is empty. */
export function emptyPersonIdQuestion(
  fields: readonly InferredField[],
  base: readonly RuleGuess[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const held = heldByBusiness(fields);
  const skipped = new Set(base.filter((g) => g.target === 'skip').map((g) => g.column));
  const empty = fields.filter(
    (f) =>
      f.distinct === 0 &&
      skipped.has(f.name) &&
      namedPersonId(f.name) &&
      otherParty(f.name) === undefined &&
      (actorAbove(f.name) ?? held(f.name)) === undefined,
  );
  if (empty.length === 0) return undefined;
  return {
    target: 'user_id',
    ask: `Is ${empty.length === 1 ? `${empty[0]?.name} the person's id` : "one of these the person's id"}? ${empty.length === 1 ? 'It is' : 'They are'} named for one, but empty in the sample, so no value says whose or confirms it.`,
    options: empty
      .slice(0, 3)
      .map((f) => ({ column: f.name, why: "named for a person's id, but empty in the sample" })),
    noneGuessed: { why: "empty in the sample: nothing but the name says it is the person's id" },
  };
}
