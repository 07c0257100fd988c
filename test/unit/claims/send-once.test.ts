import assert from 'node:assert/strict';
import {
  claimSend,
  FIRST_WINDOW_MS,
  firstFanOutHorizon,
  leaseMs,
  SEND_ONCE_WINDOW_MS,
  type SendRequest,
  settleFirst,
  settleSend,
} from '../../../core/claims/send-once.ts';
import { deliveryId } from '../../../core/identity.ts';
import { CLAIMS_T0, memoryClaims, sendRequest } from '../../support/memory-claims.ts';

const T0 = CLAIMS_T0;
const id = deliveryId('evt_1', 'a'.repeat(64), 'meta');

const request = (over: Partial<SendRequest> & Pick<SendRequest, 'store'>) => sendRequest(id, over);

describe('send once: one claim per event identity and destination, before the call', () => {
  it('lets the first attempt go and makes a copy from another message wait while the first may be sending', async () => {
    const store = memoryClaims();
    const first = await claimSend(request({ store }));
    assert.equal(first.go, true);
    const copy = await claimSend(request({ store, holder: 'm2', now: T0 + 5_000 }));
    assert.equal(copy.go, false);
    assert.ok(!copy.go && !copy.folded);
    assert.match(copy.go ? '' : copy.reason, /^held: message m1 \(attempt 1\) may be sending/);
  });

  it('folds a copy once the claim is settled delivered, whenever it comes within the window', async () => {
    const store = memoryClaims();
    const first = await claimSend(request({ store }));
    assert.ok(first.go && first.ticket);
    assert.equal(await settleSend(store, first.ticket, 'delivered', 'HTTP 200: delivered'), undefined);
    const [record] = store.records.values();
    assert.equal(record?.fields['status'], 'delivered');
    assert.equal(record?.fields['outcome'], 'HTTP 200: delivered');
    for (const later of [1_000, 2 * 60_000, 10 * 60_000, 3 * 86_400_000]) {
      const v = await claimSend(request({ store, holder: `late-${later}`, now: T0 + later }));
      assert.ok(!v.go && v.folded, `a copy ${later} ms later is folded`);
      assert.match(v.reason, /settled delivered: HTTP 200: delivered/);
    }
    assert.equal(store.writes, 2, 'the claim and its settlement; folding writes nothing');
  });

  it('never folds on a claim that is still sending: a copy waits for its lease, then sends', async () => {
    const store = memoryClaims();
    await claimSend(request({ store }));
    const early = await claimSend(request({ store, holder: 'm2', now: T0 + leaseMs(10_000) - 1 }));
    assert.ok(!early.go && !early.folded);
    const late = await claimSend(request({ store, holder: 'm2', now: T0 + leaseMs(10_000) + 1 }));
    assert.ok(late.go);
  });

  it('replaces a malformed claim from the claim store alone, and sends', async () => {
    const store = memoryClaims();
    await claimSend(request({ store }));
    const [name, held] = [...store.records.entries()][0]!;
    store.records.set(name, {
      fields: {},
      version: held.version,
      expireAt: 0,
      malformed: 'lease_until is a map',
    });
    const v = await claimSend(request({ store, holder: 'm2', now: T0 + 1_000 }));
    assert.ok(v.go);
    assert.match(v.ticket?.note ?? '', /replaced a malformed send-once claim \(lease_until is a map\)/);
    assert.equal(store.records.get(name)?.fields['holder'], 'm2');
  });

  it('lets the same message retry after an unanswered call, and notes it', async () => {
    const store = memoryClaims();
    await claimSend(request({ store }));
    const retry = await claimSend(request({ store, attempt: 2, now: T0 + 30_000 }));
    assert.ok(retry.go);
    assert.equal(retry.ticket?.note, 'retry of this message after attempt 1');
  });

  it('takes over a claim whose holder died undelivered once its lease ran out', async () => {
    const store = memoryClaims();
    await claimSend(request({ store, timeoutMs: 10_000 }));
    assert.equal(leaseMs(10_000), 60_000);
    const early = await claimSend(request({ store, holder: 'm2', now: T0 + 59_000 }));
    assert.equal(early.go, false);
    const late = await claimSend(request({ store, holder: 'm2', now: T0 + 61_000 }));
    assert.ok(late.go);
    assert.match(late.ticket?.note ?? '', /taken over from message m1 .*lease ran out undelivered/);
    // The first holder, back later, now finds m2's claim and waits (or folds once m2 delivered).
    const back = await claimSend(request({ store, attempt: 2, now: T0 + 62_000 }));
    assert.equal(back.go, false);
  });

  it('sends a forced replay again over a delivered claim, saying so', async () => {
    const store = memoryClaims();
    const first = await claimSend(request({ store }));
    assert.ok(first.go && first.ticket);
    await settleSend(store, first.ticket, 'delivered');
    const v = await claimSend(request({ store, holder: 'replay-1', force: true }));
    assert.ok(v.go);
    assert.match(v.ticket?.note ?? '', /^replay --force/);
  });

  it('counts a claim past the window as absent: a copy that late is a new delivery', async () => {
    const store = memoryClaims();
    const first = await claimSend(request({ store }));
    assert.ok(first.go && first.ticket);
    await settleSend(store, first.ticket, 'delivered');
    const v = await claimSend(request({ store, holder: 'm9', now: T0 + SEND_ONCE_WINDOW_MS + 1 }));
    assert.ok(v.go);
    assert.match(v.ticket?.note ?? '', /expired/);
  });

  it('releases the claim after a refusal (not a delivery), keeps it after a delivery or no answer', async () => {
    const store = memoryClaims();
    const a = await claimSend(request({ store }));
    assert.ok(a.go);
    const ticket = a.ticket;
    assert.ok(ticket);
    await settleSend(store, ticket, 'unanswered');
    assert.equal(store.records.size, 1);
    await settleSend(store, ticket, 'refused');
    assert.equal(store.records.size, 0);
    const b = await claimSend(request({ store, holder: 'm3' }));
    assert.ok(b.go && b.ticket);
    await settleSend(store, b.ticket, 'delivered');
    await settleSend(store, b.ticket, 'refused');
    assert.equal(store.records.size, 1, 'a settled delivery is not released by a stale ticket');
    store.records.clear();
    const again = await claimSend(request({ store, holder: 'm2' }));
    assert.ok(again.go && again.ticket?.note === undefined, 'a later copy claims afresh');
  });

  it('gives exactly one go to many copies racing for one claim', async () => {
    const store = memoryClaims();
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claimSend(request({ store, holder: `m${i}` }))),
    );
    assert.equal(verdicts.filter((v) => v.go).length, 1);
  });

  it('lets the first fan-out’s first attempt send on store’s claim, and records its delivery after', async () => {
    const store = memoryClaims();
    const v = await claimSend(request({ store, privileged: true }));
    assert.deepEqual(v, { go: true });
    assert.equal(store.writes, 0, 'nothing before the call');
    const settled = {
      store,
      id,
      holder: 'm1',
      attempt: 1,
      now: T0 + 300,
      timeoutMs: 10_000,
      detail: 'HTTP 200',
    };
    assert.equal(await settleFirst(settled), undefined);
    assert.equal(store.writes, 1);
    // Its own redelivery (an acknowledgement lost) folds on the record.
    const again = await claimSend(request({ store, attempt: 2, now: T0 + 30_000 }));
    assert.ok(!again.go && again.folded);
    // ... and is told the delivery was its own attempt 1's, to record it again (its row may be lost).
    assert.deepEqual(again.own, { attempt: 1, outcome: 'HTTP 200' });
    // Written over a claim another attempt holds: that one's retry folds too.
    const raced = memoryClaims();
    assert.ok((await claimSend(request({ store: raced, holder: 'm2' }))).go);
    assert.equal(await settleFirst({ ...settled, store: raced }), undefined);
    const back = await claimSend(request({ store: raced, holder: 'm2', attempt: 2, now: T0 + 61_000 }));
    assert.ok(!back.go && back.folded);
    // Another message's delivery: a copy, folded, never recorded as delivered.
    assert.equal(back.own, undefined);
  });

  it('makes another message wait while the first fan-out may still be sending, then reads the claim', async () => {
    const store = memoryClaims();
    const horizon = firstFanOutHorizon(T0, 60_000, 10_000);
    assert.equal(horizon, T0 + 60_000 + FIRST_WINDOW_MS + 60_000);
    const early = await claimSend(request({ store, holder: 'copy', horizon }));
    assert.ok(!early.go && !early.folded);
    assert.match(early.go ? '' : early.reason, /first fan-out may still be sending/);
    // Its own retry after the horizon, nothing delivered: it sends.
    const later = await claimSend(request({ store, holder: 'copy', attempt: 2, now: horizon + 1, horizon }));
    assert.ok(later.go);
    // Had the first fan-out delivered, the copy would have folded at once, horizon or not.
    const delivered = memoryClaims();
    await settleFirst({
      store: delivered,
      id,
      holder: 'first',
      attempt: 1,
      now: T0,
      timeoutMs: 10_000,
      detail: 'HTTP 200',
    });
    const folded = await claimSend(request({ store: delivered, holder: 'copy', horizon }));
    assert.ok(!folded.go && folded.folded);
    assert.match(
      folded.go ? '' : folded.reason,
      /already delivered to this destination \(the send-once claim of message first \(attempt 1\) was settled delivered: HTTP 200\)/,
    );
  });

  it('refuses a claim id that is not a SHA-256', async () => {
    await assert.rejects(claimSend(request({ store: memoryClaims(), id: '../etc' })), /not a claim id/);
  });
});
