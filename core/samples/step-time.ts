/**
 * The time of the step an event reports (docs/creator-inference.md#two-kinds-of-evidence, issue
 * #94): when a payload's own status or type says which step happened (`status: "PAID"`,
 * `type: "order.refunded"`) and a time column is named for that same step (`paid_at`,
 * `refunded_at`), that column is when the event happened, before the record's `created`: an
 * invoice paid two minutes after it was created is a payment at the paid time. Two kinds of
 * evidence agree, the payload's word for the step and the time's name. Pure.
 */
import { nameWords } from './names.ts';
import { WRAPPERS } from './roles.ts';
import type { InferredField } from './sample.ts';

/** Names of the column that says which step a payload reports, at its top or under envelopes. */
const STEP_NAMES = new Set(['status', 'state', 'type', 'event', 'eventtype', 'eventname', 'action', 'topic']);
/** Steps a time can be named for, by the stem both words share (`paid`, `PAYMENT_PAID`, `paid_at`). */
const STEPS = [
  'paid',
  'complet',
  'refund',
  'cancel',
  'fail',
  'deliver',
  'ship',
  'fulfil',
  'captur',
  'authori',
  'settl',
  'confirm',
  'approv',
  'declin',
  'reject',
  'open',
  'click',
  'bounc',
  'unsubscrib',
  'submit',
  'sign',
  'verif',
];
/** Words of a time's name besides the step: `paid_at`, `refund_date`, `deliveredTime`. */
const TIME_WORDS = /^(at|on|date|time|timestamp|ts)$/;

const joined = (part: string) => nameWords(part).join('');

/** Whether a column sits at the payload's top, or under envelopes only. */
function atTop(column: string): boolean {
  return column
    .split('.')
    .slice(0, -1)
    .every((p) => WRAPPERS.has(joined(p)));
}

/** The steps the payload's own status or type names in every row, or none. */
export function reportedSteps(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): readonly string[] {
  const named = fields.filter(
    (f) =>
      f.type === 'string' &&
      atTop(f.name) &&
      STEP_NAMES.has(joined(f.name.slice(f.name.lastIndexOf('.') + 1))),
  );
  return STEPS.filter(
    (step) =>
      rows.length > 0 &&
      rows.every((r) =>
        named.some((f) => typeof r[f.name] === 'string' && joined(r[f.name] as string).includes(step)),
      ),
  );
}

/** The step a time column is named for among the reported ones (`paid_at` for `paid`), or undefined. */
export function stepTimeOf(f: InferredField, steps: readonly string[]): string | undefined {
  const words = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
  if (words.length < 2 || !words.slice(1).every((w) => TIME_WORDS.test(w))) return undefined;
  return steps.find((step) => (words[0] as string).startsWith(step));
}
