/**
 * plan().claims: the send-once claims' Firestore database, named within Firestore's database id
 * rules (checked by the emulator's own rule, emulators/firestore/admin.ts) and in the region; the
 * store the settings choose, and with `bigtable` the instance (named within Bigtable's id rules),
 * its cluster and zone, the table, the adapter's column family and its GC max age.
 */
import assert from 'node:assert/strict';
import { CLAIM_FAMILY, CLAIM_MAX_AGE_SECONDS } from '../../../adapters/bigtable-claims.ts';
import { bigtableInstanceId, isBigtableId } from '../../../core/claims/claims-plan.ts';
import { SEND_ONCE_DAYS } from '../../../core/claims/send-once.ts';
import { claimsDatabaseId, plan } from '../../../core/plan.ts';
import { checkSettings } from '../../../core/settings.ts';
import { checkDatabaseId } from '../../../emulators/firestore/admin.ts';

describe('plan: claims', () => {
  it('names the database after the environment, underscores as hyphens', () => {
    assert.equal(claimsDatabaseId('production'), 'production-claims');
    assert.equal(claimsDatabaseId('eu_main'), 'eu-main-claims');
    assert.equal(claimsDatabaseId('a'), 'a-claims');
  });

  it('keeps a long name within 63 characters, valid and unique', () => {
    const a = claimsDatabaseId(`${'x'.repeat(58)}-one`);
    const b = claimsDatabaseId(`${'x'.repeat(58)}-two`);
    for (const id of [a, b, claimsDatabaseId('a'.repeat(63)), claimsDatabaseId(`b${'_'.repeat(62)}`)]) {
      assert.ok(id.length <= 63 && id.length >= 4, id);
      assert.doesNotThrow(() => checkDatabaseId(id), id);
    }
    assert.notEqual(a, b);
  });

  it("puts the database in the settings' region", () => {
    const checked = checkSettings({ name: 'house', project: 'house-project', region: 'europe-west1' });
    assert.ok(checked.ok);
    assert.deepEqual(plan(checked.settings).claims, {
      store: 'firestore',
      database: 'house-claims',
      location: 'europe-west1',
    });
  });

  it("with store: bigtable, plans the instance, its cluster in the region's -b zone, the table and family", () => {
    const checked = checkSettings({
      name: 'house',
      project: 'house-project',
      region: 'europe-west1',
      claims: { store: 'bigtable' },
    });
    assert.ok(checked.ok);
    const claims = plan(checked.settings).claims;
    assert.equal(claims.store, 'bigtable');
    // The Firestore database stays planned: claims taken before a switch are only there.
    assert.equal(claims.database, 'house-claims');
    assert.deepEqual(claims.bigtable, {
      instance: 'house-claims',
      cluster: 'europe-west1-b',
      zone: 'europe-west1-b',
      nodes: 1,
      storage: 'SSD',
      table: 'claims',
      family: CLAIM_FAMILY,
      maxAgeSeconds: CLAIM_MAX_AGE_SECONDS,
    });
    assert.equal(CLAIM_FAMILY, 'c');
    assert.equal(CLAIM_MAX_AGE_SECONDS, (SEND_ONCE_DAYS + 1) * 86_400);
  });

  it('takes the nodes, storage and zone the settings give', () => {
    const checked = checkSettings({
      name: 'house',
      project: 'house-project',
      region: 'us-central1',
      claims: { store: 'bigtable', bigtable: { nodes: 3, storage: 'HDD', zone: 'us-central1-f' } },
    });
    assert.ok(checked.ok);
    const bt = plan(checked.settings).claims.bigtable;
    assert.equal(bt?.nodes, 3);
    assert.equal(bt?.storage, 'HDD');
    assert.equal(bt?.zone, 'us-central1-f');
    assert.equal(bt?.cluster, 'us-central1-f');
    assert.ok(bt && isBigtableId(bt.cluster, 30));
  });

  it('plans no Bigtable for the default store', () => {
    const checked = checkSettings({ name: 'house', project: 'house-project', region: 'europe-west1' });
    assert.ok(checked.ok);
    assert.equal(plan(checked.settings).claims.bigtable, undefined);
  });

  it("names the instance within Bigtable's id rules (6-33 characters), unique when cut", () => {
    assert.equal(bigtableInstanceId('a'), 'a-claims');
    assert.equal(bigtableInstanceId('eu_main'), 'eu-main-claims');
    const a = bigtableInstanceId(`${'x'.repeat(40)}-one`);
    const b = bigtableInstanceId(`${'x'.repeat(40)}-two`);
    assert.notEqual(a, b);
    for (const name of ['a', 'ab', 'shop_', `${'x'.repeat(40)}-one`, `b${'_'.repeat(62)}`, 'z'.repeat(63)]) {
      const id = bigtableInstanceId(name);
      assert.ok(isBigtableId(id, 33), `${name} → ${id}`);
    }
    assert.ok(!isBigtableId('abc', 33) && !isBigtableId('x'.repeat(34), 33) && !isBigtableId('ab-cd-', 33));
  });
});
