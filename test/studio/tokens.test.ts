/**
 * Tokens made through the studio's admin API (docs/security.md#the-studio), over real HTTP with a
 * registry bucket in the Cloud Storage emulator and a token store file: a `translate:<name>` token
 * only for a Translator the registry holds (never `*`, a ghost or a deleted one), expiring after 90
 * days unless the request says otherwise, never expiring only when `"expires": "never"` is asked
 * for; and `eventbus token list` showing each token's expiry.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient } from '../../adapters/registry.ts';
import { run } from '../../cli/main.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { INTERACTIVE_TOKEN_DAYS } from '../../gateway/credentials.ts';
import { fileTokenStore } from '../../gateway/token-store.ts';
import { startStudio } from '../../studio/server.ts';

const TOKEN = 'tokens-admin-token-0123456789';
const TRANSLATOR = {
  kind: 'Translator',
  name: 'orders-csv',
  spec: { event: 'purchase', format: { type: 'csv' }, fields: [{ target: 'event_id', source: 'Id' }] },
};

describe('studio tokens: only for translators that exist, expiring by default', () => {
  const fx = emulatorWithFreshBuckets('studio-tokens');
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let dir: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'studio-tokens-'));
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      tokens: fileTokenStore(join(dir, 'tokens.json')),
    });
  });
  afterEach(async () => {
    await studio.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An editor's call as the pages make it: JSON, from the studio's own origin. */
  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(`${studio.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', origin: studio.url },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('makes tokens only for translators that exist, expiring in 90 days unless "never" is asked for', async () => {
    for (const translator of ['ghost', '*', '__proto__', 'constructor']) {
      const a = await call('POST', '/v1/admin/tokens', { translator });
      assert.equal(a.status, 400, translator);
      assert.match(JSON.stringify(a.body), /"field":"translator"/);
    }
    assert.match(
      JSON.stringify((await call('POST', '/v1/admin/tokens', { translator: 'ghost' })).body),
      /Translator\/ghost/,
    );
    assert.equal((await call('POST', '/v1/admin/apply', { documents: [TRANSLATOR] })).status, 200);
    const before = Date.now();
    const usual = await call('POST', '/v1/admin/tokens', { translator: 'orders-csv' });
    assert.equal(usual.status, 200, JSON.stringify(usual.body));
    const expires = Date.parse(String(usual.body['expires_at']));
    assert.ok(
      Math.abs(expires - before - INTERACTIVE_TOKEN_DAYS * 86_400_000) < 60_000,
      String(usual.body['expires_at']),
    );
    assert.equal(INTERACTIVE_TOKEN_DAYS, 90);
    const short = await call('POST', '/v1/admin/tokens', { translator: 'orders-csv', expires: '12h' });
    assert.ok(Date.parse(String(short.body['expires_at'])) < before + 13 * 3_600_000);
    const forever = await call('POST', '/v1/admin/tokens', { translator: 'orders-csv', expires: 'never' });
    assert.equal(forever.status, 200);
    assert.equal(forever.body['expires_at'], 'never');
    for (const expires of ['0d', 'soon', '2001-01-01T00:00:00Z', 90]) {
      const a = await call('POST', '/v1/admin/tokens', { translator: 'orders-csv', expires });
      assert.equal(a.status, 400, String(expires));
      assert.match(JSON.stringify(a.body), /"field":"expires"/);
    }
    const stored = (await fileTokenStore(join(dir, 'tokens.json')).read()).tokens;
    assert.deepEqual(
      stored.map((t) => [t.scopes.join(' '), t.expires_at === undefined]),
      [
        ['translate:orders-csv', false],
        ['translate:orders-csv', false],
        ['translate:orders-csv', true],
      ],
    );
    // A deleted translator gets no new token.
    assert.equal((await call('DELETE', '/v1/admin/resources/Translator/orders-csv')).status, 200);
    assert.equal((await call('POST', '/v1/admin/tokens', { translator: 'orders-csv' })).status, 400);
  });

  it("`eventbus token list` shows each token's expiry, `never` only when asked for", async () => {
    const store = `file:${join(dir, 'cli-tokens.json')}`;
    const cli = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await run([...argv, '--store', store], { out: (t) => (out += t), err: (t) => (err += t) });
      assert.equal(code, 0, err);
      return out;
    };
    await cli('token', 'create', '--scope', 'translate:orders-csv', '--expires', 'never');
    await cli('token', 'create', '--scope', 'publish:*', '--expires', '30d');
    const rows = JSON.parse(await cli('token', 'list', '--format', 'json')) as { expires_at: string }[];
    assert.equal(rows[0]?.expires_at, 'never');
    assert.match(String(rows[1]?.expires_at), /^\d{4}-\d\d-\d\dT/);
  });
});
