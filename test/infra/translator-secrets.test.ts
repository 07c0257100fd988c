/**
 * Translator signing secrets on the first `pulumi up` (core/translate/translator-secrets.ts): the
 * program grants the gateway roles/secretmanager.secretAccessor on the project, conditioned on
 * the translator prefix with the project NUMBER (the form Secret Manager shows conditions), after
 * the APIs are enabled; evaluated as IAM does, the gateway reads any secret under the prefix and
 * no other workload does, while a secret outside it (a destination's) stays out of its reach.
 */
import assert from 'node:assert/strict';
import { workloadMember } from '../../core/access/needs.ts';
import {
  secretConditionName,
  TRANSLATOR_SECRET_PREFIX,
  translatorSecretsCondition,
} from '../../core/translate/translator-secrets.ts';
import { allowed } from '../../emulators/common/iam-policy.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { PROJECT_NUMBER } from '../../infra/offline.ts';
import { isBinding, policiesOf } from './access-support.ts';
import { BUNDLES, declare, ofType, SETTINGS_FILES } from './support.ts';

const MEMBER = 'gcp:projects/iAMMember:IAMMember';
const ACCESS = 'secretmanager.versions.access';

describe('infra: translator signing secrets are readable by the gateway from the first deploy', () => {
  for (const { settingsFile, project, region } of SETTINGS_FILES)
    it(`${settingsFile}: one conditioned project grant, on the number-form prefix`, async () => {
      const config = loadStackConfig({ project, region, settingsFile });
      const recorded = await declare(() => declareEnvironment(config, BUNDLES));
      const grants = ofType(recorded, MEMBER).filter(
        (d) => d.inputs['role'] === 'roles/secretmanager.secretAccessor',
      );
      assert.equal(grants.length, 1, 'one project-level accessor grant');
      const [grant] = grants;
      assert.equal(grant?.inputs['member'], workloadMember('gateway', project));
      assert.deepEqual(grant?.inputs['condition'], translatorSecretsCondition(PROJECT_NUMBER));
      assert.equal(
        grant?.inputs['condition'].expression,
        `resource.name.startsWith("projects/${PROJECT_NUMBER}/secrets/${TRANSLATOR_SECRET_PREFIX}")`,
      );
      // Declared after the APIs are enabled, as every grant is (a new project refuses IAM before).
      assert.ok((recorded.dependsOn.get(grant?.name ?? '') ?? []).length > 0, 'waits for the APIs');

      const policies = policiesOf(recorded.resources.filter(isBinding), project);
      const may = (who: 'gateway' | 'forward' | 'studio', secret: string) => {
        const resource = `projects/${project}/secrets/${secret}/versions/3`;
        return allowed(policies, {
          principal: workloadMember(who, project),
          permission: ACCESS,
          resource,
          conditionName: secretConditionName(resource, project, PROJECT_NUMBER),
        });
      };
      assert.equal(may('gateway', `${TRANSLATOR_SECRET_PREFIX}stripe`), true);
      assert.equal(may('gateway', `${TRANSLATOR_SECRET_PREFIX}a-custom-name`), true);
      assert.equal(may('forward', `${TRANSLATOR_SECRET_PREFIX}stripe`), false);
      assert.equal(may('studio', `${TRANSLATOR_SECRET_PREFIX}stripe`), false);
      assert.equal(may('gateway', 'STRIPE_WEBHOOK_SECRET'), false, 'outside the prefix: its own grant');
      for (const s of config.plan.destinations.flatMap((d) => d.secrets))
        assert.equal(may('gateway', s), false, s);
      // Had the condition named the project id, nothing would match: Secret Manager shows numbers.
      const byId = policies.map((p) => ({
        ...p,
        bindings: p.bindings.map((b) =>
          b.condition?.expression.includes(PROJECT_NUMBER)
            ? { ...b, condition: { expression: b.condition.expression.replace(PROJECT_NUMBER, project) } }
            : b,
        ),
      }));
      const resource = `projects/${project}/secrets/${TRANSLATOR_SECRET_PREFIX}stripe/versions/1`;
      assert.equal(
        allowed(byId, {
          principal: workloadMember('gateway', project),
          permission: ACCESS,
          resource,
          conditionName: secretConditionName(resource, project, PROJECT_NUMBER),
        }),
        false,
      );
    });
});
