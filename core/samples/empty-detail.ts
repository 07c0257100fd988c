/**
 * An empty column named for the person's e-mail or phone (docs/creator-inference.md, "An empty
 * e-mail or phone", issue #94). A vendor's test event often leaves the person's contact details
 * blank (`"phone": ""`, `"email": null`): the column is left out, as nothing shows its type, and
 * the person's e-mail or phone is missed, though the next real event fills it. Where no column is
 * taken or asked about as the person's e-mail (or phone), an always-empty column whose leaf is
 * named for one (`email`, `receipt_email`, `to_email_address`, `phone`, `phone_number`,
 * `mobile_phone`) and that no business party, actor or business-held object holds is offered with
 * no answer preselected: its name is the only evidence, and no value can confirm it. Not a
 * setting or an id named after one (`email_config_id`, `primary_phone_number_id`). Pure.
 */
import { nameWords } from './names.ts';
import { heldByBusiness, partyOf } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';

/** What a leaf's last words must be for each detail (`receipt_email`, `email_address`, `phone_number`). */
const ENDINGS: readonly [string, readonly (readonly string[])[]][] = [
  ['user.email', [['email'], ['email', 'address'], ['e', 'mail']]],
  ['user.phone', [['phone'], ['phone', 'number'], ['mobile'], ['mobile', 'number'], ['msisdn']]],
];

const LABEL: Readonly<Record<string, string>> = { 'user.email': 'e-mail', 'user.phone': 'phone' };

/** The detail an empty column's leaf is named for (`user.email`, `user.phone`), or undefined. */
export function emptyDetailTarget(column: string): string | undefined {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  const ends = (tail: readonly string[]) =>
    words.length >= tail.length && tail.every((w, i) => words[words.length - tail.length + i] === w);
  return ENDINGS.find(([, tails]) => tails.some(ends))?.[0];
}

/** The questions (module comment): one per detail no column took or was asked about. */
export function emptyDetailQuestions(
  base: readonly RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question[] {
  const held = heldByBusiness(fields);
  const out: Question[] = [];
  for (const [target] of ENDINGS) {
    if (base.some((g) => g.target === target)) continue;
    if (questions.some((q) => (q.field ?? q.target) === target)) continue;
    const empty = fields.filter(
      (f) =>
        f.distinct === 0 &&
        base.some((g) => g.column === f.name && g.target === 'skip') &&
        emptyDetailTarget(f.name) === target &&
        partyOf(f.name)?.party !== 'business' &&
        (actorAbove(f.name) ?? held(f.name)) === undefined,
    );
    if (empty.length === 0) continue;
    const label = LABEL[target] as string;
    out.push({
      target,
      ask: `Is ${empty.length === 1 ? `${empty[0]?.name} the person's ${label}` : `one of these the person's ${label}`}? ${empty.length === 1 ? 'It is' : 'They are'} named for one, but empty in the sample, so no value says whose or confirms it.`,
      options: empty.slice(0, 3).map((f) => ({
        column: f.name,
        why: `named for ${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}, but empty in the sample`,
      })),
      noneGuessed: { why: `empty in the sample: nothing but the name says it is the person's ${label}` },
    });
  }
  return out;
}
