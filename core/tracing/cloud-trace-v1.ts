/**
 * One trace in Cloud Trace API v1's shape (`GET /v1/projects/{p}/traces/{traceId}`,
 * docs/observability.md#reading-a-trace-in-the-studio) and the studio's waterfall made from it.
 * Pure: the local receiver builds the shape from the OTLP spans it holds (`toV1Trace`), the studio
 * reads it the same way from Cloud Trace or from the receiver (adapters/trace-reader.ts) and lays
 * it out (`waterfall`).
 *
 * v1 names a span by a uint64 written in decimal (`"2205310701640571284"`), where OTLP and W3C
 * write the same 64 bits as 16 hex digits: the two are one number, converted both ways here.
 */

/** A span of v1's `Trace.spans[]`, as its JSON carries it. */
export interface V1Span {
  readonly spanId: string;
  readonly kind: 'SPAN_KIND_UNSPECIFIED' | 'RPC_SERVER' | 'RPC_CLIENT';
  readonly name: string;
  /** RFC 3339, nanoseconds kept. */
  readonly startTime: string;
  readonly endTime: string;
  /** Absent on a root span. */
  readonly parentSpanId?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface V1Trace {
  readonly projectId: string;
  readonly traceId: string;
  readonly spans: readonly V1Span[];
}

/** What `toV1Trace` needs of a span held in OTLP's terms (the receiver's ReceivedSpan has it). */
export interface OtlpSpanLike {
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly service: string;
  /** OTLP's kind (1 internal, 2 server, 3 client, 4 producer, 5 consumer); v1 has server and client. */
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly status: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

/** The labels this project gives a span's service and its error status (v1 has no field for either). */
export const SERVICE_LABEL = 'service.name';
export const STATUS_LABEL = 'otel.status_code';

export const TRACE_ID = /^[0-9a-f]{32}$/;
const HEX_SPAN_ID = /^[0-9a-f]{16}$/;
const DECIMAL_SPAN_ID = /^[1-9][0-9]{0,19}$/;
const MAX_U64 = (1n << 64n) - 1n;

/** A 16-hex-digit span id as v1's decimal uint64; undefined when it is not one (or is zero). */
export function decimalSpanId(hex: string): string | undefined {
  const h = hex.toLowerCase();
  if (!HEX_SPAN_ID.test(h) || /^0+$/.test(h)) return undefined;
  return BigInt(`0x${h}`).toString(10);
}

/** v1's decimal span id as 16 hex digits (as OTLP and `traceparent` write it); undefined when not one. */
export function hexSpanId(decimal: string): string | undefined {
  if (!DECIMAL_SPAN_ID.test(decimal)) return undefined;
  const n = BigInt(decimal);
  return n > MAX_U64 ? undefined : n.toString(16).padStart(16, '0');
}

/** Epoch nanoseconds (a decimal string) as RFC 3339 in UTC with nine fractional digits. */
export function rfc3339OfNanos(nanos: string): string {
  const n = /^\d{1,25}$/.test(nanos) ? BigInt(nanos) : 0n;
  const seconds = n / 1_000_000_000n;
  const fraction = (n % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** RFC 3339 as epoch milliseconds with the fraction below a millisecond kept; NaN when not one. */
export function msOfRfc3339(time: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (!m) return Number.NaN;
  const whole = Date.parse(`${m[1]}${m[3]}`);
  return whole + Number(`0.${m[2] ?? '0'}`) * 1000;
}

const KINDS: Readonly<Record<number, V1Span['kind']>> = { 2: 'RPC_SERVER', 3: 'RPC_CLIENT' };

/**
 * A trace's spans, held in OTLP's terms, in v1's shape: ids in decimal, times in RFC 3339, the
 * attributes as string labels, with the span's service and (on an error) its status as labels.
 * Oldest first. Spans whose id is not 16 hex digits are left out.
 */
export function toV1Trace(projectId: string, traceId: string, spans: readonly OtlpSpanLike[]): V1Trace {
  const out: { span: V1Span; start: bigint }[] = [];
  for (const s of spans) {
    const spanId = decimalSpanId(s.spanId);
    if (!spanId) continue;
    const parent = s.parentSpanId ? decimalSpanId(s.parentSpanId) : undefined;
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.attributes)) labels[k] = String(v);
    if (s.service) labels[SERVICE_LABEL] = s.service;
    if (s.status === 2) labels[STATUS_LABEL] = 'ERROR';
    out.push({
      start: /^\d+$/.test(s.startTimeUnixNano) ? BigInt(s.startTimeUnixNano) : 0n,
      span: {
        spanId,
        kind: KINDS[s.kind] ?? 'SPAN_KIND_UNSPECIFIED',
        name: s.name,
        startTime: rfc3339OfNanos(s.startTimeUnixNano),
        endTime: rfc3339OfNanos(s.endTimeUnixNano),
        ...(parent ? { parentSpanId: parent } : {}),
        labels,
      },
    });
  }
  out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return { projectId, traceId, spans: out.map((o) => o.span) };
}

/** A v1 `Trace` answer checked field by field; undefined when it is not one. */
export function parseV1Trace(body: unknown): V1Trace | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b['traceId'] !== 'string') return undefined;
  const spans: V1Span[] = [];
  for (const raw of Array.isArray(b['spans']) ? b['spans'] : []) {
    if (typeof raw !== 'object' || raw === null) return undefined;
    const s = raw as Record<string, unknown>;
    const id = typeof s['spanId'] === 'number' ? String(s['spanId']) : s['spanId'];
    if (typeof id !== 'string' || typeof s['startTime'] !== 'string' || typeof s['endTime'] !== 'string')
      return undefined;
    const labels: Record<string, string> = {};
    const rawLabels = s['labels'];
    if (typeof rawLabels === 'object' && rawLabels !== null)
      for (const [k, v] of Object.entries(rawLabels)) if (typeof v === 'string') labels[k] = v;
    const parent = s['parentSpanId'];
    const kind = s['kind'];
    spans.push({
      spanId: id,
      kind: kind === 'RPC_SERVER' || kind === 'RPC_CLIENT' ? kind : 'SPAN_KIND_UNSPECIFIED',
      name: typeof s['name'] === 'string' ? s['name'] : '',
      startTime: s['startTime'],
      endTime: s['endTime'],
      ...(typeof parent === 'string' && parent !== '0' && parent !== '' ? { parentSpanId: parent } : {}),
      labels,
    });
  }
  return {
    projectId: typeof b['projectId'] === 'string' ? b['projectId'] : '',
    traceId: b['traceId'],
    spans,
  };
}

