/**
 * The local token exchange (local-sts.ts): the access token it answers never outlives the subject
 * token it was given, a local token's or a self-signed JWT's.
 */
import assert from 'node:assert/strict';
import { createSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Enforcement, mintToken, newServiceAccountKey, newTokenSecret, verifyToken } from '../iam-enforce.ts';
import { EXCHANGED_TTL_SECONDS, exchangeToken } from '../local-sts.ts';

const EMAIL = 'exchanger@p.iam.gserviceaccount.com';
const MEMBER = `serviceAccount:${EMAIL}`;
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

describe('local token exchange', () => {
  let dir: string;
  let enforcement: Enforcement;
  const secret = newTokenSecret();
  const { keyFile, published } = newServiceAccountKey(MEMBER, 'p');
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'local-sts-'));
    const file = join(dir, 'access.json');
    writeFileSync(
      file,
      JSON.stringify({ tokenSecret: secret, policies: [], serviceAccountKeys: [published] }),
    );
    enforcement = new Enforcement(file);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const exchange = (subject: string) =>
    exchangeToken(enforcement, new URLSearchParams({ grant_type: GRANT, subject_token: subject }));

  /** A self-signed JWT of the key, valid for `seconds` from now. */
  function jwt(seconds: number): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const signing = `${part({ alg: 'RS256', typ: 'JWT', kid: keyFile.private_key_id })}.${part({
      iss: EMAIL,
      sub: EMAIL,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      iat: now,
      exp: now + seconds,
    })}`;
    return `${signing}.${createSign('RSA-SHA256').update(signing).sign(keyFile.private_key).toString('base64url')}`;
  }

  it('bounds the exchanged token by a JWT’s exp', () => {
    const [status, body] = exchange(jwt(120));
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(Number(body.expires_in) <= 120 && Number(body.expires_in) > 100, String(body.expires_in));
    // The token itself is gone after the JWT's exp, whatever a client does with expires_in.
    assert.deepEqual(verifyToken(secret, String(body.access_token), Date.now() + 121_000), {
      ok: false,
      reason: 'expired',
    });
  });

  it('bounds it by a local subject token’s expiry, and gives an hour to a longer one', () => {
    const [, short] = exchange(mintToken(secret, MEMBER, 300));
    assert.ok(Number(short.expires_in) <= 300, String(short.expires_in));
    const [, long] = exchange(mintToken(secret, MEMBER, 86_400));
    assert.equal(long.expires_in, EXCHANGED_TTL_SECONDS);
  });
});
