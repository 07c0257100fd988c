/**
 * The delivery metrics' shape (docs/observability.md#metrics), pure: their names, attribute keys,
 * histogram bucket bounds and export interval. adapters/delivery-metrics.ts records them; the
 * cost model (core/deploy/metrics-cost.ts) counts their samples.
 */

export const DELIVERY_METRICS = Object.freeze({
  outcomes: 'eventbus.delivery.outcomes',
  latency: 'eventbus.delivery.latency',
  callDuration: 'eventbus.delivery.call.duration',
});

/** The attribute keys, as the spans name the same things. */
export const METRIC_ATTRIBUTES = Object.freeze({
  destination: 'eventbus.destination',
  platform: 'eventbus.platform',
  status: 'eventbus.status',
});

/** End-to-end bucket bounds (ms): queueing and retries make minutes possible. */
export const LATENCY_BOUNDS: readonly number[] = Object.freeze([
  50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000,
]);
/** The call's bucket bounds (ms), up to the longest timeout a destination may set. */
export const CALL_BOUNDS: readonly number[] = Object.freeze([
  10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000,
]);

/** How often a process exports its metrics unless the settings say otherwise. */
export const DEFAULT_METRICS_INTERVAL_SECONDS = 60;
