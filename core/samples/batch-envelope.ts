/**
 * An envelope's id is not the event's (docs/creator-inference.md#a-batchs-envelope, issue #94).
 * Some vendors deliver events in batches: one request whose body carries a list of events (or
 * records, or notifications), each with its own id, under an envelope that has an id of its own.
 * That top id names the request, the delivery, not any of the events it carries: two deliveries
 * of the same event have different ones, and one delivery of two events has one. Read here:
 *
 * - the **carried list**: a column at the envelope's level holding a list of objects, named as
 *   events, records or notifications (`data.events`, `records`), each item with its own id
 *   (`id`, `uuid`, `event_id`), no two alike within a list;
 * - the **envelope's id**: a column at the envelope's level named as an event's or a plain id
 *   (`id`, `uuid`, `eventId`, `notification_id`, `batch_id`).
 *
 * Beside a carried list whose items have their own ids, the envelope's id is delivery metadata
 * (delivery.ts lists it, so the draft keeps it out of the event, and the creator never takes it
 * as the event's id); taking the list as the rows, where the page offers it, gives each event its
 * own id from its record. Where the items have no id of their own, the envelope's id may be the
 * only one the events have, or the delivery's: the page asks. Pure.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Names of a list of events a delivery carries (`events`, `records`, `notificationItems`). */
const LIST_NAMES = new Set(['events', 'records', 'notifications', 'notificationitems', 'eventlist']);
/** Names of an item's own id, or of an id at the envelope's top. */
const ITEM_ID = new Set(['id', 'uuid', 'eventid', 'eventuuid', 'recordid', 'notificationid']);
const ENVELOPE_ID = new Set([
  ...ITEM_ID,
  'webhookid',
  'webhookeventid',
  'hookid',
  'messageid',
  'batchid',
  'payloadid',
  'deliveryid',
]);

const joined = (segment: string) => nameWords(segment).join('');
const segmentsOf = (column: string) => column.split('.');
/** At the envelope's level: a top-level column, or one with only envelopes (`data`, `payload`) above. */
const atEnvelope = (column: string) =>
  segmentsOf(column)
    .slice(0, -1)
    .every((p) => WRAPPERS.has(joined(p)));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The key of an item's own id (`uuid`), when the item has one holding a scalar value. */
function ownIdKey(item: Record<string, unknown>): string | undefined {
  return Object.keys(item).find((k) => {
    const v = item[k];
    return ITEM_ID.has(joined(k)) && (typeof v === 'string' ? v.trim() !== '' : typeof v === 'number');
  });
}

/** A list of events the payload carries, and the key of its items' own ids when every item has one. */
export interface CarriedList {
  readonly column: string;
  readonly idKey?: string;
}

/**
 * The list of events, records or notifications the payload carries at its envelope's level, or
 * undefined: a column whose every value (of those the inference kept) is a non-empty list of
 * objects under such a name. `idKey` is set when every item has its own id under one key and no
 * two items of a list share it.
 */
export function carriedList(fields: readonly InferredField[]): CarriedList | undefined {
  for (const f of fields) {
    const leaf = segmentsOf(f.name).at(-1) as string;
    if (f.type !== 'json' || !LIST_NAMES.has(joined(leaf)) || !atEnvelope(f.name)) continue;
    const lists = f.examples.filter(Array.isArray);
    if (lists.length === 0 || lists.length !== f.examples.length) continue;
    if (!lists.every((l) => l.length > 0 && l.every(isObject))) continue;
    const items = lists.flat() as Record<string, unknown>[];
    const key = ownIdKey(items[0] as Record<string, unknown>);
    const own =
      key !== undefined &&
      items.every((item) => ownIdKey(item) === key) &&
      lists.every((l) => new Set(l.map((item) => String(item[key]))).size === l.length);
    return { column: f.name, ...(own ? { idKey: key } : {}) };
  }
  return undefined;
}

/** The columns at the envelope's level named as an event's or a plain id, outside the list. */
function envelopeIds(fields: readonly InferredField[], list: CarriedList): InferredField[] {
  return fields.filter(
    (f) =>
      f.name !== list.column &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      atEnvelope(f.name) &&
      ENVELOPE_ID.has(joined(segmentsOf(f.name).at(-1) as string)),
  );
}

