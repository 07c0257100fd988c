/**
 * OpenTelemetry tracing for one process (the gateway, `store`, `forward`): set up once at cold
 * start by `setupTracing`, then used through the global API (`trace.getTracer`), which is a
 * no-op in a process that never set it up (tests, the CLI). docs/observability.md.
 *
 * - Context: the W3C trace context (core/trace-context.ts) read from a producer's headers or a
 *   message's `traceparent` attribute, and made active for the request with the
 *   AsyncLocalStorage context manager (on Node 24 an async context frame: no async hooks), so
 *   the writers, the publisher and the sender below read the span they run under.
 * - Sampling: parent-based, with a ratio for traces that start here, decided before a span is
 *   made (HopTracer): only a sampled span is the SDK's; any other is a light `UnsampledSpan`
 *   that carries its context alike and is exported only when its hop (the spans this process
 *   made of that trace) ends in an error or a refusal.
 * - Recorded hops: a caller that knows its spans' shape (the gateway's request) keeps only ids,
 *   times and codes while it works (`startRecordedHop`), and hands spans to the export queue
 *   (`exportRecorded`) only for a sampled or failed hop: no span object, no active context.
 * - Export: OTLP/HTTP JSON behind the SDK's BatchSpanProcessor: a bounded queue that drops spans
 *   when the collector is down or slow; a request never waits for an export.
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  createTraceState,
  type HrTime,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  RandomIdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { TraceFlush } from '../core/runtime-config.ts';
import {
  formatTraceparent,
  messageTraceparent,
  parseTraceparent,
  TRACE_ATTRIBUTES,
} from '../core/tracing/trace-context.ts';
import type { Settings } from '../schemas/settings.ts';
import { telemetryHeaders } from './google-credentials.ts';

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
  /**
   * When spans leave (EVENTBUS_TRACE_FLUSH): `answer` (the default), flushPending and flushSoon
   * export what is queued; `timer`, they do nothing and the queue's timer exports it, for an
   * instance whose CPU is always allocated. `flush` (SIGTERM) exports in both.
   */
  readonly flush?: TraceFlush;
  /** The export queue's bounds (BatchSpanProcessor's); the defaults keep a slow collector cheap. */
  readonly queue?: {
    readonly maxQueueSize?: number;
    readonly scheduledDelayMillis?: number;
    readonly exportTimeoutMillis?: number;
  };
}

/** How long a span waits in the queue for others to share its export (a full batch does not wait). */
export const EXPORT_DELAY_MS = 5000;

/** What a process holds once tracing is set up. */
export interface Tracing {
  /** Exports what is queued (tests, a function's shutdown). */
  flush(): Promise<void>;
  /**
   * Exports what was queued since the last export, if anything was: spans are queued only for
   * sampled or failed hops, so an answer with none to export waits for nothing (undefined).
   * Flushes in progress are shared, and one never outlasts FLUSH_BEFORE_ANSWER_MS.
   */
  flushPending(): Promise<void> | undefined;
  shutdown(): Promise<void>;
}

/**
 * The longest an answer waits for its spans' export. In a request-billed Cloud Run service the
 * CPU is throttled once the answer is sent, so spans left to the queue's timer may wait for the
 * instance's next request, or its end (docs/observability.md, "Spans leave before the answer").
 */
export const FLUSH_BEFORE_ANSWER_MS = 1_000;

let installed: Tracing | undefined;
/** The tracer of the process's setup (HopTracer), or none: the API's no-op one is used then. */
let installedTracer: Tracer | undefined;
/** What a recorded hop (`startRecordedHop`) needs of the setup: the ratio and the export queue. */
let recording:
  | { readonly ratio: number; readonly resource: Resource; readonly export?: (span: ReadableSpan) => void }
  | undefined;

