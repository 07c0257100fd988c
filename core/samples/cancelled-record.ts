/**
 * A cancelled booking or order moves no money (issue #94,
 * docs/creator-inference.md#a-draft-a-count-and-a-status-change). Held-out-27's cancelled
 * booking carried the stay's price beside its currency: the booking is called off, so nothing
 * changed hands on this event. Where the event's name, or the status of the record holding the
 * amount (at the top or in an object above it), says it was cancelled, and the record is a booking,
 * reservation, appointment or order (the event's name, the amount's path or the record's
 * `object`), the amount taken as the value is kept under its own name and the page asks with no
 * answer preselected. A refund moves money back: an event or status that says so (refund,
 * refunded) keeps its amount, as the refund rule reads it (refund-value.ts). A cancelled
 * subscription is left out: the corpus's truth takes its renewal price as the value. Pure, but for
 * the guesses and questions it rewrites.
 */
import { recordWords } from './document-total.ts';
import { askValueWhen, eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Words of a record called off. */
const CANCELLED = new Set(['cancel', 'canceled', 'cancelled', 'cancellation', 'cancelation']);
/** Kinds of record whose money a cancellation leaves unmoved. */
const BOOKED = new Set([
  'booking',
  'bookings',
  'reservation',
  'reservations',
  'appointment',
  'appointments',
  'order',
  'orders',
  'stay',
]);
/** Words of money moved back, which a cancellation may carry. */
const REFUND = new Set(['refund', 'refunds', 'refunded', 'refunding', 'chargeback']);

/** Why the amount at `column` is a cancelled booking's or order's (module comment), or undefined. */
export function cancelledRecord(fields: readonly InferredField[], column: string): string | undefined {
  const named = eventNamed(fields);
  const event = named ? nameWords(named.value) : [];
  const status = recordWords(fields, column, ['status', 'state']);
  const steps = [...event, ...status];
  if (steps.some((w) => REFUND.has(w))) return undefined;
  const step = steps.find((w) => CANCELLED.has(w));
  if (!step) return undefined;
  const kind = [...event, ...nameWords(column), ...recordWords(fields, column, ['object'])].find((w) =>
    BOOKED.has(w),
  );
  if (!kind) return undefined;
  const said = event.includes(step) ? `the event is "${named?.value}"` : `its status is "${step}"`;
  return `an amount on a cancelled ${kind.replace(/s$/, '')} (${said}), with no refund said`;
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function cancelledRecordRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  askValueWhen(base, questions, (column) => {
    const why = cancelledRecord(fields, column);
    return why ? { why, ask: `It is ${why}: a cancellation moves no money.` } : undefined;
  });
}
