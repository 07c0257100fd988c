/**
 * Local provisioning of the claims database (local/provision.ts): the Firestore emulator gets
 * plan().claims' database in its location and a TTL policy on expire_at for identities and
 * sends; a second run changes nothing; a database in another location is a conflict, not moved.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAIM_FIELDS, plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import { type FirestoreEmulator, startFirestoreEmulator } from '../../emulators/firestore/server.ts';
import { provision } from '../../local/provision.ts';

describe('local: provisioning the claims database', () => {
  let dir: string;
  let emulator: FirestoreEmulator;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'provision-claims-'));
    emulator = await startFirestoreEmulator({ port: 0, dataDir: dir, fsync: 'none', ttlSweepMs: 0 });
  });
  after(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const planFor = (region: string) => {
    const checked = checkSettings({ name: 'house', project: 'house-project', region });
    assert.ok(checked.ok);
    return plan(checked.settings);
  };
  const targets = { project: 'house-project', functionUrl: () => 'http://127.0.0.1:1/' };

  it('creates the database, TTL policies and index exemptions once, then leaves them', async () => {
    const p = planFor('europe-west1');
    const first = await provision(p, { ...targets, firestore: emulator.host });
    const fields = Object.entries(CLAIM_FIELDS).flatMap(([c, names]) => [
      `firestore ttl, no index ${c}.expire_at`,
      ...names.map((n) => `firestore no index ${c}.${n}`),
    ]);
    assert.deepEqual(first.created, ['firestore database house-claims', ...fields]);
    const db = await (await fetch(`${emulator.url}/v1/projects/house-project/databases/house-claims`)).json();
    assert.equal((db as { locationId: string }).locationId, 'europe-west1');
    const field = `${emulator.url}/v1/projects/house-project/databases/house-claims/collectionGroups/sends/fields/expire_at`;
    assert.deepEqual(((await (await fetch(field)).json()) as { ttlConfig: unknown }).ttlConfig, {
      state: 'ACTIVE',
    });
    const again = await provision(p, { ...targets, firestore: emulator.host });
    assert.deepEqual(again.created, []);
    assert.equal(again.unchanged.length, 1 + fields.length);
    const claimed = `${emulator.url}/v1/projects/house-project/databases/house-claims/collectionGroups/sends/fields/claimed_at`;
    assert.deepEqual(((await (await fetch(claimed)).json()) as { indexConfig: unknown }).indexConfig, {
      indexes: [],
      usesAncestorConfig: false,
    });
    assert.deepEqual(again.conflicts, []);
  });

  it('reports a database in another location as a conflict', async () => {
    const moved = await provision(planFor('us-central1'), { ...targets, firestore: emulator.host });
    assert.equal(moved.conflicts.length, 1);
    assert.match(moved.conflicts[0] as string, /house-claims is in europe-west1, the plan says us-central1/);
  });
});
