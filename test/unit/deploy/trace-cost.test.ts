/** core/deploy/trace-cost.ts: Cloud Trace's bill from spans per event, the ratio and the free tier. */
import assert from 'node:assert/strict';
import { CLOUD_TRACE_PRICE, monthlyTraceCost, spansPerEvent } from '../../../core/deploy/trace-cost.ts';

describe('Cloud Trace cost', () => {
  it('counts the gateway’s and the store’s spans once and three per destination', () => {
    assert.equal(spansPerEvent(0), 8);
    assert.equal(spansPerEvent(2), 14);
  });

  it('bills spans past the free tier at the price, in proportion to the ratio', () => {
    // 1 event/s, 2 destinations, all sampled: 2,592,000 × 14 spans a month.
    const spans = 2_592_000 * 14;
    const expected =
      ((spans - CLOUD_TRACE_PRICE.freeSpansPerMonth) / 1e6) * CLOUD_TRACE_PRICE.perMillionSpans;
    assert.ok(Math.abs(monthlyTraceCost(1, 2, 1) - expected) < 1e-9);
    assert.ok(monthlyTraceCost(1000, 2, 0.1) > 9 * monthlyTraceCost(1000, 2, 0.01));
  });

  it('costs nothing within the free tier', () => {
    assert.equal(monthlyTraceCost(1, 2, 0.01), 0);
  });
});
