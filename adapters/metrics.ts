/**
 * OpenTelemetry metrics for one process (`forward`, `forward-catalog`): set up once at cold start
 * by `setupProcessMetrics`, beside its tracing (adapters/tracing.ts), to the same OTLP/HTTP base
 * URL: Google's Telemetry API (`https://telemetry.googleapis.com/v1/metrics`, into Cloud
 * Monitoring) in the cloud, the supervisor's receiver locally (docs/observability.md, "Metrics").
 *
 * - Export: the SDK's PeriodicExportingMetricReader collects every `intervalMs` (60 s by default)
 *   and hands one batch to the OTLP/HTTP JSON exporter, on a timer of its own. A delivery only
 *   adds to an aggregate in memory (delivery-metrics.ts); it never waits on an export, and an
 *   export that fails or times out is dropped (cumulative sums carry the counts to the next one).
 * - Memory: cumulative aggregates, one per attribute set; attributes are configured destination
 *   ids, platform types and ledger statuses, so the sets are few, and the reader caps each
 *   instrument at CARDINALITY_LIMIT anyway.
 */
import { randomUUID } from 'node:crypto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { DEFAULT_METRICS_INTERVAL_SECONDS } from '../core/tracing/metric-shape.ts';
import type { Settings } from '../schemas/settings.ts';
import { createDeliveryInstruments, type DeliveryInstruments } from './delivery-metrics.ts';
import { telemetryHeaders } from './google-credentials.ts';
import { FLUSH_BEFORE_ANSWER_MS } from './tracing.ts';

/** The instrumentation scope every metric of the pipeline is made under. */
export const METER_NAME = 'eventbus';
/** Most attribute sets kept per instrument; more are folded into one overflow set by the SDK. */
export const CARDINALITY_LIMIT = 500;

export interface MetricsOptions {
  /** `service.name` of the points: `forward`, `forward-catalog`. */
  readonly service: string;
  readonly project: string;
  /** The region the process runs in: Cloud Monitoring files OTLP points under it (`location`). */
  readonly region?: string;
  /** The OTLP/HTTP base URL (`/v1/metrics` is appended); absent (and no exporter): nothing is recorded. */
  readonly endpoint?: string | undefined;
  /** Request headers for each export (the Telemetry API: a Google access token). */
  readonly headers?: () => Promise<Record<string, string>>;
  /** Milliseconds between exports (default 60 s). */
  readonly intervalMs?: number;
  /** An export not answered within this is abandoned (default 10 s, at most the interval). */
  readonly timeoutMs?: number;
  /** Tests: an exporter instead of OTLP. */
  readonly exporter?: PushMetricExporter;
}

/** What a process holds once metrics are set up. */
export interface Metrics {
  /** Collects and exports now (tests, a function's shutdown); never rejects. */
  flush(): Promise<void>;
  /**
   * Exports now if the last export is at least an interval old, else nothing (undefined): in a
   * request-billed service whose CPU is throttled between requests the reader's timer may not
   * run, so an answer that finds the interval passed exports first. Cloud Monitoring takes a
   * point per series at most every few seconds: never more often than the interval.
   */
  flushIfDue(): Promise<void> | undefined;
  shutdown(): Promise<void>;
}

let installed: { metrics: Metrics; instruments: DeliveryInstruments } | undefined;

/** The delivery instruments of this process's setup, or none (metrics off: nothing is recorded). */
export const deliveryInstruments = (): DeliveryInstruments | undefined => installed?.instruments;

/**
 * Sets up metrics for this process, once: a meter provider with one periodic reader. A second
 * call returns the first setup. Without an endpoint or exporter it sets up nothing.
 */
