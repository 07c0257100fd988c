import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { StoredEvent } from '../../core/event.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import { SCRIPT_PATH, startMicrosoftReceiver } from '../../local/platforms/index.ts';
import { platformEvent, type Receiver, startReceiver } from '../../local/receiver/server.ts';
import type { Destination } from '../../schemas/settings.ts';
import { launchChromium } from '../support/chromium.ts';

const hook: Destination = {
  id: 'webhook',
  type: 'webhook',
  base_url: 'http://127.0.0.1:1',
  config: { path: '/webhook' },
  secrets: { signing_key: 'K' },
};
const event: StoredEvent = {
  event_name: 'view_content',
  event_id: 'evt-page-1',
  event_time: '2026-01-01T00:00:00.000Z',
  event_data: { content_name: 'Shoe', content_type: 'product' },
};

async function post(receiver: Receiver, key: string) {
  const p = webhookDriver.prepare(event, {
    destination: { ...hook, base_url: receiver.url },
    secrets: { signing_key: key },
    now: new Date(),
  });
  assert.ok(p.ok);
  return fetch(p.request.url, { method: 'POST', headers: p.request.headers, body: p.request.body });
}

describe('local receiver', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver({ webhooks: [hook], signingKey: async () => 'secret-key' });
  });
  after(() => receiver.close());
  beforeEach(() => receiver.clear());

  it('accepts a correctly signed webhook and records it', async () => {
    const res = await post(receiver, 'secret-key');
    assert.equal(res.status, 200);
    const [r] = receiver.received('webhook');
    assert.deepEqual(
      [r?.eventId, r?.eventName, r?.verified, r?.status],
      ['evt-page-1', 'view_content', true, 200],
    );
  });

  it('refuses a wrong signature with 401 and shows why', async () => {
    const res = await post(receiver, 'wrong-key');
    assert.equal(res.status, 401);
    const [r] = receiver.received('webhook');
    assert.deepEqual([r?.verified, r?.note], [false, 'signature does not match']);
  });

  it('answers 404 for paths no destination uses, 200 on /health', async () => {
    assert.equal((await fetch(`${receiver.url}/elsewhere`, { method: 'POST', body: '{}' })).status, 404);
    assert.equal((await fetch(`${receiver.url}/health`)).status, 200);
  });

  it('forwards a mounted platform path to its loopback and records the answer', async () => {
    const upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"path":"${req.url}"}`),
      );
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const mounted = await startReceiver({
      webhooks: [],
      signingKey: async () => undefined,
      platforms: [
        {
          prefix: 'meta',
          destination: 'meta',
          url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        },
      ],
    });
    try {
      const res = await fetch(`${mounted.url}/meta/v21.0/1/events`, { method: 'POST', body: '{"data":[]}' });
      assert.deepEqual(await res.json(), { path: '/v21.0/1/events' });
      // The platform gets its credential; the page and received.json show it redacted.
      const secret = await fetch(`${mounted.url}/meta/v21.0/1/events?access_token=tok-123&x=1`, {
        method: 'POST',
        body: '{"data":[]}',
      });
      assert.deepEqual(await secret.json(), { path: '/v21.0/1/events?access_token=tok-123&x=1' });
      await fetch(`${mounted.url}/meta/mp/collect?measurement_id=G-1&api_secret=sec-456`, {
        method: 'POST',
        body: '{}',
      });
      assert.deepEqual(
        mounted.received('meta').map((r) => [r.path, r.status]),
        [
          ['/v21.0/1/events', 200],
          ['/v21.0/1/events?access_token=REDACTED&x=1', 200],
          ['/mp/collect?measurement_id=G-1&api_secret=REDACTED', 200],
        ],
      );
      const page = await (await fetch(`${mounted.url}/received.json`)).text();
      assert.doesNotMatch(page, /tok-123|sec-456/);
    } finally {
      await mounted.close();
      upstream.close();
    }
  });

  it('a stand-in scripted over HTTP answers 429 next, and the receiver passes its Retry-After on', async () => {
    const standIn = await startMicrosoftReceiver();
    const mounted = await startReceiver({
      webhooks: [],
      signingKey: async () => undefined,
      platforms: [{ prefix: 'microsoft', destination: 'microsoft', url: standIn.url }],
    });
    try {
      const script = await fetch(`${mounted.url}/microsoft${SCRIPT_PATH}`, {
        method: 'POST',
        body: JSON.stringify({
          answers: [{ status: 429, headers: { 'retry-after': '7' }, body: { error: {} } }],
        }),
      });
      assert.equal(script.status, 204);
      const send = () =>
        fetch(`${mounted.url}/microsoft/v1/1/events`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body: '{"data":[]}',
        });
      const throttled = await send();
      assert.equal(throttled.status, 429);
      assert.equal(throttled.headers.get('retry-after'), '7');
      // The script is used up: the stand-in's own rules answer again (an empty data is refused).
      const next = await send();
      assert.equal(next.status, 400);
      assert.equal(next.headers.get('retry-after'), null);
    } finally {
      await mounted.close();
      await standIn.close();
    }
  });

  it('shows the event name and id a platform request carries (Meta, TikTok, GA4)', () => {
    assert.deepEqual(platformEvent({ data: [{ event_name: 'ViewContent', event_id: 'e1' }] }), {
      eventName: 'ViewContent',
      eventId: 'e1',
    });
    assert.deepEqual(
      platformEvent({
        data: [
          { event: 'Purchase', event_id: 'e2' },
          { event: 'Lead', event_id: 'e3' },
        ],
      }),
      {
        eventName: 'Purchase, Lead',
        eventId: 'e2, e3',
      },
    );
    assert.deepEqual(platformEvent({ client_id: 'c', events: [{ name: 'view_item' }] }), {
      eventName: 'view_item',
    });
    assert.deepEqual(platformEvent('not json'), {});
  });

  it('shows the event name and id a LinkedIn, Microsoft or Reddit request carries', () => {
    assert.deepEqual(platformEvent({ conversion: 'urn:lla:llaPartnerConversion:1', eventId: 'e1' }), {
      eventId: 'e1',
    });
    assert.deepEqual(platformEvent({ elements: [{ eventId: 'e2' }, { eventId: 'e3' }] }), {
      eventId: 'e2, e3',
    });
    assert.deepEqual(
      platformEvent({
        data: [{ eventType: 'custom', eventName: 'purchase', eventId: 'e4' }, { eventType: 'pageLoad' }],
      }),
      { eventName: 'purchase, pageLoad', eventId: 'e4' },
    );
    assert.deepEqual(
      platformEvent({
        data: { events: [{ type: { tracking_type: 'LEAD' }, metadata: { conversion_id: 'e5' } }] },
      }),
      { eventName: 'LEAD', eventId: 'e5' },
    );
  });

  describe('page in a browser', function () {
    this.timeout(30_000);
    let browser: Browser | undefined;
    before(async () => {
      browser = await launchChromium();
    });
    after(() => browser?.close());

    it('lists an event seconds after it arrives, without a reload', async () => {
      const page = await browser!.newPage();
      await page.goto(`${receiver.url}/`);
      await page.locator('section[data-destination="webhook"] .empty').waitFor({ timeout: 5000 });
      assert.equal((await post(receiver, 'secret-key')).status, 200);
      const row = page.locator('section[data-destination="webhook"] tr[data-event-id="evt-page-1"]');
      await row.waitFor({ timeout: 5000 });
      assert.match((await row.textContent()) ?? '', /view_content[\s\S]*verified/);
      // Bodies are shown as text, never as markup.
      assert.equal(await page.locator('section[data-destination="webhook"] pre script').count(), 0);
      await page.close();
    });
  });
});