/**
 * The envelope's ids that name the delivery (module comment): each with why, for delivery.ts's
 * list of delivery metadata. None unless the carried list's items have ids of their own.
 */
export function batchDeliveryIds(fields: readonly InferredField[]): { column: string; why: string }[] {
  const list = carriedList(fields);
  if (!list?.idKey) return [];
  return envelopeIds(fields, list).map((f) => ({
    column: f.name,
    why: `${f.name} names the delivery of the events in ${list.column}, each with its own ${list.idKey}: not one event's id (take that list as the rows for each event's own)`,
  }));
}

/** Generic names of a list that carry events only when each item says which event it is (`payload.items`). */
const GENERIC_LISTS = new Set(['items', 'entries', 'batch']);
/** Keys of an item that name which event it is: a list of such items is a batch, not an order's lines. */
const ITEM_TYPE = new Set(['type', 'event', 'eventtype', 'eventname', 'topic', 'action']);
/** How deep under envelopes (`data`, `payload`…) a carried list is looked for. */
const MAX_ENVELOPES = 3;
/** A path segment the translator's `format.records` takes (schemas/translator.ts). */
const PATH_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

const isEvents = (items: readonly Record<string, unknown>[], name: string) =>
  LIST_NAMES.has(joined(name)) ||
  (GENERIC_LISTS.has(joined(name)) &&
    items.every(
      (item) => ownIdKey(item) !== undefined && Object.keys(item).some((k) => ITEM_TYPE.has(joined(k))),
    ));

/**
 * The dotted path of a batch nested in a JSON body under its envelopes (Okta's `data.events`, a
 * `payload.items` of events), for the page to offer as the rows as it offers a top-level list: a
 * non-empty list of objects under envelopes only (`data`, `payload`, `body`…, at most three),
 * named as events, records or notifications, or `items`, `entries` or `batch` whose every item has
 * its own id and a key naming its event (`type`, `event`, `eventType`…), which an order's line
 * items do not. Undefined when there is none, or more than one (then none is the batch).
 */
export function nestedBatchPath(body: unknown): string | undefined {
  const found: string[] = [];
  const walk = (value: Record<string, unknown>, path: readonly string[]) => {
    for (const [key, v] of Object.entries(value)) {
      if (!PATH_SEGMENT.test(key)) continue;
      const at = [...path, key];
      if (Array.isArray(v) && v.length > 0 && v.every(isObject) && isEvents(v, key)) found.push(at.join('.'));
      else if (isObject(v) && WRAPPERS.has(joined(key)) && at.length < MAX_ENVELOPES) walk(v, at);
    }
  };
  if (isObject(body))
    for (const [key, v] of Object.entries(body))
      if (isObject(v) && WRAPPERS.has(joined(key)) && PATH_SEGMENT.test(key)) walk(v, [key]);
  return found.length === 1 ? found[0] : undefined;
}

/** A column's guess as far as this reads it: the column and where it goes. */
type Guess = Pick<RuleGuess, 'column' | 'target'>;

/**
 * The question of an envelope's id where the carried list's items have no id of their own: the
 * column taken as the event's id (preselected), which may name the delivery rather than an event.
 */
export function batchIdQuestion(
  fields: readonly InferredField[],
  base: readonly Guess[],
): Question | undefined {
  const list = carriedList(fields);
  const taken = base.find((g) => g.target === 'event_id');
  if (!list || list.idKey || !taken) return undefined;
  if (!envelopeIds(fields, list).some((f) => f.name === taken.column)) return undefined;
  const why = `at the top of a payload that carries a list of events (${list.column}) without ids of their own: the delivery's id, or the only one its events have`;
  return {
    target: 'event_id',
    ask: `Is ${taken.column} the event's own id? The payload carries its events in ${list.column}, and an id above them may name the delivery: a wrong one folds different events into one.`,
    options: [{ column: taken.column, why }],
  };
}
