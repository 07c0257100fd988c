/**
 * The Pulumi program itself (infra/index.ts) under mocks: it reads the stack config the way
 * `pulumi up` hands it over (gcp:project, gcp:region, settingsFile, and buildRoot for a
 * manifest built elsewhere), and every stack output settles.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { loadStackConfig } from '../../infra/config.ts';
import { BUNDLES, declare, PROJECT_NUMBER, type Recorded, resolveOutput } from './support.ts';

const PROJECT = 'acme-outdoor-prod';
const REGION = 'europe-west1';

describe('infra: index.ts under mocks, with its stack outputs', () => {
  let buildRoot: string;
  let recorded: Recorded;
  let outputs: Record<string, unknown>;

  before(async () => {
    buildRoot = mkdtempSync(join(tmpdir(), 'eventbus-infra-program-'));
    mkdirSync(join(buildRoot, 'dist'));
    writeFileSync(join(buildRoot, 'dist', 'bundles.json'), JSON.stringify(BUNDLES));
    const previous = pulumi.runtime.allConfig();
    try {
      recorded = await declare(async () => {
        pulumi.runtime.setAllConfig(
          {
            'gcp:project': PROJECT,
            'gcp:region': REGION,
            'eventbus:settingsFile': 'environments/example.yaml',
            'eventbus:buildRoot': buildRoot,
            // The example lists browser origins: the gateway's session salt, a config secret.
            'eventbus:sessionSalt': 'salt-of-the-test',
          },
          ['eventbus:sessionSalt'],
        );
        const program = await import('../../infra/index.ts');
        outputs = {
          gatewayUrl: await resolveOutput(program.gatewayUrl),
          publishUrl: program.publishUrl,
          dataset: await resolveOutput(program.dataset),
          topics: await resolveOutput(program.topics),
          subscriptions: await resolveOutput(program.subscriptions),
          registryBucket: await resolveOutput(program.registryBucket),
        };
      });
    } finally {
      pulumi.runtime.setAllConfig(previous);
    }
  });
  after(() => rmSync(buildRoot, { recursive: true, force: true }));

  it('declares the environment from the stack config', () => {
    assert.ok(recorded.resources.length > 20, `${recorded.resources.length} resources`);
    const run = recorded.resources.find((r) => r.type === 'gcp:cloudrunv2/service:Service');
    assert.equal(run?.inputs['project'], PROJECT);
    assert.equal(run?.inputs['location'], REGION);
  });

  it('exports the gateway URL, the native publish URL, the dataset, topics and subscriptions', () => {
    const { plan } = loadStackConfig({
      project: PROJECT,
      region: REGION,
      settingsFile: 'environments/example.yaml',
    });
    assert.deepEqual(outputs, {
      gatewayUrl: `https://gateway-${PROJECT_NUMBER}.${REGION}.run.app`,
      publishUrl: `https://pubsub.googleapis.com/v1/projects/${PROJECT}/topics/events:publish`,
      dataset: plan.dataset,
      topics: plan.topics.map((t) => t.name),
      subscriptions: plan.subscriptions.map((s) => s.name),
      registryBucket: `${PROJECT}-acme-prod-registry`,
    });
  });

  it('declares the registry bucket that npm start creates locally: private, kept on destroy, in the data location', () => {
    const { plan } = loadStackConfig({
      project: PROJECT,
      region: REGION,
      settingsFile: 'environments/example.yaml',
    });
    const buckets = recorded.resources.filter(
      (r) => r.type === 'gcp:storage/bucket:Bucket' && String(r.inputs['name']).endsWith('-registry'),
    );
    assert.equal(buckets.length, 1);
    const registry = buckets[0]?.inputs ?? {};
    assert.equal(registry['name'], plan.buckets[0]?.name);
    assert.equal(registry['location'], plan.location);
    assert.equal(registry['uniformBucketLevelAccess'], true);
    assert.equal(registry['publicAccessPrevention'], 'enforced');
    assert.equal(registry['forceDestroy'], false);
  });
});
