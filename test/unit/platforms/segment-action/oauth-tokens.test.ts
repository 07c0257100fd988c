/**
 * The in-memory access tokens of OAuth connections (core/platforms/segment-action/oauth-tokens.ts):
 * one refresh for callers in flight, a token another refresh already replaced taken without asking
 * again, `expires_in` honoured less a margin, a failed refresh not cached.
 */
import assert from 'node:assert/strict';
import {
  createAccessTokens,
  EXPIRY_MARGIN_MS,
} from '../../../../core/platforms/segment-action/oauth-tokens.ts';

describe('segment_action: OAuth access tokens', () => {
  it('callers in flight share one refresh; a refused token already replaced is not refreshed again', async () => {
    const tokens = createAccessTokens(() => 0);
    let calls = 0;
    const refresh = async () => {
      calls += 1;
      return { accessToken: `t${calls}` };
    };
    const got = await Promise.all([1, 2, 3].map(() => tokens.renew('k', undefined, refresh)));
    assert.deepEqual(
      got.map((e) => e.accessToken),
      ['t1', 't1', 't1'],
    );
    assert.equal(calls, 1);
    // Refused with an older token: the cached one is newer, taken as it is.
    assert.equal((await tokens.renew('k', 't0', refresh)).accessToken, 't1');
    assert.equal(calls, 1);
    // Refused with the cached one: a refresh.
    assert.equal((await tokens.renew('k', 't1', refresh)).accessToken, 't2');
    assert.equal(tokens.current('k')?.accessToken, 't2');
  });

  it('a token is used until its expiry less the margin; a failed refresh leaves nothing cached', async () => {
    let now = 0;
    const tokens = createAccessTokens(() => now);
    await tokens.renew('k', undefined, async () => ({ accessToken: 'a', expiresAt: 3_600_000 }));
    now = 3_600_000 - EXPIRY_MARGIN_MS - 1;
    assert.equal(tokens.current('k')?.accessToken, 'a');
    now += 1;
    assert.equal(tokens.current('k'), undefined);
    await assert.rejects(
      tokens.renew('x', undefined, () => Promise.reject(new Error('invalid_grant'))),
      /invalid_grant/,
    );
    assert.equal(tokens.current('x'), undefined);
    // The failure is not kept in flight either: the next caller asks again.
    assert.equal((await tokens.renew('x', undefined, async () => ({ accessToken: 'b' }))).accessToken, 'b');
  });
});
