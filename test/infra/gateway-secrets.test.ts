/**
 * The gateway's edge secret and session salt under Pulumi's mocks (core/access/gateway-secrets.ts,
 * infra/secrets.ts): declared when the settings need them, each a Secret Manager secret whose
 * version holds the stack's config secret, readable by the gateway's account alone, and handed to
 * the gateway's service as an environment variable from the secret (never a plaintext value);
 * nothing when the settings need neither; a missing config value refused naming the command; and
 * an upgrade from the previous program's state that adds them updates the gateway in place.
 */
import assert from 'node:assert/strict';
import * as pulumi from '@pulumi/pulumi';
import { EDGE_SECRET, gatewaySecrets, SESSION_SALT } from '../../core/access/gateway-secrets.ts';
import { accessNeeds, workloadMember } from '../../core/access/needs.ts';
import { ENV } from '../../core/runtime-config.ts';
import {
  loadStackConfig,
  readGatewaySecretValues,
  type StackConfig,
  StackConfigError,
} from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { isBinding, policiesOf, unmet } from './access-support.ts';
import {
  BUNDLES,
  type Declared,
  declare,
  dependenciesOf,
  ofType,
  type Recorded,
  SECRET_TYPES,
} from './support.ts';

const { secret: SECRET, version: VERSION, binding: BINDING, service: SERVICE } = SECRET_TYPES;
/** How the engine marks a secret value in resource inputs. */
const SECRET_SIG = pulumi.runtime.specialSigKey;
const SECRET_SIG_VALUE = pulumi.runtime.specialSecretSig;

const ORIGIN_PATH = {
  settingsFile: 'test/fixtures/settings/valid/gateway-origin-path-cloudflare.yaml',
  project: 'shop-events-prod',
  region: 'europe-west1',
};
const MINIMAL = {
  settingsFile: 'test/fixtures/settings/valid/minimal.yaml',
  project: 'minimal-project',
  region: 'us-central1',
};
const VALUES = { edgeSecret: 'edge-value-of-the-test', sessionSalt: 'salt-value-of-the-test' };

/** The stack config as `pulumi up` reads it, the values given as config secrets. */
function withValues(file: typeof ORIGIN_PATH, values: Record<string, string> = VALUES): StackConfig {
  const config = loadStackConfig(file);
  return {
    ...config,
    gatewaySecretValues: readGatewaySecretValues(config.settings, (k) =>
      values[k] === undefined ? undefined : pulumi.secret(values[k] as string),
    ),
  };
}

interface Env {
  readonly name: string;
  readonly value?: string;
  readonly valueSource?: { secretKeyRef: { secret: string; version: string } };
}
const gatewayOf = (recorded: Recorded): Declared =>
  ofType(recorded, SERVICE).find((s) => s.inputs['name'] === 'gateway') ?? assert.fail('no gateway service');
const envsOf = (service: Declared): Env[] => service.inputs['template'].containers[0].envs;

