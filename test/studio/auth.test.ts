/**
 * The studio behind IAP (studio/auth.ts): IAP's signed header is checked for real — ES256 JWTs
 * signed here with a generated P-256 key, the key set injected in place of Google's — and the
 * verified email gets its role from the settings' `studio` lists. Through the server on a
 * registry bucket in the Cloud Storage emulator: viewers read, editors apply (recorded as the
 * author), admins delete, and the local admin token still works.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { RegistryClient } from '../../adapters/registry.ts';
import { ok } from '../../core/step.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import {
  allowed,
  IAP_ISSUER,
  iapVerifier,
  type PublicKeys,
  roleOf,
  type StudioAccess,
} from '../../studio/auth.ts';
import { startStudio } from '../../studio/server.ts';

const AUDIENCE = '/projects/123456789012/locations/europe-west1/services/studio';

function keyPair(): { privateKey: KeyObject; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An IAP-like assertion: ES256, the signature in JOSE (r‖s) form as IAP sends it. */
function assertion(
  key: KeyObject,
  kid: string,
  claims: Record<string, unknown> = {},
  now = Math.floor(Date.now() / 1000),
): string {
  const body = {
    iss: IAP_ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 600,
    sub: 'accounts.google.com:1234',
    email: 'ana@acme.example',
    ...claims,
  };
  const signed = `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64(body)}`;
  const signature = sign('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' });
  return `${signed}.${signature.toString('base64url')}`;
}

const ACCESS: StudioAccess = {
  viewers: ['domain:acme.example', 'group:marketing@acme.example'],
  editors: ['user:Eve@acme.example', 'group:data@acme.example'],
  admins: ['user:root@acme.example', 'serviceAccount:ci@acme-prod.iam.gserviceaccount.com'],
};

describe('studio auth: roles from the settings lists', () => {
  it('gives the highest role of the lists naming the caller, directly or by domain', () => {
    assert.equal(roleOf('root@acme.example', ACCESS), 'admin');
    assert.equal(roleOf('eve@ACME.example', ACCESS), 'editor', 'emails compare case-insensitively');
    assert.equal(roleOf('ci@acme-prod.iam.gserviceaccount.com', ACCESS), 'admin');
    assert.equal(roleOf('bob@acme.example', ACCESS), 'viewer', 'by domain');
  });

  it('gives a caller matched by nothing the lowest role of the lists holding a group', () => {
    assert.equal(roleOf('someone@partner.example', ACCESS), 'viewer');
    assert.equal(roleOf('x@partner.example', { editors: ['group:g@acme.example'] }), 'editor');
    assert.equal(roleOf('x@partner.example', { admins: ['user:root@acme.example'] }), undefined);
    assert.equal(roleOf('x@partner.example', {}), undefined);
  });

  it('lets viewers read, editors also apply, admins also delete', () => {
    const table = (['viewer', 'editor', 'admin'] as const).map((r) =>
      (['read', 'apply', 'delete'] as const).map((a) => allowed(r, a)),
    );
    assert.deepEqual(table, [
      [true, false, false],
      [true, true, false],
      [true, true, true],
    ]);
  });
});

describe('studio auth: IAP signed header verification', () => {
  const signer = keyPair();
  const keys: PublicKeys = { k1: signer.pem };

  it('accepts a valid assertion and returns its email', async () => {
    const verify = iapVerifier(AUDIENCE, async () => keys);
    assert.deepEqual(await verify(assertion(signer.privateKey, 'k1')), ok('ana@acme.example'));
  });

  it('refuses another audience, another issuer, an expired token, a foreign signature, no email', async () => {
    const verify = iapVerifier(AUDIENCE, async () => keys);
    const past = Math.floor(Date.now() / 1000) - 7200;
    const cases: Record<string, string> = {
      audience: assertion(signer.privateKey, 'k1', {
        aud: '/projects/1/locations/europe-west1/services/studio',
      }),
      issuer: assertion(signer.privateKey, 'k1', { iss: 'https://accounts.google.com' }),
      expired: assertion(signer.privateKey, 'k1', {}, past),
      signature: assertion(keyPair().privateKey, 'k1'),
      email: assertion(signer.privateKey, 'k1', { email: undefined }),
      garbage: 'not.a.jwt',
    };
    for (const [what, jwt] of Object.entries(cases)) {
      const got = await verify(jwt);
      assert.match(
        got.ok ? 'accepted' : `${got.error.http} ${got.error.body.error.message}`,
        /^401 Request had invalid authentication credentials\. IAP assertion refused: /,
        what,
      );
    }
  });

  it('keeps the keys, and fetches them again when a token names an unknown key (rotation)', async () => {
    const next = keyPair();
    let fetches = 0;
    let current: PublicKeys = keys;
    const verify = iapVerifier(AUDIENCE, async () => {
      fetches += 1;
      return current;
    });
    await verify(assertion(signer.privateKey, 'k1'));
    await verify(assertion(signer.privateKey, 'k1'));
    assert.equal(fetches, 1);
    current = { k1: signer.pem, k2: next.pem };
    assert.deepEqual(
      await verify(assertion(next.privateKey, 'k2', { email: 'eve@acme.example' })),
      ok('eve@acme.example'),
    );
    assert.equal(fetches, 2);
  });
});

