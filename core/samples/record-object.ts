/**
 * A record's own id is not an event's (issue #94, docs/creator-inference.md, "A record's object, a
 * list of records and the other side of a transfer"). Two shapes say the plain id a body carries
 * names a record, which every later event about that record repeats, and not one event:
 *
 * - **an object that names the record beside its id**: at the payload's top or directly in the
 *   object it wraps its record in (`data`, `object`, …), a column naming what the object is
 *   (`object`, `object_type`, `resource_type`, `entity_type`, `record_type`), one value, that names
 *   a record (`product_access`, `invoice`, `subscription`), not an event (`event`,
 *   `webhook_event`, `notification_event`), and no id beside it is named for the record
 *   (`resource_id` beside `resource_type` is the record's, and the plain id then the event's). The
 *   id beside it is that record's: Stripe's
 *   `object: "event"` says its `id` is the event's, a `product_access` that its `id` is the
 *   access's, repeated when it is revoked. Where the body's event names the record's creation
 *   (`event_type: created`, `order.created`), the record is created once, so its id is that
 *   event's as well, as the truths take it, and the id is left filled;
 * - **a list of records**: rows read from a list (at the top or under a batch wrapper), several of
 *   them, each row's plain id at its top, no two alike, beside the record's own name (`name`,
 *   `title`), where no column names the event's kind and no column holds a time: each row is a
 *   record as it stands, not an event that happened to it.
 *   A list of events (SendGrid's, Segment's batches) names each item's event and time, and keeps
 *   its ids.
 *
 * Either way the page asks which column is the event's own id, nothing preselected (shared-id.ts
 * asks). Pure.
 */
import { nameWords } from './names.ts';
import { EVENT_OBJECT, eventMark, OBJECT_NAMES, ownRecordId, recordPlace } from './record-status.ts';
import type { InferredField } from './sample.ts';

/** Words of an event's name that say it created the record: its id is then that event's too. */
const CREATION = new Set(['create', 'created', 'creation', 'new', 'added', 'add', 'insert', 'inserted']);
/**
 * Names of a record's own name at a row's top: a row that names a thing and no event is that thing
 * as it stands. Rows of ids, amounts and statuses alone (a test's or an export's events) are not read
 * as records.
 */
const RECORD_NAME = new Set(['name', 'title', 'label', 'display name', 'full name']);
/** Last words of a column's name that say it holds a time. */
const TIME_WORDS = new Set(['at', 'time', 'timestamp', 'date', 'datetime', 'ts', 'on', 'when']);

const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));

/** Whether the body's event, as its kind column names it, created the record. */
export function creationEvent(fields: readonly InferredField[]): boolean {
  const mark = eventMark(fields);
  const kind = fields.find((f) => f.name === mark);
  return (kind?.examples ?? []).some(
    (v) => typeof v === 'string' && nameWords(v).some((w) => CREATION.has(w)),
  );
}

/**
 * The column beside `column` that names its object a record, not an event, with its value, where
 * `column` is that object's own id at the top or in a wrapper and the body's event did not create
 * it (module comment); undefined otherwise.
 */
export function recordObject(fields: readonly InferredField[], column: string): string | undefined {
  if (!recordPlace(column) || !ownRecordId(fields, column)) return undefined;
  const parent = parentOf(column);
  const object = fields.find(
    (f) =>
      f.name !== column &&
      parentOf(f.name) === parent &&
      f.name.includes('.') === column.includes('.') &&
      OBJECT_NAMES.has(leafWords(f.name).join('')) &&
      f.distinct === 1 &&
      typeof f.examples[0] === 'string',
  );
  const value = object?.examples[0];
  if (!object || typeof value !== 'string') return undefined;
  // `resource_type` beside `resource_id`: the record's id is that one, and the plain id the event's.
  const stem = leafWords(object.name).slice(0, -1).join(' ');
  const named = fields.some(
    (f) => parentOf(f.name) === parent && leafWords(f.name).join(' ') === `${stem} id`,
  );
  const words = nameWords(value);
  if (named || words.length === 0 || words.some((w) => EVENT_OBJECT.has(w)) || creationEvent(fields))
    return undefined;
  return `${object.name}: ${value}`;
}

/** Whether a column holds a time: its type, or its name's last word (`created_at`, `timestamp`). */
const timeColumn = (f: InferredField) =>
  f.type === 'timestamp' || f.type === 'date' || TIME_WORDS.has(leafWords(f.name).at(-1) ?? '');

/**
 * Whether `column` is the plain id of rows that are a list of records (module comment): a row's
 * own id at its top, several values none alike, beside the record's name, no column naming the
 * event's kind, none a time.
 */
export function recordList(fields: readonly InferredField[], column: string): boolean {
  if (column.includes('.') || !ownRecordId(fields, column)) return false;
  const id = fields.find((f) => f.name === column);
  if (!id || id.distinct < 2 || id.nullable) return false;
  if (eventMark(fields) !== undefined || fields.some((f) => f.distinct > 0 && timeColumn(f))) return false;
  return fields.some(
    (f) => !f.name.includes('.') && f.distinct > 0 && RECORD_NAME.has(leafWords(f.name).join(' ')),
  );
}
