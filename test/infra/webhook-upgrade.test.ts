/**
 * Upgrading an environment whose settings have a webhook destination from the previous release
 * (no `config.format`): `pulumi up` (under mocks) deploys the settings unchanged, and the forward
 * function, reading them, still sends `eventbus-v2`; a destination rotating its key grants
 * forward the previous key's secret too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, ofType, SECRET_TYPES } from './support.ts';

const PREVIOUS_RELEASE = `
name: shop
project: acme-shop-prod
region: europe-west1
destinations:
  - id: crm
    type: webhook
    base_url: https://crm.acme.example
    config: { path: /hooks/events }
    secrets: { signing_key: crm-webhook-signing-key }
  - id: billing
    type: webhook
    base_url: https://billing.acme.example
    config: { format: standard-webhooks, previous_key_until: "2026-12-15T00:00:00Z" }
    secrets: { signing_key: billing-key-2, signing_key_previous: billing-key-1 }
`;

describe('infra: a webhook destination from the previous release', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-webhook-upgrade-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('deploys with its settings unchanged and keeps delivering in eventbus-v2', async () => {
    const file = join(dir, 'shop.yaml');
    writeFileSync(file, PREVIOUS_RELEASE);
    const config = loadStackConfig({ project: 'acme-shop-prod', region: 'europe-west1', settingsFile: file });
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const version = ofType(recorded, SECRET_TYPES.version).find((v) => v.name.endsWith('-settings-version'));
    assert.ok(version, 'the settings secret version is declared');
    const data = version.inputs['secretData'];
    // The provider marks secretData secret: the mocks hand it over wrapped, with its value.
    const deployed = JSON.parse(typeof data === 'string' ? data : data?.value) as Settings;
    const crm = deployed.destinations?.find((d) => d.id === 'crm');
    assert.ok(crm);
    assert.equal(crm.config?.['format'], undefined, 'nothing is written into the old destination');
    const now = new Date('2026-11-27T05:00:00Z');
    const sent = webhookDriver.prepare(
      { event_id: 'e-1', event_name: 'purchase', event_time: now.toISOString(), event_data: {} },
      { destination: crm, secrets: { signing_key: 'an old hex key' }, now },
    );
    assert.ok(sent.ok);
    assert.match(sent.request.headers['x-eventbus-signature'] ?? '', /^v2=[0-9a-f]{64}$/);
    assert.equal(sent.request.headers['webhook-signature'], undefined);
    // The rotating destination's previous key is readable by forward, like its current one.
    const granted = ofType(recorded, SECRET_TYPES.binding).map((b) => b.name);
    for (const secret of ['billing-key-1', 'billing-key-2', 'crm-webhook-signing-key'])
      assert.ok(
        granted.some((n) => n.includes('forward') && n.endsWith(secret)),
        `forward reads ${secret}`,
      );
  });
});
