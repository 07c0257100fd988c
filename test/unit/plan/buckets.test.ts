/** plan().buckets: the registry bucket's name is a valid, global-safe Cloud Storage bucket name. */
import assert from 'node:assert/strict';
import { registryBucketName } from '../../../core/plan.ts';
import { checkBucketName } from '../../../emulators/storage/names.ts';

describe('plan: buckets', () => {
  it('names the registry after the project and environment', () => {
    assert.equal(
      registryBucketName('acme-outdoor-prod', 'production'),
      'acme-outdoor-prod-production-registry',
    );
    assert.equal(registryBucketName('local-project', 'eu_main'), 'local-project-eu-main-registry');
  });

  it('stays within 63 characters and unique when the environment name is long', () => {
    const project = 'a-thirty-character-project-id0';
    const a = registryBucketName(project, `${'x'.repeat(40)}-one`);
    const b = registryBucketName(project, `${'x'.repeat(40)}-two`);
    for (const name of [a, b]) {
      assert.ok(name.length <= 63, name);
      assert.ok(name.startsWith(`${project}-`), name);
      assert.equal(checkBucketName(name), name);
    }
    assert.notEqual(a, b);
  });
});