/**
 * Sets up tracing for this process, once: the context manager, the sampling, the export queue
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
        // OpenTelemetry's default wait. Each export costs about 1.2 ms of CPU however few spans it
        // carries (loopback OTLP/HTTP): once a second that was 4 µs per event at 300 events/s.
        // A full batch (512) goes at once anyway.
        scheduledDelayMillis: options.queue?.scheduledDelayMillis ?? EXPORT_DELAY_MS,
        exportTimeoutMillis,
      })
    : undefined;
  const resource = resourceFromAttributes({
    'service.name': options.service,
    'service.namespace': 'eventbus',
    // Cloud Trace's OTLP endpoint files the spans under this project.
    'gcp.project_id': options.project,
  });
  // The SDK makes only the spans already decided sampled (HopTracer): it samples all it is given.
  const provider = new BasicTracerProvider({
    sampler: new AlwaysOnSampler(),
    resource,
    spanProcessors: batch
      ? [
          {
            onStart: (span, parent) => batch.onStart(span, parent),
            onEnd: (span) => {
              queued++;
              batch.onEnd(span);
            },
            forceFlush: () => batch.forceFlush(),
            shutdown: () => batch.shutdown(),
          },
        ]
      : [],
  });
  const ratio = Math.min(1, Math.max(0, options.ratio));
  // Spans queued since the last flush began: what flushPending has to wait for.
  let queued = 0;
  const timerOnly = options.flush === 'timer';
  let flushing: Promise<void> | undefined;
  const exportSpan = batch
    ? (span: ReadableSpan) => {
        queued++;
        batch.onEnd(span);
      }
    : undefined;
  const hops = new HopTracer(provider.getTracer(TRACER_NAME), ratio, exportSpan, resource);
  recording = { ratio, resource, ...(exportSpan ? { export: exportSpan } : {}) };
  const contexts = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contexts);
  trace.setGlobalTracerProvider({ getTracer: () => hops });
  installedTracer = hops;
  installed = {
    // Neither ever fails: a collector that is down or slow loses spans, never a caller's work.
    flush: () => provider.forceFlush().catch(() => {}),
    flushPending: () => {
      if (timerOnly) return undefined;
      if (queued === 0) return flushing;
      queued = 0;
      const bound = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_BEFORE_ANSWER_MS).unref());
      const run: Promise<void> = Promise.race([provider.forceFlush().catch(() => {}), bound]).then(() => {
        if (flushing === run) flushing = undefined;
      });
      flushing = run;
      return run;
    },
    // Back to the API's no-op globals, so a later setup (a test's) starts afresh.
    shutdown: () => {
      installed = undefined;
      installedTracer = undefined;
      recording = undefined;
      trace.disable();
      context.disable();
      return provider.shutdown().catch(() => {});
    },
  };
  return installed;
}

const ids = new RandomIdGenerator();
const SCOPE = { name: TRACER_NAME };
/** Read once: `performance.timeOrigin` is a getter that costs more than the clock itself. */
const ORIGIN = performance.timeOrigin;
/** Epoch milliseconds now, with the monotonic clock's fraction. */
const nowMs = () => ORIGIN + performance.now();

/**
 * Sampling decided before a span is made. A span under a sampled parent, or a root the ratio
 * samples, is the SDK's (recorded, exported by the queue); any other is an `UnsampledSpan`: its
 * context (new span id, the trace's id, not sampled) is carried on as a sampled one's is, and it
 * keeps only what an export would need (name, times, attributes, status) until its hop ends,
 * when a hop with an error or a refusal is handed to the queue and any other is dropped.
 */
