/**
 * `gateway.origin_path` under mocks (infra/gateway-origin-path.ts): the gateway's serverless NEG
 * and Cloud CDN backend, and a path rule ADDED to the site's own URL map (the exact command and a
 * Pulumi snippet), never a URL map of ours replacing it (issue #100); the previous release's form
 * keeps its map; a classic load balancer and a map of another project without a grant refused
 * with the reason (settings fixtures in test/fixtures/settings/); nothing without the setting;
 * refused before anything is declared without a map; bad values explained in words.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EDGE_SECRET, SESSION_SALT } from '../../core/access/gateway-secrets.ts';
import { siteUrlMapWarnings } from '../../core/deploy/site-url-map.ts';
import { plan } from '../../core/plan.ts';
import { checkSettings, parseSettings } from '../../core/settings.ts';
import { loadStackConfig, type StackConfig } from '../../infra/config.ts';
import { declareEnvironment, type EnvironmentOutputs } from '../../infra/environment.ts';
import { siteMapImported } from '../../infra/program.ts';
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
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'settings');
const fixture = (file: string) => parseSettings(readFileSync(join(FIXTURES, file), 'utf8'));
const GATEWAY_BACKEND = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/global/backendServices/eventbus-site-gateway-backend`;
/** The default form: a path matcher of the site's two hosts added to its own map. */
const SITE_MAP = {
  origin_path: '/_eb',
  site_url_map: 'shop-lb',
  site_hosts: ['shop.example', 'www.shop.example'],
  site_backend: 'shop-web',
};

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
): Promise<{ recorded: Recorded; instruction: string | undefined; snippet: string | undefined }> {
  let env: EnvironmentOutputs | undefined;
  let instruction: string | undefined;
  let snippet: string | undefined;
  const recorded = await declare(async () => {
    env = declareEnvironment(config, BUNDLES);
    if (env.gatewayOriginUrlMap) instruction = await resolveOutput(env.gatewayOriginUrlMap);
    if (env.gatewayOriginPulumi) snippet = await resolveOutput(env.gatewayOriginPulumi);
  });
  return { recorded, instruction, snippet };
}

const BACKEND_USER = 'gcp:compute/backendServiceIamMember:BackendServiceIamMember';

