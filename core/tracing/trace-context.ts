/**
 * The W3C trace context an event carries through the pipeline (docs/observability.md): read
 * from a producer's `traceparent` header by the gateway, carried on Pub/Sub messages as the
 * attributes `@google-cloud/pubsub`'s own OpenTelemetry support writes (`googclient_` + the
 * header's name), and kept as `trace_id` on the event's row and its ledger rows. Pure: parsing
 * and naming only; spans are made by adapters/tracing.ts.
 */

/**
 * The message attributes holding the context: the header names themselves, as OpenTelemetry's
 * messaging conventions carry a context in a message's own metadata. Google's Pub/Sub client
 * writes `googclient_` + the name instead, which Pub/Sub refuses from a publisher that is not
 * the client library (keys starting with `goog` are reserved: docs/google-wire.md §1, and our
 * emulator refuses them too); a message that carries only that one (a producer publishing
 * natively with the client's tracing on) is read by it (`GOOGLE_CLIENT_TRACEPARENT`). The gateway
 * sets these from the request (a producer's own attributes of these names are dropped,
 * gateway/envelope.ts).
 */
export const TRACE_ATTRIBUTES = Object.freeze({
  traceparent: 'traceparent',
  tracestate: 'tracestate',
});

/** The attribute `@google-cloud/pubsub` writes a publish span's context in (its tracing on). */
export const GOOGLE_CLIENT_TRACEPARENT = 'googclient_traceparent';

/** A parsed `traceparent`: version 00's four fields. */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** Whether the sender's sampled flag (bit 0 of the flags) is set. */
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Version 00 exactly, the form every hop of the pipeline writes: read without the regex's groups. */
const VERSION_00 = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The last value read and what it read as: a push reads its message's context more than once. */
let last: { readonly value: string; readonly parsed: TraceParent | undefined } | undefined;

/**
 * Reads a `traceparent` value as the W3C Trace Context recommendation says: version `ff` and
 * all-zero ids are invalid; a later version is read by its first four fields. Anything else is
 * `undefined`, and the receiver starts a trace of its own.
 */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  if (value === undefined || value.length > 512) return undefined;
  if (last?.value === value) return last.parsed;
  const parsed = VERSION_00.test(value) ? version00(value) : anyVersion(value);
  last = { value, parsed };
  return parsed;
}

function version00(value: string): TraceParent | undefined {
  const traceId = value.slice(3, 35);
  const spanId = value.slice(36, 52);
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(value.slice(53), 16) & 1) === 1 };
}

function anyVersion(value: string): TraceParent | undefined {
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff') return undefined;
  // Version 00 has exactly four fields; a later one may append more after a dash.
  if (version === '00' && rest !== undefined) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` value for a span (version 00). */
export function formatTraceparent(p: TraceParent): string {
  return `00-${p.traceId}-${p.spanId}-${p.sampled ? '01' : '00'}`;
}

/** The `traceparent` a message's attributes carry: ours, else the one Google's client wrote. */
export function messageTraceparent(
  attributes: Readonly<Record<string, string>> | undefined,
): string | undefined {
  return attributes?.[TRACE_ATTRIBUTES.traceparent] ?? attributes?.[GOOGLE_CLIENT_TRACEPARENT];
}

/** The trace id a message's attributes carry, or null (a message published without one). */
export function traceIdOf(attributes: Readonly<Record<string, string>> | undefined): string | null {
  return parseTraceparent(messageTraceparent(attributes))?.traceId ?? null;
}
