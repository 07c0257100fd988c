/**
 * What every claim store (core/claims/claim-store.ts) promises, as one mocha suite that each
 * store's test file runs against its own emulator (test/delivery/firestore-claims.test.ts,
 * test/delivery/bigtable-claims.test.ts): create only if absent (50 concurrent creators, one
 * wins), replace and release at a version, read, an expired claim still held until replaced, a
 * malformed record read as such and replaced, refusals, an unreachable store rejecting and a
 * missing table or database refused on every call (never read as an absent claim); and
 * send once (core/claims/send-once.ts) over the store: a first fan-out settled, a copy folded, a
 * lease taken over.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import type { ClaimKey, ClaimStore } from '../../core/claims/claim-store.ts';
import { claimSend, leaseMs, settleFirst, settleSend } from '../../core/claims/send-once.ts';
import { CLAIMS_T0, sendRequest } from './memory-claims.ts';

export interface ClaimStoreUnderTest {
  /** The store, its emulator started (called inside the tests, after the caller's `before`). */
  store(): ClaimStore;
  /**
   * Writes, around the store, a record under `key` this code could not have written: fields that
   * are not flat values, or no expiry, or whatever the store's format cannot hold.
   */
  writeMalformed(key: ClaimKey): Promise<void>;
  /** A store whose table or database does not exist: every call is refused. */
  missing(): ClaimStore;
  /** A store at an address where nothing listens. */
  unreachable(): ClaimStore;
  /** What the refusal of `missing()` says. */
  readonly missingError: RegExp;
  /** A well-formed version of this store (for calls that never reach a record). */
  readonly sampleVersion: string;
}

const HOUR = 3_600_000;

