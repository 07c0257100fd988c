/**
 * `GET /v1/tag.js` (gateway/tag-route.ts): the tag as a cacheable, versioned script, Brotli or
 * gzip when the browser takes it, within its size gate (4 KiB gzipped, issue #82; the bench
 * measures it too).
 */
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CLICK_IDS, PAGE_COOKIES } from '../../core/platforms/facts.ts';
import { chooseEncoding, tagCookie } from '../../gateway/tag-route.ts';
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
    assert.ok(body.includes('/v1/topics/events?tag=1&key='));
    const again = await fetch(`${g.url}/v1/tag.js`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
  });

  it("carries every platform's click ids and the cookies its pixel sets, from the platforms' facts", async () => {
    const body = await (
      await fetch(`${g.url}/v1/tag.js`, { headers: { 'accept-encoding': 'identity' } })
    ).text();
    for (const c of CLICK_IDS) assert.ok(body.includes(JSON.stringify(c.param)), c.param);
    for (const c of PAGE_COOKIES) assert.ok(body.includes(JSON.stringify(tagCookie(c))), c.cookie);
    assert.equal(tagCookie({ cookie: '_uetmsclkid', field: 'msclkid', strip: '_uet' }), 'uetmsclkid');
    // A cookie the tag's reading cannot express stops the build rather than being read wrong.
    assert.throws(() => tagCookie({ cookie: 'ttp', field: 'ttp' }), /the tag reads cookies named _<field>/);
    assert.throws(() => tagCookie({ cookie: '_x_abc', field: 'abc', strip: '_x_' }), /not _x_abc → abc/);
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

  /** GET /v1/tag.js with this Accept-Encoding, its body as sent (not decoded). */
  const raw = async (acceptEncoding: string) => {
    const { request } = await import('node:http');
    return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      request(`${g.url}/v1/tag.js`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
  };

  it('is gzipped for a browser that takes gzip, within 4 KiB (the bench’s gate, issue #82)', async () => {
    const gz = await raw('gzip, deflate');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers['vary'], 'Accept-Encoding');
    assert.ok(gz.body.length <= 4 * 1024, `${gz.body.length} bytes gzipped`);
    assert.match(gunzipSync(gz.body).toString(), /^"use strict";\(\(\)=>\{/);
  });

  it('is Brotli for a browser that takes it (Chrome’s header), the same script in fewer bytes', async () => {
    const plain = await raw('identity');
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await raw('gzip, deflate, br, zstd');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['vary'], 'Accept-Encoding');
    assert.equal(Number(br.headers['content-length']), br.body.length);
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    const gz = await raw('gzip');
    assert.ok(br.body.length < gz.body.length, `${br.body.length} bytes Brotli, ${gz.body.length} gzip`);
    // A coding refused with q=0 is not used.
    assert.equal((await raw('br;q=0, gzip')).headers['content-encoding'], 'gzip');
  });

  it('chooses br, then gzip, then none from Accept-Encoding', () => {
    assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
    assert.equal(chooseEncoding('BR;q=0.5'), 'br');
    assert.equal(chooseEncoding('br;q=0, gzip;q=1.0'), 'gzip');
    assert.equal(chooseEncoding('br; q=0.0, gzip; q=0'), undefined);
    assert.equal(chooseEncoding('*'), 'gzip');
    assert.equal(chooseEncoding('identity'), undefined);
    assert.equal(chooseEncoding(undefined), undefined);
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