/**
 * The span attributes the waterfall shows: each hop's outcome, as kinds and codes (the span
 * table of docs/observability.md holds no event value, so neither does this).
 */
export const KEY_ATTRIBUTES = [
  'eventbus.destination',
  'eventbus.verdict',
  'eventbus.reason',
  'eventbus.status',
  'eventbus.refused',
  'eventbus.table',
  'eventbus.rows',
  'eventbus.replay',
  'eventbus.claim.answer',
  'http.response.status_code',
  'server.address',
  // A webhook call's headers, credentials redacted before they were recorded (sent-headers.ts).
  'eventbus.sent_headers',
] as const;

/**
 * Cloud Trace v1's canonical label keys (Google's "Trace labels" page,
 * https://cloud.google.com/trace/docs/trace-labels) read where the OpenTelemetry attribute is
 * absent, shown under the attribute's name: a span labelled by Cloud Trace or another agent
 * (`/http/status_code`, `/http/host`) reads as ours does.
 */
const CANONICAL: Readonly<Partial<Record<(typeof KEY_ATTRIBUTES)[number], string>>> = {
  'http.response.status_code': '/http/status_code',
  'server.address': '/http/host',
};

/** A key attribute's value: its OpenTelemetry label, else v1's canonical one. */
function keyAttribute(labels: Readonly<Record<string, string>>, key: (typeof KEY_ATTRIBUTES)[number]) {
  const canonical = CANONICAL[key];
  return labels[key] ?? (canonical === undefined ? undefined : labels[canonical]);
}

