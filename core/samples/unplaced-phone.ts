/**
 * A phone no rule placed (docs/creator-inference.md, "A phone no rule placed"). Where no column is
 * taken or asked about as the person's phone, a column named as a phone whose values read as
 * phone numbers (evidence.ts), kept as a field only because of where it sits (a form's
 * `form.mobileNumber`, a booking's `form_submission.mobile_phone`, a patient's
 * `patient.mobile_phone`), is often the person's. Its place says nothing sure either way, so the
 * page asks, never fills it: the one such column preselected, several, or one of whoever sent
 * (`sender.phone`, where nothing says which way the message went), offered with no answer
 * preselected. Never a business party's number (`merchant.phone`, `location.phone`), one under an
 * actor (`changer`, `author`), one of an object that says it holds an agent, or one named for the business's side. Pure, but for the guess it
 * rewrites when it preselects.
 */
import { askColumns } from './ask-columns.ts';
import { identityEvidence, leafSide, phoneNamed } from './evidence.ts';
import { nameWords } from './names.ts';
import { heldByBusiness, otherParty, unplacedContact } from './party.ts';
import { WHATSAPP_ID } from './personal.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';
import { SENDING } from './unplaced-email.ts';

const PHONE = 'user.phone';
/** The reading identityEvidence asks for; a phone's check reads the values and name alone. */
const UNPLACED = { role: 'other', why: '' } as const;

const words = (column: string) => column.split('.').flatMap((p) => nameWords(p));
const parent = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.'))) || 'the top';

/**
 * The columns kept as event fields, where no column is taken or asked about as the person's phone;
 * undefined where one is (the phone is placed: nothing more to offer).
 */
function keptWithoutPhone(
  base: readonly RuleGuess[],
  questions: readonly Question[],
): ReadonlySet<string> | undefined {
  if (base.some((g) => g.target === PHONE)) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === PHONE)) return undefined;
  return new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
}

/**
 * With no column taken or asked about as the person's phone, the question of whether a number
 * kept as a field for its place is the person's (module comment), undefined where there is none.
 */
export function unplacedPhoneQuestion(
  base: RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  const kept = keptWithoutPhone(base, questions);
  if (kept === undefined) return undefined;
  const held = heldByBusiness(fields);
  const phones = fields.filter(
    (f) =>
      f.distinct > 0 &&
      kept.has(f.name) &&
      phoneNamed(f.name) &&
      identityEvidence(PHONE, f, UNPLACED) === undefined &&
      unplacedContact(f.name) &&
      held(f.name) === undefined,
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

/** The two ends of a message, sending side first: `from`/`to`, `sender`/`recipient`. */
const ENDS: readonly (readonly [string, string])[] = [
  ['from', 'to'],
  ['sender', 'recipient'],
  ['source', 'destination'],
];
/** Leaf words of a message's own text (`text`, `body`, `MessageText`, `content`). */
const TEXT_WORDS = new Set(['text', 'body', 'content', 'caption']);
/** A number as text of digits alone, its `+` optional: 8 to 15 of them. */
const DIGITS = /^\+?\d{8,15}$/;

const leafOf = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1)).join('');
const numbers = (f: InferredField) =>
  f.examples.length > 0 && (f.format === 'phone' || f.examples.every((v) => DIGITS.test(String(v))));

/**
 * A message's two numbers (docs/creator-inference.md, "A phone no rule placed"): with no column
 * taken or asked about as the person's phone, a message record (a text, a body beside them) whose
 * `from` and `to` (or sender and recipient) both hold numbers of 8 to 15 digits, written without
 * a `+` and so not read as phones (`"14165550100"`), has the person's number at one end: which
 * one depends on the way the message went, and digits alone may as well be an account's, so both
 * are offered with no answer preselected, nothing filled. Undefined where there is no such pair.
 */
export function messageNumbersQuestion(
  base: readonly RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  const kept = keptWithoutPhone(base, questions);
  if (kept === undefined) return undefined;
  const under = (p: string) => fields.filter((f) => parent(f.name) === p);
  for (const f of fields) {
    if (!kept.has(f.name) || !numbers(f) || otherParty(f.name) || actorAbove(f.name)) continue;
    const end = ENDS.find(([from]) => leafOf(f.name) === from);
    if (!end) continue;
    const siblings = under(parent(f.name));
    const to = siblings.find((s) => leafOf(s.name) === end[1] && kept.has(s.name) && numbers(s));
    const text = siblings.some(
      (s) =>
        s.type === 'string' &&
        nameWords(s.name.slice(s.name.lastIndexOf('.') + 1)).some((w) => TEXT_WORDS.has(w)),
    );
    if (!to || !text) continue;
    return {
      target: PHONE,
      ask: `Is one of ${f.name} and ${to.name} the person's phone number? Both hold a message's numbers, but nothing says which end is the person's.`,
      options: [
        { column: f.name, why: `the number the message came from: the person's when it came in` },
        { column: to.name, why: `the number the message went to: the person's when it went out` },
      ],
      noneGuessed: {
        why: 'nothing says which way the message went, nor that these digits are phone numbers',
      },
    };
  }
  return undefined;
}

/**
 * WhatsApp ids (docs/creator-inference.md, "A phone no rule placed"): with no column taken or
 * asked about as the person's phone, columns whose every value is a WhatsApp user's id hold a
 * phone number each, the session's own as well as the contact's, and which is the person's only
 * the way the message went says: up to three are offered with no answer preselected, never one
 * of a business party's or under the business's side (`instanceData.wid`).
 */
export function whatsappIdQuestion(
  base: readonly RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  const kept = keptWithoutPhone(base, questions);
  if (kept === undefined) return undefined;
  const ids = fields.filter(
    (f) =>
      kept.has(f.name) &&
      f.examples.length > 0 &&
      f.examples.every((v) => WHATSAPP_ID.test(String(v))) &&
      otherParty(f.name) === undefined &&
      actorAbove(f.name) === undefined &&
      !f.name.split('.').some((p) => leafSide(p)?.side === 'business'),
  );
  if (ids.length === 0) return undefined;
  return {
    target: PHONE,
    ask: "Is one of these the person's phone number? Each is a WhatsApp id, a number and the service's suffix, but nothing says whose.",
    options: ids.slice(0, 3).map((f) => ({
      column: f.name,
      why: 'a WhatsApp id: the number of whoever it names, the session’s own or the contact’s',
    })),
    noneGuessed: { why: 'nothing says which WhatsApp id, if any, is the person’s' },
  };
}
