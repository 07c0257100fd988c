/**
 * core/deploy/bill.ts, the monthly bill of an environment, and `npm run scale -- --env <file>`
 * (scripts/scale-bill.ts; the script run as a process is test/cli/scale.test.ts): the output
 * contract, the goals of issue #60 as the model prices them, and the arithmetic of the parts the
 * review found missing (filtered deliveries, the 60 % target, the 100 ms rounding of a trickle,
 * free tiers, the background).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  BUILT,
  claimCost,
  claimCounts,
  MONTH_SECONDS,
  monthlyBill,
  pubsubBytesPerEvent,
  pubsubTopologyOf,
  trafficShape,
  type Workload,
  workloadCost,
} from '../../../core/deploy/bill.ts';
import { PRICES } from '../../../core/deploy/cost.ts';
import { plan } from '../../../core/plan.ts';
import type { Settings } from '../../../schemas/settings.ts';
import { billsOf, billText } from '../../../scripts/scale-bill.ts';
import { minimalSettings, settingsFile } from '../../../scripts/scale-table.ts';

const ROOT = join(import.meta.dirname, '../../..');
// Parsed once: checked settings are deep-frozen, so every test may share them.
let parsed: Settings | undefined;
const example = () => (parsed ??= settingsFile(join(ROOT, 'environments/example.yaml')));
const withBilling = (
  s: Settings,
  billing: NonNullable<NonNullable<Settings['cost']>['billing']>,
): Settings => ({
  ...s,
  cost: { ...s.cost, billing },
});
const ALL_INSTANCE = { store: 'instance', forward: 'instance', gateway: 'instance' } as const;
const total = (s: Settings, scenario: 'idle' | 'workday' | 'busy', over = {}) =>
  billsOf(s, over).bills.find((b) => b.scenario === scenario) ?? assert.fail(scenario);
const usage = () => ({
  requestVcpuSeconds: 0,
  requestGibSeconds: 0,
  requests: 0,
  instanceVcpuSeconds: 0,
  instanceGibSeconds: 0,
});
const workload = (over: Partial<Workload> = {}): Workload => ({
  service: 'store-function',
  role: 'store',
  billing: 'request',
  vcpu: 1,
  memoryGib: 0.5,
  concurrency: 80,
  minInstances: 0,
  requestsPerEvent: 1,
  cpuSecondsPerRequest: 0.0006,
  latencySeconds: 0.05,
  ...over,
});

describe('the monthly bill (core/deploy/bill.ts) and npm run scale -- --env', () => {
  it('prints one line per scenario starting idle, workday, busy, whose first dollar amount is its total', () => {
    for (const settings of [example(), minimalSettings()]) {
      const lines = billText(settings).split('\n');
      const { bills } = billsOf(settings);
      for (const b of bills) {
        const found = lines.filter((l) => new RegExp(`^${b.scenario}\\b`).test(l));
        assert.equal(found.length, 1, b.scenario);
        const first = /\$([\d,]+\.\d\d)/.exec(found[0] ?? '')?.[1];
        assert.equal(Number(first?.replaceAll(',', '')), b.total, found[0]);
      }
      const starts = lines.filter((l) => /^(idle|workday|busy)/.test(l));
      assert.deepEqual(
        starts.map((l) => l.split(' ')[0]),
        ['idle', 'workday', 'busy'],
      );
    }
  });

  it('meets the idle goals: development (minimal settings) ≤ $5, the production example ≤ $25 with its gateway kept warm', () => {
    const dev = total(minimalSettings(), 'idle');
    assert.ok(dev.total <= 5, `$${dev.total}`);
    assert.ok(dev.listTotal <= 5, `$${dev.listTotal} before free tiers`);
    const prod = total(example(), 'idle');
    assert.ok(prod.total <= 25, `$${prod.total}`);
    // Its one minimum instance, the gateway's (a producer waits on it; nobody waits on store),
    // idles at Cloud Run's idle rate.
    const minimums = prod.items.filter((i) => /min \d+\)/.test(i.item)).map((i) => i.item);
    assert.deepEqual(minimums, ['gateway (gateway, request-based, min 1)']);
  });

  it('counts the claims in full at the recommended billing: a settled record per delivery, retries at a stated share, storage', () => {
    const s = withBilling(example(), ALL_INSTANCE);
    assert.equal(plan(s).destinations.length, 4);
    const busy = total(s, 'busy', { eventsPerSecond: 1000 });
    // One event, one delivery (#73, #97) is bought with one Firestore document an event and one
    // settled record a delivery (2 an event), each written then deleted by TTL, and 2 % of
    // deliveries taking, reading and settling a claim ($0.108 / $0.012 / $0.036 per 100,000).
    const claims = busy.items.find((i) => i.item === 'Send-once claims (Firestore)')?.monthly ?? 0;
    const storage = busy.items.find((i) => i.item === 'Firestore storage (claims)')?.monthly ?? 0;
    const perMillion = (usd: number) => usd / (busy.events / 1e6);
    const expected = (3.08 * 0.108 + 3.04 * 0.012 + 0.04 * 0.036) * 10;
    assert.ok(
      Math.abs(perMillion(claims) - expected) < 0.01,
      `claims: $${perMillion(claims).toFixed(2)} per million`,
    );
    assert.ok(
      storage > 0 && perMillion(storage) < 0.1,
      `storage: $${perMillion(storage).toFixed(4)} per million`,
    );
    // The pipeline's own goal holds apart from the claims.
    assert.ok(
      perMillion(busy.total - claims - storage) <= 1,
      `$${perMillion(busy.total - claims - storage).toFixed(2)} per million`,
    );
    // As shipped (request-based) the request fees alone are $0.40 per million per request an event.
    const shipped = total(example(), 'busy', { eventsPerSecond: 1000 });
    assert.ok(shipped.total / (shipped.events / 1e6) > 2);
  });

  it('counts Cloud Trace at the sample ratio and forward’s delivery metrics while its instances are up', () => {
    const line = (s: Settings, name: string) =>
      total(s, 'busy', { eventsPerSecond: 1000 }).items.find((i) => i.item === name)?.monthly ??
      assert.fail(name);
    // 2,592 million events × 0.01 (the default ratio) × 14 spans (4 gateway, 4 store, 3 per
    // destination, 2 destinations) = 362.88 million spans at $0.20 a million = $72.58.
    assert.equal(line(example(), 'Cloud Trace'), 72.58);
    assert.equal(line({ ...example(), tracing: { sample_ratio: 0.1 } }, 'Cloud Trace'), 725.76);
    assert.equal(line({ ...example(), tracing: { enabled: false } }, 'Cloud Trace'), 0);
    // Metrics: 64 samples a destination per forward instance and export, whatever the traffic.
    const metrics = line(example(), 'Cloud Monitoring (delivery metrics)');
    assert.ok(metrics > 0);
    assert.equal(
      line({ ...example(), metrics: { enabled: false } }, 'Cloud Monitoring (delivery metrics)'),
      0,
    );
    const twice = line(
      { ...example(), metrics: { export_interval_seconds: 30 } },
      'Cloud Monitoring (delivery metrics)',
    );
    assert.ok(Math.abs(twice - 2 * metrics) <= 0.011, `${twice} against ${metrics}`);
  });

  it('bills a delivery message once per subscription on its topic: every destination’s on the shared topic, one on its own', () => {
    const pubsub = (p: ReturnType<typeof plan>, subscriptions: number) => {
      const shaped = {
        ...p,
        destinations: p.destinations.slice(0, subscriptions),
        subscriptions: p.subscriptions.filter(
          (s) =>
            s.kind !== 'forward' ||
            p.destinations.slice(0, subscriptions).some((d) => d.id === s.destination),
        ),
      };
      const shape = trafficShape(example(), 4, { destinationsPerEvent: 1 });
      // The events' share: the busy month less the idle one (the scheduler's pulls grow with destinations).
      const line = (scenario: 'busy' | 'idle') =>
        monthlyBill(shaped, scenario, shape).items.find((i) => i.item === 'Pub/Sub')?.monthly ?? 0;
      return line('busy') - line('idle');
    };
    const events = 1000 * MONTH_SECONDS;
    const usd = (bytesPerEvent: number) => ((events * bytesPerEvent) / 2 ** 40) * PRICES.pubsubPerTib;
    // Shared: per event, publish + store push + 1 delivery message published and billed by each subscription.
    const shared = plan({ ...example(), deliveries_topology: 'shared' });
    assert.equal(pubsubTopologyOf(shared), 'filtered');
    assert.ok(Math.abs(pubsub(shared, 4) - pubsub(shared, 1) - (usd(7000) - usd(4000))) < 0.05);
    // A topic per destination: the same whatever the number of destinations.
    const own = plan(example());
    assert.equal(pubsubTopologyOf(own), 'topic-per-destination');
    assert.ok(Math.abs(pubsub(own, 4) - pubsub(own, 1)) < 0.01);
    assert.ok(Math.abs(pubsub(shared, 1) - pubsub(own, 1)) < 0.01, 'one destination: the same either way');
  });

  it('prices each fan-out topology’s Pub/Sub bytes: filtered subscriptions bill a delivery once each, a topic per destination once', () => {
    const kb = { eventBytes: 1000, eventsPerRequest: 1, destinationsPerEvent: 2 };
    // Publish and store push (2), then per delivery: its publish, 4 subscriptions, 2 % pushed again.
    assert.equal(Math.round(pubsubBytesPerEvent('filtered', kb, 4)), (2 + 2 * (1 + 4 + 0.02)) * 1000);
    assert.equal(
      Math.round(pubsubBytesPerEvent('topic-per-destination', kb, 4)),
      (2 + 2 * (1 + 1 + 0.02)) * 1000,
    );
    // A topic per destination does not grow with the destinations; filtered subscriptions do.
    assert.equal(
      pubsubBytesPerEvent('topic-per-destination', kb, 50),
      pubsubBytesPerEvent('topic-per-destination', kb, 4),
    );
    assert.ok(pubsubBytesPerEvent('filtered', kb, 50) > (8 * pubsubBytesPerEvent('filtered', kb, 4)) / 2);
    // Batching pays only under the 1,000-byte minimum: 10 events of 300 bytes share a message.
    const small = { eventBytes: 300, eventsPerRequest: 10, destinationsPerEvent: 2 };
    assert.equal(Math.round(pubsubBytesPerEvent('batched', small, 4)), Math.round((2 + 2 * 2.02) * 300));
    assert.equal(pubsubBytesPerEvent('batched', kb, 4), pubsubBytesPerEvent('topic-per-destination', kb, 4));
    // The bill's Pub/Sub line is the topology the plan declares: its own topic per destination
    // unless the settings (or a deployed stack's state) keep the shared one.
    const events = 1000 * MONTH_SECONDS;
    for (const [s, topology] of [
      [example(), 'topic-per-destination'],
      [{ ...example(), deliveries_topology: 'shared' }, 'filtered'],
    ] as const) {
      const p = plan(s);
      const shape = trafficShape(s, p.destinations.length, { eventsPerSecond: 1000 });
      const noEvents = monthlyBill(p, 'idle', shape).items.find((i) => i.item === 'Pub/Sub')?.monthly ?? 0;
      const busy = monthlyBill(p, 'busy', shape).items.find((i) => i.item === 'Pub/Sub')?.monthly ?? 0;
      const expected = ((events * pubsubBytesPerEvent(topology, shape, 4)) / 2 ** 40) * PRICES.pubsubPerTib;
      assert.ok(
        Math.abs(busy - noEvents - expected) < 0.05,
        `${topology}: ${busy} - ${noEvents} against ${expected}`,
      );
    }
  });

  it('prices a design modelled, not built, through the same bill: its claims and its topology alone change', () => {
    const s = example();
    const p = plan(s);
    const shape = trafficShape(s, p.destinations.length, { eventsPerSecond: 1000 });
    const line = (b: ReturnType<typeof monthlyBill>, name: string) =>
      b.items.find((i) => i.item === name)?.monthly ?? assert.fail(name);
    const built = monthlyBill(p, 'busy', shape);
    assert.deepEqual(monthlyBill(p, 'busy', shape, BUILT), built);
    const both = monthlyBill(p, 'busy', shape, { topology: 'topic-per-destination', claims: 'per-batch' });
    const events = 1000 * MONTH_SECONDS;
    assert.ok(
      Math.abs(line(both, 'Send-once claims (Firestore)') - claimCost(claimCounts(events, 2, 'per-batch'))) <
        0.01,
    );
    const shared = monthlyBill(p, 'busy', shape, { topology: 'filtered', claims: 'per-delivery' });
    assert.equal(line(built, 'Pub/Sub'), line(both, 'Pub/Sub'), 'a topic per destination is built');
    const pubsubSaved = line(shared, 'Pub/Sub') - line(built, 'Pub/Sub');
    // Each delivery message billed by 1 subscription instead of 4: 2 × 3 × 1000 bytes an event less.
    assert.ok(
      Math.abs(pubsubSaved - ((events * 6000) / 2 ** 40) * PRICES.pubsubPerTib) < 0.05,
      String(pubsubSaved),
    );
    for (const i of built.items)
      if (!/^(Send-once claims|Firestore storage|Pub\/Sub|Free tiers)/.test(i.item))
        assert.equal(both.items.find((x) => x.item === i.item)?.monthly, i.monthly, i.item);
  });

  it('bills the Storage Write API on the rows’ own bytes, and takes its free 2 TiB a month off', () => {
    const item = (b: { items: readonly { item: string; monthly: number }[] }, name: string) =>
      b.items.find((i) => i.item === name)?.monthly ?? assert.fail(name);
    // Busy at 1,000 events/s, 2 deliveries an event, 2 % of them pushed again with a row each:
    // 2,592 million × (1000 + 2 × 1.02 × 300) bytes = 4.178304e12 bytes = 3,891.32 GiB at
    // $0.025 = $97.28 (a 1 KB minimum a row would be 3 × 1024 bytes an event: $185.39).
    const busy = total(example(), 'busy', { eventsPerSecond: 1000 });
    assert.equal(item(busy, 'BigQuery Storage Write API'), 97.28);
    // Two busy months that differ only in the event's bytes (no deliveries, no models, so no query
    // reaches its free TiB; every other free tier is used up by both): their free tiers differ by
    // the Write API's free bytes each used. 100 and 300 bytes an event are 241.4 and 724.2 GiB,
    // both under 2 TiB: 482.8 GiB × $0.025 = $12.07 more off the larger.
    const p = plan(example());
    const month = (eventBytes: number) =>
      monthlyBill(
        p,
        'busy',
        trafficShape(example(), 4, { eventBytes, destinationsPerEvent: 0, models: 0, eventsPerSecond: 1000 }),
      );
    const free = (b: ReturnType<typeof month>) => item(b, 'Free tiers');
    assert.ok(
      Math.abs(free(month(100)) - free(month(300)) - 12.07) < 0.015,
      `${free(month(100))}, ${free(month(300))}`,
    );
    // 1000 and 2000 bytes are 2,414 and 4,828 GiB: both past 2 TiB, $51.20 off each.
    assert.ok(Math.abs(free(month(1000)) - free(month(2000))) < 0.015);
    assert.ok(Math.abs(free(month(1000)) - free(month(100)) + (2048 - 241.4) * 0.025) < 0.015);
  });

  it('bills a trickle each request’s wall time rounded up to 100 ms, and a busy instance by the 60 % target', () => {
    // 1 request a second of 50 ms: 0.1 s billed each, plus the fee.
    const trickle = workloadCost(workload(), 1, 1000, 0, 0, usage());
    const r = PRICES.requestBased;
    assert.ok(
      Math.abs(trickle.cost - (1000 * 0.1 * (r.vcpuSecond + 0.5 * r.gibSecond) + 1000 * 0.4e-6)) < 1e-9,
    );
    // 1,000 requests a second at 0.6 ms of CPU: 1 instance by CPU at 60 % (0.6 ms / 0.6 = 1 ms a request).
    const busy = workloadCost(workload({ latencySeconds: 0.001 }), 1000, 1000, 0, 0, usage());
    assert.ok(Math.abs(busy.cost - (1000 * (r.vcpuSecond + 0.5 * r.gibSecond) + 1e6 * 0.4e-6)) < 1e-9);
  });

  it('bills a minimum instance at the idle rate under request-based billing, whole under instance-based', () => {
    const idle = workloadCost(workload({ minInstances: 1 }), 0, 0, 0, 0, usage());
    assert.ok(Math.abs(idle.cost - MONTH_SECONDS * (0.0000025 + 0.5 * 0.0000025)) < 1e-6);
    const kept = workloadCost(workload({ minInstances: 1, billing: 'instance' }), 0, 0, 0, 0, usage());
    assert.ok(Math.abs(kept.cost - MONTH_SECONDS * (0.000018 + 0.5 * 0.000002)) < 1e-6);
    // A workday ends 22 times: an instance-billed service stays up about 15 minutes after each.
    const u = usage();
    workloadCost(workload({ billing: 'instance' }), 10, 8 * 3600 * 22, 22, 0, u);
    assert.equal(u.instanceVcpuSeconds, 8 * 3600 * 22 + 22 * 900);
  });

  it('counts the background whether or not anyone sends, and takes the free tiers off as a line of their own', () => {
    const idle = total(example(), 'idle');
    const item = (name: string) => idle.items.find((i) => i.item === name)?.monthly ?? 0;
    assert.ok(item('Cloud Storage operations') > 0, "the scheduler's lock objects");
    assert.ok(item('Secret Manager') > 0);
    // Redrive asks BigQuery only while dead letters wait: idle, only the models' runs query.
    assert.match(idle.items.find((i) => i.item === 'BigQuery queries')?.detail ?? '', /model runs/);
    const free = item('Free tiers');
    assert.ok(free < 0);
    assert.ok(Math.abs(idle.listTotal + free - idle.total) < 0.02);
    const sum = idle.items.reduce((n, i) => n + i.monthly, 0);
    assert.ok(Math.abs(sum - idle.total) < 0.05, `${sum} vs ${idle.total}`);
  });

  it('prices the registry bucket’s operations at its location class: two listings a tick, lock reads and writes', () => {
    const ops = (location: string) => {
      const s = { ...example(), location };
      const p = plan(s);
      const idle = monthlyBill(p, 'idle', trafficShape(s, p.destinations.length));
      return idle.items.find((i) => i.item === 'Cloud Storage operations') ?? assert.fail('no line');
    };
    const minutes = MONTH_SECONDS / 60;
    const p = plan(example());
    const runs = p.destinations.length * minutes + 2 * (minutes / 15);
    const writes = 2 * minutes + 2 * runs;
    const reads = minutes * (p.destinations.length + 2) + runs;
    // EU is a multi-region: class A at $0.01 per 1,000; a region's at $0.005; class B $0.0004.
    const eu = ops('EU');
    assert.equal(eu.monthly, Math.round(((writes / 1000) * 0.01 + (reads / 1000) * 0.0004) * 100) / 100);
    assert.match(eu.detail, /EU, multi-region prices/);
    assert.match(eu.detail, new RegExp(Math.round(writes).toLocaleString('en-US')));
    const regional = ops('europe-west1');
    assert.equal(
      regional.monthly,
      Math.round(((writes / 1000) * 0.005 + (reads / 1000) * 0.0004) * 100) / 100,
    );
    assert.match(regional.detail, /europe-west1, regional prices/);
  });

  it('sizes by the 60 % of its concurrency Cloud Run keeps in flight', () => {
    // 100 requests a second of 0.48 s at concurrency 80: 48 in flight = one instance at 60 %.
    const r = PRICES.requestBased;
    const at = workloadCost(workload({ latencySeconds: 0.48, concurrency: 80 }), 100, 1000, 0, 0, usage());
    assert.ok(Math.abs(at.cost - (1000 * (r.vcpuSecond + 0.5 * r.gibSecond) + 1e5 * 0.4e-6)) < 1e-9);
  });

  it('prices gateway.origin_path’s load balancer and Cloud CDN: data processed, cache egress, lookups, no rule it never creates', () => {
    const withPath: Settings = { ...example(), gateway: { origin_path: '/_eb', site_backend: 'shop-web' } };
    const line = (s: Settings, scenario: 'idle' | 'workday') =>
      total(s, scenario).items.find((i) => i.item.startsWith('Load balancer + Cloud CDN'));
    // Worked by hand, workday at 1,000 events/s of 1,000 bytes, one event a request:
    //   events      1,000 × 3,600 × 8 × 22          = 633,600,000
    //   forwarding  none: the program creates no forwarding rule (the site's own rule carries it)
    //   processed   633.6e6 × (1,000 + 1,000) bytes = 1.2672e12 B = 1,180.20 GiB × $0.008 = $9.4416
    //   tag loads   633.6e6 / 5 = 126.72e6 × 8,192 B = 1.03809e12 B = 966.80 GiB × $0.08  = $77.3438
    //   lookups     126.72e6 + 633.6e6 = 760.32e6 / 10,000 × $0.0075                    = $570.24
    //   total       9.4416 + 77.3438 + 570.24                                            = $657.03
    const workday = line(withPath, 'workday') ?? assert.fail('no origin_path line');
    assert.equal(workday.item, 'Load balancer + Cloud CDN (gateway.origin_path /_eb)');
    assert.equal(workday.monthly, 657.03);
    assert.match(workday.detail, /760,320,000 cache lookups/);
    assert.doesNotMatch(workday.detail, /forwarding rule/);
    // Idle: nothing processed, no rule of ours.
    assert.equal(line(withPath, 'idle')?.monthly, 0);
    // It is in the total, and absent without the setting.
    // (each total is rounded to the cent on its own: within a cent of the line)
    const added = total(withPath, 'workday').total - total(example(), 'workday').total;
    assert.ok(Math.abs(added - 657.03) <= 0.0100001, String(added));
    // gateway.domain's load balancer is the program's own (infra/gateway-domain.ts): its rule is billed.
    const withDomain: Settings = { ...example(), gateway: { domain: 'collect.example.com' } };
    const domainLine = total(withDomain, 'idle').items.find(
      (i) => i.item === 'Load balancer (gateway.domain)',
    );
    assert.equal(plan(withDomain).gateway.domain?.via, 'load_balancer');
    assert.equal(domainLine?.monthly, 18);
    assert.equal(line(example(), 'workday'), undefined);
    // A Worker or an Akamai rule routes the path: the vendor bills it, no line here.
    for (const origin_via of ['cloudflare', 'akamai'] as const)
      assert.equal(
        line({ ...example(), gateway: { origin_path: '/_eb', origin_via } }, 'workday'),
        undefined,
      );
  });
});