export function setupMetrics(options: MetricsOptions): Metrics | undefined {
  if (installed) return installed.metrics;
  const intervalMs = options.intervalMs ?? DEFAULT_METRICS_INTERVAL_SECONDS * 1000;
  const timeoutMs = Math.min(options.timeoutMs ?? 10_000, intervalMs);
  const base =
    options.exporter ??
    (options.endpoint
      ? new OTLPMetricExporter({
          url: `${options.endpoint.replace(/\/$/, '')}/v1/metrics`,
          timeoutMillis: timeoutMs,
          // Cloud Monitoring keeps OTLP points as Prometheus does: cumulative.
          temporalityPreference: AggregationTemporality.CUMULATIVE,
          ...(options.headers ? { headers: options.headers } : {}),
        })
      : undefined);
  if (!base) return undefined;
  // When the last export (the timer's or a flush's) began.
  let exportedAt = Date.now();
  const exporter: PushMetricExporter = {
    export: (metrics, done) => {
      exportedAt = Date.now();
      base.export(metrics, done);
    },
    forceFlush: () => base.forceFlush(),
    shutdown: () => base.shutdown(),
    ...(base.selectAggregationTemporality
      ? { selectAggregationTemporality: base.selectAggregationTemporality.bind(base) }
      : {}),
    ...(base.selectAggregation ? { selectAggregation: base.selectAggregation.bind(base) } : {}),
  };
  let flushing: Promise<void> | undefined;
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: timeoutMs,
    cardinalityLimits: { default: CARDINALITY_LIMIT },
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': options.service,
      'service.namespace': 'eventbus',
      // Each instance writes its own cumulative series: two instances' sums under one identity
      // would contradict each other in Cloud Monitoring.
      'service.instance.id': randomUUID(),
      'gcp.project_id': options.project,
      // The Telemetry API writes points as Managed Service for Prometheus does, on the
      // prometheus_target resource, whose required `location` it reads from cloud.region.
      ...(options.region ? { 'cloud.region': options.region } : {}),
    }),
    readers: [reader],
  });
  const metrics: Metrics = {
    // Neither ever fails: a collector that is down or slow loses points, never a caller's work.
    flush: () => reader.forceFlush().catch(() => {}),
    flushIfDue: () => {
      if (flushing || Date.now() - exportedAt < intervalMs) return flushing;
      exportedAt = Date.now();
      const bound = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_BEFORE_ANSWER_MS).unref());
      const run: Promise<void> = Promise.race([reader.forceFlush().catch(() => {}), bound]).then(() => {
        flushing = undefined;
      });
      flushing = run;
      return run;
    },
    shutdown: () => {
      installed = undefined;
      return provider.shutdown().catch(() => {});
    },
  };
  installed = { metrics, instruments: createDeliveryInstruments(provider.getMeter(METER_NAME)) };
  return metrics;
}

/** The Telemetry API's metrics take a Google access token of this scope (or cloud-platform). */
const METRICS_SCOPE = 'https://www.googleapis.com/auth/monitoring.write';

/**
 * Metrics for a delivery function, from its configuration: the settings' `metrics` (on unless
 * `enabled: false`; `export_interval_seconds`, default 60) and the OTLP endpoint the spans go to
 * (EVENTBUS_TRACE_ENDPOINT). Exports to the Telemetry API carry the workload's credentials (its
 * account holds roles/monitoring.metricWriter).
 */
export function setupProcessMetrics(
  config: {
    readonly settings: Readonly<Settings>;
    readonly project: string;
    readonly traceEndpoint?: string;
  },
  service: string,
): Metrics | undefined {
  const m = config.settings.metrics;
  const endpoint = config.traceEndpoint;
  if (m?.enabled === false || endpoint === undefined) return undefined;
  const headers = telemetryHeaders(endpoint, METRICS_SCOPE);
  return setupMetrics({
    service,
    project: config.project,
    region: config.settings.region,
    endpoint,
    intervalMs: (m?.export_interval_seconds ?? DEFAULT_METRICS_INTERVAL_SECONDS) * 1000,
    ...(headers ? { headers } : {}),
  });
}

/** The longest a stopping process waits for its last export: its drain (4 s) and this stay under 5 s. */
export const FINAL_FLUSH_MS = 500;

/** Anything a stopping process exports before it exits: its metrics, its spans. */
export interface Flushable {
  flush(): Promise<void>;
}

/**
 * An exit for drainOnStop (adapters/drain.ts) that first exports what was recorded since the last
 * export — metrics and spans alike — waiting at most `boundMs`: an instance scaled down keeps its
 * last interval's points and its queued spans, and an endpoint that is down or slow delays the
 * exit by the bound at most. With nothing to flush, `exit` itself.
 */
export function exitAfterFlush(
  sinks: Flushable | undefined | readonly (Flushable | undefined)[],
  exit: (code: number) => void = (code) => process.exit(code),
  boundMs = FINAL_FLUSH_MS,
): (code: number) => void {
  const all = (Array.isArray(sinks) ? sinks : [sinks]).filter((x): x is Flushable => x !== undefined);
  if (all.length === 0) return exit;
  return (code) => {
    let exited = false;
    const once = () => {
      if (exited) return;
      exited = true;
      exit(code);
    };
    setTimeout(once, boundMs).unref();
    void Promise.all(all.map((x) => x.flush())).then(once);
  };
}

/**
 * What a push's answer waits for (drainOnStop's `beforeAnswer`): the spans its hop queued (only a
 * sampled or failed hop queues any) and the metrics when an interval has passed since their last
 * export; undefined, so nothing is awaited, when there is neither.
 */
export function flushBeforeAnswer(
  tracing: { flushPending(): Promise<void> | undefined } | undefined,
  metrics: Metrics | undefined,
): (() => Promise<unknown> | undefined) | undefined {
  if (!tracing && !metrics) return undefined;
  return () => {
    const spans = tracing?.flushPending();
    const points = metrics?.flushIfDue();
    if (spans && points) return Promise.all([spans, points]);
    return spans ?? points;
  };
}
