/**
 * The studio's apply refuses an Alert whose `failure_rate` names a destination the settings do not
 * have (issue #61, a Low), with the destinations there are, at a dry run as at an apply, and
 * writes nothing; one naming a destination of the settings is applied. Through HTTP, on a registry
 * bucket in the Cloud Storage emulator.
 */
import assert from 'node:assert/strict';
import { RegistryClient } from '../../adapters/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';

const TOKEN = 'alert-destinations-admin-token-0123456789';

describe('studio: an alert naming an unknown destination is refused at apply', function () {
  this.timeout(60_000);
  const settings = testSettings({
    connections: [{ id: 'ops-chat', type: 'chat', url: 'https://chat.example/hook' }],
    destinations: [
      { id: 'meta', type: 'meta_capi', secrets: { access_token: 'META_TOKEN' } },
      { id: 'ga4', type: 'ga4_mp', secrets: { api_secret: 'GA4_SECRET' } },
    ],
  } as never);
  const fx = emulatorWithFreshBuckets('alert-destinations');
  let studio: Awaited<ReturnType<typeof startStudio>>;
  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      connections: settings.connections ?? [],
      settings,
    });
  });
  afterEach(() => studio.close());

  const alert = (destination: string) => ({
    kind: 'Alert',
    name: 'meta-failing',
    spec: {
      condition: { failure_rate: { destination, above: 0.2, window: '15m' } },
      schedule: { every: '5m' },
      notify: { connection: 'ops-chat' },
    },
  });

  async function apply(documents: unknown[], dryRun = false) {
    const res = await fetch(`${studio.url}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents, dryRun }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('answers 400 naming the field and the known destinations, dry run or not, and stores nothing', async () => {
    for (const dryRun of [true, false]) {
      const { status, body } = await apply([alert('metaa')], dryRun);
      assert.equal(status, 400, JSON.stringify(body));
      assert.match(
        JSON.stringify(body),
        /documents\[0\]\.spec\.condition\.failure_rate\.destination.*unknown destination \\"metaa\\" \(settings: meta, ga4\)/,
      );
    }
    const [files] = await fx.bucket.getFiles();
    assert.deepEqual(
      files.map((f) => f.name),
      [],
    );
  });

  it('applies an alert naming a destination of the settings', async () => {
    const { status, body } = await apply([alert('meta')]);
    assert.equal(status, 200, JSON.stringify(body));
  });
});
