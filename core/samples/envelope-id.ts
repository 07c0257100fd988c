/**
 * An envelope's id beside its record's (docs/creator-inference.md, "An envelope's id beside its
 * record's"). A webhook often wraps the record it is about (`data`, `object`, `payload`,
 * `resource`) in an envelope with an id of its own at the top. That top-level id is the event's
 * for many vendors (Stripe's `evt_…`), but for others it names one delivery of the event, and
 * each retry carries a new one: taken as the event's id, every redelivery becomes a row of its
 * own. The payload alone cannot always tell; some evidence can:
 *
 * - the envelope says it is an event: its own `object`, `type` or `kind` is `event`,
 *   `webhook_event` or `notification_event`;
 * - the vendor types its ids by a word before them (`evt_…`, `msg_…`), and the envelope's word
 *   is neither the record's nor one of a delivery, an attempt or a request, nor one naming the
 *   webhook (`wh_…`, `hook_…`): the envelope is an object of its own kind, the event. A webhook's
 *   word says too little: some vendors type the event they send so (`WH-…`), others the
 *   subscription that sends every event (`wh_15`, the same on each), so it is asked;
 * - the envelope counts its delivery attempts (`attempt_number`): a counter tells a retry apart by
 *   itself, so the id beside it stays the same across retries.
 *
 * With none of these (a UUID or a bare number beside the record's own id, and only the event's
 * type beside it), the page asks which is the event's own id, the envelope's or the record's,
 * with no answer preselected: the envelope's id, if it is a delivery's, makes each retry a second
 * row; the record's id, if the envelope's was the event's, folds every later change of the record
 * into the first. An envelope that carries a list of events is a batch's (batch-envelope.ts).
 * Pure, but for the guess it rewrites.
 */