describe('infra: the gateway’s edge secret and session salt (Secret Manager, from the stack’s config)', () => {
  it('declares both for gateway.origin_path through a Worker (origin_via: cloudflare): a secret each, its version, the gateway alone may read, env from the secret', async () => {
    const recorded = await declare(() => declareEnvironment(withValues(ORIGIN_PATH), BUNDLES));
    for (const [s, value] of [
      [EDGE_SECRET, VALUES.edgeSecret],
      [SESSION_SALT, VALUES.sessionSalt],
    ] as const) {
      const secret = ofType(recorded, SECRET).find((r) => r.inputs['secretId'] === s.secretId);
      assert.ok(secret, `${s.secretId} declared`);
      const versions = ofType(recorded, VERSION).filter((v) => v.inputs['secret'] === `${secret.name}-id`);
      // A Pulumi secret (the engine's secret signature), so the state and the logs keep it encrypted.
      assert.deepEqual(
        versions.map((v) => [v.inputs['secretData']?.[SECRET_SIG], v.inputs['secretData']?.value]),
        [[SECRET_SIG_VALUE, value]],
        `${s.secretId}: one version, the config value, kept secret`,
      );
      const readers = ofType(recorded, BINDING).filter((b) => b.inputs['secretId'] === s.secretId);
      assert.deepEqual(
        readers.map((b) => [b.inputs['role'], b.inputs['member']]),
        [['roles/secretmanager.secretAccessor', workloadMember('gateway', ORIGIN_PATH.project)]],
        `${s.secretId}: the gateway's account and no other`,
      );
      const env = envsOf(gatewayOf(recorded)).find((e) => e.name === s.env);
      assert.ok(env, `${s.env} on the gateway`);
      assert.equal(env.value, undefined, `${s.env} is not a plaintext value`);
      assert.equal(env.valueSource?.secretKeyRef.secret, s.secretId);
      assert.equal(env.valueSource?.secretKeyRef.version, '1', 'the declared version (mocks number it 1)');
    }
    // No other service reads them.
    for (const service of ofType(recorded, SERVICE).filter((s) => s.inputs['name'] !== 'gateway'))
      for (const e of envsOf(service))
        assert.ok(!([ENV.edgeSecret, ENV.sessionSalt] as string[]).includes(e.name));
  });

  it('declares neither when the settings need neither (no browser origin, domain or origin path)', async () => {
    const config = loadStackConfig(MINIMAL);
    assert.deepEqual(gatewaySecrets(config.settings), []);
    const recorded = await declare(() => declareEnvironment(withValues(MINIMAL, {}), BUNDLES));
    const ids = [EDGE_SECRET.secretId, SESSION_SALT.secretId];
    assert.deepEqual(
      recorded.resources.filter((r) => ids.includes(r.inputs['secretId'])).map((r) => r.name),
      [],
    );
    const names = envsOf(gatewayOf(recorded)).map((e) => e.name);
    assert.ok(!names.includes(ENV.edgeSecret) && !names.includes(ENV.sessionSalt));
    assert.ok(envsOf(gatewayOf(recorded)).every((e) => e.valueSource === undefined));
  });

  it('needs the salt alone for browser origins without a path, and refuses a missing value naming the command', () => {
    const config = loadStackConfig(MINIMAL);
    const browsers = { ...config.settings, producers: { origins: ['https://shop.example'] } };
    assert.deepEqual(gatewaySecrets(browsers), [SESSION_SALT]);
    assert.throws(
      () => readGatewaySecretValues(browsers, () => undefined),
      (err: Error) =>
        err instanceof StackConfigError &&
        err.message.includes('missing stack config sessionSalt (EVENTBUS_SESSION_SALT') &&
        err.message.includes('pulumi config set --secret sessionSalt') &&
        !err.message.includes('edgeSecret'),
    );
    // The site's own load balancer is known by the site's host: the path through it needs no edge secret.
    const balanced = loadStackConfig({
      ...ORIGIN_PATH,
      settingsFile: 'test/fixtures/settings/valid/gateway-origin-path.yaml',
    }).settings;
    assert.deepEqual(gatewaySecrets(balanced), [SESSION_SALT]);
    const path = loadStackConfig(ORIGIN_PATH).settings;
    assert.throws(
      () => readGatewaySecretValues(path, (k) => (k === 'sessionSalt' ? pulumi.secret('x') : undefined)),
      /missing stack config edgeSecret .*pulumi config set --secret edgeSecret/,
    );
  });

  it('grants what the access table needs for them, and the studio may not read the salt', async () => {
    const config = withValues(ORIGIN_PATH);
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const policies = policiesOf(recorded.resources.filter(isBinding), ORIGIN_PATH.project);
    const needs = accessNeeds(config.plan, config.settings);
    const rows = needs.filter((n) =>
      [EDGE_SECRET.secretId, SESSION_SALT.secretId].some((id) => n.resource.endsWith(`/secrets/${id}`)),
    );
    assert.deepEqual(
      rows.map((n) => [n.who, n.resource.split('/').pop(), n.denied ?? false]),
      [
        ['gateway', EDGE_SECRET.secretId, false],
        ['gateway', SESSION_SALT.secretId, false],
        ['studio', SESSION_SALT.secretId, true],
      ],
    );
    assert.deepEqual(unmet(needs, policies, ORIGIN_PATH.project), []);
  });

  it('upgrades in place: the previous program’s gateway gains two env entries, after its grants and versions', async () => {
    const recorded = await declare(() => declareEnvironment(withValues(ORIGIN_PATH), BUNDLES));
    const gateway = gatewayOf(recorded);
    // The previous program's state for these settings: everything but what this change adds (the
    // two secrets, their versions and bindings, and the env entries from them). Pulumi's mocks do
    // not diff, so this checks what decides a replacement: the same logical name, and the fields
    // Cloud Run cannot change in place (name, location, project) unchanged.
    const added = envsOf(gateway).filter((e) => e.valueSource !== undefined);
    assert.deepEqual(added.map((e) => e.name).sort(), [ENV.edgeSecret, ENV.sessionSalt].sort());
    const previousEnvs = envsOf(gateway).filter((e) => e.valueSource === undefined);
    assert.deepEqual(
      envsOf(gateway).slice(0, previousEnvs.length),
      previousEnvs,
      'the old entries first, as they were',
    );
    assert.equal(gateway.name, 'shop-service', 'the logical name the previous program gave it');
    assert.deepEqual(
      [gateway.inputs['name'], gateway.inputs['location'], gateway.inputs['project']],
      ['gateway', 'europe-west1', 'shop-events-prod'],
    );
    // A revision reading a secret it may not read fails to start: the service is updated after
    // the bindings and the versions exist.
    const entries = [...recorded.graph.entries()];
    const urnOf = (name: string) => entries.find(([, r]) => r.name === name)?.[0] ?? assert.fail(name);
    const before = dependenciesOf(recorded, urnOf(gateway.name));
    for (const s of [EDGE_SECRET, SESSION_SALT]) {
      assert.ok(before.has(urnOf(`shop-accessor-gateway-${s.secretId}`)), `${s.secretId}: binding first`);
      assert.ok(before.has(urnOf(`shop-gateway-${s.configKey}-version`)), `${s.secretId}: version first`);
    }
  });
});
