/**
 * Issue 61, a Low: a credential's burst is bounded by its own rate (a key made with `--rate 5`
 * let 405 requests through before the first 429: its bucket held the settings' burst). Timed by
 * a fake clock, never by waiting.
 */
import assert from 'node:assert/strict';
import { RateLimiter } from '../../gateway/auth.ts';
import { baseSettings, FakePublisher, ORIGIN, post, startTestGateway } from './support.ts';

describe('gateway: a credential’s burst is bounded by its own rate (issue 61)', () => {
  it('RateLimiter: a bucket holds at most the credential’s rate, and refills at it', () => {
    const limiter = new RateLimiter(200, 400);
    const t0 = 1_000_000;
    let passed = 0;
    while (limiter.take('key:a', t0, 5) === 0) passed++;
    assert.equal(passed, 5);
    assert.ok(limiter.take('key:a', t0, 5) >= 1, 'a Retry-After of at least a second');
    // One second later: the rate again, never more.
    passed = 0;
    while (limiter.take('key:a', t0 + 1000, 5) === 0) passed++;
    assert.equal(passed, 5);
    // A fraction of a request per second still lets one through.
    assert.equal(limiter.take('key:slow', t0, 0.5), 0);
    assert.ok(limiter.take('key:slow', t0, 0.5) > 0);
    // Without a rate of its own a credential has the environment's rate and burst.
    passed = 0;
    while (limiter.take('token:b', t0) === 0) passed++;
    assert.equal(passed, 400);
  });

  it('a write key made with --rate 5 is answered 429 after 5 requests of a burst of 100 (fake clock)', async () => {
    const now = Date.now();
    // The settings' burst (400) is the environment's: a key's own rate bounds its bucket.
    const g = await startTestGateway({
      publisher: new FakePublisher(),
      settings: baseSettings(),
      clock: () => now,
    });
    try {
      const key = await g.mintKey({ rate: 5 });
      const h = { origin: ORIGIN, 'x-write-key': key };
      const vc = { event_name: 'view_content', content_name: 'Shoe', content_type: 'product' };
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await post(`${g.url}/v1/topics/events`, vc, h)).status);
      const first429 = statuses.indexOf(429);
      assert.equal(first429, 5, statuses.join(' '));
      assert.equal(statuses.filter((s) => s === 200).length, 5);
    } finally {
      await g.close();
    }
  });
});
