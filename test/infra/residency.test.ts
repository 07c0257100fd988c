/** Data residency: secrets stay in the environment's region when the settings ask for it. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, settingsText } from './support.ts';

const SECRET = 'gcp:secretmanager/secret:Secret';

async function secretsReplication(extra: string) {
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-residency-'));
  try {
    const file = join(dir, 'env.yaml');
    writeFileSync(file, `${settingsText('environments/example.yaml')}\n${extra}\n`);
    const config = loadStackConfig({
      project: 'acme-outdoor-prod',
      region: 'europe-west1',
      settingsFile: file,
    });
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    return ofType(recorded, SECRET).map((s) => s.inputs['replication']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('infra: Secret Manager replication and data residency', () => {
  it('replicates automatically unless the settings ask for residency', async () => {
    const replication = await secretsReplication('');
    assert.ok(replication.length > 0);
    for (const r of replication) assert.deepEqual(r, { auto: {} });
  });

  it('keeps every secret in the environment’s region (user-managed) with data_residency: true', async () => {
    const replication = await secretsReplication('data_residency: true');
    assert.ok(replication.length > 0);
    for (const r of replication)
      assert.deepEqual(r, { userManaged: { replicas: [{ location: 'europe-west1' }] } });
  });
});
