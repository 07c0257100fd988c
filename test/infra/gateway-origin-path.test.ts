/**
 * `gateway.origin_path` under mocks (infra/gateway-origin-path.ts): the site's load balancer URL
 * map with a path matcher sending the path to the gateway's serverless NEG through a Cloud CDN
 * backend, everything else to the site's backend; nothing without the setting; refused before
 * anything is declared without `site_backend`; bad values explained in words by settings check.
 */
import assert from 'node:assert/strict';
import { plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { declareEnvironment, type EnvironmentOutputs } from '../../infra/environment.ts';
import { BUNDLES, declare, LB_TYPES, ofType, type Recorded, resolveOutput } from './support.ts';

const PROJECT = 'shop-events-prod';
const T = LB_TYPES;

const check = (gateway: Record<string, unknown>) =>
  checkSettings({ name: 'shop', project: PROJECT, region: 'europe-west1', gateway });

function stackConfig(gateway?: Record<string, unknown>): StackConfig {
  const checked = checkSettings({
    name: 'shop',
    project: PROJECT,
    region: 'europe-west1',
    ...(gateway ? { gateway } : {}),
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return {
    project: PROJECT,
    region: 'europe-west1',
    settingsFile: 'inline',
    settings: checked.settings,
    plan: plan(checked.settings),
  };
}

async function declared(
  config: StackConfig,
): Promise<{ recorded: Recorded; instruction: string | undefined }> {
  let env: EnvironmentOutputs | undefined;
  let instruction: string | undefined;
  const recorded = await declare(async () => {
    env = declareEnvironment(config, BUNDLES);
    if (env.gatewayOriginUrlMap) instruction = await resolveOutput(env.gatewayOriginUrlMap);
  });
  return { recorded, instruction };
}

describe('infra: gateway.origin_path (the gateway under a path of the site’s origin)', () => {
  it('declares the URL map’s path rule to a Cloud CDN backend over a serverless NEG, the rest to the site', async () => {
    const { recorded, instruction } = await declared(
      stackConfig({ origin_path: '/_eb', site_backend: 'shop-web' }),
    );
    const [neg] = ofType(recorded, T.neg);
    assert.equal(neg?.inputs['networkEndpointType'], 'SERVERLESS');
    assert.deepEqual(neg?.inputs['cloudRun'], { service: 'gateway' });
    const [backend] = ofType(recorded, T.backend);
    assert.equal(backend?.inputs['enableCdn'], true);
    assert.equal(backend?.inputs['cdnPolicy']['cacheMode'], 'USE_ORIGIN_HEADERS');
    assert.equal(backend?.inputs['loadBalancingScheme'], 'EXTERNAL_MANAGED');
    const [map] = ofType(recorded, T.urlMap);
    const site = `projects/${PROJECT}/global/backendServices/shop-web`;
    assert.equal(map?.inputs['defaultService'], site);
    assert.deepEqual(map?.inputs['hostRules'], [{ hosts: ['*'], pathMatcher: 'eventbus' }]);
    const matcher = map?.inputs['pathMatchers'][0];
    assert.equal(matcher.defaultService, site);
    assert.deepEqual(matcher.pathRules[0].paths, ['/_eb', '/_eb/*']);
    assert.equal(
      matcher.pathRules[0].service,
      'shop-site-gateway-backend-id',
      'the CDN backend (its id under mocks)',
    );
    assert.ok(ofType(recorded, T.api).some((a) => a.inputs['service'] === 'compute.googleapis.com'));
    assert.equal(
      instruction,
      "gcloud compute target-https-proxies update <your site's HTTPS proxy> --url-map=eventbus-site-urlmap --global",
    );
  });

  it('declares none of it without the setting', async () => {
    const { recorded, instruction } = await declared(stackConfig());
    for (const type of [T.neg, T.backend, T.urlMap]) assert.equal(ofType(recorded, type).length, 0, type);
    assert.equal(instruction, undefined);
  });

  it('refuses to deploy an origin_path without site_backend, before declaring anything', async () => {
    const config = stackConfig({ origin_path: '/_eb' });
    const recorded = await declare(() => {
      assert.throws(
        () => declareEnvironment(config, BUNDLES),
        /origin_path \/_eb needs gateway\.site_backend/,
      );
    });
    assert.deepEqual(
      recorded.resources.filter((r) => r.type.startsWith('gcp:')),
      [],
    );
  });

  it('settings check explains a bad value in words, not a pattern', () => {
    for (const bad of ['_eb', '/_eb/', '/_EB', '/a/b', `/${'x'.repeat(33)}`]) {
      const r = check({ origin_path: bad });
      assert.equal(r.ok, false, bad);
      const [e] = r.ok ? [] : r.errors;
      assert.equal(e?.field, 'gateway.origin_path');
      assert.match(e?.description ?? '', /one path segment after a slash, like \/_eb/);
      assert.doesNotMatch(e?.description ?? '', /\^|\$|\[a-z/);
    }
    const backend = check({ origin_path: '/_eb', site_backend: 'Shop Web' });
    assert.match(
      backend.ok ? '' : (backend.errors[0]?.description ?? ''),
      /name of a global backend service/,
    );
    const alone = check({ site_backend: 'shop-web' });
    assert.match(
      alone.ok ? '' : (alone.errors[0]?.description ?? ''),
      /only means something with gateway\.origin_path/,
    );
    assert.equal(
      check({ origin_path: '/_eb', site_backend: `projects/${PROJECT}/global/backendServices/shop-web` }).ok,
      true,
    );
  });
});
