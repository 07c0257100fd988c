/**
 * The store function's spans (docs/observability.md): `store`, a consumer span continuing the
 * message's trace, with `store.decode`, `store.validate` (from the decoded push to the first
 * write) and one `store.write` per table written; the fan-out's `store.decide` spans are made
 * in adapters/store-fan-out.ts. Attributes are kinds and counts, never the event's values.
 */
import { trace } from '@opentelemetry/api';
import {
  contextAttributes,
  endSpan,
  messageContext,
  runHop,
  SpanKind,
  startSpan,
  tracer,
} from '../../adapters/tracing.ts';
import type { PubSubMessage } from '../../core/store/message.ts';
import { traceIdOf } from '../../core/tracing/trace-context.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';

/** A push's hop: the message as stored (carrying a trace context) and a runner with its span active. */
export interface StoreHop {
  readonly message: PubSubMessage;
  /** Runs the push's handling with the span active; ends the span when it settles. */
  run(fn: () => Promise<void> | undefined): Promise<void> | undefined;
}

const ORIGIN = performance.timeOrigin;
const clock = () => ORIGIN + performance.now();

/** Starts the push's span; `decodeStart` is when the push body began to be decoded (epoch ms). */
export function storeHop(message: PubSubMessage, decodeStart: number): StoreHop {
  const parent = messageContext(message.attributes);
  const span = startSpan(
    'store',
    parent,
    {
      'messaging.system': 'gcp_pubsub',
      'messaging.operation': 'process',
      'messaging.message.id': message.messageId,
      'messaging.gcp_pubsub.message.delivery_attempt': message.deliveryAttempt,
      'eventbus.event_name': message.attributes['event_name'] ?? '',
    },
    SpanKind.CONSUMER,
    decodeStart,
  );
  const active = trace.setSpan(parent, span);
  tracer().startSpan('store.decode', { startTime: decodeStart }, active).end();
  // A message published without a trace context (a native publish) carries this span's from here
  // on, so its row's trace_id and its deliveries name the trace that starts here.
  const own = traceIdOf(message.attributes) === null ? contextAttributes(span) : {};
  const carried =
    Object.keys(own).length > 0 ? { ...message, attributes: { ...message.attributes, ...own } } : message;
  return {
    message: carried,
    run: (fn) => runHop(active, span, fn),
  };
}

/**
 * The writer for one push: `store.validate` ends where the first write begins, each write is a
 * `store.write` span naming its table, and a row kept in `invalid_events` marks the push refused.
 */
export function tracedWriter(writer: RowWriter): RowWriter {
  const validated = clock();
  let first = true;
  return {
    write(table, rows) {
      const store = trace.getActiveSpan();
      if (first && store) {
        first = false;
        tracer().startSpan('store.validate', { startTime: validated }).end();
      }
      if (table === TABLES.invalidEvents) store?.setAttribute('eventbus.refused', 'invalid_event');
      const span = tracer().startSpan('store.write', {
        attributes: { 'eventbus.table': table, 'eventbus.rows': rows.length },
      });
      return writer.write(table, rows).then(
        (refused) => {
          span.setAttribute('eventbus.rows_refused', refused.length);
          span.end();
          return refused;
        },
        (err: unknown) => {
          endSpan(span, { error: (err as Error).name });
          throw err;
        },
      );
    },
  };
}
