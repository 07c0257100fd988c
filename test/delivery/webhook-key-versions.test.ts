/**
 * A webhook key rotation by versions of one Secret Manager secret (issue #101): the settings name
 * the version that signs now (`config.signing_key_version`) and the one before it
 * (`config.previous_key_version`, with `previous_key_until`), never key values. The delivery reads
 * each version from the Secret Manager emulator (adapters/secrets.ts, `<secret>@<version>`), both
 * sign during the overlap and `standardwebhooks` and `svix` verify either key; after the end only
 * the current one. The previous release's form (a second secret under `signing_key_previous`)
 * still signs, and settings check warns.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecrets } from '../../adapters/secrets.ts';
import { rotationState, secretRefs } from '../../core/platforms/webhook/formats.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import { webhookFormatWarnings } from '../../core/platforms/webhook/warnings.ts';
import {
  type SecretManagerEmulator,
  startSecretManagerEmulator,
} from '../../emulators/secret-manager/server.ts';
import type { Destination } from '../../schemas/settings.ts';
import { verdicts } from '../support/webhook-verdicts.ts';

const PROJECT = 'shop-events-prod';
const key = () => `whsec_${randomBytes(24).toString('base64')}`;
const [V1, V2, V3] = [key(), key(), key()];
const event = {
  event_id: 'e-1',
  event_name: 'purchase',
  event_time: '2026-11-27T04:00:00.000Z',
  payload_digest: 'a'.repeat(64),
  event_data: { value: 12 },
};

const hook = (config: Record<string, string>): Destination => ({
  id: 'crm',
  type: 'webhook',
  base_url: 'https://crm.example',
  config: { path: '/in', format: 'standard-webhooks', ...config },
  secrets: { signing_key: 'crm-signing' },
});

describe('webhook: key rotation by versions of one Secret Manager secret', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-versions-'));
  let sm: SecretManagerEmulator;
  before(async () => {
    sm = await startSecretManagerEmulator({ port: 0, dataDir: join(dir, 'sm'), fsync: 'none' });
    const at = `${sm.url}/v1/projects/${PROJECT}/secrets`;
    const post = (url: string, body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await post(`${at}?secretId=crm-signing`, { replication: { automatic: {} } })).status, 200);
    for (const v of [V1, V2, V3])
      assert.equal(
        (await post(`${at}/crm-signing:addVersion`, { payload: { data: Buffer.from(v).toString('base64') } }))
          .status,
        200,
      );
  });
  after(async () => {
    await sm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the forward core reads for the destination's roles, from the emulator. */
  async function valuesOf(d: Destination): Promise<Record<string, string>> {
    const secrets = createSecrets({ env: {}, endpoint: sm.url, project: PROJECT });
    const out: Record<string, string> = {};
    for (const [role, name] of Object.entries(secretRefs(d))) out[role] = (await secrets.get(name)) ?? '';
    return out;
  }
  const send = async (d: Destination, now: Date) => {
    const p = webhookDriver.prepare(event, {
      destination: d,
      secrets: await valuesOf(d),
      now,
      environment: 'prod',
    });
    assert.ok(p.ok, p.ok ? '' : p.reason);
    return p.request;
  };

  it('names versions, never values: signing_key at version 2, the previous key at version 1 of the same secret', () => {
    const d = hook({
      signing_key_version: '2',
      previous_key_version: '1',
      previous_key_until: '2099-01-01T00:00:00Z',
    });
    assert.deepEqual(secretRefs(d), { signing_key: 'crm-signing@2', signing_key_previous: 'crm-signing@1' });
    assert.deepEqual(secretRefs(hook({})), { signing_key: 'crm-signing' }, 'without versions: the newest');
  });

  it('both versions sign during the overlap and both verify; after the end only the current one', async () => {
    const now = new Date();
    const until = new Date(now.getTime() + 3_600_000).toISOString();
    const during = await send(
      hook({ signing_key_version: '2', previous_key_version: '1', previous_key_until: until }),
      now,
    );
    assert.equal(during.headers['webhook-signature']?.split(' ').length, 2);
    assert.deepEqual(verdicts(during, V2), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(verdicts(during, V1), { standard: 'ok', svix: 'ok' });
    assert.notEqual(verdicts(during, V3).standard, 'ok', 'version 3, added but not named, does not sign');
    const ended = hook({
      signing_key_version: '2',
      previous_key_version: '1',
      previous_key_until: now.toISOString(),
    });
    assert.equal(rotationState(ended, now).state, 'ended');
    const after = await send(ended, now);
    assert.equal(after.headers['webhook-signature']?.split(' ').length, 1);
    assert.deepEqual(verdicts(after, V2), { standard: 'ok', svix: 'ok' });
    assert.notEqual(verdicts(after, V1).svix, 'ok');
  });

  it('the previous release’s second secret still signs; settings check warns with the versions form', async () => {
    const old: Destination = {
      ...hook({ previous_key_until: '2099-01-01T00:00:00Z' }),
      secrets: { signing_key: 'crm-signing', signing_key_previous: 'crm-signing-old' },
    };
    assert.deepEqual(secretRefs(old), old.secrets);
    assert.equal(rotationState(old, new Date()).state, 'overlap');
    const [warning, ...more] = webhookFormatWarnings(
      { name: 'w', project: PROJECT, region: 'europe-west1', destinations: [old] },
      new Date(),
    );
    assert.deepEqual(more, []);
    assert.match(
      warning ?? '',
      /previous release's form, which still signs; name versions of the signing key's one secret/,
    );
  });

  it('settings check refuses a version that is not a number', async () => {
    const { checkSettings } = await import('../../core/settings.ts');
    const r = checkSettings({
      name: 'w',
      project: PROJECT,
      region: 'europe-west1',
      destinations: [hook({ signing_key_version: 'latest' })],
    });
    assert.equal(r.ok, false);
    assert.match(JSON.stringify(r.ok ? [] : r.errors), /a version number of the secret, like 3/);
  });
});
