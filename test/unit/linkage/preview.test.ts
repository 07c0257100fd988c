/**
 * Preview shows what the driver sends, and what the sender then sends is the same; for a catalogue
 * (`segment_action`) destination, the requests its actions build, run without sending.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../cli/main.ts';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import { checkSettings } from '../../../core/settings.ts';
import {
  type PlatformReceiver,
  startMetaReceiver,
  startTikTokReceiver,
} from '../../../local/platforms/index.ts';
import type { Settings } from '../../../schemas/settings.ts';

const TOKEN = 'real-secret-value';

function settingsFor(meta: string, tiktok: string): Settings {
  const r = checkSettings({
    name: 'preview',
    project: 'preview-project',
    region: 'europe-west1',
    destinations: [
      {
        id: 'meta',
        type: 'meta_capi',
        base_url: meta,
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 'meta-token' },
        mappings: {
          quote_requested: {
            event: 'Lead',
            fields: { 'custom_data.value': { from: 'amount', transform: ['number'] } },
          },
        },
      },
      {
        id: 'tiktok',
        type: 'tiktok_events',
        base_url: tiktok,
        config: { pixel_code: 'CABC' },
        secrets: { access_token: 'tiktok-token' },
      },
    ],
  });
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
  return r.settings as Settings;
}

const producerEvent = (over: Record<string, unknown> = {}) => ({
  event_name: 'purchase',
  event_id: 'order-T-1',
  event_time: new Date(Date.now() - 60_000).toISOString(),
  user: { email: 'John_Smith@gmail.com', phone: '(650)555-1212', country: 'US' },
  page: { url: 'https://shop.example/checkout' },
  device: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' },
  consent: { ads: 'granted', ad_user_data: 'granted' },
  transaction_id: 'T-1',
  value: 64.9,
  currency: 'USD',
  items: [{ item_id: 'SKU1', price: 64.9, quantity: 1 }],
  ...over,
});

describe('preview', () => {
  let meta: PlatformReceiver;
  let tiktok: PlatformReceiver;
  let settings: Settings;
  before(async () => {
    meta = await startMetaReceiver({ accessToken: TOKEN });
    tiktok = await startTikTokReceiver({ accessToken: TOKEN });
    settings = settingsFor(meta.url, tiktok.url);
  });
  after(async () => {
    await Promise.all([meta.close(), tiktok.close()]);
  });

  for (const [id, driver, receiver] of [
    ['meta', metaCapiDriver, () => meta],
    ['tiktok', tiktokEventsDriver, () => tiktok],
  ] as const) {
    it(`${id}: the previewed request is what the driver sends, secrets redacted`, async () => {
      const now = new Date();
      const preview = previewDelivery(settings, id, producerEvent(), now);
      assert.equal(preview.outcome, 'send');
      if (preview.outcome !== 'send') return;
      assert.ok(!JSON.stringify(preview).includes(TOKEN));
      const destination = settings.destinations?.find((d) => d.id === id);
      assert.ok(destination);
      const prepared = driver.prepare(preview.event, { destination, secrets: { access_token: TOKEN }, now });
      assert.ok(prepared.ok);
      const res = await fetch(prepared.request.url, {
        method: prepared.request.method,
        headers: prepared.request.headers,
        body: prepared.request.body,
      });
      assert.equal(res.status, 200);
      const got = receiver().received.at(-1);
      assert.deepEqual(got?.problems, []);
      assert.deepEqual(got?.body, preview.request.body, 'body sent equals body previewed');
      assert.equal(preview.request.method, got?.method);
      assert.equal(preview.request.url.split('?')[0], `${receiver().url}${got?.path}`);
      assert.equal(preview.request.url, prepared.request.redactedUrl);
      for (const [k, v] of Object.entries(preview.request.headers))
        assert.equal(v, k === 'access-token' ? 'REDACTED' : got?.headers[k]);
    });
  }

  it('shows where each field came from and what was left out', () => {
    const giftCard = { item_name: 'Gift card', price: 25 };
    const p = previewDelivery(
      settings,
      'meta',
      producerEvent({
        event_name: 'purchase',
        transaction_id: 'T-1',
        value: 25,
        currency: 'EUR',
        items: [giftCard],
      }),
      new Date(),
    );
    assert.equal(p.outcome, 'send');
    if (p.outcome !== 'send') return;
    assert.deepEqual(
      p.fields?.find((f) => f.target === 'user_data.em'),
      { target: 'user_data.em', source: 'user.email', transforms: ['trim', 'lowercase', 'sha256', 'list'] },
    );
    assert.equal(
      p.fields?.some((f) => f.target === 'custom_data.contents'),
      true,
    );
    assert.match(p.dropped ?? '', /left out custom_data\.contents\[0\] \(no id/);
    assert.equal(
      (p.request.body as { data: { custom_data: { contents?: unknown } }[] }).data[0]?.custom_data.contents,
      undefined,
    );
  });

  it('redacts the token from the URL', () => {
    const p = previewDelivery(settings, 'meta', producerEvent(), new Date());
    assert.equal(p.outcome, 'send');
    assert.match(p.outcome === 'send' ? p.request.url : '', /\?access_token=REDACTED$/);
  });

  it('says why nothing is sent: consent, invalid event, mapping or platform rule, unknown destination', () => {
    const now = new Date();
    assert.deepEqual(previewDelivery(settings, 'meta', producerEvent({ consent: { ads: 'denied' } }), now), {
      outcome: 'skipped',
      reason: 'consent ads denied',
    });
    const invalid = previewDelivery(settings, 'meta', producerEvent({ currency: 'usd' }), now);
    assert.equal(invalid.outcome, 'invalid_event');
    const old = previewDelivery(
      settings,
      'meta',
      producerEvent({ event_time: new Date(Date.now() - 9 * 86400_000).toISOString() }),
      now,
    );
    assert.equal(old.outcome, 'not_sent');
    assert.match(old.outcome === 'not_sent' ? old.reason : '', /event_time is older than 7 days/);
    const noMapping = previewDelivery(
      settings,
      'tiktok',
      producerEvent({ event_name: 'quote_requested' }),
      now,
    );
    assert.deepEqual(noMapping, {
      outcome: 'skipped',
      reason: 'unknown event quote_requested has no mapping for tiktok_events',
    });
    const custom = previewDelivery(
      settings,
      'meta',
      { ...producerEvent({ event_name: 'quote_requested', amount: '120.5' }) },
      now,
    );
    assert.equal(custom.outcome, 'send');
    assert.equal(previewDelivery(settings, 'nope', producerEvent(), now).outcome, 'not_sent');
  });

  it('the CLI prints the request, and exits non-zero with the reason when nothing would be sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'preview-'));
    try {
      const env = join(dir, 'env.yaml');
      writeFileSync(env, JSON.stringify(settings));
      const cli = async (event: unknown) => {
        const file = join(dir, 'event.json');
        writeFileSync(file, JSON.stringify(event));
        let out = '';
        let err = '';
        const code = await run(['preview', '--destination', 'meta', '--env', env, file], {
          out: (t) => {
            out += t;
          },
          err: (t) => {
            err += t;
          },
        });
        return { code, out, err };
      };
      const ok = await cli(producerEvent());
      assert.equal(ok.code, 0, ok.err);
      assert.match(
        ok.out,
        /^POST http:\/\/127\.0\.0\.1:\d+\/v25\.0\/123456789012345\/events\?access_token=REDACTED\n/,
      );
      assert.match(ok.out, /"em": \[\n\s+"62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f"/);
      const skipped = await cli(producerEvent({ consent: {} }));
      assert.equal(skipped.code, 1);
      assert.equal(skipped.out, '');
      assert.equal(skipped.err, 'error: skipped by the decision layer: consent ads missing\n');
      assert.equal((await cli(producerEvent({ currency: 'usd' }))).code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the CLI prints a catalogue destination's requests as its actions build them, sending nothing", async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(join(tmpdir(), 'preview-catalog-'));
    try {
      const env = join(dir, 'env.yaml');
      writeFileSync(
        env,
        JSON.stringify({
          name: 'preview',
          project: 'preview-project',
          region: 'europe-west1',
          destinations: [
            {
              id: 'klaviyo',
              type: 'segment_action',
              destination: 'klaviyo',
              secrets: { api_key: 'KLAVIYO_KEY' },
              actions: [
                {
                  action: 'trackEvent',
                  mapping: { profile: { email: { '@path': '$.context.traits.email' } } },
                },
              ],
            },
          ],
        }),
      );
      const cli = async (event: unknown, ...flags: string[]) => {
        const file = join(dir, 'event.json');
        writeFileSync(file, JSON.stringify(event));
        let out = '';
        let err = '';
        const code = await run(['preview', '--destination', 'klaviyo', '--env', env, ...flags, file], {
          out: (t) => {
            out += t;
          },
          err: (t) => {
            err += t;
          },
        });
        return { code, out, err };
      };
      const purchase = producerEvent({ consent: { analytics: 'granted' } });
      const ok = await cli(purchase);
      assert.equal(ok.code, 0, ok.err);
      // Klaviyo's Create Event (https://developers.klaviyo.com/en/reference/create_event): the
      // API key in the Authorization header, here its stand-in.
      assert.match(ok.out, /^POST https:\/\/a\.klaviyo\.com\/api\/events\/\n/);
      assert.match(ok.out, /^authorization: Klaviyo-API-Key secret:api_key$/m);
      assert.match(ok.out, /"name": "Order Completed"/);
      assert.match(ok.out, /"unique_id": "order-T-1"/);
      assert.match(ok.out, /"email": "John_Smith@gmail\.com"/);
      assert.match(ok.out, /^# {3}trackEvent: delivered$/m);
      const json = await cli(purchase, '--format', 'json');
      const parsed = JSON.parse(json.out) as { outcome: string; requests: { url: string }[] };
      assert.equal(parsed.outcome, 'send_actions');
      assert.deepEqual(
        parsed.requests.map((r) => r.url),
        ['https://a.klaviyo.com/api/events/'],
      );
      const denied = await cli(producerEvent({ consent: { analytics: 'denied' } }));
      assert.equal(denied.code, 1);
      assert.equal(denied.out, '');
      assert.match(denied.err, /^error: skipped by the decision layer: consent analytics denied/);
      // An event no action takes (trackEvent's subscription is `type = "track"`): why, exit 1.
      const page = await cli({ ...purchase, event_name: 'page_view' });
      assert.equal(page.code, 1);
      assert.match(
        page.err,
        /^error: skipped by the decision layer: no action of klaviyo subscribes to page_view/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