describe('studio auth: the admin API behind IAP', () => {
  const fx = emulatorWithFreshBuckets('studio-iap');
  const signer = keyPair();
  const TOKEN = 'test-admin-token-0123456789';
  let studio: Awaited<ReturnType<typeof startStudio>>;

  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      iap: { verify: iapVerifier(AUDIENCE, async () => ({ k1: signer.pem })), access: ACCESS },
    });
  });
  afterEach(() => studio.close());

  const DOC = { kind: 'Query', name: 'daily', spec: { sql: 'SELECT 1' } };

  async function call(email: string | undefined, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (email) headers['x-goog-iap-jwt-assertion'] = assertion(signer.privateKey, 'k1', { email });
    const res = await fetch(`${studio.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('lets each role do what it may, records the verified email as the author', async () => {
    assert.equal((await call('bob@acme.example', 'GET', '/v1/admin/resources/Query')).status, 200);
    const viewerApply = await call('bob@acme.example', 'POST', '/v1/admin/apply', { documents: [DOC] });
    assert.equal(viewerApply.status, 403);
    assert.match(JSON.stringify(viewerApply.body), /bob@acme\.example is a studio viewer/);
    // The creator's actions: a viewer may look (here: a studio without a warehouse says so), not
    // make tokens or send.
    const look = await call('bob@acme.example', 'POST', '/v1/admin/arrivals', { event: 'x', since: 'now' });
    assert.equal(look.status, 400);
    assert.equal(
      (await call('bob@acme.example', 'POST', '/v1/admin/tokens', { translator: 'x' })).status,
      403,
    );
    assert.equal((await call('bob@acme.example', 'POST', '/v1/admin/send', {})).status, 403);

    assert.equal(
      (await call('eve@acme.example', 'POST', '/v1/admin/apply', { documents: [DOC] })).status,
      200,
    );
    const got = await call('bob@acme.example', 'GET', '/v1/admin/resources/Query/daily');
    assert.equal(got.body['author'], 'eve@acme.example');
    assert.equal((await call('eve@acme.example', 'DELETE', '/v1/admin/resources/Query/daily')).status, 403);
    assert.equal((await call('root@acme.example', 'DELETE', '/v1/admin/resources/Query/daily')).status, 200);
  });

  it('refuses no credential and a bad assertion with 401, and an email in no list with 403', async () => {
    assert.equal((await call(undefined, 'GET', '/v1/admin/resources/Query')).status, 401);
    const forged = await fetch(`${studio.url}/v1/admin/resources/Query`, {
      headers: { 'x-goog-iap-jwt-assertion': assertion(keyPair().privateKey, 'k1') },
    });
    assert.equal(forged.status, 401);
    const outsider = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      iap: {
        verify: iapVerifier(AUDIENCE, async () => ({ k1: signer.pem })),
        access: { admins: ['user:root@acme.example'] },
      },
    });
    try {
      const res = await fetch(`${outsider.url}/v1/admin/resources/Query`, {
        headers: {
          'x-goog-iap-jwt-assertion': assertion(signer.privateKey, 'k1', { email: 'bob@acme.example' }),
        },
      });
      assert.equal(res.status, 403);
    } finally {
      await outsider.close();
    }
  });

  it('still takes the admin token', async () => {
    const res = await fetch(`${studio.url}/v1/admin/resources/Query`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 200);
  });
});