import { carriedList } from './batch-envelope.ts';
import { deliveryColumns, everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PLAIN_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** The columns an envelope says what it is in (`object: "event"`). */
const KIND_NAMES = new Set(['object', 'type', 'kind', 'objecttype']);
/** Words of a value saying the envelope is an event (`webhook_event`, `notification_event`). */
const EVENT_WORDS = new Set(['event', 'notification']);
const ENVELOPE_WORDS = new Set([...EVENT_WORDS, 'webhook', 'notif']);
/** An id typed by a word before it (`evt_1Nq…`, `WH-9UG4…`); a UUID's first group is hex, not a word. */
const PREFIX = /^([A-Za-z]{2,16})[_-]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;
/** Prefix words that say a delivery, an attempt or a request: then the envelope's id is that. */
const DELIVERY_PREFIX = /^(del|dlv|deliv|delivery|attempt|att|try|retry|req|request|dispatch)$/i;
/**
 * Prefix words that name the webhook: the event sent, or the subscription that sends them all (an
 * endpoint's id, the same on every event), so no evidence either way.
 */
const WEBHOOK_PREFIX = /^(wh|whk|hook|hooks|webhook|webhooks)$/i;

const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/** The word an id's values are typed by, when every row's has the same one; else undefined. */
function prefixOf(rows: readonly Record<string, unknown>[], column: string): string | undefined {
  const words = rows.map((r) => {
    const v = r[column];
    return typeof v === 'string' && !UUID.test(v) ? PREFIX.exec(v)?.[1]?.toLowerCase() : undefined;
  });
  const first = words[0];
  return first !== undefined && words.every((w) => w === first) ? first : undefined;
}

/**
 * Whether a column sits where the own id of the record an envelope wraps does, whatever its name:
 * under one or two wrappers only (`data.…`, `data.object.…`), a string or integer shaped as an id
 * on every row, and not the envelope's own id on some row.
 */
export function wrappedIdShaped(
  f: InferredField,
  rows: readonly Record<string, unknown>[],
  envelope: string,
): boolean {
  const parts = f.name.split('.');
  return (
    parts.length >= 2 &&
    parts.length <= 3 &&
    parts.slice(0, -1).every((p) => WRAPPERS.has(nameWords(p).join(''))) &&
    f.distinct > 0 &&
    (f.type === 'string' || f.type === 'integer') &&
    everyRowOwn(rows, f.name) &&
    idShaped(rows, f.name) &&
    rows.some((r) => String(r[f.name]) !== String(r[envelope]))
  );
}

/** The own id of the record the envelope wraps: a plain id under wrappers only (`data.id`, `data.object.id`). */
function wrappedRecordId(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  envelope: string,
): InferredField | undefined {
  return fields.find((f) => PLAIN_ID.test(leafOf(f.name)) && wrappedIdShaped(f, rows, envelope));
}

/** Why the envelope's id is the event's, from the module comment's evidence; undefined without any. */
export function envelopeIdEvidence(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  envelope: string,
  record: string,
): string | undefined {
  const declared = fields.find(
    (f) =>
      !f.name.includes('.') &&
      KIND_NAMES.has(nameWords(f.name).join('')) &&
      f.examples.length > 0 &&
      f.examples.every((v) => {
        const words = typeof v === 'string' ? nameWords(v) : [];
        return words.some((w) => EVENT_WORDS.has(w)) && words.every((w) => ENVELOPE_WORDS.has(w));
      }),
  );
  if (declared)
    return `the envelope says it is an event (${declared.name}: ${JSON.stringify(declared.examples[0])})`;
  const typed = prefixOf(rows, envelope);
  if (
    typed &&
    !DELIVERY_PREFIX.test(typed) &&
    !WEBHOOK_PREFIX.test(typed) &&
    typed !== prefixOf(rows, record)
  )
    return `its values are typed "${typed}", a kind of their own beside the record's id`;
  const attempt = deliveryColumns(fields).find((d) => d.kind === 'attempt');
  if (attempt)
    return `the envelope counts its delivery attempts (${attempt.column}), so its id stays the same on a retry`;
  return undefined;
}

/**
 * Where the guesses take the envelope's own plain id at the top as the event's, that guess and its
 * index; undefined otherwise, or where the envelope carries a list of events (a batch's:
 * batch-envelope.ts reads its id).
 */
export function takenEnvelopeId(
  fields: readonly InferredField[],
  base: readonly Guess[],
): { readonly at: number; readonly chosen: Guess } | undefined {
  const at = base.findIndex((g) => g.target === 'event_id');
  const chosen = base[at];
  if (!chosen || chosen.column.includes('.') || !PLAIN_ID.test(chosen.column)) return undefined;
  return carriedList(fields) ? undefined : { at, chosen };
}

/**
 * The question of whether the envelope's id taken as the event's is (module comment), undefined
 * where there is no doubt. The envelope's guess is rewritten in place as an event field, asked
 * above, nothing preselected.
 */
export function envelopeIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const taken = takenEnvelopeId(fields, base);
  if (taken === undefined) return undefined;
  const { at, chosen } = taken;
  const record = wrappedRecordId(fields, rows, chosen.column);
  if (!record || envelopeIdEvidence(fields, rows, chosen.column, record.name) !== undefined) return undefined;
  const holder = record.name.slice(0, record.name.lastIndexOf('.'));
  base[at] = {
    column: chosen.column,
    target: 'event_data',
    field: dataFieldName(chosen.column),
    why: `the envelope's id beside ${holder}'s own id, and nothing says it is the event's and not one delivery's: kept as a field, asked above`,
  };
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? ${chosen.column} is the envelope's, ${record.name} the id of the record it wraps (${holder}), and nothing in the payload says which: if ${chosen.column} names one delivery, each retry becomes a second row; if it is the event's, ${record.name} alone would fold every later change of the record into the first.`,
    options: [
      { column: chosen.column, why: "the envelope's id: the event's, or one delivery's" },
      { column: record.name, why: `the own id of ${holder}, the record the envelope wraps` },
    ],
    noneGuessed: { why: "nothing says whether the envelope's id is the event's or one delivery's" },
  };
}
