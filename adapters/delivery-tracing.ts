/**
 * The delivery functions' spans around their adapters (docs/observability.md): `forward.claim`
 * around each send-once claim call, `forward.call` around the platform call (its status and the
 * platform's request id). A webhook destination's call carries the span as a `traceparent`
 * header, so its receiver can continue the trace, and records the headers it sent, credentials
 * redacted (`eventbus.sent_headers`); other platforms are sent none.
 */
import { context, createContextKey, type Span, SpanKind } from '@opentelemetry/api';
import type { ClaimStore } from '../core/claims/claim-store.ts';
import type { InboundResponse, OutboundRequest } from '../core/platforms/driver.ts';
import { SENT_HEADERS_ATTRIBUTE, sentHeaders } from '../core/tracing/sent-headers.ts';
import { childSpan, endSpan, traceparentOf } from './tracing.ts';

/** Set on the context of a push to a destination that is sent the trace context (the webhook). */
export const SEND_TRACEPARENT = createContextKey('eventbus.send-traceparent');

/** Headers a platform names its request id in (the ledger's platform_ref reads the body too). */
const REQUEST_ID_HEADERS = ['x-request-id', 'x-fb-trace-id', 'request-id', 'x-goog-request-id'] as const;

type Send = (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;

/** The sender, each call a `forward.call` span (only the host is recorded, never the path or query). */
export function tracedSend(send: Send): Send {
  return (request, timeoutMs) => {
    let host = '';
    try {
      host = new URL(request.url).host;
    } catch {}
    const span = childSpan('forward.call', SpanKind.CLIENT, {
      'http.request.method': request.method,
      'server.address': host,
    });
    const parent = context.active().getValue(SEND_TRACEPARENT) === true ? traceparentOf(span) : undefined;
    const sent = parent ? { ...request, headers: { ...request.headers, traceparent: parent } } : request;
    // A webhook's headers as sent, credentials redacted: the debugger shows them (core/tracing/sent-headers.ts).
    if (parent) span.setAttribute(SENT_HEADERS_ATTRIBUTE, sentHeaders(sent.headers));
    return send(sent, timeoutMs).then(
      (answer) => {
        answered(span, answer);
        return answer;
      },
      (err: unknown) => {
        endSpan(span, { error: (err as Error).name });
        throw err;
      },
    );
  };
}

function answered(span: Span, answer: InboundResponse): void {
  if (answer.kind !== 'response') {
    endSpan(span, answer.kind === 'refused' ? { refused: 'egress' } : { error: 'network_error' });
    return;
  }
  span.setAttribute('http.response.status_code', answer.status);
  for (const h of REQUEST_ID_HEADERS) {
    const id = answer.headers[h];
    if (id) {
      span.setAttribute('eventbus.platform_request_id', id.slice(0, 128));
      break;
    }
  }
  endSpan(span, answer.status >= 500 ? { error: String(answer.status) } : undefined);
}

/** The send-once claims, each call a `forward.claim` span naming its answer. */
export function tracedClaims(claims: ClaimStore): ClaimStore {
  const traced = <T>(op: string, run: () => Promise<T>, verdict: (t: T) => string): Promise<T> => {
    const span = childSpan('forward.claim', SpanKind.CLIENT, { 'eventbus.claim.operation': op });
    return run().then(
      (t) => {
        span.setAttribute('eventbus.claim.answer', verdict(t));
        span.end();
        return t;
      },
      (err: unknown) => {
        endSpan(span, { error: (err as Error).name });
        throw err;
      },
    );
  };
  return {
    create: (key, fields, expireAt) =>
      traced(
        'create',
        () => claims.create(key, fields, expireAt),
        (a) => (a.created ? 'created' : 'held'),
      ),
    replace: (key, version, fields, expireAt) =>
      traced(
        'replace',
        () => claims.replace(key, version, fields, expireAt),
        (v) => (v === undefined ? 'lost' : 'replaced'),
      ),
    read: (key) =>
      traced(
        'read',
        () => claims.read(key),
        (h) => (h === undefined ? 'absent' : 'held'),
      ),
    release: (key, version) =>
      traced(
        'release',
        () => claims.release(key, version),
        (r) => (r ? 'released' : 'lost'),
      ),
  };
}
