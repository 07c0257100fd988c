/** Metrics set up for a test: exported into memory on a flush, read as the last cumulative points. */
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { type Metrics, setupMetrics } from '../../adapters/metrics.ts';

/** One exported point: its attributes and its value (a count) or its histogram. */
export interface Point {
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly value?: number;
  readonly histogram?: Histogram;
}

export interface TestMetrics {
  readonly metrics: Metrics;
  /** Flushes, then the points of the metric named, from the newest export. */
  points(name: string): Promise<Point[]>;
  /** How many exports the exporter was given so far (no flush). */
  exports(): number;
  shutdown(): Promise<void>;
}

export function metricsInMemory(service = 'forward'): TestMetrics {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const metrics = setupMetrics({ service, project: 'p', exporter, intervalMs: 3_600_000 });
  if (!metrics) throw new Error('metrics were not set up');
  return {
    metrics,
    async points(name) {
      await metrics.flush();
      const exports = exporter.getMetrics();
      const last = exports[exports.length - 1];
      const found = last?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (found?.dataPoints ?? []).map((p: DataPoint<unknown>) =>
        typeof p.value === 'number'
          ? { attributes: p.attributes, value: p.value }
          : { attributes: p.attributes, histogram: p.value as Histogram },
      );
    },
    exports: () => exporter.getMetrics().length,
    shutdown: () => metrics.shutdown(),
  };
}
