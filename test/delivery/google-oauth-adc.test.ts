/**
 * The keyless Google Ads path (adapters/google-oauth.ts): with no credentials secret, the forward
 * function's token is its own service account's, from Application Default Credentials — on
 * Cloud Functions the metadata server. A loopback stand-in for that server answers as Google's
 * does (Metadata-Flavor header required, the scopes asked for as a query parameter), in a child
 * process pointed at it as a Cloud Run instance is (GCE_METADATA_HOST). The local environment's
 * twin of that endpoint (local/receiver/metadata.ts) serves the schedule function's GA4 counts
 * read (issue #102), with metadata probing off as every local function runs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { handleMetadataToken } from '../../local/receiver/metadata.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The token a child process gets as its own identity, from the metadata server at the port. */
function ownToken(port: number, detection: string, scope: string): Promise<string> {
  const script = `import { createAccessTokens, tokenEgress } from ${JSON.stringify(join(ROOT, 'adapters/google-oauth.ts'))};
console.log(await createAccessTokens(tokenEgress(new Set(), 'test', process.env.GCE_METADATA_HOST))('', ${JSON.stringify(scope)}, false));`;
  return new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...process.env,
        GCE_METADATA_HOST: `127.0.0.1:${port}`,
        METADATA_SERVER_DETECTION: detection,
        GOOGLE_APPLICATION_CREDENTIALS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (b: Buffer) => chunks.push(b));
    child.once('close', (code) => {
      const text = Buffer.concat(chunks).toString();
      if (code === 0) done(text.trim());
      else fail(new Error(text));
    });
  });
}

describe('Google OAuth without a key: the function’s own identity', () => {
  let server: Server;
  const asked: { path: string; flavor: string | undefined }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      asked.push({ path: req.url ?? '', flavor: req.headers['metadata-flavor'] as string | undefined });
      res.setHeader('Metadata-Flavor', 'Google');
      if (req.headers['metadata-flavor'] !== 'Google') {
        res.writeHead(403).end('Missing Metadata-Flavor:Google header.');
        return;
      }
      if (req.url?.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'ya29.forward-own', expires_in: 3599, token_type: 'Bearer' }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  });
  after(() => server.close());

  it('gets a token for the Data Manager scope from the metadata server, no credentials secret', async () => {
    const port = (server.address() as AddressInfo).port;
    const out = await ownToken(port, 'assume-present', 'https://www.googleapis.com/auth/datamanager');
    assert.equal(out, 'ya29.forward-own');
    const token = asked.find((a) => a.path.includes('/token'));
    assert.ok(token, JSON.stringify(asked));
    assert.equal(token.flavor, 'Google');
    assert.match(decodeURIComponent(token.path), /scopes=https:\/\/www\.googleapis\.com\/auth\/datamanager/);
  });
});

describe('the local twin of the metadata server’s token endpoint (local/receiver/metadata.ts)', () => {
  let twin: Server;
  let port = 0;
  before(async () => {
    twin = createServer((req, res) => {
      if (!handleMetadataToken(req, res, (req.url ?? '/').split('?')[0] as string)) res.writeHead(404).end();
    });
    await new Promise<void>((done) => twin.listen(0, '127.0.0.1', done));
    port = (twin.address() as AddressInfo).port;
  });
  after(() => twin.close());

  it('gives a local function its own token with metadata probing off, as `npm start` runs it', async () => {
    const token = await ownToken(port, 'none', 'https://www.googleapis.com/auth/analytics.readonly');
    assert.match(token, /^local-[A-Za-z0-9_-]{32}$/);
  });

  it('refuses a request without Metadata-Flavor, and any method but GET, as the server does', async () => {
    const path = `http://127.0.0.1:${port}/computeMetadata/v1/instance/service-accounts/default/token`;
    const bare = await fetch(path);
    assert.equal(bare.status, 403);
    assert.match(await bare.text(), /Metadata-Flavor/);
    const post = await fetch(path, { method: 'POST', headers: { 'metadata-flavor': 'Google' } });
    assert.equal(post.status, 405);
    const ok = await fetch(path, { headers: { 'metadata-flavor': 'Google' } });
    assert.equal(ok.headers.get('metadata-flavor'), 'Google');
    const body = (await ok.json()) as Record<string, unknown>;
    assert.deepEqual(
      [typeof body['access_token'], body['token_type'], body['expires_in']],
      ['string', 'Bearer', 3599],
    );
  });
});
