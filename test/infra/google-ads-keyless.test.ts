/**
 * Google Ads without a key: a `google_ads` destination with no credentials secret deploys with
 * the Data Manager API enabled, no secret for it, and forward's own account doing the calling
 * (adapters/google-oauth.ts); without Google Ads the API stays off.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, settingsText } from './support.ts';

describe('infra: Google Ads with forward’s own identity (no service-account key)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-google-ads-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const deploy = async (destinations: unknown[]) => {
    const settings = { ...parse(settingsText('test/fixtures/settings/valid/minimal.yaml')), destinations };
    const file = join(dir, `settings-${destinations.length}.yaml`);
    writeFileSync(file, JSON.stringify(settings));
    const config = loadStackConfig({ project: 'minimal-project', region: 'us-central1', settingsFile: file });
    return { config, recorded: await declare(() => declareEnvironment(config, BUNDLES)) };
  };
  const apis = (r: Awaited<ReturnType<typeof deploy>>['recorded']) =>
    ofType(r, 'gcp:projects/service:Service').map((s) => String(s.inputs['service']));

  it('enables the Data Manager API, and names no secret for it, when a destination sends to Google Ads', async () => {
    const { config, recorded } = await deploy([
      {
        id: 'ads',
        type: 'google_ads',
        config: { operating_account_id: '1234567890' },
        mappings: { purchase: { event: '111' } },
      },
    ]);
    assert.ok(apis(recorded).includes('datamanager.googleapis.com'));
    assert.deepEqual(config.plan.functions.find((f) => f.name === 'forward')?.secrets, []);
  });

  it('leaves it off without Google Ads', async () => {
    const { recorded } = await deploy([]);
    assert.ok(!apis(recorded).includes('datamanager.googleapis.com'));
  });
});
