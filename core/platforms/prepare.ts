/**
 * What the three platform drivers share: mapping one stored event for a destination,
 * reading config and base URLs, and the HTTP-level classification of an answer.
 */
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { applyMapping, type FieldOrigin, type MappedEvent, traceMapping } from '../linkage/engine.ts';
import { scrubPayload } from '../pii.ts';
import type { FieldViolation } from '../validation.ts';
import type {
  DestinationRequirements,
  Driver,
  DriverContext,
  InboundResponse,
  OutboundRequest,
  Outcome,
  Prepared,
  PreparedBatch,
} from './driver.ts';
import { resolveMapping } from './mappings.ts';
import { formatViolations } from './target-common.ts';

/** The mapped event, or why there is none. */
export type MapResult =
  | { readonly ok: true; readonly mapped: MappedEvent }
  | { readonly ok: false; readonly reason: string };

/** Whether a destination's outgoing payload is scrubbed of PII patterns (docs/delivery.md). */
export function scrubsPii(destination: Readonly<Destination>): boolean {
  return destination.scrub_pii ?? destination.type !== 'webhook';
}

/**
 * Maps one stored event with the destination's resolved mapping, then (unless the destination
 * turns it off) scrubs emails and phone numbers from the mapped URLs and text: a final pass
 * over every target field, so fields a mapping adds later are covered too.
 */
export function mapForDestination(destination: Readonly<Destination>, event: StoredEvent): MapResult {
  const mapping = resolveMapping(destination, event.event_name);
  if (mapping === undefined)
    return { ok: false, reason: `no mapping for event ${event.event_name} at ${destination.type}` };
  const mapped = applyMapping(mapping, event);
  if (!scrubsPii(destination)) return { ok: true, mapped };
  return { ok: true, mapped: { event: mapped.event, payload: scrubPayload(mapped.payload) } };
}

/** Where each field the destination's mapping fills for this event comes from (for preview). */
export function traceForDestination(destination: Readonly<Destination>, event: StoredEvent): FieldOrigin[] {
  const mapping = resolveMapping(destination, event.event_name);
  return mapping === undefined ? [] : traceMapping(mapping, event);
}

/** A non-secret config value as text, or undefined. */
export function configText(destination: Readonly<Destination>, key: string): string | undefined {
  const v = destination.config?.[key];
  return v === undefined ? undefined : String(v);
}

/** The base URL: the destination's override (tests, proxies) or the platform's; no trailing slash. */
export function baseUrl(destination: Readonly<Destination>, fallback: string): string {
  return (destination.base_url ?? fallback).replace(/\/+$/, '');
}

/** Why the configuration cannot produce a request (missing keys, test mode without a code), or undefined. */
export function configProblem(ctx: DriverContext, needs: DestinationRequirements): string | undefined {
  const d = ctx.destination;
  for (const k of needs.config)
    if (configText(d, k) === undefined) return `config.${k} is required for ${d.type}`;
  for (const s of needs.secrets) if (!ctx.secrets[s]) return `secret ${s} is missing for destination ${d.id}`;
  if (needs.testEventCode && d.test_mode === true && !d.test_event_code)
    return `test_mode needs test_event_code for ${d.type} (from the platform's test events tool)`;
  return undefined;
}

/**
 * Maps one stored event for the destination, shapes it as the platform's event and checks it
 * against the platform's rules: a payload that fails is not sent, and the reason says why.
 */
export function buildChecked(
  event: StoredEvent,
  ctx: DriverContext,
  shape: (mapped: MappedEvent) => Record<string, unknown>,
  check: (platformEvent: Record<string, unknown>) => FieldViolation[],
  /** Removes the parts the platform would refuse but the event can do without; says what it removed. */
  trim?: (platformEvent: Record<string, unknown>) => string | undefined,
): BuiltEvent {
  const m = mapForDestination(ctx.destination, event);
  if (!m.ok) return m;
  const platformEvent = shape(m.mapped);
  const dropped = trim?.(platformEvent);
  const violations = check(platformEvent);
  if (violations.length > 0)
    return { ok: false, reason: formatViolations(`${ctx.destination.type} payload refused`, violations) };
  return dropped ? { ok: true, event: platformEvent, dropped } : { ok: true, event: platformEvent };
}

/** Transport-level classification shared by the platforms: network errors, 429 and 5xx retry. */
export function httpOutcome(response: InboundResponse): Outcome | undefined {
  if (response.kind === 'network_error')
    return { status: 'retry', reason: `network error: ${response.message}` };
  if (response.status === 429 || response.status >= 500)
    return {
      status: 'retry',
      reason: `HTTP ${response.status}: ${snippet(response.body)}`,
      httpStatus: response.status,
    };
  return undefined;
}

/** Parses a JSON body, or undefined when it is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The start of a body, for reasons (bounded so a large HTML error page does not fill the ledger). */
export function snippet(body: string): string {
  const oneLine = body.replace(/\s+/g, ' ').trim();
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine;
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** One platform event built from a stored event, or why it cannot be sent. */
export type BuiltEvent =
  | { readonly ok: true; readonly event: Record<string, unknown>; readonly dropped?: string }
  | { readonly ok: false; readonly reason: string };

/** What a platform taking many events per request supplies to get `prepare` and `prepareBatch`. */
export interface MultiEventPlatform {
  /** A configuration or secret problem that stops every event (missing pixel id, token…). */
  problem(ctx: DriverContext): string | undefined;
  build(event: StoredEvent, ctx: DriverContext): BuiltEvent;
  request(events: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest;
  readonly maxEvents: number;
}

/**
 * `prepare` and `prepareBatch` for platforms that take many events per request (Meta, TikTok):
 * each event is mapped and checked alone, so one bad event is rejected by itself instead of
 * failing the whole request; the rest go in requests of at most `maxEvents`.
 */
export function multiEventPrepare(platform: MultiEventPlatform): Pick<Driver, 'prepare'> & {
  prepareBatch(events: readonly StoredEvent[], ctx: DriverContext): PreparedBatch;
} {
  return {
    prepare(event: StoredEvent, ctx: DriverContext): Prepared {
      const p = platform.problem(ctx);
      if (p) return { ok: false, reason: p };
      const built = platform.build(event, ctx);
      if (!built.ok) return built;
      const request = platform.request([built.event], ctx);
      return built.dropped ? { ok: true, request, dropped: built.dropped } : { ok: true, request };
    },
    prepareBatch(events: readonly StoredEvent[], ctx: DriverContext): PreparedBatch {
      const p = platform.problem(ctx);
      if (p) return { requests: [], rejected: events.map((e) => ({ eventId: e.event_id, reason: p })) };
      const good: { id: string; event: Record<string, unknown> }[] = [];
      const rejected: { eventId: string; reason: string }[] = [];
      for (const e of events) {
        const built = platform.build(e, ctx);
        if (built.ok) good.push({ id: e.event_id, event: built.event });
        else rejected.push({ eventId: e.event_id, reason: built.reason });
      }
      const requests = chunk(good, platform.maxEvents).map((c) => ({
        request: platform.request(
          c.map((g) => g.event),
          ctx,
        ),
        eventIds: c.map((g) => g.id),
      }));
      return { requests, rejected };
    },
  };
}
