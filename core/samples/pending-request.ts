/**
 * An amount asked for, not yet moved, is no value (issue #94,
 * docs/creator-inference.md#a-referring-party-a-request-for-money-and-an-object-named-event). A payment request or
 * link, a charge or an invoice just created carries the amount it asks the person to pay; until
 * it is paid, nothing changed hands. Two readings must agree: the record holding the amount (the
 * payload's top or an object above the amount) has a status that says it waits (`pending`,
 * `open`, `unpaid`, `awaiting_payment`) and its time of payment is there but empty
 * (`paid_at: null`). A status or event that says it was paid, approved, captured or succeeded
 * keeps the amount as the value; so does a waiting record with no time of payment (an invoice
 * created outstanding, a subscription created pending: the tuned corpus takes their totals as
 * the value). A draft needs no time of payment (held-out-27's draft invoice, just created): a
 * record whose status, or the event's name, says it is a draft (`status: draft`,
 * `invoice.drafted`) has not even been issued, so nothing was paid on it; its amount is asked the
 * same way, whatever the document (an invoice, a quote, an order, a booking).
 * The amount is then kept under its own name and the page asks with no answer preselected, so no
 * currency is filled. The document rule (document-total.ts) reads a quote's or contract's kind;
 * this one reads a request's state, whatever it is called. Pure, but for the guesses and questions
 * it rewrites.
 */
import { holders, recordWords, SETTLED } from './document-total.ts';
import { askValueWhen, eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Status words of a request that waits to be paid. */
const WAITING = new Set(['pending', 'open', 'unpaid', 'awaiting', 'outstanding', 'due']);
/** Status or event words of a record not yet issued, let alone paid. */
const DRAFT = new Set(['draft', 'drafted']);
/** Words of a step that moved the money: the document rule's, but `payment` names a request too. */
const DONE = new Set([...SETTLED].filter((w) => !w.startsWith('payment')));
/** Leaf words of the time a record was paid (`paid_at`, `paidAt`, `paid_date`, `payment_date`). */
const PAID_TIME = /^(paid|payment) (at|on|date|time)$/;

/** The empty paid-time columns at the top or in an object holding the amount. */
function unpaidTimes(fields: readonly InferredField[], column: string): string[] {
  const levels = new Set(['', ...holders(column)]);
  return fields
    .filter((f) => {
      const dot = f.name.lastIndexOf('.');
      if (!levels.has(dot < 0 ? '' : f.name.slice(0, dot))) return false;
      return PAID_TIME.test(nameWords(f.name.slice(dot + 1)).join(' ')) && f.distinct === 0;
    })
    .map((f) => f.name);
}

/** Why the amount at `column` is asked for and not yet paid (module comment), or undefined. */
export function pendingRequest(fields: readonly InferredField[], column: string): string | undefined {
  const named = eventNamed(fields);
  const event = named ? nameWords(named.value) : [];
  const status = recordWords(fields, column, ['status', 'state']);
  if ([...event, ...status].some((w) => DONE.has(w))) return undefined;
  const draft = [...status, ...event].find((w) => DRAFT.has(w));
  if (draft)
    return status.includes(draft)
      ? `its record's status is "${draft}": not yet issued`
      : `the event is "${named?.value}": a draft, not yet issued`;
  const waiting = status.find((w) => WAITING.has(w));
  if (!waiting) return undefined;
  const unpaid = unpaidTimes(fields, column)[0];
  return unpaid ? `its record's status is "${waiting}" and ${unpaid} is empty` : undefined;
}

/**
 * The rule applied to the guesses and questions, in place (module comment): on the guesses before
 * their confidence is shown, and again once an amount written as text is taken as the value
 * (guess.ts), when a shown guess's confidence becomes a question's.
 */
export function pendingRequestRule<G extends Guess & { readonly confidence?: number }>(
  fields: readonly InferredField[],
  base: G[],
  questions: Question[],
): void {
  const at = askValueWhen(base, questions, (column) => {
    const why = pendingRequest(fields, column);
    return why
      ? { why: `${why}: asked for, not yet paid`, ask: 'Money asked for is not money moved.' }
      : undefined;
  });
  const asked = base[at];
  if (asked?.confidence !== undefined) base[at] = { ...asked, confidence: 0.5 };
}
