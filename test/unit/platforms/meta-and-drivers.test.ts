/** Each platform driver against its loopback receiver, over real HTTP. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../../core/event.ts';
import type { Driver, DriverContext } from '../../../core/platforms/driver.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import {
  type PlatformReceiver,
  startGa4Receiver,
  startMetaReceiver,
  startTikTokReceiver,
} from '../../../local/platforms/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { JOHN_SMITH, PHONE_US, sendOverHttp as send, storedEvent } from '../linkage/sample-events.ts';

const TOKEN = 'secret-token-123';

/** A catalogue event that happened a minute ago (the platforms' windows run on the real clock). */
function recent(name: string, over: Partial<StoredEvent> = {}): StoredEvent {
  return { ...storedEvent(name), event_time: new Date(Date.now() - 60_000).toISOString(), ...over };
}

function ctx(destination: Destination, secrets: Record<string, string> = {}): DriverContext {
  return { destination, secrets, now: new Date() };
}

async function deliver(driver: Driver, c: DriverContext, event: StoredEvent) {
  const prepared = driver.prepare(event, c);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  assert.ok(!prepared.request.redactedUrl.includes(TOKEN), 'redacted URL holds no secret');
  return driver.interpret(await send(prepared.request), c);
}

describe('drivers against loopback platforms', () => {
  const receivers: PlatformReceiver[] = [];
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });
  const start = async (p: Promise<PlatformReceiver>) => {
    const r = await p;
    receivers.push(r);
    return r;
  };

  describe('Meta CAPI', () => {
    let meta: PlatformReceiver;
    let dest: Destination;
    before(async () => {
      meta = await start(startMetaReceiver({ accessToken: TOKEN }));
      dest = { id: 'meta', type: 'meta_capi', base_url: meta.url, config: { pixel_id: '123456789012345' } };
    });
    beforeEach(() => {
      meta.received.length = 0;
    });

    it('delivers a purchase with Meta’s documented hashes; the receiver finds nothing wrong', async () => {
      const outcome = await deliver(metaCapiDriver, ctx(dest, { access_token: TOKEN }), recent('purchase'));
      assert.deepEqual(outcome, { status: 'delivered', httpStatus: 200, detail: 'events_received=1' });
      const got = meta.received[0];
      assert.deepEqual(got?.problems, []);
      assert.equal(got?.path, '/v25.0/123456789012345/events');
      const e = (got?.body as { data: Record<string, Record<string, unknown>>[] } | undefined)?.data[0];
      assert.deepEqual(e?.['user_data']?.['em'], [JOHN_SMITH]);
      assert.deepEqual(e?.['user_data']?.['ph'], [PHONE_US]);
      assert.equal(e?.['custom_data']?.['order_id'], 'T-1');
    });

    it('keeps a purchase whose gift-card line has no item_id: that line is left out and named', async () => {
      const base = recent('purchase');
      const items = [
        { item_id: 'SKU1', item_name: 'Red Shoe', price: 49.9, quantity: 1 },
        { item_name: 'Gift card', price: 15, quantity: 1 },
      ];
      const event = { ...base, event_data: { ...base.event_data, items } };
      const c = ctx(dest, { access_token: TOKEN });
      const prepared = metaCapiDriver.prepare(event, c);
      assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
      assert.match(prepared.dropped ?? '', /custom_data\.contents\[1\].*1 of 2 lines sent/);
      const outcome = metaCapiDriver.interpret(await send(prepared.request), c);
      assert.equal(outcome.status, 'delivered');
      const got = meta.received[0];
      assert.deepEqual(got?.problems, []);
      const e = (got?.body as { data: Record<string, Record<string, unknown>>[] } | undefined)?.data[0];
      const contents = (e?.['custom_data']?.['contents'] ?? []) as { id: string }[];
      assert.deepEqual(
        contents.map((x) => x.id),
        ['SKU1'],
      );
      assert.equal(e?.['custom_data']?.['value'], 64.9);
    });

    it("refuses an event identified by its user agent alone, naming Meta's matching baseline", () => {
      const base = recent('view_content');
      const event = {
        ...base,
        user: {},
        device: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' },
        campaign: {},
      } as StoredEvent;
      delete (event as { user_id?: string }).user_id;
      delete (event as { anonymous_id?: string }).anonymous_id;
      const prepared = metaCapiDriver.prepare(event, ctx(dest, { access_token: TOKEN }));
      assert.equal(prepared.ok, false);
      assert.match(
        prepared.ok ? '' : prepared.reason,
        /only client_user_agent, below Meta's matching baseline/,
      );
    });

    it('accepts action_source business_messaging, a documented value', async () => {
      const d = { ...dest, config: { ...dest.config, action_source: 'business_messaging' } };
      const outcome = await deliver(metaCapiDriver, ctx(d, { access_token: TOKEN }), recent('lead'));
      assert.equal(outcome.status, 'delivered');
    });

    it('reads a country written as a name, so the country and a national phone number still match', () => {
      const base = recent('view_content');
      const event = { ...base, user: { ...base.user, country: 'United States', phone: '(650) 555-1212' } };
      const prepared = metaCapiDriver.prepare(event, ctx(dest, { access_token: TOKEN }));
      assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
      const sent = JSON.parse(prepared.request.body) as { data: { user_data: Record<string, unknown> }[] };
      const userData = sent.data[0]?.user_data;
      assert.deepEqual(userData?.['ph'], [PHONE_US]);
      assert.deepEqual(userData?.['country'], [createHash('sha256').update('us').digest('hex')]);
    });

    it('sends test_event_code in test mode', async () => {
      const c = ctx({ ...dest, test_mode: true, test_event_code: 'TEST123' }, { access_token: TOKEN });
      assert.equal((await deliver(metaCapiDriver, c, recent('lead'))).status, 'delivered');
      assert.equal(
        (meta.received[0]?.body as { test_event_code?: string } | undefined)?.test_event_code,
        'TEST123',
      );
    });

    it('batches: an event older than 7 days is rejected alone, the rest go in one request', async () => {
      const c = ctx(dest, { access_token: TOKEN });
      const old = recent('page_view', {
        event_id: 'old',
        event_time: new Date(Date.now() - 8 * 86400_000).toISOString(),
      });
      const batch = metaCapiDriver.prepareBatch?.(
        [recent('page_view', { event_id: 'a' }), old, recent('search', { event_id: 'b' })],
        c,
      );
      assert.ok(batch);
      assert.deepEqual(
        batch.rejected.map((r) => r.eventId),
        ['old'],
      );
      assert.match(batch.rejected[0]?.reason ?? '', /event_time is older than 7 days/);
      assert.equal(batch.requests.length, 1);
      assert.deepEqual(batch.requests[0]?.eventIds, ['a', 'b']);
      const outcome = metaCapiDriver.interpret(await send(batch.requests[0]!.request), c);
      assert.deepEqual(outcome, { status: 'delivered', httpStatus: 200, detail: 'events_received=2' });
    });

    it('interprets Meta errors: 2804003 and bad tokens are rejected, throttling and 5xx retried', async () => {
      const c = ctx(dest, { access_token: TOKEN });
      const prepared = metaCapiDriver.prepare(recent('page_view'), c);
      assert.ok(prepared.ok);
      // A request that skipped the checks: the receiver refuses the whole request, as Meta does.
      const body = JSON.parse(prepared.request.body) as { data: { event_time: number }[] };
      body.data[0]!.event_time -= 8 * 86400;
      const tooOld = metaCapiDriver.interpret(
        await send({ ...prepared.request, body: JSON.stringify(body) }),
        c,
      );
      assert.equal(tooOld.status, 'rejected');
      assert.match(tooOld.status === 'rejected' ? tooOld.reason : '', /meta error 100\/2804003/);

      const badToken = metaCapiDriver.prepare(recent('page_view'), ctx(dest, { access_token: 'wrong' }));
      assert.ok(badToken.ok);
      const auth = metaCapiDriver.interpret(await send(badToken.request), c);
      assert.equal(auth.status, 'rejected');
      assert.match(auth.status === 'rejected' ? auth.reason : '', /meta error 190/);

      meta.failNext(
        { status: 400, body: { error: { message: 'User request limit reached', code: 17 } } },
        { status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2 } } },
      );
      assert.equal(metaCapiDriver.interpret(await send(prepared.request), c).status, 'retry');
      assert.equal(metaCapiDriver.interpret(await send(prepared.request), c).status, 'retry');
      assert.equal(
        metaCapiDriver.interpret({ kind: 'network_error', message: 'ECONNREFUSED' }, c).status,
        'retry',
      );
    });

    it('refuses to prepare without a pixel, a secret, or with test mode but no code', () => {
      const e = recent('page_view');
      const noPixel = metaCapiDriver.prepare(e, ctx({ id: 'm', type: 'meta_capi' }, { access_token: TOKEN }));
      assert.deepEqual(noPixel, { ok: false, reason: 'config.pixel_id is required for meta_capi' });
      assert.equal(metaCapiDriver.prepare(e, ctx(dest)).ok, false);
      assert.equal(
        metaCapiDriver.prepare(e, ctx({ ...dest, test_mode: true }, { access_token: TOKEN })).ok,
        false,
      );
      assert.match(
        (() => {
          const p = metaCapiDriver.prepare(recent('quote_requested'), ctx(dest, { access_token: TOKEN }));
          return p.ok ? '' : p.reason;
        })(),
        /no mapping for event quote_requested/,
      );
    });
  });

  describe('GA4 MP', () => {
    let ga4: PlatformReceiver;
    let dest: Destination;
    before(async () => {
      ga4 = await start(startGa4Receiver({ accessToken: TOKEN }));
      dest = { id: 'ga4', type: 'ga4_mp', base_url: ga4.url, config: { measurement_id: 'G-ABC123' } };
    });
    beforeEach(() => {
      ga4.received.length = 0;
    });

    it('delivers to /mp/collect with the secret in the query; the receiver finds nothing wrong', async () => {
      const outcome = await deliver(ga4MpDriver, ctx(dest, { api_secret: TOKEN }), recent('add_to_cart'));
      assert.deepEqual(outcome, { status: 'delivered', httpStatus: 204 });
      assert.equal(ga4.received[0]?.path, '/mp/collect');
      assert.equal(ga4.received[0]?.query['api_secret'], TOKEN);
      assert.deepEqual(ga4.received[0]?.problems, []);
    });

    it('keeps the event when a part is wrong: a long parameter is cut, a value without currency and a future time left out, each named', async () => {
      const base = recent('view_content');
      const event: StoredEvent = {
        ...base,
        event_time: new Date(Date.now() + 3_600_000).toISOString(),
        event_data: { ...base.event_data, content_name: 'x'.repeat(150), value: 12 },
      };
      delete (event.event_data as Record<string, unknown>)['currency'];
      const c = ctx(dest, { api_secret: TOKEN });
      const prepared = ga4MpDriver.prepare(event, c);
      assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
      assert.match(prepared.dropped ?? '', /left out timestamp_micros \(in the future/);
      assert.match(
        prepared.dropped ?? '',
        /cut events\[0\]\.params\.items\[0\]\.item_name to 100 characters \(was 150\)/,
      );
      assert.match(prepared.dropped ?? '', /left out events\[0\]\.params\.value \(no currency/);
      const outcome = ga4MpDriver.interpret(await send(prepared.request), c);
      assert.equal(outcome.status, 'delivered');
      assert.deepEqual(ga4.received[0]?.problems, []);
      const body = ga4.received[0]?.body as {
        timestamp_micros?: number;
        events: { params: Record<string, unknown> }[];
      };
      assert.equal(body.timestamp_micros, undefined);
      assert.equal(body.events[0]?.params['value'], undefined);
    });

    it('test mode uses /debug/mp/collect and turns validationMessages into a rejection', async () => {
      const c = ctx({ ...dest, test_mode: true }, { api_secret: TOKEN });
      assert.equal((await deliver(ga4MpDriver, c, recent('purchase'))).status, 'delivered');
      assert.equal(ga4.received[0]?.path, '/debug/mp/collect');
      const prepared = ga4MpDriver.prepare(recent('page_view'), c);
      assert.ok(prepared.ok);
      const bad = JSON.parse(prepared.request.body) as { events: { name: string }[] };
      bad.events[0]!.name = '_badEventName';
      const outcome = ga4MpDriver.interpret(
        await send({ ...prepared.request, body: JSON.stringify(bad) }),
        c,
      );
      assert.equal(outcome.status, 'rejected');
      assert.match(
        outcome.status === 'rejected' ? outcome.reason : '',
        /NAME_INVALID events: Event at index: \[0\] has invalid name/,
      );
    });

    it('refuses an event older than 72 hours before sending', () => {
      const old = recent('page_view', { event_time: new Date(Date.now() - 73 * 3600_000).toISOString() });
      const p = ga4MpDriver.prepare(old, ctx(dest, { api_secret: TOKEN }));
      assert.equal(p.ok, false);
      assert.match(p.ok ? '' : p.reason, /timestamp_micros is more than 72 hours in the past/);
    });
  });

  describe('TikTok Events API', () => {
    let tiktok: PlatformReceiver;
    let dest: Destination;
    before(async () => {
      tiktok = await start(startTikTokReceiver({ accessToken: TOKEN }));
      dest = {
        id: 'tt',
        type: 'tiktok_events',
        base_url: tiktok.url,
        config: { pixel_code: 'CABCDEFGHIJ1234567' },
      };
    });
    beforeEach(() => {
      tiktok.received.length = 0;
    });

    it('delivers with the Access-Token header and hashed user fields', async () => {
      const c = ctx({ ...dest, test_mode: true, test_event_code: 'TEST42' }, { access_token: TOKEN });
      assert.deepEqual(await deliver(tiktokEventsDriver, c, recent('view_content')), {
        status: 'delivered',
        httpStatus: 200,
      });
      const got = tiktok.received[0];
      assert.deepEqual(got?.problems, []);
      assert.equal(got?.headers['access-token'], TOKEN);
      const body = got?.body as {
        test_event_code: string;
        event_source_id: string;
        data: { user: { email: string } }[];
      };
      assert.equal(body.test_event_code, 'TEST42');
      assert.equal(body.data[0]?.user.email, JOHN_SMITH);
    });

    it('a purchase with a line item without an id is sent without that line, saying so', async () => {
      const event = recent('purchase');
      const items = (event.event_data as { items: Record<string, unknown>[] }).items;
      const noId = {
        ...event,
        event_data: { ...event.event_data, items: [items[0], { ...items[1], item_id: undefined }] },
      } as StoredEvent;
      const c = ctx(dest, { access_token: TOKEN });
      const p = tiktokEventsDriver.prepare(noId, c);
      assert.ok(p.ok);
      assert.equal(p.dropped, 'left out properties.contents[1] (no content_id); 1 of 2 lines sent');
      const sent = JSON.parse(p.request.body) as { data: { properties: { contents: unknown[] } }[] };
      assert.equal(sent.data[0]?.properties.contents.length, 1);
      // The strict stand-in (which refuses a line without content_id) takes it.
      assert.equal(tiktokEventsDriver.interpret(await send(p.request), c).status, 'delivered');
    });

    it('a non-zero code is rejected, rate limiting retried', async () => {
      const wrong = tiktokEventsDriver.prepare(recent('search'), ctx(dest, { access_token: 'wrong' }));
      assert.ok(wrong.ok);
      const c = ctx(dest, { access_token: TOKEN });
      const rejected = tiktokEventsDriver.interpret(await send(wrong.request), c);
      assert.equal(rejected.status, 'rejected');
      assert.match(rejected.status === 'rejected' ? rejected.reason : '', /tiktok code 40001/);
      tiktok.failNext({ status: 200, body: { code: 40100, message: 'Too many requests' } });
      assert.equal(tiktokEventsDriver.interpret(await send(wrong.request), c).status, 'retry');
    });
  });
});

