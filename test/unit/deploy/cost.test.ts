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
  type HopInput,
  idleInstanceMonthly,
  LEDGER_ROW_BYTES,
  MEASURED_CPU,
  type ModelInput,
  modelInputFor,
  monthlyAt,
  scaleAt,
} from '../../../core/deploy/cost.ts';
import { plan } from '../../../core/plan.ts';
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
  rowBytesPerEvent: 1000,
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
    // 0.35 s over the 60 % of 80 slots Cloud Run keeps in flight (48) = 7.29 ms a request, more
    // than its 1 ms of CPU.
    const c = costPerMillion(input({ hops: [hop({ latencySeconds: 0.35, cpuSecondsPerRequest: 0.0006 })] }));
    const seconds = 1e6 * (0.35 / 48);
    assert.equal(
      c.hops[0]?.compute,
      Math.round((seconds * 0.000024 + seconds * 0.5 * 0.0000025) * 1000) / 1000,
    );
  });

  it('counts request logs unless excluded, Pub/Sub with its minimum, and the Write API by its bytes', () => {
    const c = costPerMillion(
      input({
        requestLogBytes: 2 ** 30 / 1e6,
        excludeSuccessLogs: false,
        pubsubMessagesPerEvent: 2,
        eventBytes: 10,
        rowBytesPerEvent: 2 ** 30 / 1e4,
      }),
    );
    assert.equal(c.hops[0]?.logging, 0.5);
    assert.equal(c.pubsub, Math.round(((2e6 * 1000) / 2 ** 40) * 40 * 1000) / 1000);
    // A million events of 2^30 / 10^4 bytes of rows each: 100 GiB at $0.025.
    assert.equal(c.bigquery, 2.5);
  });

  it('prices the rows as the Write API bills them: their own bytes, no 1 KB minimum a row', () => {
    assert.equal(LEDGER_ROW_BYTES, 300);
    const sizing = { memory: '512Mi', cpu: 1, concurrency: 80, max_instances: 10 };
    const at = (destinationsPerEvent: number, eventBytes = 1000) =>
      costPerMillion(
        modelInputFor({ gateway: sizing, store: sizing, forward: sizing }, MEASURED_CPU, {
          eventBytes,
          eventsPerRequest: 1,
          destinationsPerEvent,
          platformLatencySeconds: 0.35,
          excludeSuccessLogs: true,
          billing: { gateway: 'request', store: 'request', forward: 'request' },
          subscriptionsPerDelivery: 1,
        }),
      ).bigquery;
    // Per million 1000-byte events, a 300-byte ledger row per destination, $0.025/GiB:
    // 1 destination: 1.3e9 B = 1.2107 GiB → $0.0303 (with a 1 KB minimum: 2 × 1024 B → $0.0477);
    // 2: 1.6e9 B = 1.4901 GiB → $0.0373 ($0.0715); 4: 2.2e9 B = 2.0489 GiB → $0.0512 ($0.1192).
    assert.deepEqual([at(1), at(2), at(4)], [0.03, 0.037, 0.051]);
    // Small events are small rows: 100 bytes and one ledger row, 400 MB = 0.3725 GiB → $0.0093
    // (a 1 KB minimum would make it $0.0477).
    assert.equal(at(1, 100), 0.009);
  });

  it('sizes instances by CPU or concurrency, and finds the hop whose max_instances binds', () => {
    const slow = hop({ latencySeconds: 0.4, cpuSecondsPerRequest: 0.0001 });
    // 1000/s × 0.4 s over 60 % of 80 slots: 8.3, so 9 instances.
    assert.deepEqual(scaleAt(input({ hops: [slow] }), 1000), [
      { name: 'forward', instances: 9, boundBy: 'concurrency' },
    ]);
    assert.deepEqual(scaleAt(input({ hops: [slow] }), 10_000), [
      { name: 'forward', instances: 84, boundBy: 'max_instances' },
    ]);
    // 60 % of 80 / 0.4 = 120 requests/s an instance × 10 instances.
    assert.deepEqual(ceiling(input({ hops: [slow] })), { eventsPerSecond: 1200, hop: 'forward' });
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

  it('bills store and forward per request whatever the rates: the peak sizes, only cost.billing switches', () => {
    const base = { name: 'dev', project: 'acme-dev-project', region: 'europe-west1' };
    for (const cost of [{}, { peak_events_per_second: 1_000_000 }, { sustained_events_per_second: 50_000 }]) {
      const p = plan({ ...base, cost });
      assert.deepEqual(
        p.functions.map((f) => [f.name, f.billing, f.service]),
        [
          ['store', 'request', 'store-function'],
          ['forward', 'request', 'forward-function'],
          ['schedule', 'request', 'schedule'],
        ],
      );
      assert.equal(p.gateway.cpuIdle, true, 'the gateway keeps no CPU between requests');
    }
    const p = plan({ ...base, cost: { billing: { store: 'instance', gateway: 'instance' } } });
    assert.deepEqual(
      p.functions.map((f) => f.service),
      ['store-service', 'forward-function', 'schedule'],
    );
    assert.equal(p.gateway.cpuIdle, false);
  });

  it('models the shipped defaults with their request fees, and instance-based billing under $1 per million busy events', () => {
    const c = shippedCost(MEASURED_CPU);
    // Cloud Functions and a gateway without CPU between requests: $0.40 per million requests, one
    // publish, one store push and a forward push per destination an event (2 of the example's 4).
    assert.deepEqual(
      c.hops.map((h) => [h.name, h.requests, h.logging]),
      [
        ['gateway', 0.4, 0],
        ['store', 0.4, 0],
        ['forward', 0.8, 0],
      ],
    );
    assert.ok(c.total > 1.5, `$${c.total}`);
    // A topic per destination: each delivery message published and billed by its one
    // subscription: 1 + 1 + 2 × (1 + 1) = 6 KB (12 KB with 4 filtered subscriptions on one topic).
    assert.equal(c.pubsub, Math.round(((6e6 * 1000) / 2 ** 40) * 40 * 1000) / 1000);
  });

  it('prices a month at a sustained rate: whole instances when instance-billed, per event when not', () => {
    const hops = [
      hop({ name: 'store', billing: 'instance', latencySeconds: 0.05, concurrency: 80, maxInstances: 50 }),
      hop({ name: 'forward', billing: 'request', requestsPerEvent: 2, maxInstances: 100 }),
    ];
    const i = input({ hops, pubsubMessagesPerEvent: 6, rowBytesPerEvent: 1600 });
    const m = monthlyAt(
      i,
      { eventsPerSecond: 1000, destinationsPerEvent: 2 },
      { region: 'europe-west1', location: 'EU' },
    );
    const millions = (1000 * 30 * 24 * 3600) / 1e6;
    // store: 1000/s × 0.6 ms / 0.6 = 1 instance by CPU, 1000/s × 0.05 s over 60 % of 80 slots =
    // 1.04 by slots: 2, all month.
    assert.deepEqual(m.hops[0], {
      name: 'store',
      instances: 2,
      maxInstances: 50,
      monthly: 2 * idleInstanceMonthly(hops[0] as HopInput),
    });
    const busy = costPerMillion(i);
    const fwd = busy.hops[1] as { compute: number; requests: number; logging: number };
    assert.ok(Math.abs((m.hops[1]?.monthly ?? 0) - millions * (fwd.compute + fwd.requests)) < 0.01);
    assert.ok(Math.abs(m.pubsub - busy.pubsub * millions) < 0.01);
    // 2,592 million events × 1600 bytes = 3,862 GiB at $0.025, no free tier taken off here.
    assert.ok(
      Math.abs(m.bigquery - (millions * Math.round(((1e6 * 1600) / 2 ** 30) * 0.025 * 1000)) / 1000) < 0.01,
    );
    assert.ok(Math.abs(m.bigquery - 96.55) < 1.5, `$${m.bigquery}`);
    assert.ok(
      Math.abs(m.total - (m.hops[0]?.monthly ?? 0) - (m.hops[1]?.monthly ?? 0) - m.pubsub - m.bigquery) <
        0.01,
    );
  });

  it("measures each rate against Google's quotas for the region and location, the nearest first", () => {
    const i = input({ hops: [hop({ maxInstances: 1000, concurrency: 1000 })], rowBytesPerEvent: 1600 });
    const at = (region: string, location: string) =>
      monthlyAt(i, { eventsPerSecond: 100_000, destinationsPerEvent: 2 }, { region, location }).limits;
    const find = (ls: ReturnType<typeof at>, prefix: string) => ls.find((l) => l.name.startsWith(prefix));
    // 100,000 events/s of 1000 bytes, each published with 2 delivery messages: 300 MB/s.
    assert.deepEqual(find(at('europe-west1', 'EU'), 'Pub/Sub'), {
      name: 'Pub/Sub publish, europe-west1',
      owner: 'google',
      unit: 'bytes/s',
      used: 3e8,
      limit: 2e8,
    });
    assert.equal(find(at('asia-south1', 'EU'), 'Pub/Sub')?.limit, 5e7, 'a small region');
    // The Write API: 100,000 events/s × 1600 bytes of rows = 160 MB/s, of 3 GB/s in a
    // multi-region and 300 MB/s in a region; 100 forward instances × 1 connection (the ledger),
    // of 10,000 and 1,000 connections.
    assert.deepEqual(find(at('europe-west1', 'EU'), 'BigQuery Storage Write API,'), {
      name: 'BigQuery Storage Write API, EU',
      owner: 'google',
      unit: 'bytes/s',
      used: 1.6e8,
      limit: 3e9,
    });
    assert.equal(
      find(at('europe-west1', 'europe-west1'), 'BigQuery Storage Write API,')?.limit,
      3e8,
      'a region',
    );
    assert.deepEqual(find(at('europe-west1', 'EU'), 'BigQuery Storage Write API connections'), {
      name: 'BigQuery Storage Write API connections, EU',
      owner: 'google',
      unit: 'count',
      used: 100,
      limit: 10_000,
    });
    assert.equal(find(at('europe-west1', 'US-east1'), 'BigQuery Storage Write API connections')?.limit, 1000);
    const shares = at('europe-west1', 'EU').map((l) => l.used / l.limit);
    assert.deepEqual(
      shares,
      [...shares].sort((a, b) => b - a),
    );
    // Pub/Sub 150 %, 100 instances of 1000 (10 %), 100 vCPU of 1000 (10 %), Write API bytes 5.3 %,
    // connections 1 %.
    assert.deepEqual(
      at('europe-west1', 'EU').map((l) => [l.name, l.owner, l.unit]),
      [
        ['Pub/Sub publish, europe-west1', 'google', 'bytes/s'],
        ['forward max_instances', 'ours', 'count'],
        ['Cloud Run regional vCPU', 'google', 'count'],
        ['BigQuery Storage Write API, EU', 'google', 'bytes/s'],
        ['BigQuery Storage Write API connections, EU', 'google', 'count'],
      ],
    );
  });

  it('counts each instance’s Write API connections: store four tables, forward the ledger', () => {
    const hops = [
      hop({ name: 'gateway', maxInstances: 1000, concurrency: 1000, cpuSecondsPerRequest: 0.00006 }),
      hop({ name: 'store', maxInstances: 1000, concurrency: 1000, cpuSecondsPerRequest: 0.0003 }),
      hop({ name: 'forward', maxInstances: 1000, concurrency: 1000, requestsPerEvent: 2 }),
    ];
    const m = monthlyAt(
      input({ hops }),
      { eventsPerSecond: 10_000, destinationsPerEvent: 2 },
      { region: 'europe-west1', location: 'europe-west1' },
    );
    // 10,000/s × 0.3 ms / 0.6 = 5 store instances × 4 tables; 20,000/s × 0.6 ms / 0.6 = 20
    // forward instances × 1; a gateway instance writes through no stream.
    assert.deepEqual(
      m.hops.map((h) => h.instances),
      [1, 5, 20],
    );
    assert.equal(m.limits.find((l) => l.name.includes('connections'))?.used, 40);
  });

  it('docs/scale.md holds the model’s output', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/scale.md'), 'utf8');
    const between = /<!-- scale:begin -->\n([\s\S]*?)\n<!-- scale:end -->/.exec(doc)?.[1];
    assert.equal(between, scaleTables(), 'run `npm run scale` and paste its output into docs/scale.md');
  });
});
