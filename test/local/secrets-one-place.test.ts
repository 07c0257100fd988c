/**
 * Secrets live in one place (issue #98; docs/local.md, "Secrets"): files an earlier version kept
 * in `<data>/secrets` are moved into the Secret Manager emulator at start and removed, so no
 * plaintext secret file remains once `start` is ready; a value the emulator already holds wins,
 * and the stale file goes too.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSecret } from '../../local/local-secrets.ts';
import { secretManagerEmulator } from '../../local/services.ts';
import { startEnvironment } from '../../local/supervisor.ts';
import type { Settings } from '../../schemas/settings.ts';

const settings = {
  name: 'local',
  project: 'local-project',
  region: 'europe-west1',
  destinations: [
    { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:8099', secrets: { signing_key: 'HOOK_KEY' } },
  ],
} as unknown as Settings;

describe('local: no plaintext secret file remains after start', function () {
  this.timeout(60_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'eventbus-secrets-one-place-'));
  const legacy = join(dataDir, 'secrets');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Starts the Secret Manager emulator alone, as `npm start` seeds it; the value of each name asked, then stops. */
  async function startOnce(names: readonly string[]): Promise<Record<string, string | undefined>> {
    const env = await startEnvironment({
      settings,
      dataDir,
      services: [secretManagerEmulator],
      freePorts: true,
      provision: false,
      iam: false,
      log: () => {},
    });
    try {
      const base = env.urls['secret-manager'] as string;
      const out: Record<string, string | undefined> = {};
      for (const n of names) out[n] = await readSecret(base, settings.project, n);
      return out;
    } finally {
      await env.stop();
    }
  }

  it('moves each file into the emulator and removes it, the folder too', async () => {
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'HOOK_KEY'), 'hook-key-from-file\n');
    writeFileSync(join(legacy, 'GOOGLE_ADS_CREDENTIALS'), '{"refresh_token":"r-1","client_secret":"c-1"}');
    writeFileSync(join(legacy, 'EMPTY'), '');
    const values = await startOnce(['HOOK_KEY', 'GOOGLE_ADS_CREDENTIALS']);
    assert.equal(values['HOOK_KEY'], 'hook-key-from-file');
    assert.equal(values['GOOGLE_ADS_CREDENTIALS'], '{"refresh_token":"r-1","client_secret":"c-1"}');
    assert.equal(
      existsSync(legacy),
      false,
      `left: ${existsSync(legacy) ? readdirSync(legacy).join(', ') : ''}`,
    );
  });

  it('a file left by an earlier start (its value already moved) is removed; the emulator keeps its value', async () => {
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'HOOK_KEY'), 'a-stale-copy');
    const values = await startOnce(['HOOK_KEY']);
    assert.equal(values['HOOK_KEY'], 'hook-key-from-file');
    assert.equal(existsSync(legacy), false);
  });
});
