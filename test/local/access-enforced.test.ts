/**
 * The emulators enforce the grants `pulumi up` gives (local/access-file.ts): the local plan's
 * emulators only, IAM on, and one real call per access need (local/access-probe.ts) made as the
 * need's workload; then the issue's own examples through Google's client libraries, on each
 * workload's own endpoints, as the workloads call. `npm run access:mutations` removes each
 * binding in turn against the same calls.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { PubSub } from '@google-cloud/pubsub';
import { Storage } from '@google-cloud/storage';
import { accessNeeds } from '../../core/access/needs.ts';
import { plan as planOf } from '../../core/plan.ts';
import { indexPath } from '../../core/registry/registry.ts';
import { localToken } from '../../local/access-file.ts';
import { endpointsOf, probeNeeds, startEmulators, unmetLines } from '../../local/access-probe.ts';
import { environmentFile, readSettingsFile } from '../../local/settings-file.ts';
import type { LocalEnvironment } from '../../local/supervisor.ts';

const settings = readSettingsFile(environmentFile('local'));
const project = settings.project;
const plan = planOf(settings);

describe('local: the emulators enforce the grants pulumi up gives', function () {
  this.timeout(120_000);
  let env: LocalEnvironment;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'access-enforced-'));
    env = await startEmulators(settings, dataDir);
  });
  after(async () => {
    await env?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every access need of the plan: allowed as its workload, and what must not be, refused', async () => {
    const needs = accessNeeds(plan, settings);
    const results = await probeNeeds(needs, endpointsOf(env), (who) => localToken(dataDir, who, project));
    const tried = results.filter((r) => r.tried);
    assert.ok(tried.length >= 50, `${tried.length} needs tried of ${needs.length}`);
    assert.ok(
      tried.some((r) => r.need.denied),
      'denied rows are tried too',
    );
    // The claims database in the Firestore emulator: every datastore row is tried, denied ones too.
    const datastore = results.filter((r) => r.need.permission.startsWith('datastore.'));
    assert.ok(datastore.length >= 9 && datastore.every((r) => r.tried), 'every claims row is tried');
    assert.ok(datastore.some((r) => r.need.denied));
    // Secret reads in the Secret Manager emulator: the translator row and a denied one included.
    const secrets = results.filter((r) => r.need.permission === 'secretmanager.versions.access');
    assert.ok(secrets.length >= 8 && secrets.every((r) => r.tried), 'every secret read is tried');
    assert.ok(secrets.some((r) => r.need.denied && r.need.who === 'gateway'));
    assert.ok(secrets.some((r) => r.need.resource.includes('/secrets/eventbus-translator-')));
    // Cloud Trace's and Cloud Monitoring's rows at the receiver: every workload's export is taken
    // (an empty one, 200) and the studio's read of a trace that does not exist is looked for (404).
    const telemetry = results.filter((r) => /^(cloudtrace|monitoring|telemetry)\./.test(r.need.permission));
    assert.deepEqual([...new Set(telemetry.map((r) => r.need.permission))].sort(), [
      'cloudtrace.traces.get',
      'monitoring.timeSeries.create',
      'telemetry.traces.write',
    ]);
    for (const r of telemetry)
      assert.deepEqual(r.tried ? [r.need.who, r.need.permission, r.status] : 'not tried', [
        r.need.who,
        r.need.permission,
        r.need.permission === 'cloudtrace.traces.get' ? 404 : 200,
      ]);
    assert.deepEqual(unmetLines(results), []);
  });

  it("Google's clients on a workload's own endpoints call as its service account", async () => {
    const iam = env.iam;
    assert.ok(iam, 'IAM is on by default');
    const at = (who: keyof typeof iam.ports) => iam.ports[who];
    const pubsubAs = (who: keyof typeof iam.ports) =>
      new PubSub({ projectId: project, apiEndpoint: `127.0.0.1:${at(who).pubsub}` });
    const data = Buffer.from('{}');
    // The studio may not publish events; the gateway may.
    await assert.rejects(
      pubsubAs('studio').topic('events').publishMessage({ data }),
      (err: { code?: number }) => {
        assert.equal(err.code, 7, 'PERMISSION_DENIED');
        return true;
      },
    );
    assert.match(await pubsubAs('gateway').topic('events').publishMessage({ data }), /\S/);
    // forward may not write events; store writes hook_failures and runs query jobs.
    const bigqueryAs = (who: keyof typeof iam.ports) =>
      new BigQuery({ projectId: project, apiEndpoint: `http://127.0.0.1:${at(who).bigquery}` });
    const row = { event_id: 'e1' };
    await assert.rejects(
      bigqueryAs('forward').dataset(plan.dataset).table('events').insert([row]),
      /denied|Access Denied/i,
    );
    const [rows] = await bigqueryAs('store').query({ query: 'SELECT 1 AS one' });
    assert.deepEqual(rows, [{ one: 1 }]);
    await bigqueryAs('store')
      .dataset(plan.dataset)
      .table('hook_failures')
      .insert([{}], { ignoreUnknownValues: true })
      .catch((err: { name?: string; errors?: unknown[] }) => {
        // Row-level errors (a PartialFailureError) mean the call itself was allowed.
        assert.equal(err.name, 'PartialFailureError', String(err));
      });
    // schedule reads Alert/ and pulls a dead-letter backlog; the studio may not pull it.
    const registry = plan.buckets.find((b) => b.purpose === 'registry')?.name as string;
    const storageAs = (who: keyof typeof iam.ports) =>
      new Storage({ projectId: project, apiEndpoint: `http://127.0.0.1:${at(who).storage}` });
    const [exists] = await storageAs('schedule').bucket(registry).file(indexPath('Alert')).exists();
    assert.equal(typeof exists, 'boolean');
    await assert.rejects(
      storageAs('gateway').bucket(registry).file(indexPath('Alert')).exists(),
      /does not have storage\.objects\.get/,
    );
    // A destination's dead-letter backlog (deliveries-<destination>-dead-letter-backlog).
    const backlog = plan.subscriptions.find(
      (s) => s.kind === 'backlog' && s.topic.startsWith('deliveries-'),
    )?.name;
    assert.ok(backlog, `a destination backlog in ${plan.subscriptions.map((s) => s.name).join(', ')}`);
    const pull = async (who: keyof typeof iam.ports) => {
      const { v1 } = await import('@google-cloud/pubsub');
      const client = new v1.SubscriberClient({
        servicePath: '127.0.0.1',
        port: at(who).pubsub,
        sslCreds: (await import('@grpc/grpc-js')).credentials.createInsecure(),
      });
      try {
        return await client.pull({
          subscription: `projects/${project}/subscriptions/${backlog}`,
          maxMessages: 1,
          returnImmediately: true,
        });
      } finally {
        await client.close();
      }
    };
    assert.ok(await pull('schedule'));
    await assert.rejects(pull('studio'), (err: { code?: number }) => err.code === 7);
  });

  it('--iam off: every caller is the owner, a workload token included', async () => {
    const offDir = mkdtempSync(join(tmpdir(), 'access-off-'));
    const off = await startEmulators(settings, offDir, false);
    try {
      assert.equal(off.iam, undefined);
      // A token of the other environment: with IAM off nothing reads it.
      const res = await fetch(`${off.urls['pubsub']}/v1/projects/${project}/topics/events:publish`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${localToken(dataDir, 'studio', project)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ messages: [{ data: Buffer.from('{}').toString('base64') }] }),
      });
      assert.equal(res.status, 200, await res.text());
    } finally {
      await off.stop();
      rmSync(offDir, { recursive: true, force: true });
    }
  });
});
