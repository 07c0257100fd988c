/**
 * The claim stores' edges that their twins cannot stage (docs/testing.md, the `claim-stores`
 * mutation run): rows and documents no code of ours writes, read as `malformed` rather than taken
 * for a claim; a claim released between a refused create and its read, claimed again a bounded
 * number of times; a key or version of another shape refused before any call; and the words a
 * refusal carries. Each store is driven through a recording client or sender, so every call it
 * makes is counted.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  claimRecord,
  createBigtableClaimStore,
  heldOfCells,
  UNVERSIONED,
} from '../../adapters/bigtable-claims.ts';
import type { ReadCell } from '../../adapters/bigtable-wire.ts';
import { claimDocument, createFirestoreClaimStore, heldOf } from '../../adapters/firestore-claims.ts';
import type { UnaryCall, UnaryClient } from '../../adapters/grpc-unary.ts';
import type { TransportResponse } from '../../adapters/http-sender.ts';
import type { ClaimKey } from '../../core/claims/claim-store.ts';
import type { OutboundRequest } from '../../core/platforms/driver.ts';

const id = (text: string): string => createHash('sha256').update(text).digest('hex');
const TOKEN = 'a'.repeat(32);
const key: ClaimKey = { space: 'sends', id: id('edge') };
/** A key of another shape: an id that is not 64 hex characters. */
const badKey = { space: 'sends', id: 'not-a-claim-id' } as ClaimKey;

describe('bigtable claim store: rows it did not write, and its bounded create', () => {
  const cell = (qualifier: string, value: string, family = 'c'): ReadCell => ({
    family,
    qualifier,
    timestampMicros: 1,
    value: Buffer.from(value),
  });
  const held = (...cells: ReadCell[]) => heldOfCells(cells);

  it('reads its own one cell back whole', () => {
    assert.deepEqual(held(cell('r', claimRecord(TOKEN, { holder: 'm1', attempt: 2 }, 1234))), {
      fields: { holder: 'm1', attempt: 2 },
      version: TOKEN,
      expireAt: 1234,
    });
  });

  it('a one-cell row whose expiry, fields or columns are not a claim reads malformed at its token', () => {
    const cases: [ReadCell[], RegExp][] = [
      [[cell('r', `${TOKEN} soon {}`)], /no expiry \(epoch ms\): "soon"/],
      [[cell('r', `${TOKEN} 12`)], /its fields are not JSON/],
      [[cell('r', `${TOKEN} 12 [1]`)], /not a JSON object/],
      [[cell('r', `${TOKEN} 12 null`)], /not a JSON object/],
      [[cell('r', `${TOKEN} 12 "x"`)], /not a JSON object/],
      [[cell('r', `${TOKEN} 12 {"a":{"b":1}}`)], /claim field a is not a flat value: \{"b":1\}/],
      [[cell('r', claimRecord(TOKEN, {}, 12)), cell('r', 'x', 'other')], /a cell not of a claim: other:r/],
      [[cell('r', claimRecord(TOKEN, {}, 12)), cell('z', 'x')], /a cell not of a claim: c:z/],
    ];
    for (const [cells, why] of cases) {
      const h = held(...cells);
      assert.equal(h?.version, TOKEN, JSON.stringify(h));
      assert.match(h?.malformed ?? '', why);
      assert.deepEqual([h?.fields, h?.expireAt], [{}, 0]);
    }
    // Only its own family's cells count: another family's `r` is a stranger, never the record.
    assert.equal(held(cell('r', claimRecord(TOKEN, {}, 12), 'other'))?.version, UNVERSIONED);
  });

  it('takes as its version only a token of exactly 32 hex characters', () => {
    for (const version of [`${TOKEN}0`, `0${TOKEN}`, TOKEN.slice(1), TOKEN.toUpperCase()])
      assert.throws(() => claimRecord(version, {}, 1), /not a version of this claim store/, version);
  });

  /** A client whose CheckAndMutateRow answers `matched` in turn, and whose ReadRows finds nothing. */
  const client = (matched: boolean[]) => {
    const calls: UnaryCall[] = [];
    const c: UnaryClient = {
      call: async (call) => {
        calls.push(call);
        return Buffer.from([0x08, matched.shift() ? 0x01 : 0x00]);
      },
      stream: async (call) => {
        calls.push(call);
        return [];
      },
      connect: async () => {},
      close: async () => {},
    };
    return { calls, client: c };
  };
  const store = (c: UnaryClient) =>
    createBigtableClaimStore({ project: 'p', instance: 'i', table: 't', client: c });
  const methods = (calls: readonly UnaryCall[]) => calls.map((c) => c.path.split('/').pop());

  it('a claim released between its refused create and the read is claimed again, at most three times', async () => {
    const again = client([true, false]);
    assert.equal((await store(again.client).create(key, {}, 1)).created, true);
    assert.deepEqual(methods(again.calls), ['CheckAndMutateRow', 'ReadRows', 'CheckAndMutateRow']);

    const gone = client([true, true, true, true]);
    await assert.rejects(store(gone.client).create(key, {}, 1), /held, then gone, 3 times/);
    assert.deepEqual(methods(gone.calls), [
      'CheckAndMutateRow',
      'ReadRows',
      'CheckAndMutateRow',
      'ReadRows',
      'CheckAndMutateRow',
      'ReadRows',
    ]);
  });

  it('refuses a key of another shape before any call', async () => {
    const r = client([]);
    const s = store(r.client);
    await assert.rejects(s.create(badKey, {}, 1));
    await assert.rejects(s.read(badKey));
    await assert.rejects(s.replace(badKey, TOKEN, {}, 1));
    await assert.rejects(s.release(badKey, TOKEN));
    assert.deepEqual(r.calls, []);
  });
});

