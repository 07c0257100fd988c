/**
 * A vendor's delivery is not the event (docs/creator-inference.md, "Delivery metadata"): the
 * envelope a vendor wraps an event in says how it was delivered (the attempt's number, when this
 * attempt was sent, the delivery's own id, a signature in the body), and that changes on every
 * retry while the event stays the same. Such columns are recognised here, by name AND by value,
 * so the draft (draft.ts) keeps them out of the event: out of its fields, so out of the payload
 * digest that tells a copy from another event (core/identity.ts). And the vendor's own event id,
 * or where its envelope has none the object's id with the change it reports, is proposed as the
 * translator's `key`, so a retry or a second webhook about the same object and change gets the
 * same event_id. Pure: the parsed sample and its inferred columns.
 */
import { batchDeliveryIds } from './batch-envelope.ts';
import type { InferredField, ParsedSample } from './sample.ts';

export type DeliveryKind = 'attempt' | 'delivery_time' | 'delivery_id' | 'signature';

export interface DeliveryColumn {
  readonly column: string;
  readonly kind: DeliveryKind;
  /** Why, in words, for the page. */
  readonly why: string;
}

/** A path's segments, each in snake case (`deliveryAttempts` → `delivery_attempts`). */
const segments = (column: string): string[] =>
  column.split('.').map((s) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[-\s]+/g, '_')
      .toLowerCase(),
  );

/** Envelopes that describe the delivery, not the event: anything under them is delivery metadata. */
const DELIVERY_PARENTS = /^(delivery|delivery_info|delivery_attempt|webhook_delivery|retry|retries|attempt)$/;
const ATTEMPT =
  /^(attempt|attempts|attempt_number|attempt_count|attempt_no|delivery_attempt|delivery_attempts|delivery_count|delivery_tries|retry|retries|retry_count|retry_number|num_retries|redelivery_count|redeliveries)$/;
const DELIVERY_TIME =
  /^(delivered_at|delivery_time|delivery_timestamp|delivery_date|attempted_at|attempt_time|first_attempt_at|last_attempt_at|last_attempted_at|next_attempt_at|next_retry_at|retried_at|webhook_sent_at|webhook_timestamp)$/;
/**
 * Send times that are the delivery's only in an envelope (a top-level column beside a nested
 * event): in a flat export or an e-mail's own record, `sent_at` is when the message was sent.
 */
const ENVELOPE_TIME = /^(sent_at|dispatched_at|sent|timestamp_sent)$/;
const DELIVERY_ID =
  /^(delivery_id|delivery_uuid|webhook_delivery_id|attempt_id|attempt_uuid|retry_id|request_id|dispatch_id)$/;
/**
 * A message's id: at the top of an envelope that also counts its delivery attempts, the message
 * delivered (Survicate's `messageId` beside `deliveryTries`), not the event it carries.
 */
const MESSAGE_ID = /^(message_id|msg_id|message_uuid)$/;
const SIGNATURE =
  /^(signature|signatures|sig|hmac|hmac_sha256|signing_key|verification_token|verify_token|webhook_signature)$/;

const isTime = (f: InferredField) =>
  f.type === 'timestamp' ||
  f.type === 'date' ||
  f.pattern === 'epoch_seconds' ||
  f.pattern === 'epoch_millis';
/** A retry counter's values: whole numbers from 0 to 100 (as numbers or digits). */
const isCounter = (f: InferredField) =>
  f.type === 'integer' &&
  f.examples.every((v) => Number.isInteger(Number(v)) && Number(v) >= 0 && Number(v) <= 100);
const isScalar = (f: InferredField) => f.type !== 'boolean';

/**
 * The sample's delivery metadata: each column named as an attempt counter, a delivery time, a
 * delivery id or a signature, or sitting under a `delivery`/`retry` envelope, whose values have
 * that shape (a counter from 0 to 100, a time, a scalar id, text for a signature). A name alone
 * is not enough: an `attempts` list of a quiz's answers is not a counter.
 */
