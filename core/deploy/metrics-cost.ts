/**
 * What Cloud Monitoring costs for forward's delivery metrics (docs/observability.md#metrics): the
 * Telemetry API writes OTLP points as Managed Service for Prometheus does, billed per sample
 * ingested. A cumulative series is written once an export, whatever the traffic, so the bill
 * follows forward's instances, the destinations and the export interval, not the event rate.
 */
import { CALL_BOUNDS, DEFAULT_METRICS_INTERVAL_SECONDS, LATENCY_BOUNDS } from '../tracing/metric-shape.ts';

/** The price per sample (recheck on Google's pricing page before relying on it). */
export const CLOUD_MONITORING_PRICE = Object.freeze({
  perMillionSamples: 0.06,
  asOf: 'Cloud Monitoring as read in November 2026 (unverified offline): $0.06 per million samples ingested through Managed Service for Prometheus (the first 50 billion a month; a 2023 copy of the page said $0.15), no free allotment',
});

/** The buckets of the two histograms: one more than their bounds (above the last). */
export const LATENCY_BUCKETS = LATENCY_BOUNDS.length + 1;
export const CALL_BUCKETS = CALL_BOUNDS.length + 1;
/** Statuses a destination's rows usually take in an interval (delivered, failed, rejected). */
export const USUAL_STATUSES = 3;

/**
 * Samples one forward instance writes per export for one destination: a count per status, the
 * latency histogram and a call-duration histogram per status, each histogram written as
 * Prometheus does (a sample per bucket, plus its sum and its count).
 */
export function samplesPerExport(statuses = USUAL_STATUSES): number {
  return statuses + (LATENCY_BUCKETS + 2) + statuses * (CALL_BUCKETS + 2);
}

/** A 30-day month's bill for `instances` forward instances alive all month, each with `destinations`. */
export function monthlyMetricsCost(
  instances: number,
  destinations: number,
  intervalSeconds = DEFAULT_METRICS_INTERVAL_SECONDS,
): number {
  const exports = (86_400 * 30) / intervalSeconds;
  return (
    ((instances * destinations * samplesPerExport() * exports) / 1e6) *
    CLOUD_MONITORING_PRICE.perMillionSamples
  );
}
