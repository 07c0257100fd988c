/**
 * A flat record's reference offered as the event's id (issue #94, docs/creator-inference.md, "A
 * flat record's reference"). Many vendors post a record's body with no column named as an id at
 * all: a payment notice keyed by `original_reference` and `partner_reference_no`, a mobile-money
 * request by `internal_reference`, a booking change by `partner_order_id` beside an
 * `agreement_number`, a message by `message_token`. No rule reads such a name as the event's id,
 * so the page asked nothing, and the event went without one: every delivery a new row. Where no
 * column is taken or asked as the event's id, the top-level columns named as a reference, a
 * number, a code, a handle or a token of something (`*_reference`, `reference_no`,
 * `order_number`, `message_handle`), or as an order's id (`order_id`, `partner_order_id`), each
 * holding one id-shaped value per row, are offered with no answer preselected: the name says the
 * column identifies something, not whether that is the event, the record it is about, or another
 * party's (a caller's own reference, an account's). Not a column the guesses give another role (a
 * `phone_number`), nor a secret (`access_token`). An id named for what carries the event across
 * systems (a `traceId`, a `correlationId`, a bot API's `update_id`) or for a confirmation is
 * offered the same way; where a question already offers the ids of records the payload holds,
 * with nothing preselected, these are added to it. Pure, but for the question it extends.
 */
import { everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Last words of a column named as something's reference (`original_reference`, `reference_no`). */
const REFERENCE_WORDS = new Set(['reference', 'ref', 'number', 'no', 'code', 'handle', 'token']);
/** Words a secret's name carries (`access_token`, `verify_token`): never offered as an id. */
const SECRET_WORDS = new Set([
  'access',
  'auth',
  'secret',
  'verify',
  'verification',
  'refresh',
  'api',
  'csrf',
  'password',
]);
/**
 * Words naming a phone, a count or a position rather than an id (`phone_number`, `page_number`,
 * `sequenceNumber`), a payment instrument's or a tax number (`card_number`, `vat_number`), or a
 * business party's (`merchantSerialNumber`, `account_number`).
 */
const NOT_ID_WORDS = new Set([
  'phone',
  'mobile',
  'fax',
  'page',
  'version',
  'count',
  'zip',
  'postal',
  'post',
  'country',
  'currency',
  'status',
  'error',
  'response',
  'reason',
  'sequence',
  'serial',
  'card',
  'iban',
  'routing',
  'cvv',
  'pin',
  'tax',
  'vat',
  'account',
  'store',
  'shop',
  'tenant',
  'organization',
  'company',
]);
/**
 * Words before `id` that name the order, what carries the event (`order_id`, `traceId`,
 * `update_id`), or a record an event is one of: a request, a post, a sale, an operation, a
 * transaction, a submission (`accessRequestId`, `post_id`, `sales_id`,
 * `OperationId`, `txn_id`, `aggregateID`, Magento's order `increment_id`).
 */
const ID_OF = new Set([
  'order',
  'trace',
  'correlation',
  'update',
  'confirmation',
  'request',
  'post',
  'sale',
  'sales',
  'operation',
  'transaction',
  'txn',
  'submission',
  'aggregate',
  'increment',
]);
/** The most columns one question offers. */
const MAX_OPTIONS = 4;

/** Whether a top-level column's name says it identifies something (module comment). */
export function referenceNamed(column: string): boolean {
  if (column.includes('.')) return false;
  const words = nameWords(column);
  const last = words.at(-1) ?? '';
  // A record's id (`post_id`, `accessRequestId`): its record's word says what it identifies, even
  // one that elsewhere names a place or a secret.
  if (words.length >= 2 && last === 'id' && ID_OF.has(words.at(-2) ?? '')) return true;
  if (words.some((w) => SECRET_WORDS.has(w) || NOT_ID_WORDS.has(w))) return false;
  // A bare `code`, `number` or `token` may be a status code, a count or a secret; with a word before
  // it, it is something's (`order_number`, `message_token`); a bare `reference` is one already.
  return REFERENCE_WORDS.has(last) && (words.length > 1 || last === 'reference');
}

/**
 * The rule in place (module comment): a question pushed, or the open question of the event's id
 * extended; nothing where an event id is taken or preselected, or nothing is named so.
 */
export function flatReferenceRule(
  base: readonly RuleGuess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: Question[],
): void {
  if (base.some((g) => g.target === 'event_id')) return;
  const qi = questions.findIndex((q) => (q.field ?? q.target) === 'event_id');
  const open = questions[qi];
  if (open && !open.noneGuessed) return;
  const named = referenceColumns(base, fields, rows, questions);
  if (named.length === 0) return;
  const options = named.map((f) => ({
    column: f.name,
    why: 'named as a reference, a number or a code of something, one per row',
  }));
  if (open) {
    questions[qi] = { ...open, options: [...open.options, ...options].slice(0, MAX_OPTIONS + 1) };
    return;
  }
  questions.push({
    target: 'event_id',
    ask: `Which column is the event's own id, if any? Nothing in the payload is named as one; ${named.length === 1 ? `${named[0]?.name} is named as a reference of something` : 'these are named as references of something'}, but not whether of the event, the record it is about, or another party.`,
    options: options.slice(0, MAX_OPTIONS),
    noneGuessed: {
      why: 'nothing in the payload is named as the event’s id, so nothing says which identifies it',
    },
  });
}

/** The top-level columns named as a reference (module comment) no question offers yet. */
function referenceColumns(
  base: readonly RuleGuess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: readonly Question[],
): InferredField[] {
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const named = fields.filter(
    (f) =>
      referenceNamed(f.name) &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      !offered.has(f.name) &&
      base.some((g) => g.column === f.name && g.target === 'event_data') &&
      everyRowOwn(rows, f.name) &&
      idShaped(rows, f.name),
  );
  return named;
}
