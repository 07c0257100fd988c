/**
 * The per-destination debugger's call on the admin API (docs/console.md#debugger):
 * - `destination-attempts` `{destination?, status?, reason?, limit?}` (read): the destination's last
 *   attempts (newest first, ATTEMPTS_DEFAULT unless `limit`, at most ATTEMPTS_MAX) from the ledger
 *   over the last ATTEMPTS_DAYS days, filtered by status and by text in the reason; each with what
 *   the platform answered (the ledger's platform columns), the stored event with its identifiers
 *   as kinds, the request the destination gets for it rebuilt by preview (core/delivery/preview.ts:
 *   credentials redacted, identifiers as kinds; a `segment_action` destination's as its actions
 *   build them, sending nothing), and the `replay-start` body that sends it again.
 *   `can_resend` says whether the caller may (the replay itself is `replay-start`, role apply).
 *   Without a destination, the environment's first one (the page opened from the navigation).
 * - `event-trace` `{event_id}` (read): the event's trace as a waterfall (core/tracing/cloud-trace-v1.ts),
 *   read through Cloud Trace API v1 (adapters/trace-reader.ts) with the `trace_id` of its newest
 *   `events` row; or, when there is none, why in words (`no_trace`): tracing off, not sampled, aged out.
 */
import type { RegistryClient } from '../adapters/registry.ts';
import { previewActions } from '../adapters/segment-actions/load-preview.ts';
import type { TraceReader } from '../adapters/trace-reader.ts';
import { plainValue } from '../adapters/user-sql.ts';
import {
  ATTEMPTS_DAYS,
  attemptsQuery,
  attemptsSql,
  EVENT_PREFIX,
  platformAnswer,
  resendRequest,
} from '../core/console/destination-attempts.ts';
import {
  type DefinedEvent,
  type DefinitionSpec,
  definedEvent,
  parseStamp,
} from '../core/definitions/defined-events.ts';
import { previewDeliveryRequests } from '../core/delivery/preview.ts';
import { REPLAY_COLUMNS, storedEventFromRow } from '../core/delivery/replay.ts';
import type { StoredEvent } from '../core/event.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { type Waterfall, waterfall } from '../core/tracing/cloud-trace-v1.ts';
import type { CreatorApiOptions } from './creator-api.ts';
import { maskRequest, maskStoredEvent } from './debugger-mask.ts';
import { invalidField, notConfigured } from './request.ts';

export const DEBUGGER_ACTIONS: Readonly<Record<string, 'read' | 'apply'>> = Object.freeze({
  'destination-attempts': 'read',
  'event-trace': 'read',
});

/** Cloud Trace keeps a trace this many days (its retention); an older event's trace is gone. */
export const TRACE_RETENTION_DAYS = 30;
const EVENT_ID = /^[\x21-\x7e]{1,128}$/;

export interface DebuggerApiOptions extends Pick<CreatorApiOptions, 'warehouse' | 'settings'> {
  /** The registry, for the definition a stored event was stamped with (its mappings apply). */
  readonly registry?: Pick<RegistryClient, 'readVersion'>;
  /** The clock (tests). */
  readonly now?: () => number;
  /** Reads a trace by id (Cloud Trace API v1), in the project the workloads export to. */
  readonly traces?: { readonly read: TraceReader; readonly project: string };
}

type Row = Record<string, unknown>;