class HopTracer implements Tracer {
  readonly #sdk: Tracer;
  readonly #ratio: number;
  readonly #export: ((span: ReadableSpan) => void) | undefined;
  readonly #resource: Resource;
  constructor(
    sdk: Tracer,
    ratio: number,
    exportSpan: ((span: ReadableSpan) => void) | undefined,
    resource: Resource,
  ) {
    this.#sdk = sdk;
    this.#ratio = ratio;
    this.#export = exportSpan;
    this.#resource = resource;
  }

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpan(ctx);
    // Most spans: a step of an unsampled hop.
    if (parent instanceof UnsampledSpan) return new UnsampledSpan(name, options, parent, parent.hop);
    const from = parent?.spanContext();
    const valid = from !== undefined && trace.isSpanContextValid(from);
    // Parent-based: a parent's flag is followed (a producer's too); a root is drawn at the ratio.
    const sampled = valid ? (from.traceFlags & TraceFlags.SAMPLED) !== 0 : Math.random() < this.#ratio;
    if (sampled) return this.#sdk.startSpan(name, options, ctx);
    return new UnsampledSpan(name, options, valid ? from : undefined, new Hop(this.#export, this.#resource));
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length >= 2 ? rest[0] : undefined) as SpanOptions | undefined;
    const ctx = (rest.length >= 3 ? rest[1] : undefined) as Context | undefined;
    const parent = ctx ?? context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}

/**
 * The spans one process made of one unsampled trace, up to the one whose parent came from
 * elsewhere (the hop's root): exported when any of them ended in an error or a refusal, once the
 * root ends (a span ending after that joins an exported hop), else dropped with it.
 */
class Hop {
  readonly #export: ((span: ReadableSpan) => void) | undefined;
  readonly #resource: Resource;
  #ended: UnsampledSpan[] = [];
  #failed = false;
  #closed = false;
  constructor(exportSpan: ((span: ReadableSpan) => void) | undefined, resource: Resource) {
    this.#export = exportSpan;
    this.#resource = resource;
  }
  ended(span: UnsampledSpan, root: boolean): void {
    this.#failed ||= span.failed();
    if (this.#closed) {
      if (this.#failed) this.#export?.(span.readable(this.#resource));
      return;
    }
    this.#ended.push(span);
    if (!root) return;
    this.#closed = true;
    const ended = this.#ended;
    this.#ended = [];
    if (this.#failed && this.#export) for (const s of ended) this.#export(s.readable(this.#resource));
  }
}

/** Milliseconds as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
}

/** A `TimeInput` as epoch milliseconds (a small number is the monotonic clock's, as the SDK reads it). */
function epochMs(t: TimeInput | undefined): number {
  if (t === undefined) return nowMs();
  if (typeof t === 'number') return t < ORIGIN ? ORIGIN + t : t;
  if (t instanceof Date) return t.getTime();
  return t[0] * 1000 + t[1] / 1e6;
}

/**
 * A span no sampler chose: cheap to make, recorded only as far as an error's export needs. Its
 * span id is drawn when first read (most steps' never are), its attributes copied on first write.
 */
class UnsampledSpan implements Span {
  readonly hop: Hop;
  /** The span of this hop it is under, or the remote context of the hop's first span (or none: a root). */
  readonly #parent: UnsampledSpan | SpanContext | undefined;
  readonly #traceId: string;
  readonly #traceState: SpanContext['traceState'];
  readonly #kind: SpanKind;
  readonly #start: number;
  #links: Link[] | undefined;
  #context: SpanContext | undefined;
  #attributes: Attributes;
  #ownAttributes = false;
  #name: string;
  #status: SpanStatus | undefined;
  #end: number | undefined;

  constructor(name: string, options: SpanOptions, parent: UnsampledSpan | SpanContext | undefined, hop: Hop) {
    this.hop = hop;
    this.#name = name;
    this.#parent = parent;
    if (parent instanceof UnsampledSpan) {
      this.#traceId = parent.#traceId;
      this.#traceState = parent.#traceState;
    } else {
      this.#traceId = parent?.traceId ?? ids.generateTraceId();
      this.#traceState = parent?.traceState;
    }
    this.#kind = options.kind ?? SpanKind.INTERNAL;
    this.#start = epochMs(options.startTime);
    this.#attributes = options.attributes ?? {};
    this.#links = options.links;
  }
  spanContext(): SpanContext {
    this.#context ??= {
      traceId: this.#traceId,
      spanId: ids.generateSpanId(),
      traceFlags: TraceFlags.NONE,
      ...(this.#traceState ? { traceState: this.#traceState } : {}),
    };
    return this.#context;
  }
  /** The trace's id, without drawing a span id. */
  get traceId(): string {
    return this.#traceId;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.#end !== undefined || value === undefined) return this;
    if (!this.#ownAttributes) {
      this.#attributes = { ...this.#attributes };
      this.#ownAttributes = true;
    }
    this.#attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [k, v] of Object.entries(attributes)) if (v !== undefined) this.setAttribute(k, v);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(link: Link): this {
    return this.addLinks([link]);
  }
  addLinks(links: Link[]): this {
    this.#links = [...(this.#links ?? []), ...links];
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (this.#end === undefined) this.#status = status;
    return this;
  }
  updateName(name: string): this {
    this.#name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    if (this.#end !== undefined) return;
    this.#end = Math.max(this.#start, epochMs(endTime));
    this.hop.ended(this, !(this.#parent instanceof UnsampledSpan));
  }
  isRecording(): boolean {
    return this.#end === undefined;
  }
  recordException(): void {}

  /** Whether it ended in an error status or a refusal: its hop is exported then. */
  failed(): boolean {
    return this.#status?.code === SpanStatusCode.ERROR || this.#attributes[REFUSED_ATTRIBUTE] !== undefined;
  }

  /** The span as the export queue takes it, flagged sampled (the queue drops any other). */
  readable(resource: Resource): ReadableSpan {
    const parent = this.#parent instanceof UnsampledSpan ? this.#parent.spanContext() : this.#parent;
    return readableSpan(
      {
        name: this.#name,
        kind: this.#kind,
        context: this.spanContext(),
        parent,
        start: this.#start,
        end: this.#end ?? nowMs(),
        status: this.#status,
        attributes: this.#attributes,
        links: this.#links,
      },
      resource,
    );
  }
}

/** What an export needs of a span, however it was recorded (times in epoch milliseconds). */
interface SpanRecord {
  readonly name: string;
  readonly kind: SpanKind;
  readonly context: SpanContext;
  readonly parent: SpanContext | undefined;
  readonly start: number;
  readonly end: number;
  readonly status: SpanStatus | undefined;
  readonly attributes: Attributes;
  readonly links?: Link[] | undefined;
}

/** A span as the export queue takes it, flagged sampled (the queue drops any other). */
function readableSpan(r: SpanRecord, resource: Resource): ReadableSpan {
  const exported = { ...r.context, traceFlags: TraceFlags.SAMPLED };
  return {
    name: r.name,
    kind: r.kind,
    spanContext: () => exported,
    ...(r.parent ? { parentSpanContext: r.parent } : {}),
    startTime: hrTime(r.start),
    endTime: hrTime(r.end),
    duration: hrTime(r.end - r.start),
    status: r.status ?? { code: SpanStatusCode.UNSET },
    attributes: r.attributes,
    links: r.links ?? [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * `words` × 32 random bits as lowercase hex, never all zero (W3C), drawn from Math.random as the
 * SDK's RandomIdGenerator draws them, without its Buffer and native hex conversion.
 */
function randomHex(words: number): string {
  let id = '';
  let any = 0;
  for (let i = 0; i < words; i++) {
    const n = (Math.random() * 0x1_0000_0000) >>> 0;
    any |= n;
    id += (HEX[n >>> 24] as string) + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
  }
  return any === 0 ? `${id.slice(0, -1)}1` : id;
}

/** Epoch milliseconds now (the monotonic clock's fraction): a recorded span's times. */
export const epochNow = (): number => nowMs();

/**
 * A hop that records its own spans (the gateway's request): its trace, the id of its first span,
 * and the sampling decision, drawn once. Its spans are kept as plain numbers and codes by the
 * caller, and handed over (`exportRecorded`) only when the hop is sampled or failed: most
 * requests make no span object at all.
 */
export interface RecordedHop {
  readonly traceId: string;
  /** The hop's first span's id: the `traceparent` it carries on names it. */
  readonly spanId: string;
  /** The producer's context it continues (a remote parent), if any. */
  readonly parent: SpanContext | undefined;
  readonly sampled: boolean;
  /** The `traceparent` naming the hop's first span. */
  readonly traceparent: string;
  /** The producer's `tracestate`, as it is carried on (only with a producer's `traceparent`). */
  readonly tracestate: string | undefined;
}

/**
 * Starts a recorded hop under a producer's `traceparent` (and `tracestate`). `followFlag` (the
 * default) is parent-based, as HopTracer decides: a valid parent's flag is followed, a trace that
 * starts here is sampled at the ratio. Without it the trace id is kept but the ratio decides: at
 * an HTTP entry behind Cloud Run, whose front end sets `traceparent` on every request and its
 * sampled flag at its own rate, the flag says nothing of what the producer asked (gateway/tracing.ts).
 * Undefined when this process has no tracing set up.
 */
export function startRecordedHop(
  traceparent: string | undefined,
  tracestate?: string,
  followFlag = true,
): RecordedHop | undefined {
  if (recording === undefined) return undefined;
  const p = parseTraceparent(traceparent);
  const sampled = p && followFlag ? p.sampled : Math.random() < recording.ratio;
  const traceId = p ? p.traceId : randomHex(4);
  const spanId = randomHex(2);
  const state = p && tracestate && tracestate.length <= 512 ? createTraceState(tracestate) : undefined;
  const serialized = state?.serialize();
  return {
    traceId,
    spanId,
    parent: p
      ? {
          traceId,
          spanId: p.spanId,
          traceFlags: p.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
          isRemote: true,
          ...(state ? { traceState: state } : {}),
        }
      : undefined,
    sampled,
    traceparent: formatTraceparent({ traceId, spanId, sampled }),
    tracestate: serialized === '' ? undefined : serialized,
  };
}

/**
 * The least time between two exports `flushSoon` starts: at 1,000 requests a second and the
 * default ratio, about 4 exports a second at most (each about 1.2 ms of CPU) instead of one per
 * sampled request.
 */
export const FLUSH_SPACING_MS = 250;
let lastSoonFlush = 0;
let soonTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Starts the export of what is queued soon, without waiting for it: a recorded hop made after its
 * answer (the gateway's) leaves at once, or within FLUSH_SPACING_MS of the last such export,
 * instead of on the queue's 5 s timer, which a throttled instance may not run.
 */
export function flushSoon(): void {
  if (installed === undefined || soonTimer !== undefined) return;
  const run = () => {
    soonTimer = undefined;
    lastSoonFlush = Date.now();
    void installed?.flushPending();
  };
  const wait = lastSoonFlush + FLUSH_SPACING_MS - Date.now();
  if (wait <= 0) run();
  else {
    soonTimer = setTimeout(run, wait);
    soonTimer.unref();
  }
}

/** A span of a recorded hop, as the caller kept it: `parent` is another span's id in the hop. */
export interface RecordedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly spanId: string;
  /** The parent's span id within the hop; none: the hop's remote parent (or a root). */
  readonly parentSpanId?: string | undefined;
  readonly start: number;
  readonly end: number;
  readonly attributes: Attributes;
  /** An error status's message. */
  readonly error?: string | undefined;
}

/** A new span id (16 hex digits), for a recorded span being exported. */
export const newSpanId = (): string => randomHex(2);

/** Hands a recorded hop's spans to the export queue (nothing without an exporter). */
export function exportRecorded(hop: RecordedHop, spans: readonly RecordedSpan[]): void {
  const r = recording;
  if (r?.export === undefined) return;
  const traceState = hop.parent?.traceState;
  const contextOf = (spanId: string): SpanContext => ({
    traceId: hop.traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    ...(traceState ? { traceState } : {}),
  });
  for (const s of spans)
    r.export(
      readableSpan(
        {
          name: s.name,
          kind: s.kind,
          context: contextOf(s.spanId),
          parent: s.parentSpanId === undefined ? hop.parent : contextOf(s.parentSpanId),
          start: s.start,
          end: Math.max(s.start, s.end),
          status: s.error === undefined ? undefined : { code: SpanStatusCode.ERROR, message: s.error },
          attributes: s.attributes,
        },
        r.resource,
      ),
    );
}

/** The tracer every span of the pipeline is made with (a no-op one until setupTracing). */
export const tracer = (): Tracer => installedTracer ?? trace.getTracer(TRACER_NAME);

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
  if (!(span instanceof UnsampledSpan) && !trace.isSpanContextValid(c)) return undefined;
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
  if (span instanceof UnsampledSpan) return span.traceId;
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

/** Cloud Trace's OTLP endpoint's exports carry a Google access token of this scope. */
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
    readonly traceFlush?: TraceFlush;
  },
  service: string,
): Tracing | undefined {
  const t = config.settings.tracing;
  if (t?.enabled === false) return undefined;
  const endpoint = config.traceEndpoint;
  const headers = endpoint === undefined ? undefined : telemetryHeaders(endpoint, TRACE_SCOPE);
  return setupTracing({
    service,
    project: config.project,
    ratio: t?.sample_ratio ?? DEFAULT_SAMPLE_RATIO,
    endpoint,
    ...(config.traceFlush ? { flush: config.traceFlush } : {}),
    ...(headers ? { headers } : {}),
  });
}

/** The settings' default `tracing.sample_ratio`. */
export const DEFAULT_SAMPLE_RATIO = 0.01;
