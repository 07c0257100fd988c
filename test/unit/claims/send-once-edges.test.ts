/**
 * Send once (core/claims/send-once.ts) at its edges: the instants a lease, a record and the first
 * fan-out's horizon end, a claim store that loses races or fails, and what a settled record keeps.
 * The mutation run of the module (docs/testing.md) found these rules held by no test.
 */
import assert from 'node:assert/strict';
import { type ClaimStore, checkClaimKey } from '../../../core/claims/claim-store.ts';
import {
  claimSend,
  leaseMs,
  SEND_ONCE_WINDOW_MS,
  settleFirst,
  settleSend,
} from '../../../core/claims/send-once.ts';
import { deliveryId } from '../../../core/identity.ts';
import {
  type MemoryClaims,
  memoryClaims,
  sendRequest,
  CLAIMS_T0 as T0,
} from '../../support/memory-claims.ts';

/** A send-once request for one delivery id, m1's first attempt at T0 unless `over` says otherwise. */
const id = deliveryId('evt_1', 'b'.repeat(64), 'meta');
const request = (over: Parameters<typeof sendRequest>[1]) => sendRequest(id, over);

/**
 * A memory store whose conditional replace loses to another writer `lost` times: before each lost
 * replace, the other writer puts a live claim of its own under the key. Counts the creates.
 */
function racing(lost: number): MemoryClaims & { creates: number } {
  const inner = memoryClaims();
  let left = lost;
  const store = Object.assign(inner, { creates: 0 });
  const create = inner.create.bind(inner);
  const replace = inner.replace.bind(inner);
  store.create = (key, fields, expireAt) => {
    store.creates++;
    return create(key, fields, expireAt);
  };
  store.replace = async (key, version, fields, expireAt) => {
    if (left <= 0) return replace(key, version, fields, expireAt);
    left--;
    await replace(key, version, { ...fields, holder: 'other', status: 'sending' }, expireAt);
    return undefined;
  };
  return store;
}

/** A claim store that cannot be reached for `op`. */
function failing(op: 'create' | 'replace' | 'release'): ClaimStore {
  const inner = memoryClaims();
  return { ...inner, [op]: () => Promise.reject(new Error(`${op} unavailable`)) } as ClaimStore;
}

describe('send once: where leases, records and the horizon end', () => {
  it('leases three times the call timeout, never less than a minute', () => {
    assert.equal(leaseMs(10_000), 60_000);
    assert.equal(leaseMs(30_000), 90_000);
    assert.equal(leaseMs(120_000), 360_000);
  });

  it('takes a claim over at the very instant its lease ends', async () => {
    const store = memoryClaims();
    await claimSend(request({ store }));
    const v = await claimSend(request({ store, holder: 'm2', now: T0 + leaseMs(10_000) }));
    assert.ok(v.go);
  });

  it('counts a record as absent from the instant it expires', async () => {
    const store = memoryClaims();
    const first = await claimSend(request({ store }));
    assert.ok(first.go && first.ticket);
    await settleSend(store, first.ticket, 'delivered');
    const v = await claimSend(request({ store, holder: 'm9', now: T0 + SEND_ONCE_WINDOW_MS }));
    assert.ok(v.go);
    assert.match(v.ticket?.note ?? '', /expired/);
  });

  it('lets a copy send from the instant the first fan-out’s horizon ends', async () => {
    const store = memoryClaims();
    const v = await claimSend(request({ store, holder: 'copy', horizon: T0 }));
    assert.ok(v.go);
  });
});

describe('send once: what a claim and a settled record hold', () => {
  it('names a send claim in its own space, marked sending until it is settled', async () => {
    const store = memoryClaims();
    const v = await claimSend(request({ store }));
    assert.ok(v.go && v.ticket);
    const [name] = store.records.keys();
    assert.ok(name?.startsWith('sends/'), name);
    assert.equal(store.records.get(name as string)?.fields['status'], 'sending');
  });

  it('keeps `delivered` as the outcome when none is given, and at most 200 characters of one', async () => {
    const store = memoryClaims();
    const a = await claimSend(request({ store }));
    assert.ok(a.go && a.ticket);
    await settleSend(store, a.ticket, 'delivered');
    assert.equal([...store.records.values()][0]?.fields['outcome'], 'delivered');
    const long = memoryClaims();
    const b = await claimSend(request({ store: long }));
    assert.ok(b.go && b.ticket);
    await settleSend(long, b.ticket, 'delivered', `HTTP 200: ${'x'.repeat(500)}`);
    const outcome = String([...long.records.values()][0]?.fields['outcome']);
    assert.equal(outcome, `HTTP 200: ${'x'.repeat(190)}`);
  });

  it('folds a copy of a delivery settled without an outcome, saying nothing more', async () => {
    const store = memoryClaims();
    await settleFirst({ store, id, holder: 'first', attempt: 1, now: T0, timeoutMs: 10_000, detail: '' });
    const v = await claimSend(request({ store, holder: 'copy', now: T0 + 1_000 }));
    assert.ok(!v.go && v.folded);
    assert.match(v.reason, /\(the send-once claim of message first \(attempt 1\) was settled delivered\)$/);
  });
});

