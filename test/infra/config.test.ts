import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { loadStackConfig, StackConfigError } from '../../infra/config.ts';
import { readStackConfig } from '../../infra/stack-reader.ts';
import { settingsText } from './support.ts';

describe('infra: stack config', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-infra-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const values = (settingsFile: string) => ({
    project: 'acme-outdoor-prod',
    region: 'europe-west1',
    settingsFile,
  });

  it('loads the settings file relative to the repository and plans it', () => {
    const config = loadStackConfig(values('environments/example.yaml'));
    assert.equal(config.settings.name, 'acme-prod');
    assert.equal(config.plan.project, 'acme-outdoor-prod');
    assert.ok(config.plan.topics.some((t) => t.name === 'events'));
  });

  it('fails on a bad settings value, naming the key', () => {
    const bad = settingsText('environments/example.yaml').replace('type: ga4_mp', 'type: ga5_mp');
    const file = write('bad.yaml', bad);
    assert.throws(
      () => loadStackConfig(values(file)),
      (err: Error) => err instanceof StackConfigError && /destinations\[1\]\.type/.test(err.message),
    );
  });

  it('fails on a segment_action destination the catalogue refuses, naming the key, as settings check does', () => {
    const bad = `${settingsText('environments/example.yaml').replace(
      /\ndestinations:\n/,
      `
destinations:
  - id: klaviyo-crm
    type: segment_action
    destination: klaviyo
    secrets: { api_key: KLAVIYO_KEY }
    actions:
      - action: trackEvent
`,
    )}`;
    assert.notEqual(bad, settingsText('environments/example.yaml'));
    const file = write('catalog.yaml', bad);
    assert.throws(
      () => loadStackConfig(values(file)),
      (err: Error) =>
        err instanceof StackConfigError &&
        /destinations\[0\]\.actions\[0\]\.mapping\.profile: required by klaviyo trackEvent/.test(err.message),
    );
  });

  it('fails when the settings name another project or region than the stack', () => {
    assert.throws(
      () => loadStackConfig({ ...values('environments/example.yaml'), project: 'other-project-1' }),
      /project: "acme-outdoor-prod" differs from the stack's gcp:project "other-project-1"/,
    );
    assert.throws(
      () => loadStackConfig({ ...values('environments/example.yaml'), region: 'us-central1' }),
      /region: .* gcp:region "us-central1"/,
    );
  });

  it('names each missing stack value and an unreadable settings file', () => {
    assert.throws(() => loadStackConfig({ project: 'acme-outdoor-prod' }), /gcp:region, settingsFile/);
    assert.throws(() => loadStackConfig(values(join(dir, 'nope.yaml'))), /settingsFile: cannot read/);
  });

  it('reads gcp:project, gcp:region, settingsFile and the gateway’s secrets from the stack config', async () => {
    const own = (key: string) => `${pulumi.getProject()}:${key}`;
    const base = {
      'gcp:project': 'acme-outdoor-prod',
      'gcp:region': 'europe-west1',
      [own('settingsFile')]: 'environments/example.yaml',
    };
    try {
      // The example lists browser origins: the session salt is needed, and refused when missing.
      pulumi.runtime.setAllConfig(base);
      assert.throws(() => readStackConfig(), /pulumi config set --secret sessionSalt/);
      pulumi.runtime.setAllConfig({ ...base, [own('sessionSalt')]: 'salt-of-the-test' }, [
        own('sessionSalt'),
      ]);
      const config = readStackConfig();
      assert.equal(config.project, 'acme-outdoor-prod');
      assert.equal(config.settings.region, 'europe-west1');
      const salt = config.gatewaySecretValues?.['sessionSalt'] as pulumi.Output<string>;
      assert.equal(await pulumi.isSecret(salt), true, 'read as a secret');
      assert.deepEqual(Object.keys(config.gatewaySecretValues ?? {}), ['sessionSalt']);
    } finally {
      pulumi.runtime.setAllConfig({});
    }
  });
});
