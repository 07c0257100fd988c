/**
 * An empty column named for the person's e-mail or phone (docs/creator-inference.md, "An empty
 * e-mail or phone", issue #94). A vendor's test event often leaves the person's contact details
 * blank (`"phone": ""`, `"email": null`), or its page writes a stand-in (`"<email>"`,
 * `"string"`): the column is left out, as nothing shows its type, or kept as a field, and the
 * person's e-mail or phone is missed, though the next real event fills it. Where no column is
 * taken or asked about as the person's e-mail (or phone), an always-empty or stand-in column
 * whose leaf is named for one (`email`, `receipt_email`, `to_email_address`, `phone`,
 * `phone_number`, `mobile_phone`) and that no business party, actor or business-held object holds
 * is offered with no answer preselected: its name is the only evidence, and no value can confirm
 * it. Not a setting or an id named after one (`email_config_id`, `primary_phone_number_id`).
 * A test address the format check refuses (`[TEST] jo@doe.com`, `test@example.com1`) is offered
 * the same way: an address, but written so no value confirms it. Pure.
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

/** Words of a documentation page's stand-in for a value (`<email>`, `string`, `customer-test-email`). */
const STAND_IN = /^(string|text|str|example|sample|test|placeholder|value|xxx+)$/;
/** What a stored web page shows in place of an address its e-mail protection hid. */
const OBFUSCATED = /^\[email(&#160;|\s)protected\]$/;

/**
 * Whether every value of a column is a stand-in for a detail, not one (issue #94): text without
 * an `@` (an e-mail) or without a digit (a phone), each a bracketed name (`<email>`, `{{phone}}`),
 * a type's or a sample's word (`string`, `test`), or words naming the detail itself (`customer
 * test email`). A vendor's page shows these where the real event carries the person's detail.
 */
export function standInDetail(f: InferredField, target: string): boolean {
  if (f.type !== 'string' || f.distinct === 0 || f.examples.length === 0) return false;
  const word = target === 'user.email' ? /e ?mail/ : /phone|mobile|msisdn/;
  return f.examples.every((v) => {
    if (typeof v !== 'string' || (target === 'user.email' ? v.includes('@') : /\d/.test(v))) return false;
    // A stored page's e-mail protection marker is no stand-in the vendor wrote: a page copied in a
    // browser shows the address itself.
    if (OBFUSCATED.test(v)) return false;
    const words = nameWords(v);
    return (
      /^\s*[<{[].*[>}\]]\s*$/.test(v) ||
      (words.length > 0 && words.every((w) => STAND_IN.test(w))) ||
      word.test(words.join(' '))
    );
  });
}

/** An address with a marker beside it or a malformed domain: a user part, an `@`, a domain part. */
const LOOSE_ADDRESS = /^[^@]*[\p{L}\d._%+-]@[\p{L}\d-]+(\.[\p{L}\d-]+)*\.?[^@]*$/u;

/**
 * Whether every value of an e-mail column is an address the format check refused (module
 * comment): the column was not read as an e-mail, though each value holds one `@` between a user
 * part and a domain.
 */
export function looseAddress(f: InferredField, target: string): boolean {
  if (target !== 'user.email' || f.type !== 'string' || f.format === 'email') return false;
  if (f.distinct === 0 || f.examples.length === 0) return false;
  return f.examples.every(
    (v) => typeof v === 'string' && !OBFUSCATED.test(v) && LOOSE_ADDRESS.test(v.trim()),
  );
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
        ((f.distinct === 0 && base.some((g) => g.column === f.name && g.target === 'skip')) ||
          ((standInDetail(f, target) || looseAddress(f, target)) &&
            base.some((g) => g.column === f.name && g.target === 'event_data'))) &&
        emptyDetailTarget(f.name) === target &&
        partyOf(f.name)?.party !== 'business' &&
        (actorAbove(f.name) ?? held(f.name)) === undefined,
    );
    if (empty.length === 0) continue;
    const label = LABEL[target] as string;
    const state = (f: InferredField) =>
      f.distinct === 0
        ? 'empty in the sample'
        : looseAddress(f, target)
          ? `an address the format check refuses in the sample (${JSON.stringify(f.examples[0])})`
          : `a stand-in in the sample (${JSON.stringify(f.examples[0])})`;
    const all = empty.every((f) => f.distinct === 0)
      ? 'empty'
      : empty.some((f) => looseAddress(f, target))
        ? 'empty, a stand-in or malformed'
        : 'empty or a stand-in';
    out.push({
      target,
      ask: `Is ${empty.length === 1 ? `${empty[0]?.name} the person's ${label}` : `one of these the person's ${label}`}? ${empty.length === 1 ? 'It is' : 'They are'} named for one, but ${all} in the sample, so no value says whose or confirms it.`,
      options: empty.slice(0, 3).map((f) => ({
        column: f.name,
        why: `named for ${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}, but ${state(f)}`,
      })),
      noneGuessed: { why: `${all} in the sample: nothing but the name says it is the person's ${label}` },
    });
  }
  return out;
}
