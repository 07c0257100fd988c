import assert from 'node:assert/strict';
import { loadOnce } from '../../adapters/load-once.ts';

describe('loadOnce', () => {
  it('shares one load between callers, then hands out the value itself', async () => {
    let loads = 0;
    const get = loadOnce(async () => {
      loads++;
      return { client: loads };
    });
    const a = get();
    const b = get();
    assert.ok(a instanceof Promise);
    assert.equal(a, b);
    const value = await a;
    assert.deepEqual(value, { client: 1 });
    assert.equal(get(), value); // not a promise once loaded
    assert.equal(loads, 1);
  });

  it('forgets a failed load, so the next call tries again', async () => {
    let attempt = 0;
    const get = loadOnce(async () => {
      attempt++;
      if (attempt === 1) throw new Error('module missing');
      return 'loaded';
    });
    await assert.rejects(Promise.resolve(get()), /module missing/);
    assert.equal(await get(), 'loaded');
    assert.equal(get(), 'loaded');
    assert.equal(attempt, 2);
  });
});
