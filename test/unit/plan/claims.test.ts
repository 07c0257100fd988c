/**
 * plan().claims: the send-once claims' Firestore database, named within Firestore's database id
 * rules (checked by the emulator's own rule, emulators/firestore/admin.ts) and in the region.
 */
import assert from 'node:assert/strict';
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
    assert.deepEqual(plan(checked.settings).claims, { database: 'house-claims', location: 'europe-west1' });
  });
});
