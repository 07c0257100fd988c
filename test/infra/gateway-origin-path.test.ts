/**
 * `gateway.origin_path` under mocks (infra/gateway-origin-path.ts): the site's load balancer URL
 * map with a path matcher sending the path to the gateway's serverless NEG through a Cloud CDN
 * backend, everything else to the site's backend; nothing without the setting; refused before
 * anything is declared without `site_backend`; bad values explained in words by settings check.
 */
import assert from 'node:assert/strict';
import { EDGE_SECRET, SESSION_SALT } from '../../core/access/gateway-secrets.ts';
import { plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { declareEnvironment, type EnvironmentOutputs } from '../../infra/environment.ts';
import {
  BUNDLES,
  type Declared,
  declare,
  LB_TYPES,
  ofType,
  type Recorded,
  resolveOutput,
  SECRET_TYPES,
} from './support.ts';

const PROJECT = 'shop-events-prod';
const T = LB_TYPES;

/** The Secret Manager secrets declared, by id. */
const secretIds = (recorded: Recorded) =>
  ofType(recorded, SECRET_TYPES.secret).map((s) => s.inputs['secretId'] as string);
const gatewayService = (recorded: Recorded): Declared =>
  ofType(recorded, SECRET_TYPES.service).find((s) => s.inputs['name'] === 'gateway') ??
  assert.fail('no gateway service');
const envNames = (service: Declared): string[] =>
  (service.inputs['template'].containers[0].envs as { name: string }[]).map((e) => e.name);
/**
 * What decides a replacement or an update: each resource's type, logical name and inputs (but the
 * settings file's own version, which holds the settings' text).
 */
const shapeOf = (recorded: Recorded) =>
  recorded.resources
    .filter((r) => r.name !== 'shop-settings-version')
    .map((r) => ({ type: r.type, name: r.name, inputs: r.inputs }));

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

  it('origin_via load_balancer (the default): the path rule and CDN, no edge secret (the balancer is known by the site’s host)', async () => {
    for (const gateway of [
      { origin_path: '/_eb', site_backend: 'shop-web' },
      { origin_path: '/_eb', site_backend: 'shop-web', origin_via: 'load_balancer' },
    ]) {
      const { recorded } = await declared(stackConfig(gateway));
      for (const type of [T.neg, T.backend, T.urlMap]) assert.equal(ofType(recorded, type).length, 1, type);
      assert.ok(!secretIds(recorded).includes(EDGE_SECRET.secretId), 'no edge secret');
      assert.ok(secretIds(recorded).includes(SESSION_SALT.secretId), 'the session salt still');
      assert.ok(!envNames(gatewayService(recorded)).includes(EDGE_SECRET.env));
    }
  });

  for (const via of ['cloudflare', 'akamai'] as const)
    it(`origin_via ${via}: no load balancer, no URL map to point at; the edge secret for the ${via} rule, handed to the gateway`, async () => {
      const { recorded, instruction } = await declared(stackConfig({ origin_path: '/_eb', origin_via: via }));
      for (const type of [T.neg, T.backend, T.urlMap, T.proxy, T.rule, T.address])
        assert.equal(ofType(recorded, type).length, 0, type);
      assert.equal(instruction, undefined);
      assert.ok(
        !ofType(recorded, T.api).some((a) => a.inputs['service'] === 'compute.googleapis.com'),
        'Compute Engine’s API not enabled for it',
      );
      assert.ok(secretIds(recorded).includes(EDGE_SECRET.secretId), 'the edge secret declared');
      assert.ok(envNames(gatewayService(recorded)).includes(EDGE_SECRET.env), 'and read by the gateway');
    });

  it('upgrades a stack of the previous program (origin_path, no origin_via): the same balancer, the edge secret let go, the gateway updated in place', async () => {
    const previous = { origin_path: '/_eb', site_backend: 'shop-web' };
    const { recorded } = await declared(stackConfig(previous));
    // The default is what such a stack had: exactly what naming load_balancer declares.
    const explicit = await declared(stackConfig({ ...previous, origin_via: 'load_balancer' }));
    assert.equal(JSON.stringify(shapeOf(recorded)), JSON.stringify(shapeOf(explicit.recorded)));
    // Pulumi's mocks do not diff: what decides a replacement is the logical name and the inputs a
    // resource cannot change in place, here as the previous program declared them.
    const byType = (type: string) => ofType(recorded, type).map((r) => [r.name, r.inputs['name']]);
    assert.deepEqual(byType(T.neg), [['shop-site-gateway-neg', 'eventbus-site-gateway-neg']]);
    assert.deepEqual(byType(T.backend), [['shop-site-gateway-backend', 'eventbus-site-gateway-backend']]);
    assert.deepEqual(byType(T.urlMap), [['shop-site-urlmap', 'eventbus-site-urlmap']]);
    const gateway = gatewayService(recorded);
    assert.equal(gateway.name, 'shop-service');
    assert.deepEqual(
      [gateway.inputs['name'], gateway.inputs['location'], gateway.inputs['project']],
      ['gateway', 'europe-west1', PROJECT],
    );
    // The only change: the edge secret (its secret, version and binding) deleted, its variable
    // gone from the gateway's revision; the session salt kept.
    assert.deepEqual(
      ofType(recorded, SECRET_TYPES.binding)
        .map((b) => b.name)
        .filter((n) => n.includes('edge')),
      [],
    );
    assert.ok(!envNames(gateway).includes(EDGE_SECRET.env));
    assert.ok(envNames(gateway).includes(SESSION_SALT.env));
  });

  it('declares none of it without the setting', async () => {
    const { recorded, instruction } = await declared(stackConfig());
    for (const type of [T.neg, T.backend, T.urlMap]) assert.equal(ofType(recorded, type).length, 0, type);
    assert.equal(instruction, undefined);
  });

  it('refuses to deploy an origin_path without site_backend, before declaring anything', async () => {
    // settings check refuses it first (below); the program refuses it too, for settings that
    // reach it another way.
    const valid = stackConfig({ origin_path: '/_eb', site_backend: 'shop-web' });
    const settings = { ...valid.settings, gateway: { origin_path: '/_eb' } };
    const config = { ...valid, settings, plan: plan(settings) };
    const recorded = await declare(() => {
      assert.throws(
        () => declareEnvironment(config, BUNDLES),
        /origin_path \/_eb needs gateway\.site_backend.*gateway\.origin_via: cloudflare or akamai/,
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
    const via = check({ origin_path: '/_eb', origin_via: 'fastly' });
    assert.deepEqual(via.ok ? [] : via.errors, [
      { field: 'gateway.origin_via', description: 'expected one of "load_balancer", "cloudflare", "akamai"' },
    ]);
    const viaAlone = check({ origin_via: 'cloudflare' });
    assert.deepEqual(viaAlone.ok ? [] : viaAlone.errors, [
      { field: 'gateway.origin_via', description: 'only means something with gateway.origin_path' },
    ]);
    // The site's load balancer (the default) without its backend: said by settings check, not at
    // deploy or npm start (#96); a Worker needs none.
    const bare = check({ origin_path: '/_eb' });
    assert.deepEqual(bare.ok ? [] : bare.errors.map((e) => e.field), ['gateway.origin_path']);
    assert.match(bare.ok ? '' : (bare.errors[0]?.description ?? ''), /needs gateway\.site_backend/);
    assert.equal(check({ origin_path: '/_eb', origin_via: 'cloudflare' }).ok, true);
    const both = check({ origin_path: '/_eb', origin_via: 'akamai', site_backend: 'shop-web' });
    assert.match(
      both.ok ? '' : (both.errors[0]?.description ?? ''),
      /only means something with origin_via: load_balancer: with akamai the Worker or rule/,
    );
    assert.equal(check({ origin_path: '/_eb', origin_via: 'cloudflare' }).ok, true);
    assert.equal(
      check({ origin_path: '/_eb', site_backend: `projects/${PROJECT}/global/backendServices/shop-web` }).ok,
      true,
    );
  });
});