export async function debuggerAction(
  o: DebuggerApiOptions,
  action: string,
  raw: unknown,
  canResend: boolean,
): Promise<Step<unknown>> {
  if (action === 'event-trace') return eventTrace(o, raw);
  if (action !== 'destination-attempts') return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  if (!o.warehouse) return notConfigured('it has no warehouse');
  if (!o.settings) return notConfigured('it has no settings');
  const body = typeof raw === 'object' && raw !== null ? (raw as Row) : {};
  const destinations = (o.settings.destinations ?? []).map((d) => ({ id: d.id, type: d.type }));
  const first = destinations[0]?.id;
  const checked = attemptsQuery(
    body['destination'] === undefined && first !== undefined ? { ...body, destination: first } : body,
    destinations.map((d) => d.id),
  );
  if (!checked.ok) return invalidField(checked.field, checked.description);
  const q = checked.query;
  const since = new Date((o.now ?? Date.now)() - ATTEMPTS_DAYS * 86_400_000).toISOString();
  const w = o.warehouse;
  const rows = (
    await w.query(
      attemptsSql((name) => w.table(name), REPLAY_COLUMNS, q.limit),
      {
        destination: q.destination,
        status: q.status,
        reason: q.reason,
        since,
      },
    )
  ).map((r) => plainValue(r) as Row);
  const settings = o.settings;
  const definitions = new Map<string, Promise<DefinedEvent | undefined>>();
  const definition = (stamp: string) => {
    let d = definitions.get(stamp);
    if (!d) {
      const parsed = parseStamp(stamp);
      d =
        parsed && o.registry
          ? o.registry
              .readVersion('EventDefinition', parsed.name, parsed.version)
              .then((v) => definedEvent(parsed.name, parsed.version, v.spec as unknown as DefinitionSpec))
              .catch(() => undefined)
          : Promise.resolve(undefined);
      definitions.set(stamp, d);
    }
    return d;
  };
  const attempts = await Promise.all(
    rows.map(async (r) => {
      const columns = eventOf(r);
      const stored = columns ? storedEventFromRow(columns) : undefined;
      const time = String(r['recorded_at'] ?? '');
      const stamp = stored?.definition_version;
      const defined = stamp ? await definition(stamp) : undefined;
      return {
        recorded_at: time,
        event_id: r['event_id'],
        event_name: r['event_name'],
        status: r['status'],
        http_status: r['http_status'] ?? null,
        reason: r['reason'] ?? null,
        attempt: r['attempt'] ?? null,
        replay: r['replay'] === true,
        identifiers: Array.isArray(r['identifiers']) ? r['identifiers'] : [],
        platform_ref: r['platform_ref'] ?? null,
        platform_events_received: r['platform_events_received'] ?? null,
        platform_response: platformAnswer(r['platform_response']),
        event: stored ? maskStoredEvent(stored as unknown as Row) : null,
        sent: stored ? await sentFor(settings, q.destination, stored, time, defined) : null,
        resend: stored ? (resendRequest(q.destination, stored.event_id, stored.event_time) ?? null) : null,
      };
    }),
  );
  return ok({
    destination: q.destination,
    destinations,
    since,
    limit: q.limit,
    can_resend: canResend,
    attempts,
  });
}

/** The `event-trace` answer: the waterfall, or `no_trace` saying why there is none. */
export interface EventTrace {
  readonly event_id: string;
  readonly trace_id: string | null;
  readonly received_at: string | null;
  readonly waterfall: Waterfall | null;
  readonly no_trace: string | null;
}

async function eventTrace(o: DebuggerApiOptions, raw: unknown): Promise<Step<unknown>> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Row) : {};
  const eventId = body['event_id'];
  if (typeof eventId !== 'string' || !EVENT_ID.test(eventId))
    return invalidField('event_id', 'must be 1 to 128 printable ASCII characters without spaces');
  if (!o.warehouse) return notConfigured('it has no warehouse');
  const w = o.warehouse;
  const [row] = (
    await w.query(
      `SELECT trace_id, received_at FROM ${w.table('events')} WHERE event_id = @event_id ORDER BY received_at DESC LIMIT 1`,
      { event_id: eventId },
    )
  ).map((r) => plainValue(r) as Row);
  if (!row) return fail('NOT_FOUND', { resource: `the stored event ${eventId}` });
  const traceId = typeof row['trace_id'] === 'string' && row['trace_id'] !== '' ? row['trace_id'] : null;
  const receivedAt = row['received_at'] == null ? null : String(row['received_at']);
  const answer = (waterfallOf: Waterfall | null, noTrace: string | null): Step<EventTrace> =>
    ok({
      event_id: eventId,
      trace_id: traceId,
      received_at: receivedAt,
      waterfall: waterfallOf,
      no_trace: noTrace,
    });
  if (!traceId)
    return answer(
      null,
      'No trace recorded: the event was stored with no trace id, so tracing was off (settings: tracing.enabled) when it arrived.',
    );
  if (!o.traces) return notConfigured('it has no trace reader');
  const read = await o.traces.read(o.traces.project, traceId);
  if (read.ok && read.trace.spans.length > 0) return answer(waterfall(read.trace), null);
  if (read.ok || read.status === 'NOT_FOUND') {
    const ageDays = receivedAt ? ((o.now ?? Date.now)() - Date.parse(receivedAt)) / 86_400_000 : 0;
    return answer(
      null,
      ageDays > TRACE_RETENTION_DAYS
        ? `No trace recorded: trace ${traceId} has aged out (Cloud Trace keeps traces ${TRACE_RETENTION_DAYS} days; this event is ${Math.floor(ageDays)} days old).`
        : `No trace recorded: trace ${traceId} was not sampled (settings: tracing.sample_ratio; only sampled traces, errors and refusals are exported), or its spans have not arrived yet.`,
    );
  }
  if (read.status === 'PERMISSION_DENIED')
    return fail('PERMISSION_DENIED', {
      detail: `The studio may not read traces: its account needs roles/cloudtrace.user (${read.message}).`,
    });
  return fail('UNAVAILABLE', { retryAfter: 5 });
}

