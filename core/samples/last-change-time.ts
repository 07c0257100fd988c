/**
 * A record's last change, not its creation, as the event's time (issue #94,
 * docs/creator-inference.md#a-records-last-change-as-the-event-time). A vendor that calls back
 * about a record sends the record as it stands after the change: its `created_at` says when the
 * record began, its `updated_at` when it last changed, which is when this event happened. Where the
 * time the ranking chose is a record's creation time and the same object holds an update time
 * that is later in the sample (at least one row more than a second later, none earlier: a record
 * saved twice as it is made shows times a few milliseconds apart), the update time is taken
 * instead, unless the body's event names the record's creation (`order.created`,
 * `action: "created"`: its creation is the event). Equal times say nothing and change nothing.
 * Two kinds of evidence agree: the names (creation and update of one object) and the values (the
 * record changed after it began). Pure.
 */
import { instantOf } from './instant-of.ts';
import { nameWords } from './names.ts';
import { creationEvent } from './record-object.ts';
import type { InferredField } from './sample.ts';

/** An update within this of the creation is the creation's own write (a record saved twice as it is made). */
const SAME_WRITE_MS = 1000;
const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));
/** A time's name that says a record began: `created_at`, `createdAt`, `date_created`, `creation_date`. */
const CREATED = /^(date )?(created|creation)( (at|on|date|time|timestamp))?$/;
/** A time's name that says a record last changed: `updated_at`, `dateModified`, `last_modified`. */
const UPDATED =
  /^(date |last )?(updated|modified|changed|update|modification)( (at|on|date|time|timestamp))?$/;

/**
 * The ranked choice, or the update time of its record where the module comment says so (with why).
 */
export function lastChange<T extends { readonly f: InferredField; readonly why: string }>(
  best: T | undefined,
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): T | undefined {
  if (!best || !CREATED.test(leafWords(best.f.name).join(' '))) return best;
  const parent = parentOf(best.f.name);
  const update = fields.find(
    (f) =>
      parentOf(f.name) === parent &&
      f.distinct > 0 &&
      (f.type === 'timestamp' || f.type === 'date') &&
      UPDATED.test(leafWords(f.name).join(' ')),
  );
  if (!update) return best;
  let later = false;
  for (const row of rows) {
    const created = instantOf(row[best.f.name], best.f);
    const updated = instantOf(row[update.name], update);
    if (created === undefined || updated === undefined) continue;
    if (updated < created) return best;
    if (updated - created > SAME_WRITE_MS) later = true;
  }
  if (!later || creationEvent(fields)) return best;
  return {
    ...best,
    f: update,
    why: `is when the record last changed, later than its ${best.f.name}: a call back about a record comes after a change to it`,
  };
}
