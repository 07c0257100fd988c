/**
 * Which runs of an action `forward-catalog` delivers in batches (docs/catalog-destinations.md,
 * "Batches"), as Segment does: an action that has a `performBatch` and whose mapping, resolved as
 * the run resolves it (presets.ts `effectiveMapping`), has `enable_batching: true` — the field's
 * default for the actions Segment batches by default, hidden (forced) for some — and how big its
 * batches get: the mapping's `batch_size` (the platform's own limit, often thousands), at most
 * MAX_BATCH_EVENTS; its `batch_keys` name the payload fields every event of one batch shares
 * (Klaviyo's list id). Pure.
 */

import { isRetryableStatus } from './outcome.ts';

/** The most events one batch holds here: a batch gathers deliveries in flight, each holding its push open. */
export const MAX_BATCH_EVENTS = 100;
/** How long a batch's first event waits for company before the batch is sent anyway. */
export const BATCH_WAIT_MS = 200;

/** What batching reads of an action's definition. */
export interface BatchableAction {
  readonly performBatch?: unknown;
}

/** A run delivered in batches: its most events, and the payload fields its events share. */
export interface Batching {
  readonly maxEvents: number;
  readonly waitMs: number;
  readonly keys: readonly string[];
}

/** How a run of `action` under `mapping` is batched; undefined when each event is sent alone. */
export function batchingOf(
  action: BatchableAction,
  mapping: Readonly<Record<string, unknown>>,
): Batching | undefined {
  if (typeof action.performBatch !== 'function' || mapping['enable_batching'] !== true) return undefined;
  const size = mapping['batch_size'];
  const keys = mapping['batch_keys'];
  return {
    maxEvents:
      typeof size === 'number' && Number.isFinite(size) && size >= 1
        ? Math.min(Math.floor(size), MAX_BATCH_EVENTS)
        : MAX_BATCH_EVENTS,
    waitMs: BATCH_WAIT_MS,
    keys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [],
  };
}

/**
 * One event's entry of Segment's multi-status answer (actions-core's ResultMultiStatusNode): a
 * status, and for a failure its type, message and who reported it (`DESTINATION`: the platform
 * answered; `INTEGRATIONS`: the action's own check, nothing sent for it).
 */
export interface MultiStatusNode {
  readonly status: number;
  readonly errortype?: string;
  readonly errormessage?: string;
  readonly errorreporter?: string;
  readonly body?: unknown;
  readonly sent?: unknown;
}

/**
 * A failed entry as the error the action would have thrown for the event alone, so the outcome
 * is classified as one event's is (outcome.ts). An entry the platform answered (reported by the
 * `DESTINATION`) carries its status and answer; one the action decided itself, nothing sent for
 * the event (`INTEGRATIONS`: its payload refused, a batch the platform refused as a whole for the
 * others' sake), is retried when its status says so (with `wire`, the status of the batch's
 * request, when one was made), else rejected with its message and no status: nothing reached the
 * platform for it. An entry without a status takes `wire`. Undefined for a success.
 */
export function errorOfNode(node: MultiStatusNode, wire?: number): Error | undefined {
  const status = typeof node.status === 'number' ? node.status : (wire ?? 500);
  if (status >= 200 && status < 300) return undefined;
  const message = node.errormessage ?? `the batch's answer for the event: HTTP ${status}`;
  if (node.errorreporter === 'DESTINATION' || node.sent !== undefined || node.body !== undefined)
    return Object.assign(new Error(message), {
      name: 'MultiStatusError',
      status,
      response: { status, content: contentOf(node.body) },
    });
  // Sent in the batch, refused for the batch's sake: the platform's answer on the wire is its status.
  if (isRetryableStatus(status))
    return Object.assign(new Error(message), {
      name: 'RetryableError',
      ...(wire === undefined ? {} : { status: wire }),
    });
  return Object.assign(new Error(message), { name: 'PayloadValidationError' });
}

function contentOf(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/**
 * The audience settings of an Engage event (`context.personas.audience_settings`): actions-core
 * reads a batch's audience settings from its first event, so events whose settings differ (or an
 * audience's event and an ordinary one) never share a batch. Events of two audiences with the same
 * settings may: Segment's own actions read each event's audience from the event.
 */
export function audienceOf(event: Record<string, unknown>): unknown {
  const context = event['context'];
  const personas =
    context && typeof context === 'object' ? (context as Record<string, unknown>)['personas'] : undefined;
  if (!personas || typeof personas !== 'object') return null;
  return (personas as Record<string, unknown>)['audience_settings'] ?? null;
}
