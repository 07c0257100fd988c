/**
 * An event id beside the event's name (docs/creator-inference.md, "An event id beside the event's
 * name", issue #94). A column named for an event id inside an object (`payload.event_id`) was read
 * as that object's id, not the event's: position is evidence, and a message's
 * `headers.message-id` is the message's. But where the same object also holds the column that
 * names the event (`payload.event_type: "crm.activity.created"`, read as the event's name), that
 * object is the event's own envelope, wrapped once more by the vendor (`{ payload: { event_id,
 * event_type, occurred_at, … } }`), and the id named for the event in it is the event's. Only a
 * leaf whose words say both "event" and "id" (`event_id`, `eventId`, `event_uuid`) qualifies: a
 * plain `id` beside a `type` is as often a record's (`data: { id, type: "invoice" }`). Pure.
 */
import { nameWords } from './names.ts';

const holder = (column: string): string => column.slice(0, Math.max(0, column.lastIndexOf('.')));

/** Whether a column's leaf names an event's id (`event_id`, `eventId`, `event_uuid`). */
export function namedEventId(column: string): boolean {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  return words.length === 2 && words[0] === 'event' && (words[1] === 'id' || words[1] === 'uuid');
}

/**
 * Whether `column`, named for an event's id inside an object, sits beside one of `eventNames`
 * (the columns read as naming the event) in that same object.
 */
export function besideEventName(column: string, eventNames: readonly string[]): boolean {
  if (!column.includes('.') || !namedEventId(column)) return false;
  const at = holder(column);
  return eventNames.some((n) => n !== column && n.includes('.') && holder(n) === at);
}
