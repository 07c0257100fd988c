/**
 * The gateway's per-instance memories on their own (gateway/idempotency.ts): the Idempotency-Key
 * memory and the replay memory of signed deliveries, over their one bounded first-seen map.
 */
import assert from 'node:assert/strict';
import { createIdempotencyMemory, createReplayMemory } from '../../gateway/idempotency.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('idempotency memory', () => {
  it('takes a key again with the same body, refuses it with another, per scope, until the key expires', () => {
    const m = createIdempotencyMemory(10, 1000);
    assert.equal(m.admit('t', 'k', bytes('a'), 0), true);
    assert.equal(m.admit('t', 'k', bytes('a'), 10), true);
    assert.equal(m.admit('t', 'k', bytes('b'), 20), false);
    assert.equal(m.admit('u', 'k', bytes('b'), 20), true, 'another translator: another key');
    assert.equal(m.admit('t', 'k', bytes('b'), 1000), true, 'expired: remembered anew');
    assert.equal(m.admit('t', 'k', bytes('a'), 1001), false);
  });

  it('forgets the oldest key past its bound', () => {
    const m = createIdempotencyMemory(2, 1000);
    m.admit('t', 'k1', bytes('a'), 0);
    m.admit('t', 'k2', bytes('a'), 1);
    m.admit('t', 'k3', bytes('a'), 2);
    assert.equal(m.size, 2);
    assert.equal(m.admit('t', 'k1', bytes('b'), 3), true, 'k1 was forgotten');
    assert.equal(m.admit('t', 'k3', bytes('b'), 4), false);
  });
});

describe('replay memory', () => {
  it('answers a delivery seen inside the window with its first sight, which seeing it again does not move', () => {
    const m = createReplayMemory(10);
    assert.equal(m.seen('t', 'd', 0, 100), undefined);
    assert.equal(m.seen('t', 'd', 50, 100), 0);
    assert.equal(m.seen('t', 'd', 99, 100), 0);
    assert.equal(m.seen('u', 'd', 99, 100), undefined, 'another translator: another delivery');
    assert.equal(m.seen('t', 'd', 100, 100), undefined, 'the window ran from the first sight');
    assert.equal(m.seen('t', 'd', 150, 100), 100);
  });

  it('forgets the oldest delivery past its bound', () => {
    const m = createReplayMemory(2);
    m.seen('t', 'd1', 0, 100);
    m.seen('t', 'd2', 1, 100);
    m.seen('t', 'd3', 2, 100);
    assert.equal(m.size, 2);
    assert.equal(m.seen('t', 'd1', 3, 100), undefined);
    assert.equal(m.seen('t', 'd3', 4, 100), 2);
  });
});