describe('send once: a claim store that loses races or fails', () => {
  it('reads the claim again when a takeover loses the race, and waits for the winner', async () => {
    const store = racing(1);
    await claimSend(request({ store }));
    const v = await claimSend(request({ store, holder: 'm2', now: T0 + leaseMs(10_000) + 1 }));
    assert.ok(!v.go && !v.folded);
    assert.match(v.reason, /^held: message other \(attempt 1\) may be sending/);
  });

  it('reads the claim again when replacing a malformed or expired one loses the race', async () => {
    const malformed = racing(1);
    await claimSend(request({ store: malformed }));
    const [name, held] = [...malformed.records.entries()][0]!;
    malformed.records.set(name, { fields: {}, version: held.version, expireAt: 0, malformed: 'no expiry' });
    const a = await claimSend(request({ store: malformed, holder: 'm2', now: T0 + 1_000 }));
    assert.ok(!a.go && !a.folded, 'the winner holds it now');
    const expired = racing(1);
    await claimSend(request({ store: expired }));
    const b = await claimSend(request({ store: expired, holder: 'm3', now: T0 + SEND_ONCE_WINDOW_MS + 1 }));
    assert.ok(!b.go && !b.folded);
  });

  it('gives up after two rounds of lost races, and asks to be tried again', async () => {
    const store = racing(10);
    await claimSend(request({ store }));
    store.creates = 0;
    // A forced replay takes over whatever it finds; each round, another writer gets there first.
    const v = await claimSend(request({ store, holder: 'replay', force: true, now: T0 + 1_000 }));
    assert.equal(store.creates, 2);
    assert.ok(!v.go && !v.folded);
    assert.match(
      v.reason,
      /^held: the send-once claim changed hands while this attempt took it; trying again later$/,
    );
  });

  it('says, never throws, when the store cannot settle a claim', async () => {
    const store = memoryClaims();
    const a = await claimSend(request({ store }));
    assert.ok(a.go && a.ticket);
    assert.equal(
      await settleSend(failing('replace'), a.ticket, 'delivered'),
      'the send-once claim could not be settled (replace unavailable)',
    );
    assert.equal(
      await settleSend(failing('release'), a.ticket, 'refused'),
      'the send-once claim could not be settled (release unavailable)',
    );
    const first = { id, holder: 'first', attempt: 1, now: T0, timeoutMs: 10_000, detail: 'HTTP 200' };
    assert.equal(
      await settleFirst({ ...first, store: failing('create') }),
      'the send-once claim could not be settled delivered (create unavailable)',
    );
  });

  it('records the first delivery over whatever is held, but leaves a delivered record as it is', async () => {
    const first = { id, holder: 'first', attempt: 1, now: T0, timeoutMs: 10_000, detail: 'HTTP 200' };
    const delivered = memoryClaims();
    await settleFirst({ ...first, store: delivered, holder: 'earlier', detail: 'HTTP 204' });
    const writes = delivered.writes;
    assert.equal(await settleFirst({ ...first, store: delivered }), undefined);
    assert.equal(delivered.writes, writes, 'a delivered record is not written again');
    assert.equal([...delivered.records.values()][0]?.fields['holder'], 'earlier');
    const malformed = memoryClaims();
    await settleFirst({ ...first, store: malformed });
    const [name, held] = [...malformed.records.entries()][0]!;
    malformed.records.set(name, {
      fields: { status: 'delivered' },
      version: held.version,
      expireAt: 0,
      malformed: 'no expiry',
    });
    assert.equal(await settleFirst({ ...first, store: malformed }), undefined);
    assert.equal(malformed.records.get(name)?.malformed, undefined, 'a malformed record is replaced');
  });

  it('gives up recording the first delivery after three rounds of lost races, saying so', async () => {
    const store = racing(10);
    await claimSend(request({ store, holder: 'm2' }));
    store.creates = 0;
    const first = { id, holder: 'first', attempt: 1, now: T0, timeoutMs: 10_000, detail: 'HTTP 200' };
    assert.equal(
      await settleFirst({ ...first, store }),
      'the send-once claim kept changing hands while the delivery was settled',
    );
    assert.equal(store.creates, 3);
  });
});

describe('claim store: names', () => {
  it('takes only a whole SHA-256 in hex as a claim id, nothing before or after it', () => {
    const hex = 'c'.repeat(64);
    assert.doesNotThrow(() => checkClaimKey({ space: 'sends', id: hex }));
    for (const bad of [`../${hex}`, `${hex}/../x`, `x${hex}`, `${hex}x`, hex.slice(1), hex.toUpperCase()])
      assert.throws(() => checkClaimKey({ space: 'sends', id: bad }), /not a claim id/, bad);
  });
});