describe('loopback platforms enforce the published rules', () => {
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('Meta refuses unhashed e-mail and a hashed IP', async () => {
    const r = await startMetaReceiver();
    try {
      const res = await post(`${r.url}/v25.0/1/events?access_token=x`, {
        data: [
          {
            event_name: 'Lead',
            event_time: Math.floor(Date.now() / 1000),
            action_source: 'system_generated',
            user_data: { em: ['john_smith@gmail.com'], client_ip_address: JOHN_SMITH },
          },
        ],
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: number } }).error.code, 100);
      assert.deepEqual(r.received[0]?.problems, [
        'data[0].user_data.em must be SHA-256 hashed',
        'data[0].user_data.client_ip_address must not be hashed',
      ]);
    } finally {
      await r.close();
    }
  });

  it('GA4 debug reports too many events and reserved names', async () => {
    const r = await startGa4Receiver();
    try {
      const events = [{ name: 'session_start' }, ...Array.from({ length: 25 }, () => ({ name: 'ok' }))];
      const res = await post(`${r.url}/debug/mp/collect?measurement_id=G-1&api_secret=x`, {
        client_id: 'c',
        events,
      });
      const { validationMessages } = (await res.json()) as {
        validationMessages: { validationCode: string }[];
      };
      assert.deepEqual(
        validationMessages.map((m) => m.validationCode),
        ['EXCEEDED_MAX_ENTITIES', 'NAME_RESERVED'],
      );
    } finally {
      await r.close();
    }
  });

  it('TikTok answers 40002 for a content without its content_id', async () => {
    const r = await startTikTokReceiver();
    try {
      const res = await post(
        `${r.url}/open_api/v1.3/event/track/`,
        {
          event_source: 'web',
          event_source_id: 'C1',
          data: [{ event: 'AddToCart', event_time: 1, properties: { contents: [{ quantity: 1 }] } }],
        },
        { 'access-token': 'x' },
      );
      const body = (await res.json()) as { code: number; message: string };
      assert.equal(body.code, 40002);
      assert.match(
        body.message,
        /Batch\.0\.properties\.contents\.0\.content_id: Missing data for required field/,
      );
    } finally {
      await r.close();
    }
  });

  it('TikTok answers 40002 for an unhashed phone', async () => {
    const r = await startTikTokReceiver();
    try {
      const res = await post(
        `${r.url}/open_api/v1.3/event/track/`,
        {
          event_source: 'web',
          event_source_id: 'C1',
          data: [{ event: 'Lead', event_time: 1, user: { phone: '+16505551212' } }],
        },
        { 'access-token': 'x' },
      );
      assert.equal(res.status, 200);
      const body = (await res.json()) as { code: number; message: string };
      assert.equal(body.code, 40002);
      assert.match(body.message, /Batch\.0\.user\.phone/);
    } finally {
      await r.close();
    }
  });
});
