/**
 * The keyless Google Ads path (adapters/google-oauth.ts): with no credentials secret, the forward
 * function's token is its own service account's, from Application Default Credentials — on
 * Cloud Functions the metadata server. A loopback stand-in for that server answers as Google's
 * does (Metadata-Flavor header required, the scopes asked for as a query parameter), in a child
 * process pointed at it as a Cloud Run instance is (GCE_METADATA_HOST).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

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
    const script = `import { createAccessTokens, tokenEgress } from ${JSON.stringify(join(ROOT, 'adapters/google-oauth.ts'))};
console.log(await createAccessTokens(tokenEgress(new Set(), 'test'))('', 'https://www.googleapis.com/auth/datamanager', false));`;
    const out = await new Promise<string>((done, fail) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: {
          ...process.env,
          GCE_METADATA_HOST: `127.0.0.1:${port}`,
          METADATA_SERVER_DETECTION: 'assume-present',
          GOOGLE_APPLICATION_CREDENTIALS: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (b: Buffer) => {
        text += b.toString();
      });
      child.stderr.on('data', (b: Buffer) => {
        text += b.toString();
      });
      child.once('close', (code) => (code === 0 ? done(text.trim()) : fail(new Error(text))));
    });
    assert.equal(out, 'ya29.forward-own');
    const token = asked.find((a) => a.path.includes('/token'));
    assert.ok(token, JSON.stringify(asked));
    assert.equal(token.flavor, 'Google');
    assert.match(decodeURIComponent(token.path), /scopes=https:\/\/www\.googleapis\.com\/auth\/datamanager/);
  });
});
