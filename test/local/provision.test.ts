/**
 * Provisioning the real emulators from plan(local.yaml) through the supervisor, twice: the
 * second start finds the state on disk and creates nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../../core/plan.ts';
import { emulatorBigQuery, emulatorPubSub } from '../../local/provision.ts';
import { bigqueryEmulator, pubsubEmulator, type ServiceFactory } from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';
import { type LocalEnvironment, startEnvironment } from '../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../..');
const settings = readSettingsFile(join(root, 'environments/local.yaml'));
const expected = plan(settings);

/** An emulator counts as landed once its entry point is committed (work in progress is not run). */
function landed(name: string): boolean {
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', `emulators/${name}/main.ts`], {
      cwd: root,
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

function suite(
  name: 'pubsub' | 'bigquery',
  factory: ServiceFactory,
  check: (env: LocalEnvironment) => Promise<void>,
) {
  describe(`local provisioning: ${name} emulator`, function () {
    // Three starts of the emulator and its provisioning: 13–18 s on a quiet machine, over 60 s at
    // a load average of 13 (seen). A bound, not a speed check.
    this.timeout(180_000);
    let dataDir: string;
    let env: LocalEnvironment | undefined;
    before(function () {
      if (!landed(name)) this.skip();
      dataDir = mkdtempSync(join(tmpdir(), `eventbus-provision-${name}-`));
    });
    afterEach(async () => {
      await env?.stop();
      env = undefined;
    });
    after(() => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const start = (ports?: LocalEnvironment['ports']) =>
      startEnvironment({
        settings,
        dataDir,
        ...(ports ? { ports } : { freePorts: true }),
        services: [factory],
        log: () => {},
        graceMs: 3000,
      });

    it('creates what the plan describes, then finds it again on a second start', async () => {
      env = await start();
      const first = env.provisioning;
      assert.ok(first);
      assert.deepEqual(first.conflicts, []);
      assert.ok(first.created.length > 0);
      await check(env);
      const ports = env.ports;
      await env.stop();
      // Same ports: push endpoints are unchanged, so nothing is created or updated.
      env = await start(ports);
      assert.deepEqual(env.provisioning?.created, []);
      assert.deepEqual(env.provisioning?.updated, []);
      assert.deepEqual(env.provisioning?.unchanged.sort(), [...first.created].sort());
      await env.stop();
      // Other ports: the push endpoints follow, nothing else changes.
      env = await start();
      assert.deepEqual(env.provisioning?.created, []);
      assert.ok(env.provisioning?.updated.every((u) => u.endsWith('(push_config)')));
    });
  });
}

suite('pubsub', pubsubEmulator, async (env) => {
  const pubsub = emulatorPubSub(settings.project, `127.0.0.1:${env.ports.pubsub}`);
  try {
    const [topics] = await pubsub.getTopics();
    assert.deepEqual(
      topics.map((t) => t.name.split('/').pop()).sort(),
      expected.topics.map((t) => t.name).sort(),
    );
    const [meta] = await pubsub.subscription('deliveries-webhook-push').getMetadata();
    // The destination's own topic: no filter, every message its.
    assert.equal(meta.topic, `projects/${settings.project}/topics/deliveries-webhook`);
    assert.equal(meta.filter, '');
    assert.equal(meta.pushConfig?.pushEndpoint, `http://127.0.0.1:${env.ports.forward}/`);
    assert.equal(
      meta.deadLetterPolicy?.deadLetterTopic,
      `projects/${settings.project}/topics/deliveries-webhook-dead-letter`,
    );
    assert.equal(meta.deadLetterPolicy?.maxDeliveryAttempts, 16);
  } finally {
    await pubsub.close();
  }
});

suite('bigquery', bigqueryEmulator, async (env) => {
  const bigquery = emulatorBigQuery(settings.project, `http://127.0.0.1:${env.ports.bigquery}`);
  const [exists] = await bigquery.dataset(expected.dataset).exists();
  assert.equal(exists, true);
  const [tables] = await bigquery.dataset(expected.dataset).getTables();
  assert.deepEqual(
    tables.map((t) => t.id).sort(),
    [...expected.tables.map((t) => t.name), ...expected.views.map((v) => v.name)].sort(),
  );
});
