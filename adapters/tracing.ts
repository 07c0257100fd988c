/**
 * OpenTelemetry tracing for one process (the gateway, `store`, `forward`): set up once at cold
 * start by `setupTracing`, then used through the global API (`trace.getTracer`), which is a
 * no-op in a process that never set it up (tests, the CLI). docs/observability.md.
 *
 * - Context: the W3C trace context (core/trace-context.ts) read from a producer's headers or a
 *   message's `traceparent` attribute, and made active for the request with the
 *   AsyncLocalStorage context manager (on Node 24 an async context frame: no async hooks), so
 *   the writers, the publisher and the sender below read the span they run under.
 * - Sampling: parent-based, with a ratio for traces that start here; spans a ratio does not
 *   sample are still recorded, and `ExportDecision` exports them anyway when their hop ends in an
 *   error or a refusal (the whole hop: every span of the trace this process held).
 * - Export: OTLP/HTTP JSON behind the SDK's BatchSpanProcessor: a bounded queue that drops spans
 *   when the collector is down or slow; a request never waits for an export.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import {
  formatTraceparent,
  messageTraceparent,
  parseTraceparent,
  TRACE_ATTRIBUTES,
} from '../core/tracing/trace-context.ts';
import type { Settings } from '../schemas/settings.ts';
import { cachedCredentials } from './google-credentials.ts';
import type { CallCredentials } from './grpc-unary.ts';

/** The instrumentation scope every span of the pipeline is made under. */
export const TRACER_NAME = 'eventbus';

/** A span attribute naming why a hop refused (a reason code): its spans are exported whatever the ratio. */
export const REFUSED_ATTRIBUTE = 'eventbus.refused';

/** What `setupTracing` needs: the process's name, where spans go, and the settings' ratio. */
export interface TracingOptions {
  /** `service.name` of the spans: `gateway`, `store`, `forward`. */
  readonly service: string;
  readonly project: string;
  /** Share of the traces that start here which are exported (0–1); errors and refusals always are. */
  readonly ratio: number;
  /** The OTLP/HTTP base URL (`/v1/traces` is appended); absent: spans are made and not exported. */
  readonly endpoint?: string | undefined;
  /** Request headers for each export (Cloud Trace: a Google access token). */
  readonly headers?: () => Promise<Record<string, string>>;
  /** Tests: an exporter instead of OTLP. */
  readonly exporter?: SpanExporter;
  /** The export queue's bounds (BatchSpanProcessor's); the defaults keep a slow collector cheap. */
  readonly queue?: {
    readonly maxQueueSize?: number;
    readonly scheduledDelayMillis?: number;
    readonly exportTimeoutMillis?: number;
  };
}

/** What a process holds once tracing is set up. */
export interface Tracing {
  /** Exports what is queued (tests, a function's shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/**
 * Sets up tracing for this process, once: the context manager, the sampler, the export queue
 * and the global tracer provider. A second call returns the first setup.
 */
export function setupTracing(options: TracingOptions): Tracing {
  if (installed) return installed;
  // A collector that does not answer within this is given up on: its spans are dropped. One
  // bound for the queue's wait and the request itself, so no export outlives the queue's wait.
  const exportTimeoutMillis = options.queue?.exportTimeoutMillis ?? 5_000;
  const exporter =
    options.exporter ??
    (options.endpoint
      ? new OTLPTraceExporter({
          url: `${options.endpoint.replace(/\/$/, '')}/v1/traces`,
          timeoutMillis: exportTimeoutMillis,
          ...(options.headers ? { headers: options.headers } : {}),
        })
      : undefined);
  const batch = exporter
    ? new BatchSpanProcessor(exporter, {
        maxQueueSize: options.queue?.maxQueueSize ?? 2048,
        maxExportBatchSize: 512,
        scheduledDelayMillis: options.queue?.scheduledDelayMillis ?? 1000,
        exportTimeoutMillis,
      })
    : undefined;
  const processor = batch ? new ExportDecision(batch) : undefined;
  const provider = new BasicTracerProvider({
    sampler: new RecordUnsampled(
      new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Math.min(1, Math.max(0, options.ratio))) }),
    ),
    resource: resourceFromAttributes({
      'service.name': options.service,
      'service.namespace': 'eventbus',
      // Cloud Trace's OTLP endpoint files the spans under this project.
      'gcp.project_id': options.project,
    }),
    spanProcessors: processor ? [processor] : [],
  });
  const contexts = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contexts);
  trace.setGlobalTracerProvider(provider);
  installed = {
    // Neither ever fails: a collector that is down or slow loses spans, never a caller's work.
    flush: () => provider.forceFlush().catch(() => {}),
    // Back to the API's no-op globals, so a later setup (a test's) starts afresh.
    shutdown: () => {
      installed = undefined;
      trace.disable();
      context.disable();
      return provider.shutdown().catch(() => {});
    },
  };
  return installed;
}

