/**
 * The mutation run over the access table: every binding `pulumi up` gives a workload is removed
 * in turn, and the needs check (core/access/needs.ts, as test/infra/access-needs.test.ts runs it)
 * must then fail — a binding no need misses is either a need the table does not know yet or a
 * grant nothing uses. Workload bindings only: people's (analysts, pii_readers, studio lists),
 * Google's agents' and the build account's are checked by docs/deploy.md's table alone.
 */
import assert from 'node:assert/strict';
import { accessNeeds, WORKLOADS, workloadMember } from '../../core/access/needs.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { isBinding, policiesOf, unmet } from './access-support.ts';
import { BUNDLES, declare, SETTINGS_FILES } from './support.ts';

describe('infra: each workload binding is needed (the mutation run)', () => {
  for (const file of SETTINGS_FILES) {
    it(`${file.settingsFile}: removing any one fails a need`, async function () {
      this.timeout(60_000);
      const config = loadStackConfig(file);
      const recorded = await declare(() => declareEnvironment(config, BUNDLES));
      const needs = accessNeeds(config.plan, config.settings);
      const members = new Set(WORKLOADS.map((w) => workloadMember(w, file.project)));
      const bindings = recorded.resources.filter(isBinding);
      const mutable = bindings.filter((b) => members.has(String(b.inputs['member'])));
      assert.ok(mutable.length > 20, `${mutable.length} workload bindings`);
      const unneeded = mutable.flatMap((removed) => {
        const rest = policiesOf(
          bindings.filter((b) => b !== removed),
          file.project,
        );
        return unmet(needs, rest, file.project).length > 0
          ? []
          : [`${String(removed.inputs['member']).split('@')[0]} ${removed.inputs['role']} (${removed.name})`];
      });
      assert.deepEqual(unneeded, [], 'bindings whose removal no need notices');
    });
  }
});
