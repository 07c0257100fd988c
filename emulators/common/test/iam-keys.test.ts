/**
 * Service-account keys (iam-keys.ts): a key file as Google's auth library reads it, self-signed JWTs
 * verified with the published half (kid, iss/sub, exp and iat, scope or audience) and refused when
 * not this environment's, expired or forged; a caller by JWT through Enforcement.
 */
import assert from 'node:assert/strict';
import { createSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AccessFile,
  Enforcement,
  LOCAL_UNIVERSE,
  newServiceAccountKey,
  newTokenSecret,
  STORAGE_JWT_SERVICE,
  verifyRsaSha256,
  verifySelfSignedJwt,
} from '../iam-enforce.ts';

const EMAIL = 'uploader@p.iam.gserviceaccount.com';
const MEMBER = `serviceAccount:${EMAIL}`;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const SECONDS = NOW / 1000;

const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A JWT signed with `privateKey`, as google-auth-library's JWTAccess builds one. */
function jwt(privateKey: string, header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const signing = `${part(header)}.${part(claims)}`;
  const signature = createSign('RSA-SHA256').update(signing).sign(privateKey).toString('base64url');
  return `${signing}.${signature}`;
}

describe('service-account keys', () => {
  const { keyFile, published } = newServiceAccountKey(MEMBER, 'p');
  const claims = {
    iss: EMAIL,
    sub: EMAIL,
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    iat: SECONDS,
    exp: SECONDS + 3600,
  };
  const header = { alg: 'RS256', typ: 'JWT', kid: keyFile.private_key_id };

  it('writes a key file of Google’s shape, its public half to publish', () => {
    assert.equal(keyFile.type, 'service_account');
    assert.equal(keyFile.client_email, EMAIL);
    assert.equal(keyFile.project_id, 'p');
    assert.equal(keyFile.universe_domain, LOCAL_UNIVERSE);
    assert.match(keyFile.private_key, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(keyFile.client_id, /^\d+$/);
    assert.equal(published.keyId, keyFile.private_key_id);
    assert.match(published.publicKey, /^-----BEGIN PUBLIC KEY-----/);
    assert.throws(() => newServiceAccountKey('user:a@b.c', 'p'), /serviceAccount/);
  });

  it('verifies a self-signed JWT with a scope or an audience of the universe', () => {
    assert.deepEqual(verifySelfSignedJwt([published], jwt(keyFile.private_key, header, claims), NOW), {
      ok: true,
      member: MEMBER,
    });
    const { scope: _, ...bare } = claims;
    const aud = { ...bare, aud: `https://storage.${LOCAL_UNIVERSE}/` };
    assert.equal(verifySelfSignedJwt([published], jwt(keyFile.private_key, header, aud), NOW).ok, true);
    const elsewhere = { ...bare, aud: 'https://storage.googleapis.com/' };
    assert.equal(
      verifySelfSignedJwt([published], jwt(keyFile.private_key, header, elsewhere), NOW).ok,
      false,
    );
  });

  it('takes, for one service, only its own scopes or audience', () => {
    const { scope: _, ...bare } = claims;
    const verify = (c: Record<string, unknown>) =>
      verifySelfSignedJwt([published], jwt(keyFile.private_key, header, c), NOW, STORAGE_JWT_SERVICE).ok;
    assert.equal(verify(claims), true, 'cloud-platform');
    assert.equal(verify({ ...bare, scope: 'https://www.googleapis.com/auth/devstorage.read_only' }), true);
    assert.equal(verify({ ...bare, scope: 'https://www.googleapis.com/auth/bigquery' }), false);
    assert.equal(verify({ ...bare, scope: 'anything' }), false);
    assert.equal(verify({ ...bare, aud: `https://storage.${LOCAL_UNIVERSE}/` }), true);
    assert.equal(verify({ ...bare, aud: `https://bigquery.${LOCAL_UNIVERSE}/` }), false);
  });

  it('refuses a JWT not of this environment, forged, expired or too long-lived', () => {
    const other = newServiceAccountKey(MEMBER, 'p');
    const cases: [string, string, RegExp][] = [
      [
        'unknown key',
        jwt(other.keyFile.private_key, { ...header, kid: other.keyFile.private_key_id }, claims),
        /did not publish/,
      ],
      ['forged', jwt(other.keyFile.private_key, header, claims), /bad signature/],
      [
        'expired',
        jwt(keyFile.private_key, header, { ...claims, iat: SECONDS - 7200, exp: SECONDS - 3600 }),
        /expired/,
      ],
      ['too long', jwt(keyFile.private_key, header, { ...claims, exp: SECONDS + 7200 }), /an hour/],
      [
        'another issuer',
        jwt(keyFile.private_key, header, { ...claims, iss: 'x@p.iam.gserviceaccount.com' }),
        /iss and sub/,
      ],
      ['HS256', jwt(keyFile.private_key, { ...header, alg: 'HS256' }, claims), /RS256/],
    ];
    for (const [what, token, reason] of cases) {
      const v = verifySelfSignedJwt([published], token, NOW);
      assert.equal(v.ok, false, what);
      assert.match(v.ok ? '' : v.reason, reason, what);
    }
  });

  it('verifies RSA-SHA256 signatures with the published half only', () => {
    const sig = createSign('RSA-SHA256').update('to sign').sign(keyFile.private_key);
    assert.equal(verifyRsaSha256([published], 'to sign', sig), published);
    assert.equal(verifyRsaSha256([published], 'to sign!', sig), undefined);
    assert.equal(verifyRsaSha256([], 'to sign', sig), undefined);
  });

  it('makes a JWT’s service account the caller of a request (Enforcement)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'iam-keys-'));
    try {
      const path = join(dir, 'access.json');
      const file: AccessFile = {
        tokenSecret: newTokenSecret(),
        policies: [],
        serviceAccountKeys: [published],
      };
      writeFileSync(path, JSON.stringify(file));
      const e = new Enforcement(path);
      const now = Math.floor(Date.now() / 1000);
      const live = jwt(keyFile.private_key, header, { ...claims, iat: now, exp: now + 3600 });
      assert.deepEqual(e.callerOf(`Bearer ${live}`, undefined), { principal: MEMBER });
      const stale = jwt(keyFile.private_key, header, { ...claims, iat: now - 7200, exp: now - 3600 });
      assert.equal(e.callerOf(`Bearer ${stale}`, undefined), undefined);
      assert.deepEqual(e.keysOf(EMAIL), [published]);
      assert.deepEqual(e.keysOf('x@p.iam.gserviceaccount.com'), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
