/**
 * Replays to one destination (pure parts): dead-lettered `deliveries` messages become fresh
 * messages marked `replay=true`; warehouse rows of `events_dedup` become stored events again.
 * Event ids never change, so receivers and platforms de-duplicate what they already had.
 */

import type { StoredEvent } from '../event.ts';
import { whereProblem } from '../scheduler/replays.ts';
import { DELIVERY_ATTRIBUTES, type DeliveryMessage } from './message.ts';

/** Attributes Pub/Sub adds when it dead-letters a message; dropped on replay. */
const DEAD_LETTER_ATTRIBUTE_PREFIX = 'CloudPubSubDeadLetter';

/**
 * The message that re-delivers a dead-lettered one: same data and ids, `replay=true`.
 * Refuses a message addressed to another destination (a backlog is per destination).
 */
export function replayFromDeadLetter(
  message: { readonly data: Uint8Array | string; readonly attributes: Readonly<Record<string, string>> },
  destination: string,
): { ok: true; message: DeliveryMessage } | { ok: false; reason: string } {
  const addressed = message.attributes[DELIVERY_ATTRIBUTES.destination];
  if (addressed !== destination)
    return { ok: false, reason: `message is for destination ${addressed ?? '(none)'}, not ${destination}` };
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.attributes)) {
    if (!k.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX)) attributes[k] = v;
  }
  // A re-driven first fan-out's message goes on as that message's retry: its own send-once claim,
  // no wait for another fan-out (core/claims/send-once.ts). It is never privileged: it is a replay.
  attributes[DELIVERY_ATTRIBUTES.replay] = 'true';
  const data = typeof message.data === 'string' ? message.data : Buffer.from(message.data).toString('utf8');
  return { ok: true, message: { data, attributes } };
}

/** Columns read back from `events_dedup` for a replay (context fields and event data). */
export const REPLAY_COLUMNS = [
  'event_id',
  'event_name',
  'event_time',
  'received_at',
  'topic',
  'user_id',
  'anonymous_id',
  'session_id',
  'source',
  'user',
  'page',
  'device',
  'campaign',
  'consent',
  'event_data',
  // A defined event keeps its stamp: forward maps it with its definition's mappings.
  'definition_version',
  // The row's identity with event_id: a replay's ledger rows name the row they replay.
  'payload_digest',
  // What store derived (docs/enrichment.md): a replay sends what the first delivery sent.
  'enriched',
] as const;

/**
 * The query of a warehouse slice: events_dedup between two instants (half-open, on the
 * partition column so BigQuery prunes), optionally narrowed by the operator's own SQL: one
 * condition (core/scheduler/replays.ts whereProblem), in parentheses of its own.
 */
export function sliceQuery(project: string, dataset: string, where?: string): string {
  // The callers check `where` first and answer the reason; this is the last line, never pasted.
  const unsafe = where ? whereProblem(where) : undefined;
  if (unsafe) throw new Error(`where ${unsafe}`);
  const table = `\`${project}.${dataset}.events_dedup\``;
  const extra = where ? ` AND (${where})` : '';
  return `SELECT ${REPLAY_COLUMNS.join(', ')} FROM ${table} WHERE event_time >= @from AND event_time < @to${extra} ORDER BY event_time, event_id`;
}

/** A column of a BigQuery table schema as tables.get returns it, policy tags included. */
export interface SchemaField {
  readonly name: string;
  readonly fields?: readonly SchemaField[];
  readonly policyTags?: { readonly names: readonly string[] };
  readonly [key: string]: unknown;
}

/**
 * The schema of the table a slice is kept in: the events table's own columns for the replay
 * columns, policy tags and all, so personal data copied into it stays under the same
 * column-level security (`CREATE TABLE … AS SELECT` would make a table with no tags).
 */
export function sliceSchema(events: readonly SchemaField[]): SchemaField[] {
  return REPLAY_COLUMNS.map((column) => {
    const field = events.find((f) => f.name === column);
    if (!field) throw new Error(`the events table has no column ${column}`);
    return field;
  });
}

/**
 * Fills a slice table made with sliceSchema: an INSERT of the replay columns into it, never a
 * statement that creates the table from the query (which would drop the PII columns' tags).
 */
export function sliceInsert(table: string, select: string): string {
  return `INSERT INTO ${table} (${REPLAY_COLUMNS.join(', ')}) ${select}`;
}

/** Rebuilds a stored event from a warehouse row as the BigQuery client returns it. */
export function storedEventFromRow(row: Readonly<Record<string, unknown>>): StoredEvent {
  const out: Record<string, unknown> = {};
  for (const column of REPLAY_COLUMNS) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    if (column === 'event_time' || column === 'received_at') out[column] = timestamp(value);
    else if (column === 'event_data') out[column] = typeof value === 'string' ? JSON.parse(value) : value;
    else if (typeof value === 'object' && !Array.isArray(value)) {
      const group = withoutNulls(value as Record<string, unknown>);
      if (group !== undefined) out[column] = group;
    } else out[column] = value;
  }
  out['event_data'] ??= {};
  return out as unknown as StoredEvent;
}

/** A RECORD as BigQuery returns it (every field, null when unset), without its nulls at any depth. */
function withoutNulls(record: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'object' && !Array.isArray(v)) {
      const inner = withoutNulls(v as Record<string, unknown>);
      if (inner !== undefined) out[k] = inner;
    } else out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** BigQuery timestamps arrive as `{value}` objects, ISO text or epoch numbers: RFC 3339 ms out. */
function timestamp(value: unknown): string {
  const raw =
    typeof value === 'object' && value !== null && 'value' in value
      ? (value as { value: unknown }).value
      : value;
  const ms = typeof raw === 'number' ? raw : Date.parse(String(raw));
  return Number.isNaN(ms) ? String(raw) : new Date(ms).toISOString();
}