/** One bar of the waterfall. */
export interface WaterfallRow {
  readonly spanId: string;
  readonly name: string;
  readonly service: string;
  /** 0 for a span whose parent is not in the trace (the root, or the producer's span's child). */
  readonly depth: number;
  /** From the trace's first start, and the span's length, in milliseconds. */
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly error: boolean;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface Waterfall {
  readonly traceId: string;
  /** From the first start to the last end, in milliseconds. */
  readonly totalMs: number;
  readonly rows: readonly WaterfallRow[];
}

/**
 * Whether a span ended in error: its status, a refusal, v1's canonical error labels
 * (`/error/message`, `/error/name`), or an HTTP status of 500 or more.
 */
function isError(labels: Readonly<Record<string, string>>): boolean {
  return (
    labels[STATUS_LABEL] === 'ERROR' ||
    labels['eventbus.refused'] !== undefined ||
    labels['/error/message'] !== undefined ||
    labels['/error/name'] !== undefined ||
    Number(keyAttribute(labels, 'http.response.status_code') ?? 0) >= 500
  );
}

/**
 * The trace as rows in tree order (each span under its parent, siblings by start time), with
 * each bar's offset and width in milliseconds from the trace's first start. A span whose parent
 * is not in the trace starts a tree of its own; a cycle cannot loop (each span is placed once).
 */
export function waterfall(trace: V1Trace): Waterfall {
  const spans = trace.spans
    .map((s) => ({ s, start: msOfRfc3339(s.startTime), end: msOfRfc3339(s.endTime) }))
    .filter((x) => Number.isFinite(x.start) && Number.isFinite(x.end));
  if (spans.length === 0) return { traceId: trace.traceId, totalMs: 0, rows: [] };
  const first = Math.min(...spans.map((x) => x.start));
  const last = Math.max(...spans.map((x) => x.end));
  const ids = new Set(spans.map((x) => x.s.spanId));
  const children = new Map<string, typeof spans>();
  const roots: typeof spans = [];
  for (const x of spans) {
    const p = x.s.parentSpanId;
    if (p !== undefined && ids.has(p) && p !== x.s.spanId) {
      const list = children.get(p) ?? [];
      list.push(x);
      children.set(p, list);
    } else roots.push(x);
  }
  const byStart = (a: (typeof spans)[number], b: (typeof spans)[number]) => a.start - b.start;
  const rows: WaterfallRow[] = [];
  const placed = new Set<string>();
  const visit = (x: (typeof spans)[number], depth: number): void => {
    if (placed.has(x.s.spanId)) return;
    placed.add(x.s.spanId);
    const labels = x.s.labels ?? {};
    const attributes: Record<string, string> = {};
    for (const k of KEY_ATTRIBUTES) {
      const v = keyAttribute(labels, k);
      if (v !== undefined) attributes[k] = v;
    }
    rows.push({
      spanId: x.s.spanId,
      name: x.s.name,
      service: labels[SERVICE_LABEL] ?? '',
      depth,
      offsetMs: round(x.start - first),
      durationMs: round(Math.max(0, x.end - x.start)),
      error: isError(labels),
      attributes,
    });
    for (const c of (children.get(x.s.spanId) ?? []).sort(byStart)) visit(c, depth + 1);
  };
  for (const r of roots.sort(byStart)) visit(r, 0);
  // Spans whose parents name each other in a ring: shown at the top level rather than lost.
  for (const x of spans.sort(byStart)) visit(x, 0);
  return { traceId: trace.traceId, totalMs: round(last - first), rows };
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
