/** Tracing set up for a test: spans exported (every 10 ms) into memory, read after a flush. */
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { setupTracing, type Tracing } from '../../adapters/tracing.ts';

export function tracingInto(service: string, ratio: number, exporter: InMemorySpanExporter): Tracing {
  return setupTracing({ service, project: 'p', ratio, exporter, queue: { scheduledDelayMillis: 10 } });
}
