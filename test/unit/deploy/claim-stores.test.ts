/**
 * core/deploy/claim-stores.ts: the claims in a store priced by capacity (modelled, #97), checked
 * by hand against the list prices and documented capacities it states.
 */
import assert from 'node:assert/strict';
import { BUILT, claimCounts, monthlyBill, trafficShape } from '../../../core/deploy/bill.ts';
import {
  bigtableMonth,
  breakEvenEventsPerSecond,
  CAPACITY_PRICES,
  memorystoreMonth,
} from '../../../core/deploy/claim-stores.ts';
import { plan } from '../../../core/plan.ts';
import { minimalSettings } from '../../../scripts/scale-table.ts';

const rates = (eventsPerSecond: number) => {
  const c = claimCounts(eventsPerSecond, 2);
  return { writesPerSecond: c.writes, readsPerSecond: c.reads, claimsPerSecond: c.documents };
};

describe('claims in a capacity-priced store (modelled)', () => {
  it('keeps one Bigtable node to 1,000 events/s and adds nodes at 70 % of 14,000 rows a second', () => {
    // 1,000 events/s: 3,080 conditional writes (a read and a write each) and 40 reads a second.
    const one = bigtableMonth(rates(1000));
    assert.match(one.detail, /^1 SSD node for 6,200 row operations a second,/);
    // A node all month ($0.65 × 720 h) and 3,040 claims a second kept 14 days, 253 bytes each (measured).
    const gib = (3040 * 14 * 86_400 * 253) / 2 ** 30;
    assert.ok(Math.abs(one.monthly - (0.65 * 720 + gib * 0.17)) < 1e-6);
    // 5,000 events/s: 31,000 row operations over 9,800 a node: 4 nodes.
    assert.match(bigtableMonth(rates(5000)).detail, /^4 SSD nodes/);
    // Idle, the node still bills.
    assert.equal(bigtableMonth(rates(0)).monthly, 0.65 * 720);
  });

  it('finds Memorystore too small for 7 days of claims at 1,000 events/s', () => {
    const m = memorystoreMonth(rates(1000));
    assert.equal(m.fits, false, m.detail);
    assert.ok(memorystoreMonth(rates(500)).fits);
    assert.equal(CAPACITY_PRICES.memorystore.maxGib, 300);
  });

  it('puts the break-even where Firestore’s month passes the store’s', () => {
    const firestore = (r: number) => r * 10;
    const store = (r: number) => 500 + r;
    assert.equal(breakEvenEventsPerSecond(firestore, store), 56);
    assert.equal(
      breakEvenEventsPerSecond(firestore, () => Number.POSITIVE_INFINITY, 100),
      undefined,
    );
  });

  it('prices the bill’s claims line from the store a design names, the rest of the bill unchanged', () => {
    const settings = minimalSettings();
    const p = plan(settings);
    const shape = trafficShape(settings, p.destinations.length, { destinationsPerEvent: 2 });
    const built = monthlyBill(p, 'busy', shape, BUILT);
    const bigtable = monthlyBill(p, 'busy', shape, { claims: 'per-delivery', store: 'bigtable' });
    const claims = (b: typeof built) => b.items.filter((i) => i.group === 'claims');
    assert.deepEqual(
      claims(bigtable).map((i) => i.item),
      ['Send-once claims (Bigtable)'],
    );
    assert.deepEqual(
      built.items.filter((i) => i.group !== 'claims' && i.group !== 'free'),
      bigtable.items.filter((i) => i.group !== 'claims' && i.group !== 'free'),
    );
    assert.ok((claims(bigtable)[0]?.monthly ?? 0) > 0.65 * 720);
  });
});
