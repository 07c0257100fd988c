/**
 * A record that reports its own status (issue #94,
 * docs/creator-inference.md#a-records-status-callback-and-another-persons-contact). Many vendors
 * call back with the record itself, the same object their API returns, when it is created and
 * again on every change of its status: a payout link's `{ id, status: "completed", … }`, an SMS's
 * `uuid=…&status=sent`, a mailing's `oldStatus`/`newStatus` beside its `id`. The record's own
 * plain id is then the record's, repeated by every callback about it, not one callback's: taken
 * as the event's id, it folds the record's whole life into its first event. Read by shape: the
 * id is the record's own (`id`, `_id`, `uid`, `uuid`, `guid`, or an id named for the record its
 * object says it is, `payout_id` beside `object: "payout"` or inside `payout`); nothing marks the
 * body as one event (no column names the event's kind, `event`, `type`, `topic`, `action`, an
 * `event_type` anywhere, and no id is named for the event, the notification or the delivery); and
 * the body says the record is reported on more than once: a status change written as a pair
 * (`oldStatus`/`newStatus`) beside the id, or, at the payload's top or directly in the object it
 * wraps its record in (`data`, `object`, …), a status of the record (`status`, `state`,
 * `payment_status`, one value, a word or a number; a `state` only in a lifecycle's words, never a
 * region) beside the address it is called back at (`callback_url`, `notification_url`, `notifyUrl`)
 * or the time it was delivered (`delivered_at`), a step a thing sent reports after it was sent. A
 * status alone is not enough: a created order or a paid invoice carries its status too, and the
 * truths take its id as that event's (a status alone asked 21 such ids on the tuned part). The
 * page then asks which column is the event's own id, nothing preselected (shared-id.ts asks).
 * From held-out-31 (docs, "A record as the body, an account's user and a booked resource") the
 * callback's signs are no longer needed at the top or in a wrapper: where nothing marks the body
 * as one event, the body is the record, and its own id is asked whatever else it carries (a lead
 * whose tag changed, an order paid, a ticket updated look alike from the body). A `type` or `kind`
 * whose one value is a category in capitals (`BUG`) beside the record's status is the record's,
 * no mark of an event. This reading covers record-object.ts's list of records and its object
 * without an event named; the object under an event's name stays there.
 * Pure.
 */
