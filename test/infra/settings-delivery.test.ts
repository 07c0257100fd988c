/**
 * Settings reach the deployed workloads in a mounted secret, not one environment variable:
 * settings over Cloud Run's 32 KiB cap on a value deploy, and every variable stays small; past
 * Secret Manager's 64 KiB per version, `pulumi up` refuses before anything is created.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { SETTINGS_MAX_BYTES } from '../../infra/runtime-env.ts';
import { CLOUD_RUN_VALUE_LIMIT, largeSettings } from '../support/large-settings.ts';
import { BUNDLES, declare, ofType } from './support.ts';

describe('infra: settings over 32 KiB', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-large-settings-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const stackOf = (bytes: number) => {
    const file = join(dir, `settings-${bytes}.yaml`);
    // JSON is YAML: the stack reads it through the same parser.
    writeFileSync(file, JSON.stringify(largeSettings(bytes)));
    return loadStackConfig({ project: 'acme-outdoor-prod', region: 'europe-west1', settingsFile: file });
  };

  it('deploys them with every environment variable far below the cap', async () => {
    const config = stackOf(CLOUD_RUN_VALUE_LIMIT + 8 * 1024);
    assert.ok(JSON.stringify(config.settings).length > CLOUD_RUN_VALUE_LIMIT);
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const values = [
      ...ofType(recorded, 'gcp:cloudfunctionsv2/function:Function').flatMap((f) =>
        Object.values(f.inputs['serviceConfig'].environmentVariables as Record<string, string>),
      ),
      ...ofType(recorded, 'gcp:cloudrunv2/service:Service').flatMap((r) =>
        (r.inputs['template'].containers[0].envs as { value: string }[]).map((e) => e.value),
      ),
    ];
    assert.ok(values.length > 10);
    for (const v of values) assert.ok(String(v).length < 1024, `${String(v).slice(0, 60)}…`);
  });

  it('refuses settings past Secret Manager’s 64 KiB, naming the size', async () => {
    const config = stackOf(SETTINGS_MAX_BYTES + 1024);
    await assert.rejects(
      declare(() => declareEnvironment(config, BUNDLES)),
      /the settings are \d+ bytes as JSON, more than Secret Manager's 65536/,
    );
  });
});
