/**
 * What functions/serve.ts relies on in the functions framework's `@beta` helper `getTestServer`
 * (@google-cloud/functions-framework/testing), the only public way to the server its CLI builds:
 * it answers for the target it is given and no other, routes every path and method to it, parses
 * JSON (and keeps the raw bytes) with room for a Pub/Sub push's 10 MB, turns a throw or a
 * rejection into a 500 marked `crash`, keeps crawlers' paths away from the function, and does
 * not listen by itself. A framework upgrade that changes any of it fails here before production
 * does. Real servers on ephemeral loopback ports.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { serveRegistered } from '../../functions/serve.ts';

/** What each registered test function saw. */
const seen: { target: string; method: string; path: string; body: unknown; raw?: number | undefined }[] = [];

http('serve-test-a', (req, res) => {
  seen.push({
    target: 'a',
    method: req.method,
    path: req.path,
    body: req.body,
    raw: (req as { rawBody?: Buffer }).rawBody?.length,
  });
  res.status(204).end();
});
http('serve-test-b', (req, res) => {
  seen.push({ target: 'b', method: req.method, path: req.path, body: req.body });
  res.status(200).send('b');
});
http('serve-test-throws', () => {
  throw new Error('boom');
});
http('serve-test-rejects', async () => {
  throw new Error('later boom');
});

async function listening(target: string): Promise<{ server: Server; url: string }> {
  const server = serveRegistered(target, { host: '127.0.0.1', port: 0 });
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('functions/serve.ts: the framework’s server, as the @beta helper gives it', () => {
  const servers: Server[] = [];
  let quietError: typeof console.error;
  let quietLog: typeof console.log;
  before(() => {
    // The framework logs each crash's stack, and serve.ts its one "listening" line.
    quietError = console.error;
    quietLog = console.log;
    console.error = () => {};
    console.log = () => {};
  });
  after(() => {
    console.error = quietError;
    console.log = quietLog;
    for (const s of servers) s.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });
  const serve = async (target: string) => {
    const s = await listening(target);
    servers.push(s.server);
    return s.url;
  };

  it('refuses a target no module registered, and does not listen until told to', () => {
    assert.throws(() => getTestServer('serve-test-nobody'), /"serve-test-nobody" was not registered/);
    const server = getTestServer('serve-test-a');
    assert.equal(server.listening, false);
  });

  it('routes every path and method to the target it was given, and only to it', async () => {
    const a = await serve('serve-test-a');
    const b = await serve('serve-test-b');
    assert.equal((await fetch(`${a}/`, { method: 'POST' })).status, 204);
    assert.equal((await fetch(`${a}/any/path?x=1`, { method: 'PUT' })).status, 204);
    assert.equal((await fetch(`${a}/`)).status, 204);
    const fromB = await fetch(`${b}/elsewhere`, { method: 'POST' });
    assert.deepEqual([fromB.status, await fromB.text()], [200, 'b']);
    assert.deepEqual(
      seen.map((s) => `${s.target} ${s.method} ${s.path}`),
      ['a POST /', 'a PUT /any/path', 'a GET /', 'b POST /elsewhere'],
    );
  });

  it('parses a JSON push into req.body, keeps its bytes as req.rawBody, and takes 11 MB', async () => {
    const a = await serve('serve-test-a');
    const push = { message: { data: Buffer.from('{"x":1}').toString('base64'), messageId: '1' } };
    await fetch(a, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(push),
    });
    assert.deepEqual(seen[0]?.body, push);
    assert.equal(seen[0]?.raw, JSON.stringify(push).length);
    // A Pub/Sub push carries at most 10 MB of message; the framework's limit is far above it.
    const big = JSON.stringify({ message: { data: 'A'.repeat(11 * 1024 * 1024) } });
    const res = await fetch(a, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    assert.equal(res.status, 204);
    assert.equal(seen[1]?.raw, big.length);
  });

  it('answers a throw or a rejected promise with 500, marked crash', async () => {
    for (const target of ['serve-test-throws', 'serve-test-rejects']) {
      const url = await serve(target);
      const res = await fetch(url, { method: 'POST' });
      assert.equal(res.status, 500, target);
      assert.equal(res.headers.get('x-google-status'), 'crash', target);
    }
  });

  it('keeps /favicon.ico and /robots.txt from the function, and adds no x-powered-by or etag', async () => {
    const a = await serve('serve-test-a');
    for (const path of ['/favicon.ico', '/robots.txt'])
      assert.equal((await fetch(`${a}${path}`)).status, 404, path);
    assert.deepEqual(seen, []);
    const b = await serve('serve-test-b');
    const res = await fetch(b);
    assert.equal(res.headers.get('x-powered-by'), null);
    assert.equal(res.headers.get('etag'), null);
  });
});
