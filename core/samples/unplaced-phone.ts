/**
 * A phone no rule placed (docs/creator-inference.md, "A phone no rule placed"). Where no column is
 * taken or asked about as the person's phone, a column named as a phone whose values read as
 * phone numbers (evidence.ts), kept as a field only because of where it sits (a form's
 * `form.mobileNumber`, a booking's `form_submission.mobile_phone`, a patient's
 * `patient.mobile_phone`), is often the person's. Its place says nothing sure either way, so the
 * page asks, never fills it: the one such column preselected, several, or one of whoever sent
 * (`sender.phone`, where nothing says which way the message went), offered with no answer
 * preselected. Never a business party's number (`merchant.phone`, `location.phone`), one under an
 * actor (`changer`, `author`), or one named for the business's side. Pure, but for the guess it
 * rewrites when it preselects.
 */
import { askColumns } from './ask-columns.ts';
import { identityEvidence, leafSide, phoneNamed } from './evidence.ts';
import { nameWords } from './names.ts';
import { businessParty } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';
import { ACTING, SENDING } from './unplaced-email.ts';

const PHONE = 'user.phone';
/** The reading identityEvidence asks for; a phone's check reads the values and name alone. */
const UNPLACED = { role: 'other', why: '' } as const;

const words = (column: string) => column.split('.').flatMap((p) => nameWords(p));
const parent = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.'))) || 'the top';

/**
 * With no column taken or asked about as the person's phone, the question of whether a number
 * kept as a field for its place is the person's (module comment), undefined where there is none.
 */
export function unplacedPhoneQuestion(
  base: RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === PHONE)) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === PHONE)) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const phones = fields.filter(
    (f) =>
      f.distinct > 0 &&
      kept.has(f.name) &&
      phoneNamed(f.name) &&
      identityEvidence(PHONE, f, UNPLACED) === undefined &&
      businessParty(f.name) === undefined &&
      actorAbove(f.name) === undefined &&
      leafSide(f.name)?.side !== 'business' &&
      !words(f.name).some((w) => ACTING.has(w)),
  );
  if (phones.length === 0) return undefined;
  const options = phones.slice(0, 3).map((f) => ({
    column: f.name,
    why: `named as a phone and its values read as phone numbers, but where it sits (${parent(f.name)}) does not say whose`,
  }));
  const one = phones.length === 1 && !words(phones[0]?.name ?? '').some((w) => SENDING.has(w));
  return askColumns(base, PHONE, options, one, {
    ask: one
      ? `Is ${phones[0]?.name} the person's phone number? It is named as one and no other number is the person's, but where it sits does not say whose.`
      : "Is one of these the person's phone number? Each is named as a phone, but nothing says whose.",
    taken:
      "the one phone number that is not the business's, kept as a field for where it sits: the person's, asked above, preselected",
    none: 'nothing says which number, if any, is the person’s',
  });
}