describe('firestore claim store: documents it did not write, and its bounded create', () => {
  const at = '2026-11-28T00:00:00.000001Z';
  const expiry = { timestampValue: '2026-12-05T00:00:00Z' };

  it('reads its own fields back, a double sent as a string included', () => {
    const doc = claimDocument(
      { holder: 'm1', attempt: 2, share: 0.5, ok: true },
      Date.parse(expiry.timestampValue),
    );
    assert.deepEqual(heldOf({ ...doc, updateTime: at }), {
      fields: { holder: 'm1', attempt: 2, share: 0.5, ok: true },
      version: at,
      expireAt: Date.parse(expiry.timestampValue),
    });
    assert.deepEqual(
      heldOf({ fields: { share: { doubleValue: '1.5' }, expire_at: expiry }, updateTime: at }).fields,
      {
        share: 1.5,
      },
    );
  });

  it('a document that is not a claim reads malformed at its version; one with no update time throws', () => {
    const map = heldOf({ fields: { a: { mapValue: { fields: {} } }, expire_at: expiry }, updateTime: at });
    assert.match(map.malformed ?? '', /claim field a is not a flat value/);
    assert.deepEqual([map.version, map.fields, map.expireAt], [at, {}, 0]);
    const noExpiry = heldOf({ fields: { a: { stringValue: 'x' } }, updateTime: at });
    assert.equal(noExpiry.malformed, 'no expire_at timestamp');
    assert.deepEqual([noExpiry.version, noExpiry.fields, noExpiry.expireAt], [at, {}, 0]);
    assert.throws(() => heldOf({ fields: {} }), /without its update time/);
  });

  it('refuses an expiry that is not a time', () => {
    assert.throws(() => claimDocument({}, Number.NaN), /not an expiry: NaN/);
    assert.throws(() => claimDocument({}, Number.POSITIVE_INFINITY), /not an expiry/);
  });

  const answer = (status: number, body: unknown): TransportResponse => ({
    kind: 'response',
    status,
    headers: {},
    body: JSON.stringify(body),
  });
  const refusal = (status: number, code: string, message: string) =>
    answer(status, { error: { code: status, status: code, message } });
  const exists = refusal(409, 'ALREADY_EXISTS', 'Document already exists');
  const noDocument = refusal(404, 'NOT_FOUND', 'Document "x" not found.');
  const recorder = (answers: TransportResponse[]) => {
    const seen: OutboundRequest[] = [];
    const send = async (r: OutboundRequest): Promise<TransportResponse> => {
      seen.push(r);
      return answers.shift() ?? { kind: 'network_error', message: 'no more answers' };
    };
    const store = createFirestoreClaimStore({
      project: 'p',
      database: 'd',
      emulatorHost: '127.0.0.1:1',
      send,
    });
    return { seen, store, methods: () => seen.map((r) => r.method) };
  };

  it('a claim released between its refused create and the read is claimed again, once', async () => {
    const again = recorder([exists, noDocument, answer(200, { updateTime: at })]);
    assert.deepEqual(await again.store.create(key, {}, 1), { created: true, version: at });
    assert.deepEqual(again.methods(), ['POST', 'GET', 'POST']);

    const gone = recorder([exists, noDocument, exists, noDocument]);
    await assert.rejects(
      gone.store.create(key, {}, 1),
      /^Error: Firestore read sends\/[0-9a-f]{64}: HTTP 404 NOT_FOUND/,
    );
    assert.deepEqual(gone.methods(), ['POST', 'GET', 'POST', 'GET']);

    const heldBy = recorder([
      exists,
      answer(200, { fields: { holder: { stringValue: 'm0' }, expire_at: expiry }, updateTime: at }),
    ]);
    assert.deepEqual(await heldBy.store.create(key, {}, 1), {
      created: false,
      held: { fields: { holder: 'm0' }, version: at, expireAt: Date.parse(expiry.timestampValue) },
    });
  });

  it('a create refused for another reason rejects with the status and message, reading nothing', async () => {
    const r = recorder([refusal(403, 'PERMISSION_DENIED', 'Missing or insufficient permissions.')]);
    await assert.rejects(
      r.store.create(key, {}, 1),
      (err: Error) =>
        err.message ===
        `Firestore create sends/${key.id}: HTTP 403 PERMISSION_DENIED Missing or insufficient permissions.`,
    );
    assert.deepEqual(r.methods(), ['POST']);
  });

  it('reads a missing document as absent and a missing database as a refusal', async () => {
    const r = recorder([
      noDocument,
      refusal(404, 'NOT_FOUND', 'The database d does not exist for project p.'),
    ]);
    assert.equal(await r.store.read(key), undefined);
    await assert.rejects(r.store.read(key), /HTTP 404 NOT_FOUND The database d does not exist/);
  });

  it('rejects a call that got no answer, and an emulator 401 without asking again', async () => {
    const lost = recorder([]);
    await assert.rejects(
      lost.store.read(key),
      /^Error: Firestore GET http:\/\/127\.0\.0\.1:1\/v1\/.*: no more answers$/,
    );
    const unauthorised = recorder([refusal(401, 'UNAUTHENTICATED', 'no'), answer(200, {})]);
    await assert.rejects(unauthorised.store.release(key, at), /HTTP 401 UNAUTHENTICATED/);
    assert.equal(unauthorised.seen.length, 1);
  });

  it('refuses a key of another shape before any call', async () => {
    const r = recorder([]);
    await assert.rejects(r.store.create(badKey, {}, 1));
    await assert.rejects(r.store.read(badKey));
    await assert.rejects(r.store.replace(badKey, at, {}, 1));
    await assert.rejects(r.store.release(badKey, at));
    assert.deepEqual(r.seen, []);
  });
});