export function deliveryColumns(fields: readonly InferredField[]): DeliveryColumn[] {
  const out: DeliveryColumn[] = [];
  const enveloped = fields.some((f) => f.name.includes('.'));
  for (const f of fields) {
    const segs = segments(f.name);
    const last = segs[segs.length - 1] ?? '';
    const under = segs.slice(0, -1).find((s) => DELIVERY_PARENTS.test(s));
    const say = (kind: DeliveryKind, why: string) => out.push({ column: f.name, kind, why });
    if (ATTEMPT.test(last) && isCounter(f))
      say(
        'attempt',
        `${f.name} counts the vendor's delivery attempts: a retry changes it, the event does not`,
      );
    else if (
      (DELIVERY_TIME.test(last) || (enveloped && segs.length === 1 && ENVELOPE_TIME.test(last))) &&
      isTime(f)
    )
      say(
        'delivery_time',
        `${f.name} is when this delivery was sent: a retry changes it, the event does not`,
      );
    else if (DELIVERY_ID.test(last) && isScalar(f))
      say('delivery_id', `${f.name} names this delivery, not the event: a retry may carry another`);
    else if (
      (SIGNATURE.test(last) && f.type === 'string') ||
      (segs.slice(0, -1).some((s) => SIGNATURE.test(s)) && isScalar(f))
    )
      say('signature', `${f.name} is a signature in the body: it proves the delivery, it is not the event`);
    else if (under)
      say(
        isTime(f) ? 'delivery_time' : 'delivery_id',
        `${f.name} sits in the ${under} envelope: it describes the delivery, not the event`,
      );
  }
  // The delivered message's id, told by the attempt counter beside it at the envelope's top.
  const counted = out.find((d) => d.kind === 'attempt' && !d.column.includes('.'));
  if (counted && enveloped)
    for (const f of fields)
      if (!f.name.includes('.') && MESSAGE_ID.test(segments(f.name)[0] ?? '') && isScalar(f))
        out.push({
          column: f.name,
          kind: 'delivery_id',
          why: `${f.name} names the message delivered, beside its attempt counter ${counted.column}: the delivery's, not the event's`,
        });
  // A batch's envelope id, beside events that carry their own (batch-envelope.ts).
  for (const d of batchDeliveryIds(fields))
    if (!out.some((o) => o.column === d.column)) out.push({ ...d, kind: 'delivery_id' });
  return out;
}

/**
 * Names of a vendor's own event id at the envelope's top (`id`, `event_id`, `event.id`…): also a
 * Security Event Token's `jti` (RFC 8417), Snowplow's `eid`, a form post's `unique_id`, and a
 * message's id where the payload is the message (`id_message`, `message_id`; beside an attempt
 * counter it is the delivery's, and delivery metadata is never taken).
 */
const EVENT_ID =
  /^(id|event_id|eventid|event_uuid|uuid|notification_id|webhook_event_id|jti|eid|unique_id|uniqueid|id_message|message_id)$/;
/** An object's own version: its last change's time or number, beside its id. */
const VERSION = /^(updated_at|updated|modified_at|last_modified|changed_at|updated_time|version)$/;
/** The discriminator of the change an event reports (its type, its action or the object's status). */
const CHANGE = /^(type|event|event_type|eventtype|topic|action|trigger|event_name|kind)$/;
const STATUS = /^(status|state)$/;

/** Every row of the sample has a value in the column, and no two rows the same. */
export function everyRowOwn(rows: ParsedSample['rows'], column: string): boolean {
  const seen = new Set<string>();
  for (const r of rows) {
    const v = r[column];
    if (v === undefined || v === null || v === '' || typeof v === 'object') return false;
    seen.add(String(v));
  }
  return seen.size === rows.length;
}

/** Shaped as an id: a whole number, or one token of text (no blank, at most 256 characters). */
export const idShaped = (rows: ParsedSample['rows'], column: string): boolean =>
  rows.every((r) => {
    const v = r[column];
    return typeof v === 'number' ? Number.isInteger(v) : typeof v === 'string' && /^\S{1,256}$/.test(v);
  });

