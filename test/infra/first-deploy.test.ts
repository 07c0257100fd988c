/**
 * What a first `pulumi up` into a brand-new project needs that mocks cannot prove by running it
 * (docs/deploy.md, "First deploy into a new project"): the graph is tested instead. Every
 * resource waits for the APIs to be enabled and to have settled, as the engine would be told
 * (explicit `dependsOn` and every input's resources). The deployer roles each declared type needs
 * are checked over every settings variant by variants.test.ts.
 */
import assert from 'node:assert/strict';
import { API_SETTLE } from '../../infra/apis.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, dependenciesOf, type Recorded, SETTINGS_FILES } from './support.ts';

const SLEEP = 'time:index/sleep:Sleep';

const API = 'gcp:projects/service:Service';

for (const stack of SETTINGS_FILES) {
  describe(`infra: a first deploy into a new project (${stack.settingsFile})`, () => {
    let recorded: Recorded;

    before(async () => {
      const config = loadStackConfig(stack);
      recorded = await declare(() => declareEnvironment(config, BUNDLES));
    });

    it('waits after enabling the APIs, and every other resource waits for that', () => {
      const entries = [...recorded.graph.entries()];
      const sleeps = entries.filter(([, r]) => r.type === SLEEP);
      assert.equal(sleeps.length, 1, 'one wait');
      const [sleepUrn] = sleeps[0] as [string, unknown];
      const apis = entries.filter(([, r]) => r.type === API).map(([urn]) => urn);
      assert.ok(apis.length > 10);
      // The wait follows every enablement.
      const before = dependenciesOf(recorded, sleepUrn);
      for (const api of apis) assert.ok(before.has(api), `the wait follows ${api}`);
      const sleep = recorded.resources.find((r) => r.type === SLEEP);
      assert.equal(sleep?.inputs['createDuration'], API_SETTLE);
      // Every custom resource that is not an API (or the wait) comes after it.
      const late = entries
        .filter(([, r]) => r.custom && r.type !== API && r.type !== SLEEP)
        .filter(([urn]) => !dependenciesOf(recorded, urn).has(sleepUrn))
        .map(([, r]) => `${r.type} ${r.name}`);
      assert.deepEqual(late, []);
    });

    it('grants the source archives’ reader (Cloud Run’s service agent) only once the Run API is enabled and settled', () => {
      // The agent is made by enabling the Run API; its e-mail is computed, not a resource, so
      // the grant must come after the enablement and the wait (unverified: docs/deploy.md).
      const entries = [...recorded.graph.entries()];
      const runApi = entries.find(([, r]) => r.type === API && r.name.endsWith('-api-run'))?.[0];
      const sleep = entries.find(([, r]) => r.type === SLEEP)?.[0];
      const reader = recorded.resources.find(
        (r) =>
          r.type === 'gcp:storage/bucketIAMMember:BucketIAMMember' &&
          String(r.inputs['member']).includes('@serverless-robot-prod.iam.gserviceaccount.com'),
      );
      assert.ok(runApi && sleep && reader, 'the Run API, the wait and the agent’s grant are declared');
      const urn = entries.find(([, r]) => r.name === reader.name)?.[0] as string;
      const before = dependenciesOf(recorded, urn);
      assert.ok(before.has(sleep) && before.has(runApi));
    });
  });
}