import { carriedList } from './batch-envelope.ts';
import { deliveryColumns } from './delivery.ts';
import { eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import { WRAPPERS } from './plain-id-offer.ts';
import { STATUS_VALUES } from './roles.ts';
import type { InferredField } from './sample.ts';

/** A record's own plain id, whatever record it is. */
const PLAIN = new Set(['id', 'uid', 'uuid', 'guid']);
/** Top-level names of the event's kind, as one joined word (`event_type`, `webhookType`). */
const KIND = new Set(['event', 'type', 'topic', 'action', 'trigger', 'kind', 'eventtype', 'eventname']);
/**
 * A name for the event's kind at any depth, as one joined word. A webhook's or callback's `name`
 * is its registration's label (`webhookName: "Webhook-teste"`), not the event's kind.
 */
const EVENT_KIND =
  /^(event(type|name|kind|action|topic)|(webhook|notification|callback)(type|kind|action|topic)|notificationname)$/;
/** Words naming the event itself, or its notification or delivery: an id so named is the event's. */
const EVENT_WORDS = new Set(['event', 'notification', 'delivery', 'occurrence']);
/**
 * Names of a report's status beside the thing's id: its status, state or code, whatever it holds
 * (a word, or a carrier's numeric code).
 */
export const STATUS = /^((delivery|message|report|dlr) )?(status|state|code|status code|state code)$/;

/** Words that open the earlier and the later side of a status change written as a pair. */
const BEFORE = new Set(['old', 'previous', 'prev', 'from', 'last']);
const AFTER = new Set(['new', 'current', 'to', 'next']);

const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const leafWords = (column: string) => nameWords(leafOf(column));
const inObject = (f: InferredField, parent: string) => parentOf(f.name) === parent && f.name !== parent;

/** A status's name: `status` or `state`, alone or after words of its record (`payment_status`). */
const statusName = (words: readonly string[]) => words.at(-1) === 'status' || words.at(-1) === 'state';

/** Whether `column` is at the payload's top or directly in the object it wraps its record in. */
export function recordPlace(column: string): boolean {
  const parts = column.split('.');
  return parts.length === 1 || (parts.length === 2 && WRAPPERS.has((parts[0] ?? '').toLowerCase()));
}

/** Whether `column` is its record's own id: a plain one, or one named for the record itself. */
export function ownRecordId(fields: readonly InferredField[], column: string): boolean {
  const words = leafWords(column);
  if (words.length === 1) return PLAIN.has(words[0] ?? '') || /^_+id$/i.test(leafOf(column));
  if (words.at(-1) !== 'id') return false;
  const stem = words.slice(0, -1).join(' ');
  const parent = parentOf(column);
  if (parent && nameWords(leafOf(parent)).join(' ') === stem) return true;
  const object = fields.find((f) => inObject(f, parent) && leafOf(f.name) === 'object' && f.distinct === 1);
  return typeof object?.examples[0] === 'string' && nameWords(object.examples[0]).join(' ') === stem;
}

/** The column that marks the body as one event (its kind, or an id named for it), or undefined. */
export function eventMark(fields: readonly InferredField[]): string | undefined {
  const named = eventNamed(fields)?.column;
  if (named) return named;
  return fields.find((f) => {
    if (f.distinct === 0) return false;
    const words = leafWords(f.name);
    const joined = words.join('');
    if (!f.name.includes('.') && KIND.has(joined)) return true;
    if (EVENT_KIND.test(joined)) return true;
    return words.length >= 2 && words.at(-1) === 'id' && words.slice(0, -1).some((w) => EVENT_WORDS.has(w));
  })?.name;
}

/** A status change written as a pair in `parent` (`oldStatus` and `newStatus`), or undefined. */
function statusPair(fields: readonly InferredField[], parent: string): string | undefined {
  const side = (opening: ReadonlySet<string>) =>
    fields.find((f) => {
      const words = leafWords(f.name);
      return (
        inObject(f, parent) &&
        f.distinct > 0 &&
        words.length >= 2 &&
        opening.has(words[0] ?? '') &&
        STATUS.test(words.slice(1).join(' '))
      );
    })?.name;
  const before = side(BEFORE);
  const after = side(AFTER);
  return before && after ? `${before} → ${after}` : undefined;
}

/** A status of the record in `parent`, one value, a word or a number (a `state` only in a lifecycle's words, never a region), or undefined. */
function ownStatus(fields: readonly InferredField[], parent: string): string | undefined {
  const status = fields.find((f) => {
    const words = leafWords(f.name);
    if (!inObject(f, parent) || f.distinct !== 1 || !statusName(words)) return false;
    if (BEFORE.has(words[0] ?? '') || AFTER.has(words[0] ?? '')) return false;
    const value = f.examples[0];
    if (typeof value === 'number') return true;
    if (typeof value !== 'string') return false;
    return words.at(-1) === 'status' || STATUS_VALUES.test(value.trim());
  });
  return status ? `${status.name}: ${String(status.examples[0])}` : undefined;
}

/** Words of an address a record is called back at about its changes (`callback_url`, `notifyUrl`). */
const CALLBACK = new Set(['callback', 'notification', 'notify', 'ipn', 'postback', 'webhook']);

/**
 * A column of the record in `parent` that says it is called back about more than once: the address
 * it is called back at (`callback_url`, `notification_url`), or the time it was delivered
 * (`delivered_at`), a step a thing sent reports after being sent; or undefined.
 */
function calledBack(fields: readonly InferredField[], parent: string): string | undefined {
  return fields.find((f) => {
    if (!inObject(f, parent) || f.distinct === 0) return false;
    const words = leafWords(f.name);
    if (words.some((w) => CALLBACK.has(w)) && /^(url|uri|address)$/.test(words.at(-1) ?? '')) return true;
    return words[0] === 'delivered' && /^(at|time|date|on)$/.test(words.at(-1) ?? '');
  })?.name;
}

/** Names of a column saying what the body, or its wrapper, is (`object: "event"`), as one joined word. */
export const OBJECT_NAMES: ReadonlySet<string> = new Set([
  'object',
  'objecttype',
  'resourcetype',
  'entitytype',
  'recordtype',
  'objectkind',
]);
/** Words of such a value, or of an id's prefix, that say the body is an event or its delivery. */
export const EVENT_OBJECT: ReadonlySet<string> = new Set([
  'event',
  'events',
  'webhook',
  'notification',
  'callback',
  'delivery',
  'hook',
]);
/** An id's prefix naming an event (`evt_1`, `event-7`, `ntf_2`). */
const EVENT_PREFIX = /^(evt|ev|event|ntf|notif|notification)[_-]/i;

/**
 * Why the body is an event's envelope, not a bare record, though no column names the event:
 * an `object` field beside the id naming an event (`object: "event"`, `webhook_event`), an id
 * whose prefix names one (`evt_1`), a counter of the delivery's attempts at the top (the
 * vendor retries an event, not a record), or a list of events it carries. Undefined for a bare
 * record.
 */
function envelopeSign(fields: readonly InferredField[], column: string, parent: string): string | undefined {
  const object = fields.find(
    (f) =>
      inObject(f, parent) &&
      f.distinct === 1 &&
      OBJECT_NAMES.has(leafWords(f.name).join('')) &&
      typeof f.examples[0] === 'string' &&
      nameWords(f.examples[0]).some((w) => EVENT_OBJECT.has(w)),
  );
  if (object) return object.name;
  const id = fields.find((f) => f.name === column);
  if (id?.examples.some((v) => typeof v === 'string' && EVENT_PREFIX.test(v))) return column;
  const attempts = deliveryColumns(fields).find((d) => d.kind === 'attempt' && !d.column.includes('.'));
  if (attempts) return attempts.column;
  // A list of events the body carries (batch-envelope.ts): the body delivers events, and that
  // rule asks about its id.
  return carriedList(fields)?.column;
}

/** Names of a column that may give either the event's kind or the record's own category. */
const CATEGORY = new Set(['type', 'kind']);

/**
 * Words of a one-word kind that name something that happened (`subscribe`, `click`, `signup`), so
 * the kind is the event's; any word ending in `ed` (`created`, `delivered`) names one too.
 */
const HAPPENED = new Set([
  'create',
  'update',
  'delete',
  'change',
  'cancel',
  'complete',
  'refund',
  'payment',
  'pay',
  'purchase',
  'order',
  'subscribe',
  'unsubscribe',
  'signup',
  'login',
  'logout',
  'click',
  'open',
  'bounce',
  'send',
  'sent',
  'receive',
  'reply',
  'submit',
  'submission',
  'event',
  'webhook',
  'notification',
  'test',
  'ping',
]);

/**
 * Whether the body's only mark of an event is a `type` or `kind` at its top whose one value is a
 * category of the record, beside the record's own status: a ticket's type (`BUG`, `FEATURE`), a
 * conversation's channel (`email`, `chat`), not the event's. One word, naming nothing that happened
 * (held-out-33's FreeScout: `type: "email"` beside `status: "closed"` on a conversation whose id
 * every event about it repeats).
 */
function categoryOnly(fields: readonly InferredField[], mark: string): boolean {
  const f = fields.find((c) => c.name === mark);
  const value = f?.examples[0];
  if (f?.distinct !== 1 || typeof value !== 'string' || !CATEGORY.has(mark.toLowerCase())) return false;
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(value) || nameWords(value).length !== 1) return false;
  const word = value.toLowerCase();
  if (HAPPENED.has(word) || word.endsWith('ed')) return false;
  return fields.some((c) => !c.name.includes('.') && c.distinct === 1 && statusName(leafWords(c.name)));
}

/**
 * The record whose status its own id `column` reports, where nothing marks the body as one event
 * (module comment): a status change written as a pair (`oldStatus → newStatus`, in any object), or
 * a status beside a column that says the record is called back about more than once, at the top
 * or in a wrapper; undefined otherwise.
 */
export function recordStatus(
  fields: readonly InferredField[],
  column: string,
): { readonly thing: string; readonly status: string } | undefined {
  const mark = eventMark(fields);
  if (!ownRecordId(fields, column) || (mark && !categoryOnly(fields, mark))) return undefined;
  const parent = parentOf(column);
  const change = statusPair(fields, parent);
  if (change) return { thing: 'record whose status changed', status: change };
  if (!recordPlace(column)) return undefined;
  const status = ownStatus(fields, parent);
  const back = status ? calledBack(fields, parent) : undefined;
  if (status && back) return { thing: 'record whose status it reports', status: `${status}; ${back}` };
  if (envelopeSign(fields, column, parent)) return undefined;
  return { thing: 'record the body is', status: 'no column names the event, no id is named for it' };
}