export function claimStoreContract(name: string, under: ClaimStoreUnderTest): void {
  describe(`${name}: the claim store contract`, () => {
    let n = 0;
    const key = (space: ClaimKey['space'] = 'sends'): ClaimKey => ({
      space,
      id: createHash('sha256').update(`${name} ${process.pid} ${Date.now()} ${n++}`).digest('hex'),
    });

    it('creates once; a second create reads the first claim back as held, its fields as written', async () => {
      const s = under.store();
      const k = key('identities');
      const expireAt = Date.now() + HOUR;
      const fields = {
        message_id: 'm1',
        attempt: 1,
        ok: true,
        ratio: 0.25,
        text: '{"not":"json"}',
        big: 2 ** 53 - 1,
      };
      const first = await s.create(k, fields, expireAt);
      assert.equal(first.created, true);
      const second = await s.create(k, { message_id: 'm2', attempt: 2, ok: false, ratio: 1 }, expireAt + 1);
      assert.ok(!second.created && first.created);
      assert.deepEqual(second.held.fields, fields);
      assert.equal(second.held.version, first.version);
      assert.equal(second.held.expireAt, expireAt);
      assert.equal(second.held.malformed, undefined);
    });

    it('replaces and releases only at the current version: a stale version loses', async () => {
      const s = under.store();
      const k = key();
      const made = await s.create(k, { state: 'sending' }, Date.now() + HOUR);
      assert.ok(made.created);
      const v2 = await s.replace(k, made.version, { state: 'sent' }, Date.now() + HOUR);
      assert.ok(v2 !== undefined && v2 !== made.version);
      assert.equal(await s.replace(k, made.version, { state: 'stolen' }, Date.now() + HOUR), undefined);
      assert.equal(await s.release(k, made.version), false);
      const held = await s.create(k, { state: 'x' }, 0);
      assert.ok(!held.created && held.held.fields['state'] === 'sent' && held.held.version === v2);
      assert.equal(await s.release(k, v2), true);
      assert.equal(await s.release(k, v2), false, 'already released');
      assert.equal(
        await s.replace(k, v2, { state: 'late' }, Date.now() + HOUR),
        undefined,
        'nothing to replace',
      );
      assert.equal(await s.read(k), undefined, 'the stale replace wrote nothing');
      assert.equal((await s.create(k, { state: 'again' }, Date.now() + HOUR)).created, true);
    });

    it('reads a record as it is, and none where there is none', async () => {
      const s = under.store();
      const k = key('pending');
      assert.equal(await s.read(k), undefined);
      const made = await s.create(k, { entries: '[]' }, Date.now() + HOUR);
      assert.ok(made.created);
      const held = await s.read(k);
      assert.deepEqual(held?.fields, { entries: '[]' });
      assert.equal(held?.version, made.version);
      const other = await s.read({ space: 'sends', id: k.id });
      assert.equal(other, undefined, 'the spaces are apart');
    });

    it('50 concurrent creators of one claim: exactly one created, every other sees its fields', async () => {
      const s = under.store();
      const k = key();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => s.create(k, { writer: i }, Date.now() + HOUR)),
      );
      const winners = answers.filter((a) => a.created);
      assert.equal(winners.length, 1);
      const winner = answers.findIndex((a) => a.created);
      for (const a of answers) if (!a.created) assert.deepEqual(a.held.fields, { writer: winner });
    });

    it('an expired claim is still held until replaced, and a replace takes it over', async () => {
      const s = under.store();
      const k = key();
      const old = await s.create(k, { state: 'sending' }, Date.now() - 1000);
      assert.ok(old.created);
      const again = await s.create(k, { state: 'sending' }, Date.now() + HOUR);
      assert.ok(!again.created && again.held.expireAt < Date.now());
      const taken = await s.replace(
        k,
        again.held.version,
        { state: 'sending', by: 'second' },
        Date.now() + HOUR,
      );
      assert.ok(taken);
      assert.deepEqual((await s.read(k))?.fields, { state: 'sending', by: 'second' });
    });

    it('a malformed record reads as such (never a throw) and is replaced: the delivery goes on', async () => {
      const s = under.store();
      const k = key();
      await under.writeMalformed(k);
      const read = await s.read(k);
      assert.equal(typeof read?.malformed, 'string');
      assert.deepEqual(read?.fields, {});
      const v = await claimSend(sendRequest(k.id, { store: s, attempt: 2, now: Date.now() }));
      assert.ok(v.go && v.ticket, 'not wedged: the attempt goes out');
      assert.match(v.ticket.note ?? '', /^replaced a malformed send-once claim \(/);
      assert.equal(await settleSend(s, v.ticket, 'delivered', 'HTTP 200'), undefined);
      const copy = await claimSend(sendRequest(k.id, { store: s, holder: 'm2', now: Date.now() + 1000 }));
      assert.ok(!copy.go && copy.folded);
      // An identity claim that is malformed: replaced, the copy is first; the next one is not.
      const ik = key('identities');
      await under.writeMalformed(ik);
      const sighting = { digest: ik.id, event_time: '2026-11-27T00:00:00Z', message_id: 'm9' };
      assert.deepEqual(await createIdentityClaims(s)(sighting), { first: true });
      assert.equal((await createIdentityClaims(s)({ ...sighting, message_id: 'm10' })).first, false);
    });

    it('refuses a key that is not a SHA-256 before any call', async () => {
      const s = under.unreachable();
      await assert.rejects(s.create({ space: 'sends', id: 'not-hex' }, {}, Date.now()), /not a claim id/);
      await assert.rejects(s.read({ space: 'sends', id: 'A'.repeat(64) }), /not a claim id/);
    });

    it('an unreachable store rejects every call, a refusing one a create: never answering wrongly', async () => {
      const s = under.unreachable();
      const k = key();
      await assert.rejects(s.create(k, { a: 1 }, Date.now() + HOUR));
      await assert.rejects(s.read(k));
      await assert.rejects(s.replace(k, under.sampleVersion, { a: 1 }, Date.now() + HOUR));
      await assert.rejects(s.release(k, under.sampleVersion));
      await assert.rejects(under.missing().create(key(), {}, Date.now() + HOUR), under.missingError);
    });

    it('a store whose table or database is missing refuses every call: never "absent", never "lost"', async () => {
      const s = under.missing();
      const k = key();
      await assert.rejects(s.create(k, { a: 1 }, Date.now() + HOUR), under.missingError);
      await assert.rejects(s.read(k), under.missingError);
      await assert.rejects(
        s.replace(k, under.sampleVersion, { a: 1 }, Date.now() + HOUR),
        under.missingError,
      );
      await assert.rejects(s.release(k, under.sampleVersion), under.missingError);
    });

    it('send once over the store: a first fan-out settled, a copy folded, a lease taken over', async () => {
      const s = under.store();
      const first = key();
      const at = { store: s, id: first.id, holder: 'm1', attempt: 1, now: CLAIMS_T0, timeoutMs: 10_000 };
      assert.equal(await settleFirst({ ...at, detail: 'HTTP 200' }), undefined);
      const copy = await claimSend(sendRequest(first.id, { store: s, holder: 'm2', now: CLAIMS_T0 + 5000 }));
      assert.ok(!copy.go && copy.folded, 'the copy folds into the first delivery');
      assert.equal((await s.read(first))?.fields['outcome'], 'HTTP 200');

      const leased = key();
      const mine = await claimSend(sendRequest(leased.id, { store: s }));
      assert.ok(mine.go && mine.ticket);
      const early = await claimSend(
        sendRequest(leased.id, { store: s, holder: 'm2', now: CLAIMS_T0 + 1000 }),
      );
      assert.ok(!early.go && !early.folded, 'another holder waits within the lease');
      const late = CLAIMS_T0 + leaseMs(10_000) + 1;
      const theirs = await claimSend(sendRequest(leased.id, { store: s, holder: 'm2', now: late }));
      assert.ok(theirs.go && theirs.ticket, 'past the lease it is taken over');
      assert.equal(await settleSend(s, theirs.ticket, 'delivered', 'HTTP 201'), undefined);
      // The first holder's late answer settles nothing: the record is the taker's.
      assert.equal(await settleSend(s, mine.ticket, 'delivered', 'HTTP 200'), undefined);
      const record = await s.read(leased);
      assert.equal(record?.fields['holder'], 'm2');
      assert.equal(record?.fields['outcome'], 'HTTP 201');
    });
  });
}
