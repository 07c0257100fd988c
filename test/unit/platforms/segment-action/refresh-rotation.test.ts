/**
 * The refresh claim of core/platforms/segment-action/refresh-rotation.ts over an in-memory secret
 * with Secret Manager's etag rules: a rotated token becomes the newest version, a kept one or a
 * failed refresh leaves the claimed version enabled again, a claim whose holder died is taken over
 * after TAKEOVER_MS, a claim held past the wait budget is a retry (not a rejection).
 */
import assert from 'node:assert/strict';
import { outcomeOfError } from '../../../../core/platforms/segment-action/outcome.ts';
import {
  type RefreshTokenVersions,
  RotationBusy,
  refreshUnderClaim,
  type SecretVersionState,
  TAKEOVER_MS,
  WAIT_BUDGET_MS,
} from '../../../../core/platforms/segment-action/refresh-rotation.ts';

/** Versions with etags: a transition with a stale etag is refused, as Secret Manager's ABORTED. */
function memorySecret(first: string) {
  let tag = 0;
  const all: { value: string; state: SecretVersionState['state']; etag: string }[] = [
    { value: first, state: 'ENABLED', etag: `e${tag++}` },
  ];
  const view = (i: number): SecretVersionState => ({
    version: String(i + 1),
    state: all[i]?.state ?? 'DESTROYED',
    etag: all[i]?.etag ?? '',
  });
  const move = (v: SecretVersionState, to: 'ENABLED' | 'DISABLED') => {
    const row = all[Number(v.version) - 1];
    if (!row || row.etag !== v.etag) return Promise.resolve(undefined);
    row.state = to;
    row.etag = `e${tag++}`;
    return Promise.resolve(view(Number(v.version) - 1));
  };
  const versions: RefreshTokenVersions = {
    latest: () => Promise.resolve(view(all.length - 1)),
    access: (v) => Promise.resolve(all[Number(v) - 1]?.value ?? ''),
    disable: (v) => move(v, 'DISABLED'),
    enable: (v) => move(v, 'ENABLED'),
    add: (value) => {
      all.push({ value, state: 'ENABLED', etag: `e${tag++}` });
      return Promise.resolve(String(all.length));
    },
  };
  return { versions, all };
}

/** A clock the waits move forward, without waiting. */
function fakeClock() {
  let t = 0;
  return {
    now: () => t,
    sleep: (ms: number) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

/** The refresh tokens one claimed refresh sent, rotating to `next`. */
async function tokensUsed(
  versions: RefreshTokenVersions,
  clock: ReturnType<typeof fakeClock>,
  next: string,
): Promise<string[]> {
  const used: string[] = [];
  const refresh = (t: string) => {
    used.push(t);
    return Promise.resolve({ refreshToken: next });
  };
  await refreshUnderClaim('conn', versions, refresh, clock);
  return used;
}

describe('segment_action: the refresh claim on the refresh-token secret (issue #100)', () => {
  it('a rotated token is added as the newest version; the used one stays disabled', async () => {
    const s = memorySecret('r0');
    const used: string[] = [];
    const answered = await refreshUnderClaim(
      'conn',
      s.versions,
      (t) => {
        used.push(t);
        return Promise.resolve({ refreshToken: 'r1' });
      },
      fakeClock(),
    );
    assert.deepEqual([used, answered], [['r0'], { refreshToken: 'r1' }]);
    assert.deepEqual(
      s.all.map((v) => [v.value, v.state]),
      [
        ['r0', 'DISABLED'],
        ['r1', 'ENABLED'],
      ],
    );
  });

  it('a kept token, or a failed refresh, enables the claimed version again', async () => {
    const s = memorySecret('r0');
    await refreshUnderClaim('conn', s.versions, () => Promise.resolve({}), fakeClock());
    assert.deepEqual(
      s.all.map((v) => v.state),
      ['ENABLED'],
    );
    await assert.rejects(
      refreshUnderClaim('conn', s.versions, () => Promise.reject(new Error('invalid_grant')), fakeClock()),
      /invalid_grant/,
    );
    assert.deepEqual(
      s.all.map((v) => v.state),
      ['ENABLED'],
    );
  });

  it('waits for another instance’s claim and refreshes from the token it wrote', async () => {
    const s = memorySecret('r0');
    const held = (await s.versions.disable(
      await s.versions.latest().then((v) => v as SecretVersionState),
    )) as SecretVersionState;
    const clock = fakeClock();
    const sleep = clock.sleep;
    let slept = 0;
    clock.sleep = async (ms) => {
      await sleep(ms);
      // The other instance ends its claim after the second wait.
      if (++slept === 2) await s.versions.add('r1');
    };
    assert.deepEqual(await tokensUsed(s.versions, clock, 'r2'), ['r1'], 'never the claimed r0');
    assert.equal(held.state, 'DISABLED');
    assert.deepEqual(s.all.map((v) => [v.value, v.state]).at(-1), ['r2', 'ENABLED']);
  });

  it('takes over a claim left for TAKEOVER_MS by an instance that died', async () => {
    const s = memorySecret('r0');
    await s.versions.disable((await s.versions.latest()) as SecretVersionState);
    const clock = fakeClock();
    assert.deepEqual(await tokensUsed(s.versions, clock, 'r1'), ['r0']);
    assert.ok(clock.now() >= TAKEOVER_MS && clock.now() < WAIT_BUDGET_MS, String(clock.now()));
  });

  it('a claim held past the wait budget is a retry, never a rejected delivery', async () => {
    const s = memorySecret('r0');
    const clock = fakeClock();
    // Another instance keeps re-claiming: every look finds a new disabled version.
    const latest = s.versions.latest;
    s.versions.latest = async () => {
      await s.versions.add(`r${s.all.length}`);
      const v = (await latest()) as SecretVersionState;
      return (await s.versions.disable(v)) as SecretVersionState;
    };
    const err = await refreshUnderClaim('conn', s.versions, () => Promise.resolve({}), clock).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof RotationBusy);
    assert.equal(outcomeOfError('postSheet', err).status, 'retry');
  });
});
