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
 * A test address the format check refuses (`[TEST] jo@doe.com`, `test@example.com1`) or a
 * masked number (`+33xxxxxxxx`, `91XXXXX4`) is offered the same way: a detail, but written so no
 * value confirms it; and so is an address a web page's e-mail protection hid (`[email protected]`,
 * what a page behind Cloudflare gives a tool that fetches it rather than a browser), and a `value`
 * its sibling types as the detail (`target: { type: "phone_number", value }`, `item: { fieldType:
 * "MOBILE", value }`), whose own name says nothing. Pure.
 */
import { nameWords } from './names.ts';
import { heldByBusiness, otherParty } from './party.ts';
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

/** Whether every value of an e-mail column is the marker a page's e-mail protection left (module comment). */
export function hiddenAddress(f: InferredField, target: string): boolean {
  if (target !== 'user.email' || f.type !== 'string' || f.distinct === 0 || f.examples.length === 0)
    return false;
  return f.examples.every((v) => typeof v === 'string' && OBFUSCATED.test(v.trim()));
}

/**
 * Whether every value of a column is a stand-in for a detail, not one (issue #94): text without
 * an `@` (an e-mail) or without a digit (a phone), each a bracketed name (`<email>`, `{{phone}}`),
 * a type's or a sample's word (`string`, `test`), or words naming the detail itself (`customer
 * test email`). A vendor's page shows these where the real event carries the person's detail.
 */
export function standInDetail(f: InferredField, target: string): boolean {
  if (f.type !== 'string' || f.distinct === 0 || f.examples.length === 0) return false;
  const word = target === 'user.email' ? /e ?mail/ : /phone|mobile|msisdn|number/;
  return f.examples.every((v) => {
    if (typeof v !== 'string' || (target === 'user.email' ? v.includes('@') : /\d/.test(v))) return false;
    // A page's e-mail protection marker is no stand-in the vendor wrote (hiddenAddress).
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

/** A number written with a mask over some digits (`+90505702xxxx`, `91XXXXX4`). */
const MASKED = /^\+?(?=.*\d)(?=.*[xX*]{2})[\dxX*\s-]{6,}$/;

/** Whether every value of a phone column is a masked number (module comment). */
export function maskedNumber(f: InferredField, target: string): boolean {
  if (target !== 'user.phone' || f.type !== 'string' || f.distinct === 0 || f.examples.length === 0)
    return false;
  return f.examples.every((v) => typeof v === 'string' && MASKED.test(v.trim()));
}

/** Words of a kind's value that type a sibling `value` as a detail (`phone_number`, `MOBILE`, `email`). */
const TYPED: readonly [string, RegExp][] = [
  ['user.email', /^(e ?mail|email address)$/],
  ['user.phone', /^(phone|phone number|mobile|mobile number|msisdn|cell|sms)$/],
];
/** Last words of a column naming the kind of its object's `value` (`type`, `fieldType`, `kind`). */
const KIND_LAST = new Set(['type', 'kind']);

/**
 * The detail a `value` column's sibling kind types it as (module comment), or undefined: its leaf
 * is `value`, and a column beside it ending in `type` or `kind` holds, in every row, a detail's
 * name alone.
 */
export function typedValueTarget(fields: readonly InferredField[], column: string): string | undefined {
  const at = column.lastIndexOf('.');
  if (at < 0 || nameWords(column.slice(at + 1)).join(' ') !== 'value') return undefined;
  const holder = column.slice(0, at);
  for (const f of fields) {
    if (f.name.slice(0, f.name.lastIndexOf('.')) !== holder || f.name === column) continue;
    if (!KIND_LAST.has(nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).at(-1) ?? '')) continue;
    const kinds = f.examples.map((v) => (typeof v === 'string' ? nameWords(v).join(' ') : ''));
    const typed = TYPED.find(([, re]) => kinds.length > 0 && kinds.every((k) => re.test(k)));
    if (typed) return typed[0];
  }
  return undefined;
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
          ((standInDetail(f, target) ||
            looseAddress(f, target) ||
            maskedNumber(f, target) ||
            hiddenAddress(f, target)) &&
            base.some((g) => g.column === f.name && g.target === 'event_data')) ||
          (typedValueTarget(fields, f.name) === target &&
            f.distinct > 0 &&
            base.some((g) => g.column === f.name && g.target === 'event_data'))) &&
        (emptyDetailTarget(f.name) === target || typedValueTarget(fields, f.name) === target) &&
        otherParty(f.name) === undefined &&
        (actorAbove(f.name) ?? held(f.name)) === undefined,
    );
    if (empty.length === 0) continue;
    const label = LABEL[target] as string;
    const state = (f: InferredField) =>
      f.distinct === 0
        ? 'empty in the sample'
        : typedValueTarget(fields, f.name) === target
          ? `typed as one only by the column beside it (${JSON.stringify(f.examples[0])})`
          : looseAddress(f, target) || maskedNumber(f, target)
            ? `malformed or masked in the sample (${JSON.stringify(f.examples[0])})`
            : hiddenAddress(f, target)
              ? `hidden in the sample by a web page's e-mail protection (${JSON.stringify(f.examples[0])})`
              : `a stand-in in the sample (${JSON.stringify(f.examples[0])})`;
    const all = empty.every((f) => f.distinct === 0)
      ? 'empty'
      : empty.some((f) => looseAddress(f, target) || maskedNumber(f, target) || hiddenAddress(f, target))
        ? 'empty, a stand-in, malformed, masked or hidden'
        : empty.some((f) => typedValueTarget(fields, f.name) === target)
          ? 'only typed so by the column beside it'
          : 'empty or a stand-in';
    out.push({
      target,
      ask: `Is ${empty.length === 1 ? `${empty[0]?.name} the person's ${label}` : `one of these the person's ${label}`}? ${empty.length === 1 ? 'It is' : 'They are'} named or typed for one, but ${all} in the sample, so no value says whose or confirms it.`,
      options: empty.slice(0, 3).map((f) => ({
        column: f.name,
        why: `${typedValueTarget(fields, f.name) === target ? 'a value' : `named for ${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}`}, but ${state(f)}`,
      })),
      noneGuessed: { why: `${all} in the sample: nothing but the name says it is the person's ${label}` },
    });
  }
  return out;
}
