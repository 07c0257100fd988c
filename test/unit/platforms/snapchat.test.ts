/**
 * Snapchat Conversions API v3 (docs/platforms.md, "Snapchat"): conformance with Snap's published hashing
 * examples (e-mail trimmed and lower-cased; the phone as digits with its country code and no
 * `+`), the ScCid click id and _scid cookie in clear, the catalogue's events under Snap's names,
 * dedup by event_id, the 37-day window, batches of at most 2,000, the Test Event Tool's validate
 * path, limited data use, how Snap's answers are read — and the driver against its strict local
 * stand-in over HTTP.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { plan } from '../../../core/plan.ts';
import type { DriverContext, InboundResponse } from '../../../core/platforms/driver.ts';
import { snapchatDriver } from '../../../core/platforms/snapchat/index.ts';
import { checkSnapchatRequest, SNAPCHAT_MAX_EVENTS } from '../../../core/platforms/snapchat/target.ts';
import { checkSettings } from '../../../core/settings.ts';
import { type PlatformReceiver, startSnapchatReceiver } from '../../../local/platforms/index.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { CATALOGUE_NAMES, NOW, sendOverHttp, storedEvent } from '../linkage/sample-events.ts';

const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const SNAP: Destination = {
  id: 'snap',
  type: 'snapchat_capi',
  config: { pixel_id: '1ec32188-754e-4be2-8e55-c949a984a39f' },
  secrets: { access_token: 'SNAP_ACCESS_TOKEN' },
};
const contextFor = (extra: Partial<Destination> = {}, token = 'snap-token'): DriverContext => ({
  destination: { ...SNAP, ...extra },
  secrets: { access_token: token },
  now: NOW,
});
/** The one `data` row and the request the driver makes of an event. */
function rowOf(event: StoredEvent, extra: Partial<Destination> = {}) {
  const prepared = snapchatDriver.prepare(event, contextFor(extra));
  if (!prepared.ok) assert.fail(prepared.reason);
  const data = (JSON.parse(prepared.request.body) as { data: Record<string, Record<string, unknown>>[] })
    .data;
  return { row: data[0] as Record<string, Record<string, unknown>>, request: prepared.request };
}
const reply = (status: number, body: unknown): InboundResponse => ({
  kind: 'response',
  status,
  headers: {},
  body: JSON.stringify(body),
});