describe('infra: gateway.origin_path (the gateway under a path of the site’s origin)', () => {
  it('adds a path rule to the site’s own URL map: no map of ours, the exact gcloud command and a Pulumi snippet', async () => {
    const { recorded, instruction, snippet } = await declared(stackConfig(SITE_MAP));
    assert.equal(ofType(recorded, T.urlMap).length, 0, 'the site’s map is never replaced by one of ours');
    const [neg] = ofType(recorded, T.neg);
    assert.deepEqual(neg?.inputs['cloudRun'], { service: 'gateway' });
    const [backend] = ofType(recorded, T.backend);
    assert.equal(backend?.inputs['enableCdn'], true);
    assert.equal(backend?.inputs['loadBalancingScheme'], 'EXTERNAL_MANAGED');
    assert.equal(ofType(recorded, BACKEND_USER).length, 0, 'a map in our project needs no grant');
    assert.equal(
      instruction,
      `gcloud compute url-maps add-path-matcher shop-lb --global --project=${PROJECT} --path-matcher-name=eventbus ` +
        `--new-hosts=shop.example,www.shop.example --default-service=projects/${PROJECT}/global/backendServices/shop-web ` +
        `--backend-service-path-rules=/_eb=${GATEWAY_BACKEND},/_eb/*=${GATEWAY_BACKEND}`,
    );
    assert.match(
      snippet ?? '',
      /hostRules: \[\/\* its host rules, \*\/ \{ hosts: \["shop\.example","www\.shop\.example"\], pathMatcher: "eventbus" \}\]/,
    );
    assert.ok(
      snippet?.includes(`pathRules: [{ paths: ["/_eb","/_eb/*"], service: "${GATEWAY_BACKEND}" }]`),
      snippet,
    );
  });

  it('adds the rule to the path matcher already serving the site’s hosts, its other rules kept (export, add, import)', async () => {
    const { recorded, instruction, snippet } = await declared(
      stackConfig({ origin_path: '/_eb', site_url_map: 'shop-lb', site_path_matcher: 'shop-pages' }),
    );
    assert.equal(ofType(recorded, T.urlMap).length, 0);
    const lines = (instruction ?? '').split('\n');
    assert.equal(
      lines[0],
      `gcloud compute url-maps export shop-lb --global --project=${PROJECT} --destination=shop-lb.yaml`,
    );
    assert.equal(
      lines.at(-1),
      `gcloud compute url-maps import shop-lb --global --project=${PROJECT} --source=shop-lb.yaml`,
    );
    assert.ok(lines.includes(`#     service: ${GATEWAY_BACKEND}`), instruction);
    assert.match(snippet ?? '', /the path matcher named "shop-pages"/);
  });

  it('a site map of another project: its editor granted the use of the gateway’s backend, the rule names our project', async () => {
    const { recorded, instruction } = await declared(
      stackConfig({
        origin_path: '/_eb',
        site_url_map: 'projects/shop-web-prod/global/urlMaps/shop-lb',
        site_path_matcher: 'shop-pages',
        site_url_map_grant: 'group:web-admins@shop.example',
      }),
    );
    const [grant] = ofType(recorded, BACKEND_USER);
    assert.deepEqual(
      [grant?.inputs['project'], grant?.inputs['name'], grant?.inputs['role'], grant?.inputs['member']],
      [
        PROJECT,
        'eventbus-site-gateway-backend',
        'roles/compute.loadBalancerServiceUser',
        'group:web-admins@shop.example',
      ],
    );
    assert.match(
      instruction ?? '',
      /^gcloud compute url-maps export shop-lb --global --project=shop-web-prod /,
    );
    assert.ok(instruction?.includes(GATEWAY_BACKEND));
  });

  it('settings fixtures: a classic load balancer and a map of another project without a grant are refused with the reason', () => {
    const classic = fixture('invalid/origin-path-classic-lb.yaml');
    assert.equal(classic.ok, false);
    const [c] = classic.ok ? [] : classic.errors;
    assert.equal(c?.field, 'gateway.site_scheme');
    assert.match(c?.description ?? '', /classic Application Load Balancer \(EXTERNAL\).*EXTERNAL_MANAGED/);
    const other = fixture('invalid/origin-path-other-project.yaml');
    assert.deepEqual(other.ok ? [] : other.errors.map((e) => e.field), ['gateway.site_url_map']);
    assert.match(
      other.ok ? '' : (other.errors[0]?.description ?? ''),
      /is in project shop-web-prod, not shop-events-prod: .*roles\/compute\.loadBalancerServiceUser.*gateway\.site_url_map_grant/,
    );
    const good = fixture('valid/gateway-origin-path-site-map.yaml');
    assert.equal(good.ok, true, JSON.stringify(good.ok ? [] : good.errors));
    assert.deepEqual(good.ok ? siteUrlMapWarnings(good.settings) : ['?'], []);
  });

  it('settings check: a site map needs its hosts and backend or its path matcher; its keys need the map', () => {
    const half = check({ origin_path: '/_eb', site_url_map: 'shop-lb', site_hosts: ['shop.example'] });
    assert.match(
      half.ok ? '' : (half.errors[0]?.description ?? ''),
      /needs either site_path_matcher .* or site_hosts and site_backend/,
    );
    const both = check({ ...SITE_MAP, site_path_matcher: 'shop-pages' });
    assert.deepEqual(both.ok ? [] : both.errors.map((e) => e.field), ['gateway.site_hosts']);
    const loose = check({ origin_path: '/_eb', site_backend: 'shop-web', site_scheme: 'EXTERNAL_MANAGED' });
    assert.deepEqual(loose.ok ? [] : loose.errors, [
      { field: 'gateway.site_scheme', description: 'only means something with gateway.site_url_map' },
    ]);
    const worker = check({ origin_path: '/_eb', origin_via: 'cloudflare', site_url_map: 'shop-lb' });
    assert.match(
      worker.ok ? '' : (worker.errors[0]?.description ?? ''),
      /with cloudflare the Worker or rule/,
    );
    const badMap = check({ ...SITE_MAP, site_url_map: 'projects/x/global/backendServices/shop' });
    assert.match(badMap.ok ? '' : (badMap.errors[0]?.description ?? ''), /name of a global URL map/);
  });

  it('the previous release’s form (site_backend alone) keeps its whole map, with a warning saying the way out', async () => {
    const legacy = { origin_path: '/_eb', site_backend: 'shop-web' };
    const checked = check(legacy);
    assert.equal(checked.ok, true);
    const [warning, ...more] = checked.ok ? siteUrlMapWarnings(checked.settings) : [];
    assert.deepEqual(more, []);
    assert.match(
      warning ?? '',
      /previous release's form: its whole URL map \(eventbus-site-urlmap.*gateway\.site_url_map/,
    );
    const { recorded } = await declared(stackConfig(legacy));
    assert.equal(ofType(recorded, T.urlMap).length, 1, 'kept: a proxy may point at it');
  });

  it('previous form: the URL map’s path rule to a Cloud CDN backend over a serverless NEG, the rest to the site', async () => {
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
    for (const gateway of [SITE_MAP, { ...SITE_MAP, origin_via: 'load_balancer' }]) {
      const { recorded } = await declared(stackConfig(gateway));
      for (const type of [T.neg, T.backend]) assert.equal(ofType(recorded, type).length, 1, type);
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

  it('refuses to deploy an origin_path without the site’s map, before declaring anything', async () => {
    // settings check refuses it first (below); the program refuses it too, for settings that
    // reach it another way.
    const valid = stackConfig({ origin_path: '/_eb', site_backend: 'shop-web' });
    const settings = { ...valid.settings, gateway: { origin_path: '/_eb' } };
    const config = { ...valid, settings, plan: plan(settings) };
    const recorded = await declare(() => {
      assert.throws(
        () => declareEnvironment(config, BUNDLES),
        /origin_path \/_eb needs gateway\.site_url_map.*gateway\.origin_via: cloudflare or akamai/,
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
    assert.match(bare.ok ? '' : (bare.errors[0]?.description ?? ''), /needs gateway\.site_url_map/);
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

describe('infra: gateway.site_url_map_import (the site’s map imported into the stack, then given the rule)', () => {
  const SITE_BACKEND = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/global/backendServices/shop-web`;
  /** The site's map as `gcloud compute url-maps describe shop-lb --global --format=json` prints it. */
  const SNAPSHOT = {
    kind: 'compute#urlMap',
    id: '4242424242',
    creationTimestamp: '2026-01-10T09:00:00.000-08:00',
    name: 'shop-lb',
    selfLink: `https://www.googleapis.com/compute/v1/projects/${PROJECT}/global/urlMaps/shop-lb`,
    fingerprint: 'abc=',
    defaultService: SITE_BACKEND,
    hostRules: [{ hosts: ['blog.shop.example'], pathMatcher: 'blog' }],
    pathMatchers: [
      {
        name: 'blog',
        defaultService: SITE_BACKEND,
        pathRules: [{ paths: ['/media/*'], service: SITE_BACKEND }],
      },
    ],
  };
  const IMPORTING = { ...SITE_MAP, site_url_map_import: 'shop-lb.json' };
  const withSnapshot = (imported: boolean, snapshot: unknown = SNAPSHOT): StackConfig => ({
    ...stackConfig(IMPORTING),
    siteUrlMap: { snapshot, imported },
  });
  const asDeclared = (inputs: Record<string, unknown>) =>
    Object.fromEntries(
      ['project', 'name', 'defaultService', 'hostRules', 'pathMatchers'].map((k) => [k, inputs[k]]),
    );

  it('first imports the map exactly as the snapshot shows it, kept on delete, changing nothing', async () => {
    const { recorded, instruction } = await declared(withSnapshot(false));
    const maps = ofType(recorded, T.urlMap);
    assert.equal(maps.length, 1);
    assert.equal(maps[0]?.importId, `projects/${PROJECT}/global/urlMaps/shop-lb`);
    assert.deepEqual(asDeclared(maps[0]?.inputs ?? {}), {
      project: PROJECT,
      name: 'shop-lb',
      defaultService: SITE_BACKEND,
      hostRules: SNAPSHOT.hostRules,
      pathMatchers: SNAPSHOT.pathMatchers,
    });
    assert.match(instruction ?? '', /imports the site's URL map shop-lb unchanged; run pulumi up again/);
  });

  it('once the state holds it, adds the path matcher for the site’s hosts and keeps every other rule', async () => {
    const { recorded, instruction } = await declared(withSnapshot(true));
    const [map] = ofType(recorded, T.urlMap);
    assert.equal(map?.importId, undefined, 'already in the state: no second import');
    assert.deepEqual(map?.inputs['hostRules'], [
      ...SNAPSHOT.hostRules,
      { hosts: ['shop.example', 'www.shop.example'], pathMatcher: 'eventbus' },
    ]);
    assert.deepEqual(map?.inputs['pathMatchers'], [
      ...SNAPSHOT.pathMatchers,
      {
        name: 'eventbus',
        defaultService: SITE_BACKEND,
        pathRules: [{ paths: ['/_eb', '/_eb/*'], service: GATEWAY_BACKEND }],
      },
    ]);
    assert.match(instruction ?? '', /routes \/_eb to the gateway/);
  });

  it('finds the imported map in the stack’s state by its logical name', () => {
    const urn = (type: string, name: string) => ({
      urn: `urn:pulumi:prod::eventbus::${type}::${name}`,
      type,
    });
    assert.equal(siteMapImported([urn(T.urlMap, 'shop-site-imported-urlmap')]), true);
    assert.equal(siteMapImported([urn(T.urlMap, 'shop-site-urlmap')]), false);
    assert.equal(siteMapImported(undefined), false);
  });

  it('refuses a snapshot the import would not reproduce, or of another map, naming what', async () => {
    const routed = {
      ...SNAPSHOT,
      pathMatchers: [{ ...SNAPSHOT.pathMatchers[0], routeRules: [{ priority: 1 }] }],
    };
    await assert.rejects(declared(withSnapshot(false, routed)), /pathMatchers\[0\] has routeRules/);
    await assert.rejects(
      declared(withSnapshot(false, { ...SNAPSHOT, name: 'other-lb' })),
      /the snapshot is of the map other-lb, not shop-lb/,
    );
    // The site's hosts already routed by the map: its path matcher must be named instead.
    const served = { ...SNAPSHOT, hostRules: [{ hosts: ['shop.example'], pathMatcher: 'blog' }] };
    await assert.rejects(declared(withSnapshot(true, served)), /shop\.example already in a host rule/);
  });

  it('settings check: only with site_url_map, and never for a map of another project', () => {
    const alone = check({ origin_path: '/_eb', site_url_map_import: 'shop-lb.json' });
    assert.ok(!alone.ok && alone.errors.some((e) => e.field === 'gateway.site_url_map_import'));
    const elsewhere = check({
      ...IMPORTING,
      site_url_map: 'projects/shop-web-prod/global/urlMaps/shop-lb',
      site_url_map_grant: 'group:web-admins@shop.example',
    });
    assert.ok(!elsewhere.ok);
    assert.match(
      elsewhere.errors.find((e) => e.field === 'gateway.site_url_map_import')?.description ?? '',
      /in project shop-web-prod: importing it would make this environment's stack/,
    );
    assert.ok(check(IMPORTING).ok);
  });

  it('the stack config reads the snapshot next to the settings file, and says how to write it when missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventbus-site-map-'));
    try {
      const settings = { name: 'shop', project: PROJECT, region: 'europe-west1', gateway: IMPORTING };
      writeFileSync(join(dir, 'shop.yaml'), JSON.stringify(settings));
      const values = { project: PROJECT, region: 'europe-west1', settingsFile: join(dir, 'shop.yaml') };
      assert.throws(
        () => loadStackConfig(values),
        /gcloud compute url-maps describe shop-lb --global --format=json > shop-lb\.json/,
      );
      writeFileSync(join(dir, 'shop-lb.json'), JSON.stringify(SNAPSHOT));
      assert.deepEqual(loadStackConfig(values).siteUrlMap, { snapshot: SNAPSHOT, imported: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