/** At the envelope's top: a top-level column, or one of the payload's `event` object. */
export function atEnvelopeTop(column: string): boolean {
  const segs = segments(column);
  return segs.length === 1 || (segs.length === 2 && segs[0] === 'event');
}

/**
 * The vendor's own id for the event, by evidence (#94): at the top of the envelope, named as an
 * id (`id`, `_id`, `event_id`, `uuid`, `event.id`…), no delivery metadata, shaped as an id, in
 * every row and no two rows the same. The first such column, or undefined.
 */
export function envelopeEventId(
  rows: ParsedSample['rows'],
  fields: readonly InferredField[],
  delivery: readonly DeliveryColumn[] = deliveryColumns(fields),
): string | undefined {
  const skip = new Set(delivery.map((d) => d.column));
  return fields.find(
    (f) =>
      !skip.has(f.name) &&
      (f.type === 'string' || f.type === 'integer') &&
      f.format !== 'email' &&
      f.format !== 'url' &&
      atEnvelopeTop(f.name) &&
      EVENT_ID.test((segments(f.name).at(-1) ?? '').replace(/^[_$]+/, '')) &&
      everyRowOwn(rows, f.name) &&
      idShaped(rows, f.name),
  )?.name;
}

/** Every row of the sample has a scalar value in the column. */
function everyRow(sample: ParsedSample, column: string): boolean {
  return sample.rows.every((r) => {
    const v = r[column];
    return v !== undefined && v !== null && v !== '' && typeof v !== 'object';
  });
}

export interface VendorKey {
  /** The key's sources, in order: the event id alone, or the object's id and its change. */
  readonly columns: readonly string[];
  readonly why: string;
}

/**
 * The vendor's own identity for the event: an id at the top of the envelope (`id`, `event_id`,
 * `event.id`) that every sample row has and no two share; else, where the envelope names none,
 * the id of the object it is about (`data.object.id`, `payload.payment.entity.id`), the
 * nearest to the top, with the change it reports (the envelope's `type`/`event`, the object's
 * `status` and its version, `updated_at`), so two webhooks about one object and change are one
 * event, and another change of it (`refunded` after `captured`) another. Never a delivery column;
 * never the object's id alone (every later change would fold into the first). Undefined when
 * neither.
 */
export function vendorKey(
  sample: ParsedSample,
  fields: readonly InferredField[],
  delivery: readonly DeliveryColumn[] = deliveryColumns(fields),
): VendorKey | undefined {
  const skip = new Set(delivery.map((d) => d.column));
  const candidates = fields.filter((f) => !skip.has(f.name) && f.type !== 'boolean' && f.type !== 'number');
  const depth = (c: string) => c.split('.').length;
  const envelope = envelopeEventId(sample.rows, fields, delivery);
  if (envelope) return { columns: [envelope], why: `${envelope} is the vendor's own id for the event` };
  const objectIds = candidates
    .filter((f) => depth(f.name) > 1 && segments(f.name).at(-1) === 'id' && everyRow(sample, f.name))
    .sort((a, b) => depth(a.name) - depth(b.name));
  const object = objectIds[0];
  if (!object) return undefined;
  const parent = object.name.slice(0, object.name.lastIndexOf('.'));
  const change = candidates.find(
    (f) => depth(f.name) === 1 && CHANGE.test(segments(f.name)[0] ?? '') && everyRow(sample, f.name),
  );
  const sibling = (re: RegExp) =>
    candidates.find(
      (f) =>
        f.name.startsWith(`${parent}.`) &&
        depth(f.name) === depth(object.name) &&
        re.test(segments(f.name).at(-1) ?? ''),
    );
  const status = sibling(STATUS);
  const version = sibling(VERSION);
  // The object's id alone would fold every later change of it into its first: not without the change.
  if (!change && !status && !version) return undefined;
  const columns = [object.name, ...[change, status, version].flatMap((f) => (f ? [f.name] : []))];
  return {
    columns,
    why: `the envelope names no event id of its own: ${object.name} is the object's${columns.length > 1 ? `, with ${columns.slice(1).join(' and ')} for the change` : ''}`,
  };
}
