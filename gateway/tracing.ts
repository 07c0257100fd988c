/**
 * The gateway's trace of a request (docs/observability.md): `gateway.receive`, a server span
 * continuing the producer's `traceparent` (or starting a trace), ended when the answer is sent,
 * with its status and, for a refusal, the error code (never the path, the body or a credential);
 * under it `gateway.auth`, `gateway.validate` and `gateway.publish`.
 *
 * Recorded, not made: while a request is handled the gateway keeps only its trace's ids (drawn
 * once), the clock at each step's start and end and the codes it answered, on the request
 * itself, and no async context is entered. When the answer is sent, a sampled or failed request
 * (an error status, or a refusal) becomes spans for the export queue; any other (most, at the
 * default ratio) is dropped without a span object ever being made. With a span object per step
 * and the request's context made active, tracing cost the gateway 1.10–1.18× its CPU per event
 * (the tracing bench, docs/observability.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import {
  epochNow,
  exportRecorded,
  flushSoon,
  newSpanId,
  REFUSED_ATTRIBUTE,
  type RecordedHop,
  type RecordedSpan,
  SpanKind,
  startRecordedHop,
} from '../adapters/tracing.ts';
import { TRACE_ATTRIBUTES } from '../core/tracing/trace-context.ts';

/** One step of a request, as it is recorded: a span only if the request is exported. */
export interface Step {
  readonly name: string;
  readonly kind: SpanKind;
  readonly start: number;
  end: number;
  attributes: Attributes | undefined;
  error: string | undefined;
}

/** What is recorded of a request while it is handled. */
interface RequestRecord {
  readonly hop: RecordedHop;
  readonly start: number;
  readonly method: string;
  readonly steps: Step[];
  /** Attributes of `gateway.receive` noted on the way (its route, a refusal's code). */
  attributes: Attributes | undefined;
  failed: boolean;
  /** The message attributes carrying the context, made on first use. */
  context: Record<string, string> | undefined;
}

/**
 * The header with which a producer asks for its request's trace (`x-eventbus-trace: 1`), its
 * `traceparent`'s sampled flag then followed: Cloud Run sets `traceparent` on every request it
 * forwards and samples it itself (about 0.1 requests a second per instance), so the flag alone
 * cannot say a producer asked (docs/observability.md).
 */
export const TRACE_REQUEST_HEADER = 'x-eventbus-trace';

const RECORD = Symbol('request trace');
type Traced = IncomingMessage & { [RECORD]?: RequestRecord };

/**
 * Starts the request's record, kept on the request; the request's trace ends when the response
 * is done (or its connection closes: 'close' is emitted in both cases). With tracing off,
 * nothing is recorded and nothing is listened for.
 */
export function receiveSpan(req: IncomingMessage, res: ServerResponse): void {
  // A producer asks for its request's trace with TRACE_REQUEST_HEADER; otherwise the ratio
  // decides, whatever the sampled flag of a `traceparent` Cloud Run may have set itself.
  const hop = startRecordedHop(
    first(req.headers.traceparent),
    first(req.headers.tracestate),
    req.headers[TRACE_REQUEST_HEADER] === '1',
  );
  if (hop === undefined) return;
  const record: RequestRecord = {
    hop,
    start: epochNow(),
    method: req.method ?? '',
    steps: [],
    attributes: undefined,
    failed: false,
    context: undefined,
  };
  (req as Traced)[RECORD] = record;
  res.on('close', answered);
}

/** The response's 'close' listener: one function for every request (no closure per request). */
function answered(this: ServerResponse): void {
  const record = (this.req as Traced)[RECORD];
  if (record !== undefined) ended(record, this.statusCode);
}

/** The request is answered: a sampled or failed one is exported whole, any other dropped. */
function ended(record: RequestRecord, status: number): void {
  const error = status >= 500 ? String(status) : undefined;
  if (!record.hop.sampled && !record.failed && error === undefined) return;
  const end = epochNow();
  const receive: RecordedSpan = {
    name: 'gateway.receive',
    kind: SpanKind.SERVER,
    spanId: record.hop.spanId,
    start: record.start,
    end,
    attributes: {
      'http.request.method': record.method,
      ...record.attributes,
      'http.response.status_code': status,
    },
    error,
  };
  const spans: RecordedSpan[] = [receive];
  for (const s of record.steps)
    spans.push({
      name: s.name,
      kind: s.kind,
      spanId: newSpanId(),
      parentSpanId: record.hop.spanId,
      start: s.start,
      // A step the answer did not wait for (none today) ends with the request.
      end: Number.isNaN(s.end) ? end : s.end,
      attributes: s.attributes ?? {},
      error: s.error,
    });
  exportRecorded(record.hop, spans);
  // Made after the answer, so they leave now (spaced), not on the queue's timer: a request-billed
  // instance's CPU is throttled between requests (docs/observability.md).
  flushSoon();
}

/** Starts a step of the request (`gateway.auth`, `gateway.validate`, `gateway.publish`); none with tracing off. */
export function startStep(req: IncomingMessage, name: string, kind = SpanKind.INTERNAL): Step | undefined {
  const record = (req as Traced)[RECORD];
  if (record === undefined) return undefined;
  const step: Step = {
    name,
    kind,
    start: epochNow(),
    end: Number.NaN,
    attributes: undefined,
    error: undefined,
  };
  record.steps.push(step);
  return step;
}

/**
 * Ends a step with its outcome: a refusal's code (the step and the request then carry
 * `eventbus.refused`, and the request is exported) or an error (the step's error status, the
 * request exported), and attributes (counts, never values).
 */
export function endStep(
  req: IncomingMessage,
  step: Step | undefined,
  outcome?: { readonly refused?: string; readonly error?: string },
  attributes?: Attributes,
): void {
  if (step === undefined || !Number.isNaN(step.end)) return;
  step.end = epochNow();
  if (attributes) step.attributes = step.attributes ? { ...step.attributes, ...attributes } : attributes;
  if (outcome?.refused !== undefined)
    step.attributes = { ...step.attributes, [REFUSED_ATTRIBUTE]: outcome.refused };
  if (outcome?.error !== undefined) step.error = outcome.error;
  if (outcome !== undefined) {
    const record = (req as Traced)[RECORD];
    if (record) record.failed = true;
  }
}

/** Notes an attribute of the request's span (its route; a refusal's code, which has it exported). */
export function noteRequest(req: IncomingMessage, key: string, value: AttributeValue): void {
  const record = (req as Traced)[RECORD];
  if (record === undefined) return;
  if (record.attributes === undefined) record.attributes = { [key]: value };
  else record.attributes[key] = value;
  if (key === REFUSED_ATTRIBUTE) record.failed = true;
}

/** The request's trace context as message attributes (naming `gateway.receive`), or none with tracing off. */
export function requestContext(req: IncomingMessage): Record<string, string> | undefined {
  const record = (req as Traced)[RECORD];
  if (record === undefined) return undefined;
  if (record.context === undefined) {
    const { traceparent, tracestate } = record.hop;
    record.context =
      tracestate === undefined
        ? { [TRACE_ATTRIBUTES.traceparent]: traceparent }
        : { [TRACE_ATTRIBUTES.traceparent]: traceparent, [TRACE_ATTRIBUTES.tracestate]: tracestate };
  }
  return record.context;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
