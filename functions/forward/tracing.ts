/**
 * The forward function's span of a push (docs/observability.md): `forward`, a consumer span under
 * the store's `store.decide` for its destination (the message's context), or, for a replay or a
 * re-drive, the root of a trace of its own linked to that one. Its attributes are the outcome the
 * ledger records: status, reason kind, the platform's HTTP status and request id; the claim and
 * the call are its children (adapters/delivery-tracing.ts).
 */
import { type Link, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SEND_TRACEPARENT } from '../../adapters/delivery-tracing.ts';
import { failActive, messageContext, noteSpan, runHop, SpanKind, tracer } from '../../adapters/tracing.ts';
import type { ForwardResult } from '../../core/delivery/forward.ts';
import { DELIVERY_ATTRIBUTES, type PushedMessage } from '../../core/delivery/message.ts';
import type { Destination } from '../../schemas/settings.ts';

/** Runs a push's delivery with its span active; the span ends when the delivery settles. */
export function forwardHop<T>(
  push: PushedMessage,
  destinations: readonly Readonly<Destination>[],
  fn: () => Promise<T> | undefined,
): Promise<T> | undefined {
  const a = push.attributes;
  const carried = messageContext(a);
  const replay = a[DELIVERY_ATTRIBUTES.replay] === 'true';
  const from = trace.getSpanContext(carried);
  // A replay is its own story: linked to the event's trace, not a child of a decision long past.
  const links: Link[] =
    replay && from ? [{ context: from, attributes: { 'eventbus.link': 'replay_of' } }] : [];
  const parent = replay ? ROOT_CONTEXT : carried;
  const id = a[DELIVERY_ATTRIBUTES.destination] ?? '';
  const type = destinations.find((d) => d.id === id)?.type ?? '';
  const span = tracer().startSpan(
    'forward',
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        'messaging.system': 'gcp_pubsub',
        'messaging.operation': 'process',
        'messaging.message.id': push.messageId,
        'messaging.gcp_pubsub.message.delivery_attempt': push.deliveryAttempt,
        'eventbus.destination': id,
        'eventbus.platform': type,
        'eventbus.replay': replay,
      },
    },
    parent,
  );
  let ctx = trace.setSpan(parent, span);
  if (type === 'webhook') ctx = ctx.setValue(SEND_TRACEPARENT, true);
  return runHop(ctx, span, fn);
}

/** The outcome on the push's span: the ledger's status, a refusal's kind, the platform's answer. */
export function noteOutcome(result: ForwardResult): void {
  const row = result.entries[result.entries.length - 1]?.row;
  if (!row) return;
  noteSpan({
    'eventbus.status': row.status,
    ...(row.http_status !== null ? { 'http.response.status_code': row.http_status } : {}),
    ...(row.platform_ref ? { 'eventbus.platform_request_id': row.platform_ref.slice(0, 128) } : {}),
  });
  if (row.status === 'rejected' || row.status === 'dead_lettered')
    noteSpan({ 'eventbus.refused': row.status });
  if (!result.ack) failActive(row.status);
}
