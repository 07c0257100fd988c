/**
 * An event id beside the event's type (docs/creator-inference.md, "An event id beside the event's
 * type", issue #94). A column named for an event id inside an object (`payload.event_id`) is read
 * as that object's id, not the event's: position is evidence (a message's `headers.message-id` is
 * the message's; a ticket's `payload.event_id` the show it is for). But an aggregator may wrap its
 * whole envelope once more (`{ payload: { event_type: "crm.activity.created", event_id,
 * occurred_at } }`): where the same object also holds the event's type, written as a type is (a
 * dotted, colon- or slash-separated or snake-case token in every row, never words with spaces),
 * that object is the event's envelope, and an id there whose leaf says both "event" and "id"
 * (`event_id`, `eventId`, `event_uuid`) is offered as the event's id. Only offered, preselected
 * (held-event-id.ts asks it as it asks a header object's): a plain `id` beside a `type` is as
 * often a record's. Pure.
 */
import { nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

const holder = (column: string): string => column.slice(0, Math.max(0, column.lastIndexOf('.')));
const leafWords = (column: string): string => nameWords(column.slice(column.lastIndexOf('.') + 1)).join(' ');

/** Leaves naming an event's type beside its id. */
const TYPE_LEAF = new Set(['type', 'event type', 'event', 'event name', 'topic']);
/** A value written as an event type: `crm.activity.created`, `user:login`, `invoice_paid`, `TICKET_CLOSED`. */
const TYPE_TOKEN = /^[A-Za-z][\w-]*([.:/][\w-]+)+$|^[A-Za-z]+(_[A-Za-z]+)+$/;

/** Whether a column's leaf names an event's id (`event_id`, `eventId`, `event_uuid`). */
export function namedEventId(column: string): boolean {
  const words = leafWords(column);
  return words === 'event id' || words === 'event uuid';
}

/**
 * Whether `column`, named for an event's id inside an object, sits beside a column of that same
 * object naming the event's type, every row of it a type token (module comment).
 */
export function besideEventType(
  column: string,
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): boolean {
  const at = holder(column);
  if (at === '' || !namedEventId(column) || rows.length === 0) return false;
  return fields.some(
    (f) =>
      holder(f.name) === at &&
      TYPE_LEAF.has(leafWords(f.name)) &&
      rows.every((r) => TYPE_TOKEN.test(String(r[f.name]))),
  );
}
