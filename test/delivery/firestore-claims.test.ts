/**
 * The Firestore claim store (adapters/firestore-claims.ts) against the Firestore emulator on an
 * ephemeral loopback port: create once (N concurrent creates, one `created`), held claims read
 * back, replace and release at a version, an expired claim still held until replaced; and, with
 * a recording sender, credentials only over TLS and a 401 retried once with fresh ones.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFirestoreClaimStore, EXPIRE_AT_FIELD } from '../../adapters/firestore-claims.ts';
import type { TransportResponse } from '../../adapters/http-sender.ts';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { workloadMember } from '../../core/access/needs.ts';
import type { ClaimKey } from '../../core/claims/claim-store.ts';
import { claimSend, settleSend } from '../../core/claims/send-once.ts';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import { type FirestoreEmulator, startFirestoreEmulator } from '../../emulators/firestore/server.ts';

const id = (text: string): string => createHash('sha256').update(text).digest('hex');
const HOUR = 3_600_000;

describe('firestore claim store against the emulator', () => {
  let dir: string;
  let emulator: FirestoreEmulator;
  let n = 0;
  const key = (space: ClaimKey['space'] = 'sends'): ClaimKey => ({ space, id: id(`claim-${n++}`) });
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firestore-claims-'));
    emulator = await startFirestoreEmulator({ port: 0, dataDir: dir, fsync: 'none', ttlSweepMs: 0 });
    const res = await fetch(`${emulator.url}/v1/projects/p/databases?databaseId=claims-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ locationId: 'europe-west1', type: 'FIRESTORE_NATIVE' }),
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const store = () =>
    createFirestoreClaimStore({ project: 'p', database: 'claims-test', emulatorHost: emulator.host });

  it('creates once; a second create reads the first claim back as held', async () => {
    const s = store();
    const k = key('identities');
    const expireAt = Date.now() + HOUR;
    const first = await s.create(k, { message_id: 'm1', attempt: 1, ok: true, ratio: 0.25 }, expireAt);
    assert.equal(first.created, true);
    const second = await s.create(k, { message_id: 'm2', attempt: 2, ok: false, ratio: 1 }, expireAt + 1);
    assert.equal(second.created, false);
    if (second.created || !first.created) return;
    assert.deepEqual(second.held.fields, { message_id: 'm1', attempt: 1, ok: true, ratio: 0.25 });
    assert.equal(second.held.version, first.version);
    assert.equal(second.held.expireAt, expireAt);
    const doc = await (
      await fetch(`${emulator.url}/v1/projects/p/databases/claims-test/documents/identities/${k.id}`)
    ).json();
    assert.match(
      (doc as { fields: Record<string, { timestampValue?: string }> }).fields[EXPIRE_AT_FIELD]
        ?.timestampValue ?? '',
      /Z$/,
    );
  });

  it('replaces and releases only at the current version', async () => {
    const s = store();
    const k = key();
    const made = await s.create(k, { state: 'sending' }, Date.now() + HOUR);
    assert.ok(made.created);
    const v2 = await s.replace(k, made.version, { state: 'sent' }, Date.now() + HOUR);
    assert.ok(v2 !== undefined && v2 !== made.version);
    assert.equal(await s.replace(k, made.version, { state: 'stolen' }, Date.now() + HOUR), undefined);
    assert.equal(await s.release(k, made.version), false);
    const held = await s.create(k, { state: 'x' }, 0);
    assert.ok(!held.created && held.held.fields.state === 'sent' && held.held.version === v2);
    assert.equal(await s.release(k, v2), true);
    assert.equal(await s.release(k, v2), false, 'already released');
    assert.equal(
      await s.replace(k, v2, { state: 'late' }, Date.now() + HOUR),
      undefined,
      'released: nothing to replace',
    );
    assert.equal((await s.create(k, { state: 'again' }, Date.now() + HOUR)).created, true);
  });

  it('reads a record as it is, and none where there is none (the consent wait’s pending records)', async () => {
    const s = store();
    const k = key('pending');
    assert.equal(await s.read(k), undefined);
    const made = await s.create(k, { entries: '[]' }, Date.now() + HOUR);
    assert.ok(made.created);
    const held = await s.read(k);
    assert.deepEqual(held?.fields, { entries: '[]' });
    assert.equal(held?.version, made.version);
  });

  it('N concurrent creates of one claim: exactly one created, every other sees its fields', async () => {
    const s = store();
    const k = key();
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) => s.create(k, { writer: i }, Date.now() + HOUR)),
    );
    const winners = answers.filter((a) => a.created);
    assert.equal(winners.length, 1);
    const winner = answers.findIndex((a) => a.created);
    for (const a of answers) if (!a.created) assert.deepEqual(a.held.fields, { writer: winner });
  });

  it('an expired claim is still held (TTL has not swept it) and is taken over by replace', async () => {
    const s = store();
    const k = key();
    const old = await s.create(k, { state: 'sending' }, Date.now() - 1000);
    assert.ok(old.created);
    const again = await s.create(k, { state: 'sending' }, Date.now() + HOUR);
    assert.ok(!again.created && again.held.expireAt < Date.now());
    if (again.created) return;
    const taken = await s.replace(
      k,
      again.held.version,
      { state: 'sending', by: 'second' },
      Date.now() + HOUR,
    );
    assert.ok(taken);
  });

  it('a malformed claim document is replaced from the claim store alone: the delivery goes on', async () => {
    const s = store();
    const k = key();
    const url = `${emulator.url}/v1/projects/p/databases/claims-test/documents/sends?documentId=${k.id}`;
    // Written by hand (or by an older release): a map where a number belongs, and no expiry.
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        fields: { lease_until: { mapValue: { fields: { x: { integerValue: '1' } } } } },
      }),
    });
    assert.equal(bad.status, 200, await bad.clone().text());
    const now = Date.now();
    const attempt = (holder: string, at: number) =>
      claimSend({
        store: s,
        id: k.id,
        holder,
        attempt: 2,
        now: at,
        timeoutMs: 10_000,
        force: false,
        privileged: false,
        horizon: undefined,
      });
    const v = await attempt('m1', now);
    assert.ok(v.go && v.ticket, 'not wedged: the attempt goes out');
    assert.match(
      v.ticket.note ?? '',
      /^replaced a malformed send-once claim \(claim field lease_until is not a flat value/,
    );
    // The replacement is a claim like any other: settled delivered, a copy folds on it.
    assert.equal(await settleSend(s, v.ticket, 'delivered', 'HTTP 200'), undefined);
    const copy = await attempt('m2', now + 1000);
    assert.ok(!copy.go && copy.folded);
    // An identity claim without its expiry: replaced, the copy is first.
    const ik = key('identities');
    await fetch(url.replace('/sends?', '/identities?').replace(k.id, ik.id), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { event_time: { stringValue: 'x' } } }),
    });
    const first = await createIdentityClaims(s)({
      digest: ik.id,
      event_time: '2026-11-27T00:00:00Z',
      message_id: 'm9',
    });
    assert.deepEqual(first, { first: true });
    const again = await createIdentityClaims(s)({
      digest: ik.id,
      event_time: '2026-11-27T00:00:00Z',
      message_id: 'm10',
    });
    assert.equal(again.first, false);
  });

  it('refuses a key that is not a SHA-256 and its own TTL field among the fields', async () => {
    const s = store();
    await assert.rejects(s.create({ space: 'sends', id: 'not-hex' }, {}, Date.now()), /not a claim id/);
    await assert.rejects(s.create(key(), { [EXPIRE_AT_FIELD]: 'x' }, Date.now()), /own field/);
  });

  it('rejects when the database does not exist (the caller fails the push)', async () => {
    const s = createFirestoreClaimStore({ project: 'p', database: 'absent-db', emulatorHost: emulator.host });
    await assert.rejects(s.create(key(), {}, Date.now() + HOUR), /HTTP 404 NOT_FOUND/);
  });
});

describe('firestore claim store under IAM (the grant infra/claims.ts binds)', () => {
  const DB = 'projects/p/databases/claims-iam';
  const store = workloadMember('store', 'p');
  const gateway = workloadMember('gateway', 'p');
  let dir: string;
  let emulator: FirestoreEmulator;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firestore-claims-iam-'));
    const file = join(dir, 'access.json');
    const condition = { title: 'claims database only', expression: `resource.name == "${DB}"` };
    writeFileSync(
      file,
      JSON.stringify({
        tokenSecret: '00',
        policies: [
          {
            resource: 'projects/p',
            bindings: [{ role: 'roles/datastore.user', members: [store], condition }],
          },
        ],
      }),
    );
    const identities = [store, gateway].map((member) => ({ member, port: 0 }));
    emulator = await startFirestoreEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      ttlSweepMs: 0,
      iam: { file, identities },
    });
    const res = await fetch(`${emulator.url}/v1/projects/p/databases?databaseId=claims-iam`, {
      method: 'POST',
      body: JSON.stringify({ locationId: 'europe-west1' }),
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const as = (member: string) =>
    createFirestoreClaimStore({
      project: 'p',
      database: 'claims-iam',
      emulatorHost: `127.0.0.1:${emulator.identityPorts.get(member)}`,
    });

  it('store claims on its own endpoint; a workload without the grant is refused, nothing written', async () => {
    const k: ClaimKey = { space: 'identities', id: id('iam') };
    await assert.rejects(as(gateway).create(k, {}, Date.now() + HOUR), /HTTP 403 PERMISSION_DENIED/);
    const made = await as(store).create(k, { by: 'store' }, Date.now() + HOUR);
    assert.ok(made.created, 'the refused create wrote nothing');
    assert.ok(await as(store).replace(k, made.version, { by: 'store', n: 2 }, Date.now() + HOUR));
  });
});

describe('firestore claim store: credentials', () => {
  const recorder = (answers: TransportResponse[]) => {
    const seen: OutboundRequest[] = [];
    return {
      seen,
      send: async (r: OutboundRequest): Promise<TransportResponse> => {
        seen.push(r);
        return answers.shift() ?? { kind: 'network_error', message: 'no more answers' };
      },
    };
  };
  const ok = (body: unknown): TransportResponse => ({
    kind: 'response',
    status: 200,
    headers: {},
    body: JSON.stringify(body),
  });
  const k: ClaimKey = { space: 'sends', id: id('credentials') };

  it('calls firestore.googleapis.com over TLS with the credentials, and re-asks them after a 401', async () => {
    let asked = 0;
    const auth = {
      getRequestHeaders: async () => new Headers({ authorization: `Bearer t${++asked}` }),
    };
    const r = recorder([
      { kind: 'response', status: 401, headers: {}, body: '{}' },
      ok({ updateTime: '2026-11-25T00:00:00.000001Z' }),
    ]);
    const s = createFirestoreClaimStore({
      project: 'proj',
      database: 'eventbus-prod-claims',
      auth,
      send: r.send,
    });
    const answer = await s.create(k, { a: 1 }, Date.now());
    assert.deepEqual(answer, { created: true, version: '2026-11-25T00:00:00.000001Z' });
    assert.equal(
      r.seen[0]?.url,
      `https://firestore.googleapis.com/v1/projects/proj/databases/eventbus-prod-claims/documents/sends?documentId=${k.id}`,
    );
    assert.equal(r.seen[0]?.headers.authorization, 'Bearer t1');
    assert.equal(r.seen[1]?.headers.authorization, 'Bearer t2');
  });

  it('sends no credentials to an emulator', async () => {
    const r = recorder([ok({ updateTime: '2026-11-25T00:00:00Z' })]);
    const auth = { getRequestHeaders: async () => new Headers({ authorization: 'Bearer secret' }) };
    const s = createFirestoreClaimStore({
      project: 'p',
      database: 'd-db1',
      emulatorHost: '127.0.0.1:1',
      auth,
      send: r.send,
    });
    await s.create(k, {}, Date.now());
    assert.equal(r.seen[0]?.url.startsWith('http://127.0.0.1:1/v1/'), true);
    assert.equal(r.seen[0]?.headers.authorization, undefined);
  });

  it('a refusal other than a lost precondition rejects', async () => {
    const denied: TransportResponse = {
      kind: 'response',
      status: 403,
      headers: {},
      body: JSON.stringify({
        error: { code: 403, status: 'PERMISSION_DENIED', message: 'Missing or insufficient permissions.' },
      }),
    };
    const r = recorder([denied, denied]);
    const s = createFirestoreClaimStore({
      project: 'p',
      database: 'd-db1',
      emulatorHost: '127.0.0.1:1',
      send: r.send,
    });
    await assert.rejects(s.release(k, '2026-11-25T00:00:00Z'), /PERMISSION_DENIED/);
    await assert.rejects(s.replace(k, '2026-11-25T00:00:00Z', {}, Date.now()), /PERMISSION_DENIED/);
  });
});
