/**
 * The grants `pulumi up` creates (declared under Pulumi's mocks) against what each workload's
 * code calls (core/access/needs.ts), evaluated as IAM does (emulators/common/iam-policy.ts): a
 * need no binding allows is a feature that cannot work in the cloud; a `denied` row allowed is a
 * workload that can do more than it must.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { accessNeeds } from '../../core/access/needs.ts';
import { loadStackConfig, REPO_ROOT } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { isBinding, policiesOf, unmet } from './access-support.ts';
import { BUNDLES, declare, SETTINGS_FILES } from './support.ts';

describe('infra: every call a workload makes is granted, and nothing it must not do', () => {
  for (const file of SETTINGS_FILES) {
    it(`${file.settingsFile}`, async () => {
      const config = loadStackConfig(file);
      const recorded = await declare(() => declareEnvironment(config, BUNDLES));
      const policies = policiesOf(recorded.resources.filter(isBinding), file.project);
      const needs = accessNeeds(config.plan, config.settings);
      assert.ok(needs.length > 30, `${needs.length} needs`);
      assert.deepEqual(unmet(needs, policies, file.project), []);
      // Each row names the file that makes the call: it exists, so the table cannot point nowhere.
      const nowhere = needs
        .filter((n) => !n.denied && !existsSync(join(REPO_ROOT, n.code)))
        .map((n) => n.code);
      assert.deepEqual([...new Set(nowhere)], []);
    });
  }
});
