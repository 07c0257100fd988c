import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGoogleIdentity, principalAllowed } from '../../gateway/google-identity.ts';
import { sharedSigningCertificate } from '../support/signing-certificate.ts';
import { baseSettings, FakePublisher, post, reasonOf, startTestGateway } from './support.ts';

const AUDIENCE = 'https://gateway.example';
const SA = 'producer@p1.iam.gserviceaccount.com';

/** Signs an RS256 JWT with a local key (docs/google-wire.md §5): no network. */
function jwt(privateKey: KeyObject, kid: string, claims: Record<string, unknown>) {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = `${b64({ alg: 'RS256', kid, typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${sign('RSA-SHA256', Buffer.from(head), privateKey).toString('base64url')}`;
}

describe('gateway: Google ID tokens and access tokens (offline)', () => {
  // Two RSA keys the tests share (test/support/signing-certificate.ts), not made here again.
  const privateKey = createPrivateKey(sharedSigningCertificate(0).key);
  const publicKey = createPublicKey(privateKey);
  let google: Server;
  let base: string;
  let tokeninfoCalls = 0;
  before(async () => {
    google = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/certs') {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
          res.end(JSON.stringify({ k1: publicKey.export({ type: 'spki', format: 'pem' }) }));
          return;
        }
        if (req.url?.startsWith('/tokeninfo')) {
          tokeninfoCalls++;
          const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
          const emails: Record<string, string> = {
            'ya29.good': SA,
            'ya29.pubsub': SA,
            'ya29.narrow': SA,
            'ya29.stranger': 'someone@else.example',
          };
          // Scopes as tokeninfo gives them: one space-separated string.
          const scopes: Record<string, string> = {
            'ya29.good': 'openid https://www.googleapis.com/auth/cloud-platform',
            'ya29.pubsub': 'https://www.googleapis.com/auth/pubsub',
            'ya29.narrow': 'openid https://www.googleapis.com/auth/userinfo.email',
            'ya29.stranger': 'https://www.googleapis.com/auth/cloud-platform',
          };
          if (!emails[token]) {
            res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              aud: 'x',
              azp: 'x',
              sub: '1',
              scope: scopes[token],
              expires_in: 3000,
              email: emails[token],
              email_verified: 'true',
            }),
          );
          return;
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => google.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(google.address() as AddressInfo).port}`;
  });
  after(() => google.close());

  const claims = (over: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'https://accounts.google.com',
      aud: AUDIENCE,
      sub: '1',
      email: SA,
      email_verified: true,
      iat: now,
      exp: now + 600,
      ...over,
    };
  };

  it('accepts ID tokens and access tokens of listed principals, refuses others', async () => {
    const identity = createGoogleIdentity({
      audience: AUDIENCE,
      certsUrl: `${base}/certs`,
      tokenInfoUrl: `${base}/tokeninfo`,
    });
    const pub = new FakePublisher();
    const g = await startTestGateway({
      publisher: pub,
      google: identity,
      settings: baseSettings({ producers: { principals: [`serviceAccount:${SA}`] } }),
    });
    try {
      const send = (bearer: string) =>
        post(`${g.url}/v1/topics/events`, { event_name: 'page_view' }, { authorization: `Bearer ${bearer}` });
      const ok = await send(jwt(privateKey, 'k1', claims()));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal((await send('ya29.good')).status, 200);
      assert.equal((await send('ya29.good')).status, 200);
      assert.equal(tokeninfoCalls, 1, 'a verified access token is cached');
      assert.equal((await send('ya29.pubsub')).status, 200, 'the pubsub scope alone is enough');
      // A listed principal's token minted for openid/email only: known caller, not allowed to
      // publish, as Pub/Sub answers "insufficient authentication scopes" (403 PERMISSION_DENIED).
      const narrow = await send('ya29.narrow');
      assert.equal(narrow.status, 403, JSON.stringify(narrow.body));
      assert.equal(reasonOf(narrow), 'PERMISSION_DENIED');
      assert.match(JSON.stringify(narrow.body), /cloud-platform/);
      const stranger = await send('ya29.stranger');
      assert.equal(stranger.status, 403);
      assert.equal((await send('ya29.bad')).status, 401);
      const wrongAud = await send(jwt(privateKey, 'k1', claims({ aud: 'https://other.example' })));
      assert.equal(wrongAud.status, 401);
      assert.equal(reasonOf(wrongAud), 'INVALID_CREDENTIALS');
      assert.equal(
        (await send(jwt(privateKey, 'k1', claims({ exp: Math.floor(Date.now() / 1000) - 3600 })))).status,
        401,
      );
      const other = createPrivateKey(sharedSigningCertificate(1).key);
      assert.equal((await send(jwt(other, 'k1', claims()))).status, 401);
      assert.equal((await send(jwt(privateKey, 'k1', claims({ email: 'x@y.example' })))).status, 403);
      assert.equal(pub.published, 4);
    } finally {
      await g.close();
    }
  });

  it('matches principals by service account, user and domain (groups only via IAM)', () => {
    const p = [
      'serviceAccount:a@p.iam.gserviceaccount.com',
      'user:Bob@Example.com',
      'domain:corp.example',
      'group:g@x.example',
    ];
    assert.equal(principalAllowed(p, 'a@p.iam.gserviceaccount.com'), true);
    assert.equal(principalAllowed(p, 'bob@example.com'), true);
    assert.equal(principalAllowed(p, 'ann@corp.example'), true);
    assert.equal(principalAllowed(p, 'ann@evilcorp.example'), false);
    assert.equal(principalAllowed(p, 'g@x.example'), false);
  });
});
