/** core/deploy/metrics-cost.ts: Cloud Monitoring's bill for the delivery metrics, from samples per export. */
import assert from 'node:assert/strict';
import {
  CLOUD_MONITORING_PRICE,
  monthlyMetricsCost,
  samplesPerExport,
} from '../../../core/deploy/metrics-cost.ts';
import { CALL_BOUNDS, LATENCY_BOUNDS } from '../../../core/tracing/metric-shape.ts';

describe('deploy: what the delivery metrics cost in Cloud Monitoring', () => {
  it('counts a sample per status, and per bucket plus sum and count of each histogram', () => {
    // 3 counts; latency: its buckets (bounds + 1) + 2; call duration: the same per status.
    const expected = 3 + (LATENCY_BOUNDS.length + 1 + 2) + 3 * (CALL_BOUNDS.length + 1 + 2);
    assert.equal(samplesPerExport(), expected);
    assert.equal(samplesPerExport(1), 1 + (LATENCY_BOUNDS.length + 3) + (CALL_BOUNDS.length + 3));
  });

  it('grows with instances, destinations and exports, at the price per million samples', () => {
    const month = 43_200; // exports a 30-day month, one a minute
    assert.equal(
      monthlyMetricsCost(1, 1),
      ((samplesPerExport() * month) / 1e6) * CLOUD_MONITORING_PRICE.perMillionSamples,
    );
    assert.ok(Math.abs(monthlyMetricsCost(10, 5) - 50 * monthlyMetricsCost(1, 1)) < 1e-9);
    assert.ok(Math.abs(monthlyMetricsCost(1, 1, 10) - 6 * monthlyMetricsCost(1, 1, 60)) < 1e-9);
  });
});
