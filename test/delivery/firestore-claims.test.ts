/**
 * The Firestore claim store (adapters/firestore-claims.ts) against the Firestore emulator on an
 * ephemeral loopback port: the claim store contract every store keeps
 * (test/support/claim-store-contract.ts) and the expiry as its TTL timestamp; under IAM; and,
 * with a recording sender, credentials only over TLS and a 401 retried once with fresh ones.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFirestoreClaimStore, EXPIRE_AT_FIELD, noDatabase } from '../../adapters/firestore-claims.ts';
import type { TransportResponse } from '../../adapters/http-sender.ts';
import { workloadMember } from '../../core/access/needs.ts';
import type { ClaimKey } from '../../core/claims/claim-store.ts';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import { type FirestoreEmulator, startFirestoreEmulator } from '../../emulators/firestore/server.ts';
import { claimStoreContract } from '../support/claim-store-contract.ts';

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

  it('writes the expiry as the timestamp its TTL policy reads', async () => {
    const s = store();
    const k = key('identities');
    assert.ok((await s.create(k, { message_id: 'm1' }, Date.now() + HOUR)).created);
    const doc = await (
      await fetch(`${emulator.url}/v1/projects/p/databases/claims-test/documents/identities/${k.id}`)
    ).json();
    assert.match(
      (doc as { fields: Record<string, { timestampValue?: string }> }).fields[EXPIRE_AT_FIELD]
        ?.timestampValue ?? '',
      /Z$/,
    );
  });

  it('refuses its own TTL field among the fields', async () => {
    await assert.rejects(store().create(key(), { [EXPIRE_AT_FIELD]: 'x' }, Date.now()), /own field/);
  });

  claimStoreContract('firestore', {
    store: () => store(),
    // Written by hand (or by an older release): a map where a number belongs, and no expiry.
    async writeMalformed(k) {
      const url = `${emulator.url}/v1/projects/p/databases/claims-test/documents/${k.space}?documentId=${k.id}`;
      const bad = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          fields: { lease_until: { mapValue: { fields: { x: { integerValue: '1' } } } } },
        }),
      });
      assert.equal(bad.status, 200, await bad.clone().text());
    },
    missing: () =>
      createFirestoreClaimStore({ project: 'p', database: 'absent-db', emulatorHost: emulator.host }),
    unreachable: () =>
      createFirestoreClaimStore({ project: 'p', database: 'claims-test', emulatorHost: '127.0.0.1:1' }),
    missingError: /HTTP 404 NOT_FOUND The database absent-db does not exist for project p/,
    sampleVersion: '2026-11-25T00:00:00.000001Z',
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

describe('firestore claim store: a missing database is not a missing document', () => {
  const notFound = (message: string) => ({ error: 'NOT_FOUND', body: { error: { code: 404, message } } });
  it("tells Firestore's two wordings of a missing database from a missing document", () => {
    assert.equal(noDatabase(notFound('The database claims does not exist for project p.')), true);
    assert.equal(
      noDatabase(
        notFound(
          'The project p does not exist or it does not contain an active Cloud Datastore or Cloud Firestore database.',
        ),
      ),
      true,
    );
    assert.equal(
      noDatabase(notFound('Document "projects/p/databases/d/documents/sends/x" not found.')),
      false,
    );
    assert.equal(
      noDatabase(notFound('No document to update: projects/p/databases/d/documents/sends/x')),
      false,
    );
    assert.equal(
      noDatabase({
        error: 'FAILED_PRECONDITION',
        body: { error: { message: 'The database d does not exist for project p' } },
      }),
      false,
    );
  });
});
