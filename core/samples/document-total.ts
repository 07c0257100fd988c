/**
 * A document's total before it is paid or accepted is no value (issue #94,
 * docs/creator-inference.md#a-bound-a-documents-total-and-a-mailings-id). A quote, proposal,
 * estimate, contract or agreement carries the total it asks for from its first draft on; while it is created, sent, viewed, reminded of or changes state,
 * nothing changed hands: only its payment or its acceptance (paid, accepted, won, signed,
 * completed) makes that total money. The estimate rule (estimated-value.ts) reads the amount's
 * name; this one reads the record's kind (the event's name, the amount's path, the record's
 * `object`, a status named for its record (`proposalStatus`, `quote_status`) and the value of a
 * column named as a type (`proposalType: "Proposal"`; its name is not read: a `document_type` is
 * often a person's identity document)) and the event (its name, and the record's status, plain or
 * so named), at the top of the payload or in an object holding the amount. Where the amount taken
 * as the value is such a document's and the event is one of its lifecycle steps, not its payment
 * or acceptance, the amount is kept under its own name and the page asks with no answer
 * preselected, so no currency is filled: whatever the amount is named (a total, or a client's
 * rate on a proposal sent), a document not yet signed, accepted or paid moved no money. An
 * invoice is left out here: created or sent, it is the amount it will charge. A draft of any
 * record, an invoice's too, is asked by the rule for money asked for (pending-request.ts). Pure,
 * but for the guesses and questions it rewrites.
 */
import { askValueWhen, eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Kinds of record whose total is asked for, not yet paid. */
const DOCUMENT = new Set([
  'quote',
  'quotes',
  'quotation',
  'proposal',
  'proposals',
  'estimate',
  'estimates',
  'contract',
  'contracts',
  'agreement',
  'agreements',
  'document',
  'documents',
]);
/** Words of the steps that make the total money: a payment, or the document's acceptance. */
export const SETTLED: ReadonlySet<string> = new Set([
  'paid',
  'payment',
  'payments',
  'accepted',
  'approved',
  'won',
  'signed',
  'completed',
  'converted',
  'charged',
  'succeeded',
  'settled',
  'captured',
  'purchased',
]);
/** Words of a document's lifecycle steps before that. */
const LIFECYCLE = new Set([
  'created',
  'create',
  'new',
  'sent',
  'send',
  'viewed',
  'view',
  'opened',
  'changed',
  'updated',
  'update',
  'state',
  'status',
  'reminder',
  'reminded',
  'draft',
  'drafted',
  'shared',
  'revised',
  'expired',
  'declined',
  'rejected',
  'voided',
  'deleted',
]);

/** One text value of a column: its words, or none. */
function wordsOf(fields: readonly InferredField[], name: string): string[] {
  const f = fields.find((x) => x.name === name);
  return f && f.distinct === 1 && typeof f.examples[0] === 'string' ? nameWords(f.examples[0]) : [];
}

/** The paths that hold the amount, outermost first (`data`, `data.grand_total` for `data.grand_total.amount`). */
export function holders(column: string): string[] {
  const parts = column.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
}

/** A record's word beside a name: `object`, `status` or `state` at the top or in a holder. */
export function recordWords(
  fields: readonly InferredField[],
  column: string,
  leaves: readonly string[],
): string[] {
  return ['', ...holders(column)].flatMap((h) => leaves.flatMap((l) => wordsOf(fields, h ? `${h}.${l}` : l)));
}

/**
 * The columns at the top or in a holder whose leaf ends in one of `last` after words of its own
 * (`proposalStatus`, `quote_type`): the leaf's leading words (the record it names) and its value's.
 */
function namedRecord(
  fields: readonly InferredField[],
  column: string,
  last: ReadonlySet<string>,
): { readonly lead: string[]; readonly value: string[] }[] {
  const levels = new Set(['', ...holders(column)]);
  return fields.flatMap((f) => {
    const dot = f.name.lastIndexOf('.');
    const leaf = nameWords(f.name.slice(dot + 1));
    if (!levels.has(dot < 0 ? '' : f.name.slice(0, dot)) || leaf.length < 2) return [];
    if (!last.has(leaf.at(-1) ?? '')) return [];
    return [{ lead: leaf.slice(0, -1), value: wordsOf(fields, f.name) }];
  });
}
const STATUS_LEAF = new Set(['status', 'state']);
const TYPE_LEAF = new Set(['type', 'kind']);

/**
 * Why the amount at `column` is a document's total on a step that is not its payment or
 * acceptance (module comment), or undefined.
 */
export function unsettledDocument(fields: readonly InferredField[], column: string): string | undefined {
  const named = eventNamed(fields);
  const event = named ? nameWords(named.value) : [];
  const statuses = namedRecord(fields, column, STATUS_LEAF);
  const status = [...recordWords(fields, column, ['status', 'state']), ...statuses.flatMap((x) => x.value)];
  const steps = [...event, ...status];
  if (steps.some((w) => SETTLED.has(w)) || !steps.some((w) => LIFECYCLE.has(w))) return undefined;
  const kinds = [
    ...event,
    ...nameWords(column),
    ...recordWords(fields, column, ['object']),
    ...statuses.flatMap((x) => x.lead),
    ...namedRecord(fields, column, TYPE_LEAF).flatMap((x) => x.value),
  ];
  const kind = kinds.find((w) => DOCUMENT.has(w));
  if (!kind) return undefined;
  const step = named ? `the event is "${named.value}"` : `its status is "${status.join(' ')}"`;
  return `an amount on a ${kind} not yet paid or accepted: ${step}`;
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function documentTotalRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  askValueWhen(base, questions, (column) => {
    const why = unsettledDocument(fields, column);
    return why
      ? { why, ask: `It is ${why}. A document's amounts are money only once it is paid or accepted.` }
      : undefined;
  });
}
