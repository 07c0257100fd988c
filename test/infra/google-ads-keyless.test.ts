/**
 * Google Ads without a key: a `google_ads` destination with no credentials secret deploys with
 * the Data Manager API enabled, no secret for it, and forward's own account doing the calling
 * (adapters/google-oauth.ts); a `google_ads_audience` connection without one likewise, with the
 * schedule function's account and no secret grant (one only when the connection names it);
 * without Google Ads the API stays off.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { accessNeeds } from '../../core/access/needs.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, settingsText } from './support.ts';

describe('infra: Google Ads with forward’s own identity (no service-account key)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-google-ads-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let files = 0;
  const deploy = async (destinations: unknown[], connections: unknown[] = []) => {
    const settings = {
      ...parse(settingsText('test/fixtures/settings/valid/minimal.yaml')),
      destinations,
      ...(connections.length > 0 ? { connections } : {}),
    };
    const file = join(dir, `settings-${++files}.yaml`);
    writeFileSync(file, JSON.stringify(settings));
    const config = loadStackConfig({ project: 'minimal-project', region: 'us-central1', settingsFile: file });
    return { config, recorded: await declare(() => declareEnvironment(config, BUNDLES)) };
  };
  const apis = (r: Awaited<ReturnType<typeof deploy>>['recorded']) =>
    ofType(r, 'gcp:projects/service:Service').map((s) => String(s.inputs['service']));
  /** The secrets the schedule function's account is granted, by resource name (`…-<who>-<secret>`). */
  const scheduleSecretGrants = (r: Awaited<ReturnType<typeof deploy>>['recorded']) =>
    ofType(r, 'gcp:secretmanager/secretIamMember:SecretIamMember')
      .filter((g) => String(g.inputs['member']).includes('eventbus-schedule@'))
      .map((g) => String(g.inputs['secretId']))
      .sort();
  /** The secrets the access table says the schedule function reads (core/access/needs.ts). */
  const scheduleSecretNeeds = (c: Awaited<ReturnType<typeof deploy>>['config']) =>
    accessNeeds(c.plan, c.settings)
      .filter((n) => n.who === 'schedule' && n.permission === 'secretmanager.versions.access')
      .map((n) => n.resource)
      .sort();

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

  it('enables it for a Customer Match connection without credentials: no secret, no grant for the schedule function', async () => {
    const { config, recorded } = await deploy([], [{ id: 'ads', type: 'google_ads_audience' }]);
    assert.ok(apis(recorded).includes('datamanager.googleapis.com'));
    assert.deepEqual(config.plan.functions.find((f) => f.name === 'schedule')?.secrets, []);
    assert.deepEqual(config.plan.secrets, ['eventbus-tokens']);
    assert.deepEqual(scheduleSecretGrants(recorded), ['eventbus-settings']);
    assert.deepEqual(scheduleSecretNeeds(config), ['projects/minimal-project/secrets/eventbus-settings']);
  });

  it('grants the schedule function the credentials secret only when the connection names one', async () => {
    const { config, recorded } = await deploy(
      [],
      [{ id: 'ads', type: 'google_ads_audience', secrets: { credentials: 'ADS_CREDENTIALS' } }],
    );
    assert.ok(apis(recorded).includes('datamanager.googleapis.com'));
    assert.deepEqual(config.plan.functions.find((f) => f.name === 'schedule')?.secrets, ['ADS_CREDENTIALS']);
    assert.deepEqual(scheduleSecretGrants(recorded), ['ADS_CREDENTIALS', 'eventbus-settings']);
    assert.deepEqual(scheduleSecretNeeds(config), [
      'projects/minimal-project/secrets/ADS_CREDENTIALS',
      'projects/minimal-project/secrets/eventbus-settings',
    ]);
  });

  it('leaves it off without Google Ads', async () => {
    const { recorded } = await deploy([]);
    assert.ok(!apis(recorded).includes('datamanager.googleapis.com'));
  });
});
