/**
 * A status report's recipient (issue #94, docs/creator-inference.md#a-status-reports-recipient).
 * An SMS carrier's delivery report tells the business how sending one message to one number went:
 * beside the report's status sits the number the message went to (`to`, `destination`,
 * `recipient`, `msisdn`), and that number is the person's. The roles read a `to` as the receiving
 * side, the business's in an inbound message, and a `destination` names no party, so the number is
 * kept as a field and the person's phone missed. Where no column is taken or asked about as the
 * person's phone, a column so named whose values are phone numbers (digits, a `+` optional, or
 * masked: `+90505702xxxx`), in an object that also holds a status, state or code of one value (the
 * report's shape, as shared-id.ts reads it), is offered as the person's phone with no answer
 * preselected: an inbound message's status would put the business's number there. Not where a
 * direction column says the message came in. It asks and never fills. Pure.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { STATUS } from './record-status.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

const PHONE = 'user.phone';
/** Leaf names of the number a message went to. */
const RECIPIENT = new Set(['to', 'destination', 'recipient', 'msisdn', 'to number', 'receiver']);
/** A number as text: 8 to 15 digits, a `+` optional, some masked with x or *. */
const NUMBER = /^\+?[\dxX*]{8,15}$/;

const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1)).join(' ');

/** The question (module comment), or undefined where a phone is taken or asked, or no report is read. */
export function reportRecipientQuestion(
  fields: readonly InferredField[],
  base: readonly RuleGuess[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === PHONE)) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === PHONE)) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const sameObject = (column: string, test: (f: InferredField) => boolean) =>
    fields.some((f) => parentOf(f.name) === parentOf(column) && test(f));
  const options = fields
    .filter(
      (f) =>
        kept.has(f.name) &&
        RECIPIENT.has(leafWords(f.name)) &&
        f.examples.length > 0 &&
        f.examples.every((v) => NUMBER.test(String(v).trim()) && /\d{5}/.test(String(v))) &&
        sameObject(f.name, (s) => STATUS.test(leafWords(s.name)) && s.distinct === 1) &&
        !sameObject(f.name, (s) => leafWords(s.name) === 'direction' && /^in/i.test(String(s.examples[0]))),
    )
    .slice(0, 3)
    .map((f) => ({
      column: f.name,
      why: `the number ${parentOf(f.name) || 'the payload'} reports a message's status for: the person's, if the message went out`,
    }));
  if (options.length === 0) return undefined;
  return {
    target: PHONE,
    ask: `Is ${options.length === 1 ? `${options[0]?.column} the person's phone number` : "one of these the person's phone number"}? It is the number a status report is about: the person's when the message went out, the business's when it came in.`,
    options,
    noneGuessed: { why: 'nothing says which way the message went' },
  };
}