/**
 * The request the destination gets for a stored event, rebuilt by preview at the attempt's time
 * (its windows as forward saw them), its identifiers as kinds; or why it gets none. A
 * `segment_action` destination's are the requests its actions build, run without sending
 * (credentials as `secret:<role>`), identifiers hidden by field name and by value: `request` is
 * the first, `requests` all of them in order, and `outcomes` each action's.
 */
async function sentFor(
  settings: NonNullable<DebuggerApiOptions['settings']>,
  destination: string,
  stored: StoredEvent,
  time: string,
  definition: DefinedEvent | undefined,
): Promise<unknown> {
  const at = Number.isNaN(Date.parse(time)) ? new Date() : new Date(time);
  const p = await previewDeliveryRequests(settings, destination, undefined, at, previewActions, {
    stored,
    ...(definition ? { definition } : {}),
  });
  if (p.outcome === 'send')
    return { outcome: 'send', request: maskRequest(p.request), ...(p.dropped ? { dropped: p.dropped } : {}) };
  if (p.outcome === 'send_actions') {
    // The actions name fields their own way (`anonymous_id`, `distinct_id`, `identifiers.id`):
    // what they copied of the event's identifiers is hidden by value too, as the event shows it.
    const hidden = hiddenValues(stored, maskStoredEvent(stored as unknown as Row));
    const requests = p.requests.map((r) => {
      const m = maskRequest(r);
      return { ...m, body: hideValues(m.body, hidden) };
    });
    return { outcome: 'send', request: requests[0], requests, outcomes: p.outcomes };
  }
  return { outcome: p.outcome, reason: 'reason' in p ? p.reason : 'the stored event is not valid' };
}

/** Each identifier value of the stored event (lower-cased) with the kind maskStoredEvent shows. */
function hiddenValues(raw: unknown, masked: unknown, into = new Map<string, string>()): Map<string, string> {
  if (typeof raw === 'string' && typeof masked === 'string') {
    if (raw !== '' && raw !== masked && /^\[[^\]]+\]$/.test(masked)) into.set(raw.toLowerCase(), masked);
  } else if (typeof raw === 'object' && raw !== null && typeof masked === 'object' && masked !== null)
    for (const [k, v] of Object.entries(raw)) hiddenValues(v, (masked as Row)[k], into);
  return into;
}

/** A request body with each string that is one of the event's identifiers as its kind. */
function hideValues(value: unknown, hidden: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return hidden.get(value.toLowerCase()) ?? value;
  if (Array.isArray(value)) return value.map((v) => hideValues(v, hidden));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideValues(v, hidden)]));
}

/** The stored event's columns of an attempt's row, unprefixed; undefined when it was not found. */
function eventOf(row: Row): Row | undefined {
  if (row[`${EVENT_PREFIX}event_id`] == null) return undefined;
  return Object.fromEntries(
    Object.entries(row)
      .filter(([k]) => k.startsWith(EVENT_PREFIX))
      .map(([k, v]) => [k.slice(EVENT_PREFIX.length), v]),
  );
}
