/**
 * The local OTLP/HTTP trace receiver (docs/observability.md): the functions and the gateway export
 * their spans here under `npm start` (EVENTBUS_TRACE_ENDPOINT), as they export to Cloud Trace's
 * endpoint in the cloud. `POST /v1/traces` takes an ExportTraceServiceRequest in OTLP's JSON
 * encoding; `GET /traces.json?trace_id=<32 hex>` answers that trace's spans, flattened, oldest
 * first (the end-to-end trace test reads it whole); `GET /v1/projects/{p}/traces/{traceId}` answers
 * one trace as Cloud Trace API v1 does (core/tracing/cloud-trace-v1.ts), which the studio reads here
 * locally as it reads Cloud Trace in the cloud. Spans are kept in memory, the newest MAX_SPANS.
 * With a gate (trace-access.ts: the receiver under `--iam`) each of the three asks it first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OtlpSpanLike, TRACE_ID, toV1Trace } from '../../core/tracing/cloud-trace-v1.ts';
import {
  allowed,
  answer,
  attributesOf,
  field,
  list,
  type OtlpStoreOptions,
  takeExport,
} from './otlp-json.ts';

/**
 * One span as the receiver keeps it: OTLP's fields (ids as lowercase hex, times as epoch
 * nanoseconds in decimal strings), with its service and attributes flattened.
 */
export interface ReceivedSpan extends OtlpSpanLike {
  readonly traceId: string;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

/** The newest spans kept; older ones are dropped (a development receiver, not a store). */
const MAX_SPANS = 20_000;
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface TraceStore {
  /** Handles `POST /v1/traces`, `GET /traces.json` and v1's traces.get; false for any other request. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  spans(traceId?: string): ReceivedSpan[];
  /** How many spans it has taken since it started (`spans()` answers the newest 500 at most). */
  taken(): number;
  clear(): void;
}

export type TraceStoreOptions = OtlpStoreOptions;

export function createTraceStore(options: TraceStoreOptions = {}): TraceStore {
  const gate = options.gate;
  const own = options.project ?? '';
  const kept: ReceivedSpan[] = [];
  let taken = 0;
  const take = (body: unknown): number => {
    let n = 0;
    for (const rs of list(field(body, 'resourceSpans'))) {
      const service = attributesOf(field(field(rs, 'resource'), 'attributes'))['service.name'];
      for (const ss of list(field(rs, 'scopeSpans')))
        for (const s of list(field(ss, 'spans'))) {
          const span = spanOf(s, typeof service === 'string' ? service : '');
          if (!span) continue;
          kept.push(span);
          n++;
        }
    }
    if (kept.length > MAX_SPANS) kept.splice(0, kept.length - MAX_SPANS);
    taken += n;
    return n;
  };
  return {
    handle(req, res, path) {
      if (req.method === 'POST' && path === '/v1/traces') {
        takeExport(
          req,
          res,
          { gate, permission: 'telemetry.traces.write', project: own },
          MAX_BODY_BYTES,
          take,
        );
        return true;
      }
      if (req.method === 'GET' && path === '/traces.json') {
        if (!allowed(gate, req, res, 'cloudtrace.traces.list', own)) return true;
        const id = new URL(req.url ?? '/', 'http://receiver').searchParams.get('trace_id') ?? undefined;
        if (id !== undefined && !/^[0-9a-f]{32}$/.test(id)) {
          answer(res, 400, { error: 'trace_id must be 32 lowercase hex digits' });
          return true;
        }
        answer(res, 200, { spans: spansOf(kept, id) });
        return true;
      }
      const v1 = /^\/v1\/projects\/([^/]+)\/traces\/([^/]*)$/.exec(path);
      if (req.method === 'GET' && v1) {
        const project = decodeURIComponent(v1[1] as string);
        const id = v1[2] as string;
        if (!allowed(gate, req, res, 'cloudtrace.traces.get', project)) return true;
        if (!TRACE_ID.test(id)) {
          googleError(
            res,
            400,
            'INVALID_ARGUMENT',
            `Invalid trace id ${JSON.stringify(id.slice(0, 64))}: 32 lowercase hex digits`,
          );
          return true;
        }
        const spans = spansOf(kept, id);
        if (spans.length === 0) googleError(res, 404, 'NOT_FOUND', 'Trace not found');
        else answer(res, 200, toV1Trace(project, id, spans));
        return true;
      }
      return false;
    },
    spans: (traceId) => spansOf(kept, traceId),
    taken: () => taken,
    clear: () => {
      kept.length = 0;
    },
  };
}

function spansOf(kept: readonly ReceivedSpan[], traceId: string | undefined): ReceivedSpan[] {
  const out = traceId === undefined ? kept.slice(-500) : kept.filter((s) => s.traceId === traceId);
  return out.sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
}

/** One OTLP/JSON span, or undefined when it lacks an id (ids are hex in OTLP's JSON encoding). */
function spanOf(s: unknown, service: string): ReceivedSpan | undefined {
  const traceId = field(s, 'traceId');
  const spanId = field(s, 'spanId');
  if (typeof traceId !== 'string' || typeof spanId !== 'string') return undefined;
  const parent = field(s, 'parentSpanId');
  const status = field(field(s, 'status'), 'code');
  return {
    traceId: traceId.toLowerCase(),
    spanId: spanId.toLowerCase(),
    parentSpanId: typeof parent === 'string' ? parent.toLowerCase() : '',
    name: String(field(s, 'name') ?? ''),
    service,
    kind: Number(field(s, 'kind') ?? 0),
    startTimeUnixNano: String(field(s, 'startTimeUnixNano') ?? '0'),
    endTimeUnixNano: String(field(s, 'endTimeUnixNano') ?? '0'),
    status: Number(status ?? 0),
    attributes: attributesOf(field(s, 'attributes')),
    links: list(field(s, 'links')).flatMap((l) => {
      const t = field(l, 'traceId');
      const p = field(l, 'spanId');
      return typeof t === 'string' && typeof p === 'string' ? [{ traceId: t, spanId: p }] : [];
    }),
  };
}

/** Google's error JSON, as Cloud Trace answers a refusal. */
function googleError(res: ServerResponse, code: number, status: string, message: string): void {
  answer(res, code, { error: { code, message, status } });
}
