/**
 * `POST /v1/translators/{name}` (docs/translators.md): a payload in the translator's format (CSV,
 * JSON, NDJSON) becomes events. Every row is translated and validated (the gateway's own checks,
 * and the event's definition) before anything is published; one bad row refuses the request
 * whole, naming row and field, unless `?partial=true`. Valid rows are published in chunks of at
 * most 1000; a chunk that fails answers 503 and a retry is idempotent, because each row's
 * event_id is deterministic (from the translator's `key`, else from the Idempotency-Key or the
 * body's digest and the row's number). Idempotent, not atomic.
 */
import type { TranslatorEntry } from '../adapters/definitions.ts';
import type { EventPublisher, OutgoingMessage } from '../adapters/publisher.ts';
import type { Deprecated } from '../core/definitions/defined-events.ts';
import { apiError } from '../core/errors.ts';
import type { Step } from '../core/step.ts';
import { INVALID_ERRORS_ATTRIBUTE, invalidErrorsAttribute } from '../core/store/invalid-call.ts';
import { readableHeaders } from '../core/translate/headers.ts';
import { TRANSLATOR_MEDIA, translate } from '../core/translate/index.ts';
import { translatorEvents } from '../core/translate/spec.ts';
import type { FieldViolation } from '../core/validation.ts';
import { lookupEvent } from '../schemas/catalogue.ts';
import type { RawBody } from './body.ts';
import { type EnvelopeContext, eventMessage, soonest } from './envelope.ts';

export type { TranslatorEntry };

export { TRANSLATOR_MEDIA };

export const TRANSLATOR_CHARSETS = ['utf-8', 'utf8', 'iso-8859-1', 'latin1'] as const;

/**
 * What Segment's paths take: JSON, as their libraries label it. RudderStack's (axios sending a
 * gzipped Buffer) says application/x-www-form-urlencoded; the body is JSON all the same.
 */
export const SEGMENT_MEDIA = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'] as const;

/** Messages per Publish call (Pub/Sub allows 1000). */
const CHUNK = 1000;

export interface TranslateAnswer {
  /** One per row of the payload, in order: its message id, or null for a row refused (partial). */
  readonly messageIds: (string | null)[];
  /** With ?partial=true: how many rows were refused, and why. */
  readonly invalidRows?: number;
  readonly violations?: readonly FieldViolation[];
}

const ROW = /^rows\[(\d+)\]/;

/**
 * Translates and validates a payload into messages, one per distinct event_id, with each row's
 * message index (undefined for a refused row). Pure apart from the clock and id minting in ctx.
 */
export function translateRows(
  entry: TranslatorEntry,
  body: RawBody,
  ctx: EnvelopeContext,
  opts: {
    partial: boolean;
    idempotencyKey?: string | undefined;
    /** The request's own headers, for `header:` sources (credential headers are never passed on). */
    headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
    defaults?: Readonly<Record<string, unknown>>;
    /** A write key's own event list (the browser SDKs' paths): a row outside it is refused. */
    keyEvents?: { readonly id: string; readonly names: readonly string[] } | undefined;
  },
): Step<{
  messages: OutgoingMessage[];
  order: (number | undefined)[];
  violations: FieldViolation[];
  deprecated?: Deprecated;
}> {
  const result = translate({
    translator: entry.name,
    spec: entry.spec,
    eventName: entry.spec.event,
    body: body.bytes,
    contentType: body.charset ? `${body.media}; charset=${body.charset}` : body.media,
    ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
    ...(opts.defaults ? { defaults: opts.defaults } : {}),
    ...(opts.headers ? { headers: readableHeaders(opts.headers, entry.spec) } : {}),
  });
  if (!result.ok)
    return {
      ok: false,
      error: apiError('UNREADABLE_PAYLOAD', { translator: entry.name }, result.violations),
    };
  const violations: FieldViolation[] = [...result.problems];
  const rows = result.total;
  const order: (number | undefined)[] = [];
  const messages: OutgoingMessage[] = [];
  const byId = new Map<string, number>();
  let deprecated: Deprecated | undefined;
  const events = translatorEvents(entry.spec);
  for (const { row, event } of result.rows) {
    const name = event['event_name'];
    // The allow-list (issue 33): a translator's credential publishes its own events only.
    if (typeof name === 'string' && !events.names.has(name) && !(events.custom && !lookupEvent(name))) {
      violations.push({
        field: `rows[${row}].event_name`,
        description: `${name} is not among the events of translator ${entry.name} (its spec's \`events\`)`,
      });
      continue;
    }
    const keyEvents = opts.keyEvents;
    if (typeof name === 'string' && keyEvents && !keyEvents.names.includes(name)) {
      violations.push({
        field: `rows[${row}].event_name`,
        description: `${name} is not among the events of write key ${keyEvents.id} (key create --event)`,
      });
      continue;
    }
    const m = eventMessage(event, `rows[${row}]`, ctx, { attributes: { translator: entry.name } });
    if (!m.ok) {
      violations.push(
        ...(m.tooLarge !== undefined
          ? [{ field: `rows[${row}]`, description: `the event is ${m.tooLarge} bytes, over the limit` }]
          : m.violations),
      );
      continue;
    }
    deprecated = soonest(deprecated, m.deprecated);
    const seen = byId.get(m.eventId);
    if (seen !== undefined) {
      order[row] = seen;
      continue;
    }
    byId.set(m.eventId, messages.length);
    order[row] = messages.length;
    messages.push(m.message);
  }
  order.length = rows;
  if (violations.length > 0 && !opts.partial) {
    const invalid = new Set(violations.map((v) => ROW.exec(v.field)?.[1] ?? v.field)).size;
    return {
      ok: false,
      error: apiError(
        'INVALID_ROWS',
        { count: invalid, rows, translator: entry.name },
        sortByRow(violations),
      ),
    };
  }
  return {
    ok: true,
    value: { messages, order, violations: sortByRow(violations), ...(deprecated ? { deprecated } : {}) },
  };
}

