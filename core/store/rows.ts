/**
 * The warehouse rows of the store path: an `events` row (with the PII policy applied) and an
 * `invalid_events` row, which keeps the payload as received (its PII hashed or scrubbed) with
 * every error, so nothing that reached the bus is dropped.
 */

import type { DefinedEvent } from '../definitions/defined-events.ts';
import type { StoredEvent } from '../event.ts';
import { lastIso, type NormalizedEvent } from '../event.ts';
import { applyPiiPolicy, type PiiPolicy, scrubText, sha256 } from '../pii.ts';
import { traceIdOf } from '../tracing/trace-context.ts';
import type { FieldViolation } from '../validation.ts';
import type { InsertRow } from '../warehouse/rows.ts';
import { callPolicy, invalidCallOf } from './invalid-call.ts';

/** Why a message landed in `invalid_events` (the `reason` column). */
export type InvalidReason =
  | 'invalid_event'
  | 'not_json'
  | 'malformed_push'
  | 'rejected_by_warehouse'
  | 'poison';
export const utf8 = new TextDecoder('utf-8', { fatal: true });

export function payloadText(data: Uint8Array): { text: string; base64: boolean } {
  try {
    return { text: utf8.decode(data), base64: false };
  } catch {
    return { text: Buffer.from(data).toString('base64'), base64: true };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const iso = lastIso();

export function eventRow(
  event: NormalizedEvent & Pick<StoredEvent, 'enriched'>,
  meta: {
    digest: string;
    receivedAt: string;
    now: number;
    topic: string;
    messageId: string;
    version: number;
    definition: DefinedEvent | undefined;
    attributes: Readonly<Record<string, string>>;
    config: PiiPolicy;
  },
): Record<string, unknown> {
  // A definition's `pii` fields are hashed like the settings' hash_in_warehouse paths (unless the
  // settings drop them).
  const extra = meta.definition?.piiPaths.filter((p) => !meta.config.drop.includes(p)) ?? [];
  const { event_data, ...context } = applyPiiPolicy(event, {
    hashInWarehouse:
      extra.length > 0 ? [...meta.config.hashInWarehouse, ...extra] : meta.config.hashInWarehouse,
    drop: meta.config.drop,
  });
  return {
    ...context,
    received_at: meta.receivedAt,
    stored_at: iso(meta.now),
    topic: meta.topic,
    message_id: meta.messageId,
    schema_version: meta.version,
    // JSON columns take JSON text in insertAll.
    event_data: JSON.stringify(event_data),
    attributes: JSON.stringify(meta.attributes),
    ...(meta.definition ? { definition_version: meta.definition.stamp } : {}),
    payload_digest: meta.digest,
    // The trace the event travelled under (core/trace-context.ts), for SQL joins to the traces.
    trace_id: traceIdOf(meta.attributes),
  };
}

interface InvalidInput {
  readonly insertId: string;
  readonly receivedAt: string;
  readonly now: number;
  readonly reason: InvalidReason;
  readonly topic?: string | undefined;
  readonly subscription?: string | undefined;
  readonly messageId?: string | undefined;
  /** The parsed payload, when it parsed: event_id / event_name are read from it. */
  readonly raw?: unknown;
  readonly payload: string;
  readonly attributes?: Readonly<Record<string, string>> | undefined;
  readonly errors: readonly FieldViolation[];
  /** The warehouse's PII policy, applied to the payload too (it is kept for debugging, not for PII). */
  readonly pii?: PiiPolicy | undefined;
}

/**
 * The raw payload as the warehouse may keep it: when it is a JSON object, the PII policy's
 * fields are hashed or dropped and the rest keeps its shape (re-serialised); other text, whose
 * fields cannot be found, has emails and international phone numbers replaced.
 */
function keptPayload(payload: string, pii: PiiPolicy | undefined): string {
  if (!pii || (pii.hashInWarehouse.length === 0 && pii.drop.length === 0)) return payload;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return scrubText(payload);
  }
  if (!isObject(value)) return scrubText(payload);
  // A refused call keeps its fields where the sender put them (traits, Segment's names).
  const call = invalidCallOf(value);
  if (call) return JSON.stringify({ ...value, invalid_call: applyPiiPolicy(call, callPolicy(pii)) });
  return JSON.stringify(applyPiiPolicy(value, rawPaths(pii)));
}

/**
 * The policy for a payload as the producer sent it: an event field (`event_data.x`) may sit at
 * the top level there, so each such path also applies without its `event_data.` prefix.
 */
function rawPaths(pii: PiiPolicy): PiiPolicy {
  const both = (paths: readonly string[]) =>
    paths.flatMap((p) => (p.startsWith('event_data.') ? [p, p.slice('event_data.'.length)] : [p]));
  return { hashInWarehouse: both(pii.hashInWarehouse), drop: both(pii.drop) };
}

/**
 * An `invalid_events` row; event_id and event_name are kept when they can be read (a refused
 * call's own, not its wrapper's).
 */
export function invalidRow(input: InvalidInput): InsertRow {
  const raw = invalidCallOf(input.raw) ?? (isObject(input.raw) ? input.raw : {});
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, 1024) : null);
  return {
    insertId: input.insertId,
    json: {
      received_at: input.receivedAt,
      stored_at: iso(input.now),
      reason: input.reason,
      topic: input.topic ?? null,
      subscription: input.subscription ?? null,
      message_id: input.messageId ?? null,
      event_id: text(raw['event_id']),
      event_name: text(raw['event_name']),
      payload: keptPayload(input.payload, input.pii),
      attributes: input.attributes ? JSON.stringify(input.attributes) : null,
      errors: input.errors.map((e) => ({ path: e.field, message: e.description })),
    },
  };
}

/**
 * The row for a request that is not a push body at all (a stray POST): kept with its raw
 * body so nothing is lost, with an insertId from the body's hash so a retried POST folds.
 */
export function malformedPushRow(
  body: string,
  violations: readonly FieldViolation[],
  now: number,
): InsertRow {
  return invalidRow({
    insertId: `malformed/${sha256(body)}`,
    receivedAt: iso(now),
    now,
    reason: 'malformed_push',
    payload: body,
    errors: violations,
  });
}