describe('Snapchat Conversions API v3', () => {
  it("Snap's published examples: Person@Example.com → 542d2401…3345, +44 844 412 4653 → 448444124653 → dc008fda…6383", () => {
    const event = {
      ...storedEvent('sign_up'),
      user: { email: '  Person@Example.com ', phone: '+44 844 412 4653', country: 'GB' },
    } as StoredEvent;
    const user = rowOf(event).row['user_data'] as Record<string, string[]>;
    const em = user['em']?.[0] ?? '';
    const ph = user['ph']?.[0] ?? '';
    assert.equal(em, digest('person@example.com'));
    assert.ok(em.startsWith('542d2401') && em.endsWith('3345'), em);
    assert.equal(ph, digest('448444124653'));
    assert.ok(ph.startsWith('dc008fda') && ph.endsWith('6383'), ph);
    // A national number of the event's country loses its trunk 0 and gains the country code.
    const national = { ...event, user: { phone: '0844 412 4653', country: 'GB' } } as StoredEvent;
    assert.deepEqual((rowOf(national).row['user_data'] as Record<string, unknown>)['ph'], [ph]);
  });

  it('the other personal fields hashed after trim and lower case; IP, user agent, ScCid and _scid in clear', () => {
    const event = {
      ...storedEvent('purchase'),
      campaign: { sccid: 'sc-click-1', scid: 'scid-cookie-1' },
    } as StoredEvent;
    const user = rowOf(event).row['user_data'] as Record<string, unknown>;
    assert.deepEqual(user['fn'], [digest('valéry')]);
    assert.deepEqual(user['ln'], [digest("o'brien")]);
    assert.deepEqual(user['ge'], [digest('f')]);
    assert.deepEqual(user['db'], [digest('19900228')]);
    assert.deepEqual(user['st'], [digest('ca')]);
    assert.deepEqual(user['country'], [digest('us')]);
    assert.deepEqual(user['external_id'], [digest('123456')]);
    assert.equal(user['client_ip_address'], '123.123.123.123');
    assert.equal(user['client_user_agent'], 'Mozilla/5.0 (X11; Linux x86_64)');
    assert.equal(user['sc_click_id'], 'sc-click-1');
    assert.equal(user['sc_cookie1'], 'scid-cookie-1');
    const fromUrl = { ...storedEvent('lead'), enriched: { campaign: { sccid: 'from-url' } } } as StoredEvent;
    assert.equal((rowOf(fromUrl).row['user_data'] as Record<string, unknown>)['sc_click_id'], 'from-url');
  });

  it("maps each catalogue event to Snap's name (lead and contact to custom slots), event_id for dedup", () => {
    const names = CATALOGUE_NAMES.map((n) => `${n}=${String(rowOf(storedEvent(n)).row['event_name'])}`);
    assert.deepEqual(names, [
      'page_view=PAGE_VIEW',
      'view_content=VIEW_CONTENT',
      'search=SEARCH',
      'add_to_cart=ADD_CART',
      'begin_checkout=START_CHECKOUT',
      'add_payment_info=ADD_BILLING',
      'purchase=PURCHASE',
      'lead=CUSTOM_EVENT_1',
      'sign_up=SIGN_UP',
      'subscribe=SUBSCRIBE',
      'contact=CUSTOM_EVENT_2',
    ]);
    const { row } = rowOf(storedEvent('purchase'));
    assert.equal(row['event_id'], 'evt-purchase');
    assert.equal(row['event_time'], 1731741454);
    assert.equal(row['action_source'], 'WEB');
    assert.equal(row['custom_data']?.['value'], 64.9);
    assert.equal(row['custom_data']?.['order_id'], 'T-1');
    assert.deepEqual(row['custom_data']?.['contents'], [
      { id: 'SKU1', quantity: 1, item_price: 49.9, brand: 'Acme' },
      { id: 'SKU2', quantity: 3, item_price: 5 },
    ]);
    const offline = {
      ...storedEvent('purchase'),
      page: undefined,
      event_data: { ...storedEvent('purchase').event_data, action_source: 'physical_store' },
    } as unknown as StoredEvent;
    assert.equal(rowOf(offline).row['action_source'], 'physical_store');
    const backend = { ...storedEvent('lead'), page: undefined } as unknown as StoredEvent;
    assert.equal(rowOf(backend).row['action_source'], 'OFFLINE');
  });

  it('refused before sending: older than 37 days, a purchase without currency, nothing to match by', () => {
    const refusal = (event: StoredEvent) => {
      const p = snapchatDriver.prepare(event, contextFor());
      return p.ok ? '' : p.reason;
    };
    assert.match(
      refusal({ ...storedEvent('lead'), event_time: '2024-10-01T00:00:00Z' } as StoredEvent),
      /event_time is older than 37 days/,
    );
    const purchase = storedEvent('purchase');
    assert.match(
      refusal({ ...purchase, event_data: { ...purchase.event_data, currency: undefined } } as StoredEvent),
      /custom_data needs value and currency on a PURCHASE/,
    );
    const anonymous = {
      ...storedEvent('lead'),
      user: undefined,
      user_id: undefined,
      device: { ip: '1.2.3.4' },
    } as unknown as StoredEvent;
    assert.match(refusal(anonymous), /user_data has nothing to match the person by/);
  });

  it('requests: the token in the query (redacted in logs), the validate path in test mode, at most 2,000 events each', () => {
    const { request } = rowOf(storedEvent('lead'));
    assert.equal(
      request.url,
      'https://tr.snapchat.com/v3/1ec32188-754e-4be2-8e55-c949a984a39f/events?access_token=snap-token',
    );
    assert.equal(
      request.redactedUrl,
      'https://tr.snapchat.com/v3/1ec32188-754e-4be2-8e55-c949a984a39f/events?access_token=REDACTED',
    );
    assert.match(
      rowOf(storedEvent('lead'), { test_mode: true }).request.url,
      /\/events\/validate\?access_token=/,
    );
    const many = Array.from({ length: SNAPCHAT_MAX_EVENTS + 5 }, (_, i) => ({
      ...storedEvent('sign_up'),
      event_id: `s${i}`,
    }));
    const batch = snapchatDriver.prepareBatch?.(many, contextFor());
    assert.deepEqual(
      batch?.requests.map((r) => r.eventIds.length),
      [2000, 5],
    );
    const rows =
      batch?.requests.flatMap((r) => (JSON.parse(r.request.body) as { data: unknown[] }).data) ?? [];
    assert.ok(checkSnapchatRequest({ data: rows }, NOW).some((v) => v.field === 'data'));
  });

  it('limited data use is data_processing_options ["LDU"]', () => {
    assert.deepEqual(
      rowOf(storedEvent('lead')).row['data_processing_options'],
      ['LDU'],
      'ad personalization denied',
    );
    const granted = {
      ...storedEvent('lead'),
      consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' },
    } as StoredEvent;
    assert.equal(rowOf(granted).row['data_processing_options'], undefined);
    assert.deepEqual(rowOf(granted, { limited_data_use: 'always' }).row['data_processing_options'], ['LDU']);
  });

  it("answers: INVALID and a bad token refused with Snap's reason, 429 and 5xx retried, 2xx delivered", () => {
    const read = (status: number, body: unknown, extra: Partial<Destination> = {}) =>
      snapchatDriver.interpret(reply(status, body), contextFor(extra));
    assert.deepEqual(read(400, { status: 'INVALID', reason: 'Insufficient PII', param: 'user_data' }), {
      status: 'rejected',
      reason: 'snapchat HTTP 400 INVALID: Insufficient PII (param user_data)',
      httpStatus: 400,
    });
    assert.equal(read(401, { status: 'INVALID', reason: 'Unauthorized' }).status, 'rejected');
    assert.equal(read(429, { status: 'INVALID', reason: 'Too many requests' }).status, 'retry');
    assert.equal(read(500, 'oops').status, 'retry');
    assert.deepEqual(read(200, { status: 'SUCCESS' }), {
      status: 'delivered',
      detail: 'status=SUCCESS',
      httpStatus: 200,
    });
    assert.match(JSON.stringify(read(200, { status: 'VALID' }, { test_mode: true })), /recorded none/);
  });

  it("the settings check wants the pixel and the token, and Snap's event names; preview redacts the token", () => {
    const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
    const bad = checkSettings({
      ...base,
      destinations: [{ id: 's', type: 'snapchat_capi', mappings: { lead: { event: 'Lead' } } }],
    });
    const errors = bad.ok ? [] : bad.errors.map((e) => `${e.field}: ${e.description}`);
    assert.ok(
      errors.includes('destinations[0].config.pixel_id: is required for snapchat_capi'),
      errors.join('\n'),
    );
    assert.ok(
      errors.some((e) => e.startsWith('destinations[0].secrets.access_token: is required for snapchat_capi')),
    );
    assert.ok(
      errors.some((e) =>
        e.startsWith('destinations[0].mappings.lead.event: "Lead" is not a Snapchat event name'),
      ),
    );
    const settings = { ...base, destinations: [SNAP] } as Settings;
    assert.equal(checkSettings(settings).ok, true);
    assert.ok(
      plan(settings)
        .functions.find((f) => f.name === 'forward')
        ?.secrets.includes('SNAP_ACCESS_TOKEN'),
    );
    const raw = {
      event_name: 'sign_up',
      event_time: NOW.toISOString(),
      user: { email: 'a@b.example' },
      consent: { ads: 'granted', ad_user_data: 'granted' },
    };
    const preview = previewDelivery(settings, 'snap', raw, NOW);
    assert.equal(preview.outcome, 'send', JSON.stringify(preview));
    if (preview.outcome === 'send') {
      assert.match(preview.request.url, /access_token=REDACTED$/);
      assert.ok(preview.fields?.some((f) => f.target === 'user_data.ph' || f.target === 'user_data.em'));
    }
  });

  describe('against its strict local stand-in', () => {
    let standIn: PlatformReceiver;
    before(async () => {
      standIn = await startSnapchatReceiver({ accessToken: 'snap-token', now: () => NOW });
    });
    after(() => standIn.close());
    const deliver = async (events: StoredEvent[], extra: Partial<Destination> = {}, token = 'snap-token') => {
      const c = contextFor({ base_url: standIn.url, ...extra }, token);
      const request = snapchatDriver.prepareBatch?.(events, c).requests[0]?.request;
      assert.ok(request);
      return snapchatDriver.interpret(await sendOverHttp(request), c);
    };

    it('every catalogue event the driver sends passes the stand-in; test mode goes to validate', async () => {
      const outcome = await deliver(CATALOGUE_NAMES.map((n) => storedEvent(n)));
      assert.deepEqual(outcome, { status: 'delivered', detail: 'status=SUCCESS', httpStatus: 200 });
      assert.deepEqual(standIn.received.at(-1)?.problems, []);
      const test = await deliver([storedEvent('lead')], { test_mode: true });
      assert.equal(test.status, 'delivered');
      assert.match(standIn.received.at(-1)?.path ?? '', /\/events\/validate$/);
    });

    it("a wrong token is refused with Snap's 401; over 2,000 events and unhashed PII with its 400 INVALID", async () => {
      const denied = await deliver([storedEvent('lead')], {}, 'stale');
      assert.equal(denied.status, 'rejected');
      assert.match(
        denied.status === 'rejected' ? denied.reason : '',
        /^snapchat HTTP 401 INVALID: Unauthorized/,
      );
      const row = rowOf(storedEvent('sign_up')).row;
      const post = async (data: unknown[]) =>
        snapchatDriver.interpret(
          await sendOverHttp({
            method: 'POST',
            url: `${standIn.url}/v3/px/events?access_token=snap-token`,
            redactedUrl: '',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ data }),
          }),
          contextFor(),
        );
      const big = await post(Array.from({ length: 2001 }, () => row));
      assert.match(
        big.status === 'rejected' ? big.reason : '',
        /data must hold 1 to 2000 events, got 2001 \(param data\)/,
      );
      const plain = await post([{ ...row, user_data: { em: 'person@example.com', ph: '+448444124653' } }]);
      assert.match(plain.status === 'rejected' ? plain.reason : '', /user_data\.em: Unhashed PII/);
    });
  });
});
