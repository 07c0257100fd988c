/**
 * core/deploy/bill.ts, `claimCost`: Firestore's per-document prices applied to the claims'
 * writes, deletes and reads, and the reason the claims live in Firestore: a claim's create is
 * about a fifth of a Cloud Storage class A operation.
 */
import assert from 'node:assert/strict';
import { claimCost, MONTHLY_PRICES } from '../../../core/deploy/bill.ts';

describe('deploy: claimCost', () => {
  it('prices writes, deletes and reads per 100,000 documents', () => {
    assert.equal(claimCost({ writes: 0, deletes: 0, reads: 0 }), 0);
    const prices = { writePer100k: 1, deletePer100k: 10, readPer100k: 100 };
    assert.equal(claimCost({ writes: 100_000, deletes: 0, reads: 0 }, prices), 1);
    assert.equal(claimCost({ writes: 0, deletes: 200_000, reads: 0 }, prices), 20);
    assert.equal(claimCost({ writes: 0, deletes: 0, reads: 50_000 }, prices), 50);
  });

  it('a million claims created and expired cost a fraction of a million class A creates', () => {
    const firestore = claimCost({ writes: 1_000_000, deletes: 1_000_000, reads: 0 });
    assert.ok(Math.abs(firestore - 1.2) < 1e-9, String(firestore));
    const storage = MONTHLY_PRICES.storageClassAPer1000.region * 1000;
    assert.equal(storage, 5);
    assert.equal(MONTHLY_PRICES.storageClassAPer1000.multiRegion * 1000, 10);
    assert.ok(firestore < storage / 4, `${firestore} vs ${storage}`);
  });
});
