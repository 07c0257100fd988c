/**
 * `GET /v1/tag.js` (gateway/tag-route.ts): the tag as a cacheable, versioned script, gzipped
 * when the browser takes it, within its size gate (5 KiB gzipped; the bench measures it too).
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { FakePublisher, startTestGateway, type TestGateway } from './support.ts';

describe('gateway: GET /v1/tag.js', () => {
  let g: TestGateway;
  before(async () => {
    g = await startTestGateway({ publisher: new FakePublisher() });
  });
  after(() => g.close());

  it('serves the script, cacheable for 5 minutes, with its version as ETag, and 304 for that ETag', async () => {
    const res = await fetch(`${g.url}/v1/tag.js`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
    const etag = res.headers.get('etag') ?? '';
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const body = await res.text();
    assert.match(body, /^"use strict";\(\(\)=>\{/, 'one minified IIFE');
    assert.ok(body.includes('/v1/topics/events?key='));
    const again = await fetch(`${g.url}/v1/tag.js`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
  });

  it('is immutable under ?v=<its version>, and another version gets this one for 5 minutes', async () => {
    const etag = (await fetch(`${g.url}/v1/tag.js`, { method: 'HEAD' })).headers.get('etag') ?? '';
    const version = etag.slice(1, -1);
    const pinned = await fetch(`${g.url}/v1/tag.js?v=${version}`);
    assert.equal(pinned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const other = await fetch(`${g.url}/v1/tag.js?v=0000000000000000`);
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(other.headers.get('etag'), etag);
  });

  it('is gzipped for a browser that takes gzip, within 4.5 KiB (the bench’s gate)', async () => {
    const { request } = await import('node:http');
    const raw = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      request(`${g.url}/v1/tag.js`, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    assert.equal(raw.headers['content-encoding'], 'gzip');
    assert.equal(raw.headers['vary'], 'Accept-Encoding');
    assert.ok(raw.body.length <= 4.5 * 1024, `${raw.body.length} bytes gzipped`);
    assert.match(gunzipSync(raw.body).toString(), /^"use strict";\(\(\)=>\{/);
  });

  it('serves the consent platform reader at /v1/tag-cmp.js, whose version the tag asks for', async () => {
    const tag = await (await fetch(`${g.url}/v1/tag.js`)).text();
    const asked =
      /\/v1\/tag-cmp\.js\?v=([0-9a-f]{16})/.exec(tag)?.[1] ?? assert.fail('no reader URL in the tag');
    const res = await fetch(`${g.url}/v1/tag-cmp.js?v=${asked}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('etag'), `"${asked}"`, 'the version the tag carries is the reader’s');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const reader = await res.text();
    assert.ok(reader.includes('__tcfapi') && reader.includes('__eventbusCmp'));
    assert.ok(!tag.includes('addEventListener",2'), 'the TCF reading is not in the tag itself');
  });

  it('answers another method 405 with the methods it serves', async () => {
    const res = await fetch(`${g.url}/v1/tag.js`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD, OPTIONS');
  });
});