/**
 * A sampler that records what its inner sampler would drop (RECORD, not sampled), so a span that
 * ends in an error can still be exported (ExportDecision); what it samples is unchanged.
 */
class RecordUnsampled implements Sampler {
  readonly #inner: Sampler;
  constructor(inner: Sampler) {
    this.#inner = inner;
  }
  shouldSample(...args: Parameters<Sampler['shouldSample']>): SamplingResult {
    const r = this.#inner.shouldSample(...args);
    return r.decision === SamplingDecision.NOT_RECORD ? { ...r, decision: SamplingDecision.RECORD } : r;
  }
  toString(): string {
    return `RecordUnsampled{${this.#inner.toString()}}`;
  }
}

/** How many unsampled traces a process holds while their hop is open; beyond it the oldest go. */
const HELD_TRACES = 1024;

/**
 * Which ended spans reach the export queue: every sampled one; of the others, the spans of a hop
 * (the spans of one trace this process made, up to the one whose parent came from elsewhere) when
 * any of them ended in an error or a refusal, else none. Held spans are bounded (HELD_TRACES).
 */
export class ExportDecision implements SpanProcessor {
  readonly #next: SpanProcessor;
  readonly #held = new Map<string, { spans: ReadableSpan[]; failed: boolean }>();
  constructor(next: SpanProcessor) {
    this.#next = next;
  }
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const ctx = span.spanContext();
    if ((ctx.traceFlags & TraceFlags.SAMPLED) !== 0) {
      this.#next.onEnd(span);
      return;
    }
    const failed =
      span.status.code === SpanStatusCode.ERROR || span.attributes[REFUSED_ATTRIBUTE] !== undefined;
    const parent = span.parentSpanContext;
    const hopRoot = parent === undefined || parent.isRemote === true;
    let hop = this.#held.get(ctx.traceId);
    if (!hopRoot) {
      if (!hop) {
        if (this.#held.size >= HELD_TRACES) this.#held.delete(this.#held.keys().next().value as string);
        hop = { spans: [], failed: false };
        this.#held.set(ctx.traceId, hop);
      }
      hop.spans.push(span);
      hop.failed ||= failed;
      return;
    }
    this.#held.delete(ctx.traceId);
    if (!failed && !hop?.failed) return;
    for (const s of hop?.spans ?? []) this.#next.onEnd(exported(s));
    this.#next.onEnd(exported(span));
  }
  forceFlush(): Promise<void> {
    return this.#next.forceFlush();
  }
  shutdown(): Promise<void> {
    this.#held.clear();
    return this.#next.shutdown();
  }
}

/** An unsampled span as the export queue takes it: the same span, flagged sampled. */
function exported(span: ReadableSpan): ReadableSpan {
  const c = span.spanContext();
  const flagged = { ...c, traceFlags: c.traceFlags | TraceFlags.SAMPLED };
  return Object.create(span, { spanContext: { value: () => flagged } }) as ReadableSpan;
}

/** The tracer every span of the pipeline is made with (a no-op one until setupTracing). */
export const tracer = () => trace.getTracer(TRACER_NAME);

/** The context a producer's or a message's `traceparent` (and `tracestate`) names, else the root. */
export function remoteContext(traceparent: string | undefined, tracestate?: string): Context {
  const p = parseTraceparent(traceparent);
  if (!p) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: p.traceId,
    spanId: p.spanId,
    traceFlags: p.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
    ...(tracestate && tracestate.length <= 512 ? { traceState: createTraceState(tracestate) } : {}),
  });
}

/** The context a Pub/Sub message's attributes carry (core/trace-context.ts). */
export function messageContext(attributes: Readonly<Record<string, string>>): Context {
  return remoteContext(messageTraceparent(attributes), attributes[TRACE_ATTRIBUTES.tracestate]);
}

/** The `traceparent` naming a span, for a message attribute or an outbound header. */
export function traceparentOf(span: Span): string | undefined {
  const c = span.spanContext();
  if (!trace.isSpanContextValid(c)) return undefined;
  return formatTraceparent({
    traceId: c.traceId,
    spanId: c.spanId,
    sampled: (c.traceFlags & TraceFlags.SAMPLED) !== 0,
  });
}

/** The message attributes carrying a span's context (none for an invalid, no-op span). */
export function contextAttributes(span: Span): Record<string, string> {
  const tp = traceparentOf(span);
  if (tp === undefined) return {};
  const state = span.spanContext().traceState?.serialize();
  return state
    ? { [TRACE_ATTRIBUTES.traceparent]: tp, [TRACE_ATTRIBUTES.tracestate]: state }
    : { [TRACE_ATTRIBUTES.traceparent]: tp };
}

