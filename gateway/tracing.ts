/**
 * The gateway's span of a request (docs/observability.md): `gateway.receive`, a server span
 * continuing the producer's `traceparent` (or starting a trace), ended when the answer is sent,
 * with its status and, for a refusal, the error code (never the path, the body or a credential).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Span } from '@opentelemetry/api';
import { endSpan, remoteContext, SpanKind, startSpan } from '../adapters/tracing.ts';

/** Starts the request's span; it ends when the response is finished (or the connection closes). */
export function receiveSpan(req: IncomingMessage, res: ServerResponse): { parent: Context; span: Span } {
  const parent = remoteContext(first(req.headers.traceparent), first(req.headers.tracestate));
  const span = startSpan(
    'gateway.receive',
    parent,
    { 'http.request.method': req.method ?? '' },
    SpanKind.SERVER,
  );
  const done = () => {
    res.off('finish', done);
    res.off('close', done);
    const status = res.statusCode;
    span.setAttribute('http.response.status_code', status);
    // A refusal's code is noted where it is answered (runtime.ts, sendError).
    endSpan(span, status >= 500 ? { error: String(status) } : undefined);
  };
  res.once('finish', done);
  res.once('close', done);
  return { parent, span };
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
