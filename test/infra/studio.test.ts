/**
 * The studio on Google Cloud under mocks (environments/example.yaml, whose `studio` lists name a
 * domain, a group and a user): a private Cloud Run service from its bundle with built-in IAP on,
 * IAP's service agent its only invoker, every listed member IAP's accessor, nobody public, its
 * account granted the registry, the events dataset and query jobs, and `studioUrl` exported.
 */
import assert from 'node:assert/strict';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { IAP_ACCESSOR, studioMembers } from '../../infra/studio.ts';
import {
  BUNDLES,
  type Declared,
  declare,
  ofType,
  PROJECT_NUMBER,
  type Recorded,
  resolveOutput,
} from './support.ts';

const PROJECT = 'acme-outdoor-prod';
const SA = `serviceAccount:eventbus-studio@${PROJECT}.iam.gserviceaccount.com`;
const IAP_AGENT = `serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-iap.iam.gserviceaccount.com`;

describe('infra: the studio behind Cloud Run’s IAP', () => {
  let recorded: Recorded;
  let config: ReturnType<typeof loadStackConfig>;
  let studioUrl = '';

  before(async () => {
    config = loadStackConfig({
      project: PROJECT,
      region: 'europe-west1',
      settingsFile: 'environments/example.yaml',
    });
    recorded = await declare(async () => {
      studioUrl = await resolveOutput(declareEnvironment(config, BUNDLES).studioUrl);
    });
  });

  const service = (): Declared => {
    const found = ofType(recorded, 'gcp:cloudrunv2/service:Service').filter(
      (s) => s.inputs['name'] === 'studio',
    );
    assert.equal(found.length, 1);
    return found[0]!;
  };

  it('runs the studio bundle build-less, with IAP on and the invoker check kept', () => {
    const s = service().inputs;
    assert.equal(s['iapEnabled'], true);
    assert.notEqual(s['invokerIamDisabled'], true, 'the invoker check stays on');
    const container = s['template'].containers[0];
    assert.equal(container.image, 'scratch');
    assert.match(container.baseImageUri, /serverless-runtimes\/google-24-full\/runtimes\/nodejs24$/);
    assert.equal(container.sourceCode.cloudStorageSource.object, BUNDLES['studio']!.object);
    assert.equal(s['template'].serviceAccount, SA.replace('serviceAccount:', ''));
    const env = Object.fromEntries(
      container.envs.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    assert.equal(
      env['EVENTBUS_IAP_AUDIENCE'],
      `/projects/${PROJECT_NUMBER}/locations/europe-west1/services/studio`,
    );
    assert.equal(env['HOST'], '0.0.0.0');
    assert.match(env['EVENTBUS_GATEWAY_URL'], /^https:\/\/gateway-/, 'the creator shows the endpoint');
    // Its settings (the studio lists included) come in the mounted settings file.
    assert.equal(env['EVENTBUS_SETTINGS_FILE'], '/eventbus-settings/settings.json');
    assert.equal(s['template'].scaling.maxInstanceCount, config.plan.studio.sizing.max_instances);
    assert.ok(studioUrl.startsWith('https://studio-'), studioUrl);
  });

  it('keeps no CPU between requests: request-billed, idle at zero', () => {
    const container = service().inputs['template'].containers[0];
    assert.equal(container.resources.cpuIdle, true);
    assert.equal(service().inputs['template'].scaling.minInstanceCount ?? 0, 0);
  });

  it('lets only IAP’s service agent invoke it, and IAP admit exactly the settings’ lists', () => {
    const invokers = ofType(recorded, 'gcp:cloudrunv2/serviceIamMember:ServiceIamMember').filter(
      (m) => m.inputs['name'] === 'studio',
    );
    assert.deepEqual(
      invokers.map((m) => [m.inputs['role'], m.inputs['member']]),
      [['roles/run.invoker', IAP_AGENT]],
    );
    const accessors = ofType(recorded, 'gcp:iap/webCloudRunServiceIamMember:WebCloudRunServiceIamMember');
    assert.deepEqual(accessors.map((a) => a.inputs['member']).sort(), [
      'domain:acme.example',
      'group:marketing-ops@acme.example',
      'user:ana@acme.example',
    ]);
    assert.deepEqual(studioMembers(config.settings).sort(), accessors.map((a) => a.inputs['member']).sort());
    for (const a of accessors) {
      assert.equal(a.inputs['role'], IAP_ACCESSOR);
      assert.equal(a.inputs['cloudRunServiceName'], 'studio');
      assert.equal(a.inputs['location'], 'europe-west1');
    }
    assert.doesNotMatch(
      JSON.stringify(recorded.resources.map((r) => r.inputs)),
      /allUsers|allAuthenticatedUsers/,
    );
  });

  it('grants its account the registry bucket, the events dataset, the ops dataset to read (live events, alert states) and its exports table to write (access requests), query jobs, trace reads, the token store and run messages, nothing else', () => {
    const mine = recorded.resources
      .filter((r) => r.inputs['member'] === SA)
      .map(
        (r) =>
          `${r.inputs['role']} ${r.inputs['bucket'] ?? r.inputs['datasetId'] ?? r.inputs['secretId'] ?? r.inputs['topic'] ?? 'project'}${r.inputs['tableId'] ? `.${r.inputs['tableId']}` : ''}`,
      );
    const registry = config.plan.buckets.find((b) => b.purpose === 'registry')!.name;
    assert.deepEqual(mine.sort(), [
      // The audit row of each access request (studio/privacy-api.ts), that table only.
      'roles/bigquery.dataEditor eventbus_ops.exports',
      'roles/bigquery.dataEditor events',
      'roles/bigquery.dataViewer eventbus_ops',
      'roles/bigquery.jobUser project',
      // With column security: PII columns masked in its previews and dry runs.
      'roles/bigquerydatapolicy.maskedReader project',
      // The debugger's waterfall reads traces through Cloud Trace API v1.
      'roles/cloudtrace.user project',
      // The console's replays start with a run message.
      'roles/pubsub.publisher runs',
      'roles/secretmanager.secretAccessor eventbus-settings',
      'roles/secretmanager.secretAccessor eventbus-tokens',
      'roles/secretmanager.secretVersionManager eventbus-tokens',
      `roles/storage.objectAdmin ${registry}`,
    ]);
  });

  it('waits for its account’s grants before the service', () => {
    const deps = recorded.dependsOn.get(service().name) ?? [];
    for (const grant of ['studio-registry', 'studio-dataset', 'studio-jobs'])
      assert.ok(
        deps.some((d) => d.endsWith(grant)),
        `${grant} in ${deps.join(', ')}`,
      );
  });
});