const rowOf = (v: FieldViolation): number => Number(ROW.exec(v.field)?.[1] ?? Number.MAX_SAFE_INTEGER);

function sortByRow(violations: FieldViolation[]): FieldViolation[] {
  return violations.sort((a, b) => rowOf(a) - rowOf(b));
}

/** Publishes the messages in chunks, in order; the ids in the same order. Rejects on a failed chunk. */
export async function publishChunks(
  publisher: EventPublisher,
  topic: string,
  messages: readonly OutgoingMessage[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < messages.length; i += CHUNK) {
    ids.push(...(await publisher.publish(topic, messages.slice(i, i + CHUNK))));
  }
  return ids;
}

/** The answer: one id (or null) per row, and with ?partial=true what was refused. */
export function translateAnswer(
  order: readonly (number | undefined)[],
  ids: readonly string[],
  violations: readonly FieldViolation[],
): TranslateAnswer {
  const messageIds = Array.from(order, (i) => (i === undefined ? null : (ids[i] ?? null)));
  if (violations.length === 0) return { messageIds };
  const invalidRows = messageIds.filter((id) => id === null).length;
  return { messageIds, invalidRows, violations: violations.slice(0, 100) };
}

/**
 * The calls of a Segment body that could not become events, as messages the store keeps in
 * `invalid_events` (docs/senders.md): the call as sent under `invalid_call` (an object with no
 * `event_name` never validates, so it cannot pass as an event), and our reasons in the
 * `invalid` attribute (text) and the `invalid_errors` one (the row's `errors`). A body that
 * cannot be read again gives none (its rows were all refused).
 */
export function invalidCalls(
  entry: TranslatorEntry,
  body: RawBody,
  violations: readonly FieldViolation[],
): OutgoingMessage[] {
  const byRow = new Map<number, FieldViolation[]>();
  for (const v of violations) {
    const m = ROW.exec(v.field);
    if (!m) continue;
    const row = Number(m[1]);
    byRow.set(row, [...(byRow.get(row) ?? []), v]);
  }
  if (byRow.size === 0) return [];
  let calls: unknown[];
  try {
    const value: unknown = JSON.parse(body.bytes.toString('utf8'));
    const records = entry.spec.format.type === 'json' ? entry.spec.format.records : undefined;
    const list =
      records && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)[records]
        : value;
    calls = Array.isArray(list) ? list : [value];
  } catch {
    return [];
  }
  return [...byRow].map(([row, reasons]) => ({
    data: Buffer.from(JSON.stringify({ invalid_call: calls[row] ?? null })),
    attributes: {
      translator: entry.name,
      invalid: reasons
        .map((v) => `${v.field}: ${v.description}`)
        .join('; ')
        .slice(0, 1024),
      // The store keeps these as the row's errors (core/store/invalid-call.ts).
      [INVALID_ERRORS_ATTRIBUTE]: invalidErrorsAttribute(reasons),
    },
  }));
}
