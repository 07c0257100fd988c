/**
 * The browser SDKs' paths with a page's write key (docs/senders.md, "Browser SDKs"; issue 64):
 * Analytics.js's short paths and its settings, RudderStack's source config and beacon, Jitsu's
 * `/api/s/{type}`; the key bound to its origins and its event list; money events from a key
 * without the allowance marked unverified; the browser's address and user agent taken; every
 * path's preflight answered, so an unknown path's real 404 reaches the page, and a refused
 * preflight recorded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { RefusalEvent } from '../../core/console/live-events.ts';
import { issueKey } from '../../gateway/credentials.ts';
import { baseSettings, fixedTranslators, loggingGateway, ORIGIN, post, type TestGateway } from './support.ts';

const SEGMENT = parse(
  readFileSync(join(import.meta.dirname, '../../examples/translators/segment-rudderstack.yaml'), 'utf8'),
) as { spec: unknown };

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
const track = (event: string, properties: object = {}) => ({
  type: 'track',
  event,
  properties,
  anonymousId: 'anon-1',
  messageId: `m-${Math.random()}`,
  context: { page: { url: 'https://shop.example/p' } },
});

describe('gateway: browser SDK paths with a write key', () => {
  let g: TestGateway;
  let pub: Awaited<ReturnType<typeof loggingGateway>>['pub'];
  let refusals: () => Record<string, unknown>[];
  const recorded: RefusalEvent[] = [];
  before(async () => {
    ({ g, pub, refusals } = await loggingGateway({
      translators: fixedTranslators({ segment: SEGMENT.spec }),
      refusals: { record: (e) => recorded.push(e) },
    }));
  });
  after(() => g.close());
  const published = () => pub.calls.flatMap((c) => c.messages);
  const last = () => {
    const m = published().at(-1);
    assert.ok(m);
    return {
      event: JSON.parse(m.data.toString()) as Record<string, unknown>,
      attributes: m.attributes ?? {},
    };
  };
  const moneyKey = () =>
    g.store.update((set) => {
      const r = issueKey(set, { origins: [ORIGIN], money: true }, randomBytes, new Date());
      return { set: r.set, result: r.secret };
    });

  it("serves Analytics.js's short paths with the key in Basic, as the browser's", async () => {
    for (const [path, call] of [
      ['/v1/t', track('Newsletter Opened')],
      ['/v1/p', { type: 'page', anonymousId: 'anon-1', properties: { url: 'https://shop.example/' } }],
      ['/v1/i', { type: 'identify', anonymousId: 'anon-1', userId: 'u1', traits: { plan: 'pro' } }],
      ['/v1/b', { batch: [track('Product Viewed', { name: 'Shoe', product_id: 'p1' })] }],
    ] as const) {
      const a = await post(`${g.url}${path}`, call, {
        authorization: basic(g.key),
        origin: ORIGIN,
        'content-type': 'text/plain',
        'user-agent': 'Mozilla/5.0 test',
      });
      assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
      assert.equal(a.headers.get('access-control-allow-origin'), ORIGIN);
      const { event, attributes } = last();
      assert.equal(attributes['sender'], 'browser', path);
      assert.equal((event['device'] as Record<string, string>)['ip'], '127.0.0.1', path);
      assert.equal((event['device'] as Record<string, string>)['user_agent'], 'Mozilla/5.0 test', path);
    }
    assert.deepEqual(
      published()
        .slice(-4)
        .map((m) => m.attributes?.['event_name']),
      ['newsletter_opened', 'page_view', 'user_identified', 'view_content'],
    );
  });

  it('answers /v1/m without publishing, and refuses a write key from another origin', async () => {
    const before = pub.published;
    assert.equal((await post(`${g.url}/v1/m`, { series: [] }, { 'content-type': 'text/plain' })).status, 200);
    const a = await post(`${g.url}/v1/t`, track('x'), {
      authorization: basic(g.key),
      origin: 'https://evil.example',
    });
    assert.equal(a.status, 403);
    assert.equal(pub.published, before);
  });

  it("answers Analytics.js's settings and RudderStack's source config pointing back to the gateway", async () => {
    const seg = await fetch(`${g.url}/v1/projects/${g.key}/settings`, { headers: { origin: ORIGIN } });
    assert.equal(seg.status, 200);
    assert.equal(seg.headers.get('access-control-allow-origin'), ORIGIN);
    const body = (await seg.json()) as { integrations: Record<string, Record<string, string>> };
    assert.deepEqual(body.integrations['Segment.io'], {
      apiKey: g.key,
      apiHost: `127.0.0.1:${g.port}/v1`,
      protocol: 'http',
    });
    const rs = (await (await fetch(`${g.url}/sourceConfig/?writeKey=${g.key}&p=npm`)).json()) as {
      source: { id: string; destinations: unknown[]; enabled: boolean };
    };
    assert.equal(rs.source.enabled, true);
    assert.deepEqual(rs.source.destinations, []);
    assert.equal((await fetch(`${g.url}/sourceConfig/`, { method: 'POST' })).status, 405);
  });

  it('a settings answer built from the Host header is cached per host by the browser only (#75)', async () => {
    const answer = await new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${g.url}/v1/projects/${g.key}/settings`,
        { headers: { host: 'evil.example', origin: ORIGIN } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.match(
      answer.body,
      /evil\.example\/v1/,
      'without a configured domain, the Host is what the page called',
    );
    assert.equal(answer.headers['cache-control'], 'private, max-age=300');
    assert.match(String(answer.headers['vary']), /Host/i);
  });

  it('with a configured domain, the settings answer names it whatever the Host header says', async () => {
    const { g: d } = await loggingGateway({
      settings: baseSettings({ gateway: { domain: 'events.shop.example' } }),
      translators: fixedTranslators({ segment: SEGMENT.spec }),
    });
    try {
      const res = await fetch(`${d.url}/v1/projects/${d.key}/settings`, { headers: { origin: ORIGIN } });
      const body = (await res.json()) as { integrations: Record<string, Record<string, string>> };
      assert.equal(body.integrations['Segment.io']?.['apiHost'], 'events.shop.example/v1');
      assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    } finally {
      d.close();
    }
  });

  it("takes RudderStack's beacon with the key in ?writeKey= and Jitsu's calls with id:secret", async () => {
    const beacon = await post(
      `${g.url}/beacon/v1/batch?writeKey=${g.key}`,
      JSON.stringify({ batch: [track('Beacon Sent')], sentAt: new Date().toISOString() }),
      { origin: ORIGIN, 'content-type': 'text/plain;charset=UTF-8' },
      true,
    );
    assert.equal(beacon.status, 200, JSON.stringify(beacon.body));
    assert.equal(last().attributes['event_name'], 'beacon_sent');
    const jitsuKey = g.key.replace(/^(ebk_[0-9a-f]{12})_/, '$1:');
    const jitsu = await post(
      `${g.url}/api/s/page`,
      { type: 'page', anonymousId: 'a', properties: {} },
      {
        origin: ORIGIN,
        'x-write-key': jitsuKey,
      },
    );
    assert.equal(jitsu.status, 200, JSON.stringify(jitsu.body));
    assert.equal(last().attributes['event_name'], 'page_view');
    assert.equal(last().attributes['sender'], 'browser');
  });

  it('holds a key to its own event list, per call, keeping the rest of the batch', async () => {
    const key = await g.mintKey({ events: ['page_view'] });
    const a = await post(
      `${g.url}/v1/b`,
      {
        batch: [
          { type: 'page', anonymousId: 'a' },
          track('Order Completed', { order_id: 'o1', revenue: 5, currency: 'EUR' }),
        ],
      },
      { authorization: basic(key), origin: ORIGIN },
    );
    assert.equal(a.status, 200);
    const answer = a.body as { invalidRows?: number; violations?: { description: string }[] };
    assert.equal(answer.invalidRows, 1);
    assert.match(answer.violations?.[0]?.description ?? '', /purchase is not among the events of write key/);
  });

  it('marks a money event from a key without the allowance unverified; the allowance lifts it', async () => {
    const order = track('Order Completed', { order_id: 'o2', revenue: 5, currency: 'EUR' });
    await post(`${g.url}/v1/t`, order, { authorization: basic(g.key), origin: ORIGIN });
    assert.equal(last().attributes['event_name'], 'purchase');
    assert.equal(last().attributes['unverified'], 'money');
    // the plain form too, and a producer cannot clear it
    await post(
      `${g.url}/v1/topics/events?key=${g.key}`,
      { event_name: 'purchase', transaction_id: 't', value: 1, currency: 'EUR' },
      { origin: ORIGIN },
    );
    assert.equal(last().attributes['unverified'], 'money');
    const money = await moneyKey();
    await post(
      `${g.url}/v1/t`,
      { ...order, messageId: 'm-money' },
      { authorization: basic(money), origin: ORIGIN },
    );
    assert.equal(last().attributes['event_name'], 'purchase');
    assert.equal(last().attributes['unverified'], undefined);
    // a token's are its backend's, verified
    const token = await g.mint(['translate:segment']);
    await post(`${g.url}/v1/t`, { ...order, messageId: 'm-token' }, { authorization: basic(token) });
    assert.equal(last().attributes['unverified'], undefined);
    assert.equal(last().attributes['sender'], 'translator');
  });

  it('still refuses a write key on /v1/translators/ (bulk payloads are never a page’s)', async () => {
    const a = await post(`${g.url}/v1/translators/segment`, track('x'), {
      'x-write-key': g.key,
      origin: ORIGIN,
    });
    assert.equal(a.status, 403);
  });

  it("answers any path's preflight, so the real 404 reaches the page with CORS headers", async () => {
    const pre = await fetch(`${g.url}/v1/nowhere`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'content-type,authorization,anonymousid,sentat,rsa-retry-attempt,rsa-retry-reason,rsa-recovered,rsa-since-last-attempt,rsa-since-first-attempt,x-retry-count,x-write-key',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), ORIGIN);
    const real = await post(`${g.url}/v1/nowhere`, {}, { origin: ORIGIN });
    assert.equal(real.status, 404);
    assert.equal(real.headers.get('access-control-allow-origin'), ORIGIN);
  });

  it('records refused preflights (origin, headers) in the log and for gateway_refusals', async () => {
    recorded.length = 0;
    const bad = await fetch(`${g.url}/v1/t`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-secret-thing',
      },
    });
    assert.equal(bad.status, 403);
    const evil = await fetch(`${g.url}/v1/nowhere`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(evil.status, 403);
    assert.deepEqual(
      recorded.map((r) => [r.status, r.reason, r.path]),
      [
        [403, 'preflight_headers', '/v1/t'],
        [403, 'preflight_origin', '/v1/nowhere'],
      ],
    );
    assert.ok(refusals().some((r) => r['reason'] === 'preflight_headers'));
  });
});