/** The trace id of the span active now (the request's), or null outside one. */
export function activeTraceId(): string | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const c = span.spanContext();
  return trace.isSpanContextValid(c) ? c.traceId : null;
}

/** Starts a span under `parent` (a context), of `kind`, with attributes: kinds and counts only, never values. */
export function startSpan(
  name: string,
  parent: Context,
  attributes: Attributes,
  kind = SpanKind.INTERNAL,
  startTime?: number,
): Span {
  return tracer().startSpan(
    name,
    startTime === undefined ? { kind, attributes } : { kind, attributes, startTime },
    parent,
  );
}

/** Marks the active span failed (an error its hop answers non-2xx for). */
export function failActive(error: string): void {
  trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message: error });
}

/** Ends a span with its outcome: an error (the span's status) or a refusal (REFUSED_ATTRIBUTE). */
export function endSpan(span: Span, outcome?: { readonly error?: string; readonly refused?: string }): void {
  if (outcome?.refused !== undefined) span.setAttribute(REFUSED_ATTRIBUTE, outcome.refused);
  if (outcome?.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
  span.end();
}

/**
 * Runs a hop's handling in `ctx` (its span active) and ends the span when what it returns settles:
 * a rejection or a throw marks it failed and passes on. The one place a hop's span ends.
 */
export function runHop<T>(
  ctx: Context,
  span: Span,
  fn: () => Promise<T> | undefined,
): Promise<T> | undefined {
  return context.with(ctx, () => {
    let ran: Promise<T> | undefined;
    try {
      ran = fn();
    } catch (err) {
      endSpan(span, { error: (err as Error).name });
      throw err;
    }
    if (!ran) {
      span.end();
      return ran;
    }
    return ran.then(
      (v) => {
        span.end();
        return v;
      },
      (err: unknown) => {
        endSpan(span, { error: (err as Error).name });
        throw err;
      },
    );
  });
}

/** Runs `fn` with `span` active (its context a child of `parent`). */
export function withSpan<T>(parent: Context, span: Span, fn: () => T): T {
  return context.with(trace.setSpan(parent, span), fn);
}

export { SpanKind };

/** A span under the one active now (a step of the request or push being handled). */
export function childSpan(name: string, kind = SpanKind.INTERNAL, attributes: Attributes = {}): Span {
  return tracer().startSpan(name, { kind, attributes }, context.active());
}

/** Sets attributes on the active span (none outside one). */
export function noteSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active span's context as message attributes (none outside a span). */
export function activeContextAttributes(): Record<string, string> | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const attrs = contextAttributes(span);
  return attrs[TRACE_ATTRIBUTES.traceparent] ? attrs : undefined;
}

/** Cloud Trace's OTLP endpoint: its exports carry a Google access token (scope trace.append). */
const CLOUD_TRACE_HOST = 'telemetry.googleapis.com';
const TRACE_SCOPE = 'https://www.googleapis.com/auth/trace.append';

/**
 * Tracing for a deployable, from its configuration: the settings' `tracing` (on unless
 * `enabled: false`; `sample_ratio`, default 0.01) and EVENTBUS_TRACE_ENDPOINT. Exports to Cloud
 * Trace's endpoint carry the workload's credentials (its account holds roles/cloudtrace.agent).
 */
export function setupProcessTracing(
  config: {
    readonly settings: Readonly<Settings>;
    readonly project: string;
    readonly traceEndpoint?: string;
  },
  service: string,
): Tracing | undefined {
  const t = config.settings.tracing;
  if (t?.enabled === false) return undefined;
  const endpoint = config.traceEndpoint;
  const google = endpoint !== undefined && new URL(endpoint).hostname === CLOUD_TRACE_HOST;
  let credentials: CallCredentials | undefined;
  return setupTracing({
    service,
    project: config.project,
    ratio: t?.sample_ratio ?? DEFAULT_SAMPLE_RATIO,
    endpoint,
    ...(google
      ? {
          headers: async () => {
            // Loaded on the first export to Cloud Trace: the gateway's bundle keeps Google's
            // clients as vendor files that loading its main file never reads.
            const { GoogleAuth } = await import('google-auth-library');
            credentials ??= cachedCredentials(new GoogleAuth({ scopes: [TRACE_SCOPE] }));
            return { ...(await credentials.headers()) };
          },
        }
      : {}),
  });
}

/** The settings' default `tracing.sample_ratio`. */
export const DEFAULT_SAMPLE_RATIO = 0.01;
