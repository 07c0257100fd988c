/**
 * core/deploy/cost.ts, the cost and scale model, and docs/scale.md: the page holds exactly what the model
 * prints (scripts/scale-table.ts), and the model's arithmetic answers hand-checked cases.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  billingBreakEvenRequestsPerSecond,
  ceiling,
  costPerMillion,
  defaultBilling,
  type HopInput,
  idleInstanceMonthly,
  MEASURED_CPU,
  type ModelInput,
  scaleAt,
} from '../../../core/deploy/cost.ts';
import { scaleTables, shippedCost } from '../../../scripts/scale-table.ts';

const hop = (over: Partial<HopInput> = {}): HopInput => ({
  name: 'forward',
  requestsPerEvent: 1,
  cpuSecondsPerRequest: 0.0006,
  latencySeconds: 0.001,
  concurrency: 80,
  vcpu: 1,
  memoryGib: 0.5,
  billing: 'request',
  maxInstances: 10,
  ...over,
});
const input = (over: Partial<ModelInput> = {}): ModelInput => ({
  hops: [hop()],
  eventBytes: 1000,
  rowsPerEvent: 1,
  requestLogBytes: 0,
  excludeSuccessLogs: true,
  pubsubMessagesPerEvent: 0,
  utilisation: 0.6,
  ...over,
});

describe('cost model (core/deploy/cost.ts)', () => {
  it('bills CPU over the utilisation, the request fee and memory, per million events', () => {
    // 1e6 × 0.6 ms / 0.6 = 1000 instance-seconds: 1000 vCPU-s × $0.000024 + 500 GiB-s × $0.0000025.
    const c = costPerMillion(input());
    assert.deepEqual(c.hops, [{ name: 'forward', compute: 0.025, requests: 0.4, logging: 0 }]);
  });

  it('bills wall time when the concurrency, not the CPU, fills an instance', () => {
    // 0.35 s / 80 = 4.375 ms an request, more than its 1 ms of CPU.
    const c = costPerMillion(input({ hops: [hop({ latencySeconds: 0.35, cpuSecondsPerRequest: 0.0006 })] }));
    assert.equal(c.hops[0]?.compute, Math.round((4375 * 0.000024 + 4375 * 0.5 * 0.0000025) * 1000) / 1000);
  });

  it('counts request logs unless excluded, and Pub/Sub and BigQuery with their minimums', () => {
    const c = costPerMillion(
      input({
        requestLogBytes: 2 ** 30 / 1e6,
        excludeSuccessLogs: false,
        pubsubMessagesPerEvent: 2,
        eventBytes: 10,
      }),
    );
    assert.equal(c.hops[0]?.logging, 0.5);
    assert.equal(c.pubsub, Math.round(((2e6 * 1000) / 2 ** 40) * 40 * 1000) / 1000);
    assert.equal(c.bigquery, Math.round(((1e6 * 1024) / 2 ** 30) * 0.05 * 1000) / 1000);
  });

  it('sizes instances by CPU or concurrency, and finds the hop whose max_instances binds', () => {
    const slow = hop({ latencySeconds: 0.4, cpuSecondsPerRequest: 0.0001 });
    assert.deepEqual(scaleAt(input({ hops: [slow] }), 1000), [
      { name: 'forward', instances: 5, boundBy: 'concurrency' },
    ]);
    assert.deepEqual(scaleAt(input({ hops: [slow] }), 10_000), [
      { name: 'forward', instances: 50, boundBy: 'max_instances' },
    ]);
    // 80 / 0.4 = 200 requests/s an instance × 10 instances.
    assert.deepEqual(ceiling(input({ hops: [slow] })), { eventsPerSecond: 2000, hop: 'forward' });
  });

  it('bills no request fee and the cheaper vCPU-second under instance-based billing', () => {
    // The same 1000 instance-seconds: 1000 × $0.000018 + 500 × $0.000002, and no fee.
    const c = costPerMillion(input({ hops: [hop({ billing: 'instance' })] }));
    assert.deepEqual(c.hops, [{ name: 'forward', compute: 0.019, requests: 0, logging: 0 }]);
  });

  it('puts the billing break-even at one idle instance’s price over one lone request’s', () => {
    // Instance: 1 × 0.000018 + 0.5 × 0.000002 = $0.000019 a second. A lone request under
    // request-based billing: $0.40 / 1e6 + 0.35 s × (0.000024 + 0.5 × 0.0000025) = $0.0000092375.
    const forward = { vcpu: 1, memoryGib: 0.5, latencySeconds: 0.35 };
    assert.equal(billingBreakEvenRequestsPerSecond(forward).toFixed(4), (0.000019 / 0.0000092375).toFixed(4));
    // A fast request is still billed 100 ms: 0.4e-6 + 0.1 × 0.00002525.
    const store = { vcpu: 1, memoryGib: 0.5, latencySeconds: 0.05 };
    assert.equal(billingBreakEvenRequestsPerSecond(store).toFixed(4), (0.000019 / 0.000002925).toFixed(4));
    // One idle instance for 30 days: 0.000019 × 2,592,000 s.
    assert.equal(idleInstanceMonthly(forward), 49.248);
  });

  it('chooses instance-based billing only where the sized-for rate reaches the break-even', () => {
    const shape = { vcpu: 1, memoryGib: 0.5, latencySeconds: 0.05 };
    assert.equal(defaultBilling({ ...shape, peakEventsPerSecond: 6, requestsPerEvent: 1 }), 'request');
    assert.equal(defaultBilling({ ...shape, peakEventsPerSecond: 7, requestsPerEvent: 1 }), 'instance');
    // forward's pushes are one per destination: 2 events/s to 2 destinations is 4 pushes/s.
    const fwd = { vcpu: 1, memoryGib: 0.5, latencySeconds: 0.35 };
    assert.equal(defaultBilling({ ...fwd, peakEventsPerSecond: 1, requestsPerEvent: 2 }), 'request');
    assert.equal(defaultBilling({ ...fwd, peakEventsPerSecond: 2, requestsPerEvent: 2 }), 'instance');
  });

  it('models the shipped defaults at or under $1.50 per million busy events (issue #42)', () => {
    const c = shippedCost(MEASURED_CPU);
    assert.ok(c.total <= 1.5, `$${c.total}`);
    // No request fee left: store and forward are instance-billed, the gateway always was.
    assert.deepEqual(
      c.hops.map((h) => [h.name, h.requests, h.logging]),
      [
        ['gateway', 0, 0],
        ['store', 0, 0],
        ['forward', 0, 0],
      ],
    );
  });

  it('docs/scale.md holds the model’s output', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/scale.md'), 'utf8');
    const between = /<!-- scale:begin -->\n([\s\S]*?)\n<!-- scale:end -->/.exec(doc)?.[1];
    assert.equal(between, scaleTables(), 'run `npm run scale` and paste its output into docs/scale.md');
  });
});
