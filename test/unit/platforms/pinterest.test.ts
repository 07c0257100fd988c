/**
 * Pinterest Conversions API (docs/platforms.md, "Pinterest"): conformance with Pinterest's own rules and
 * published examples (every user field a list of SHA-256 digests, the country included; the phone
 * as digits with its country code; the epik click id in clear), the catalogue's events under
 * Pinterest's names, what it needs to match a person, dedup by event_id, batches of at most 1,000,
 * `?test=true`, the consent signals, how its answers are read — and the driver against its strict
 * local stand-in over HTTP.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { plan } from '../../../core/plan.ts';
import type { DriverContext, OutboundRequest } from '../../../core/platforms/driver.ts';
import { pinterestDriver } from '../../../core/platforms/pinterest/index.ts';
import { checkPinterestRequest, PINTEREST_MAX_EVENTS } from '../../../core/platforms/pinterest/target.ts';
import { checkSettings } from '../../../core/settings.ts';
import { type PlatformReceiver, startPinterestReceiver } from '../../../local/platforms/index.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { CATALOGUE_NAMES, NOW, sendOverHttp, storedEvent } from '../linkage/sample-events.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const DESTINATION: Destination = {
  id: 'pinterest',
  type: 'pinterest_capi',
  config: { ad_account_id: '549755885175' },
  secrets: { access_token: 'PINTEREST_ACCESS_TOKEN' },
};
const ctx = (d: Partial<Destination> = {}): DriverContext => ({
  destination: { ...DESTINATION, ...d },
  secrets: { access_token: 'pina_token' },
  now: NOW,
});
const bodyOf = (r: OutboundRequest) =>
  JSON.parse(r.body) as { data: Record<string, Record<string, unknown>>[] };
function sent(event: StoredEvent, d: Partial<Destination> = {}) {
  const p = pinterestDriver.prepare(event, ctx(d));
  assert.ok(p.ok, p.ok ? '' : p.reason);
  const row = bodyOf(p.request).data[0];
  assert.ok(row);
  return { row, request: p.request, dropped: p.dropped };
}
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  pinterestDriver.interpret({ kind: 'response', status, headers, body: JSON.stringify(body) }, ctx());

describe('Pinterest Conversions API', () => {
  it("hashes every user field into a list after Pinterest's normalisation; IP, user agent and epik go in clear", () => {
    const event = {
      ...storedEvent('purchase'),
      user: {
        email: ' Jane.Doe@Example.COM ',
        // Pinterest's own example: country code, area code and number, digits only.
        phone: '+1 (650) 555-1212',
        first_name: ' Jane ',
        last_name: 'DOE',
        gender: 'female',
        date_of_birth: '1990-02-28',
        city: 'Menlo Park',
        region: 'California',
        postal_code: '94025-1234',
        country: 'US',
        external_id: 'cust-1',
      },
      campaign: { epik: 'dj0yJnU9abc' },
    } as StoredEvent;
    const { row } = sent(event);
    assert.deepEqual(row['user_data'], {
      em: [sha('jane.doe@example.com')],
      ph: [sha('16505551212')],
      fn: [sha('jane')],
      ln: [sha('doe')],
      ge: [sha('f')],
      db: [sha('19900228')],
      ct: [sha('menlopark')],
      st: [sha('ca')],
      zp: [sha('94025')],
      country: [sha('us')],
      external_id: [sha('cust-1')],
      client_ip_address: '123.123.123.123',
      client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      click_id: 'dj0yJnU9abc',
    });
    // The published example's digits, hashed.
    assert.equal(sha('16505551212'), 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176');
    const enriched = { ...storedEvent('lead'), enriched: { campaign: { epik: 'from-url' } } } as StoredEvent;
    assert.equal(
      sent(enriched).row['user_data']?.['click_id'],
      'from-url',
      "store's epik from the landing URL",
    );
  });

  it("maps each catalogue event to Pinterest's name, with event_id for dedup and value as text", () => {
    const names = Object.fromEntries(CATALOGUE_NAMES.map((n) => [n, sent(storedEvent(n)).row['event_name']]));
    assert.deepEqual(names, {
      page_view: 'page_visit',
      view_content: 'page_visit',
      search: 'search',
      add_to_cart: 'add_to_cart',
      begin_checkout: 'custom',
      add_payment_info: 'add_payment_info',
      purchase: 'checkout',
      lead: 'lead',
      sign_up: 'signup',
      subscribe: 'custom',
      contact: 'contact',
    });
    const { row } = sent(storedEvent('purchase'));
    assert.equal(row['event_id'], 'evt-purchase');
    assert.equal(row['event_time'], 1731741454);
    assert.equal(row['action_source'], 'web');
    assert.equal(row['event_source_url'], 'https://shop.example/p/123?fbclid=abc');
    assert.deepEqual(row['custom_data'], {
      value: '64.9',
      currency: 'USD',
      order_id: 'T-1',
      // The sample event denies ad personalization: limited data processing.
      opt_out_type: 'LDP',
      content_ids: ['SKU1', 'SKU2'],
      num_items: 4,
      contents: [
        { id: 'SKU1', item_name: 'Red Shoe', item_brand: 'Acme', item_price: '49.9', quantity: 1 },
        { id: 'SKU2', item_name: 'Blue Sock', item_price: '5', quantity: 3 },
      ],
    });
  });

  it('an event without an e-mail, a mobile ad id, or IP with user agent is refused alone, saying what Pinterest needs', () => {
    const bare = { ...storedEvent('lead'), user: { phone: '+16505551212' }, device: {} } as StoredEvent;
    const p = pinterestDriver.prepare(bare, ctx());
    assert.equal(p.ok, false);
    assert.match(
      p.ok ? '' : p.reason,
      /user_data needs an e-mail \(em\), a mobile ad id \(hashed_maids\), or the IP address with the user agent/,
    );
    const batch = pinterestDriver.prepareBatch?.([storedEvent('purchase'), bare, storedEvent('lead')], ctx());
    assert.deepEqual(
      batch?.rejected.map((r) => r.eventId),
      ['evt-lead'],
    );
    assert.equal(batch?.requests.length, 1);
  });

  it('an event older than 7 days is refused alone, saying Pinterest takes the last 7 days only', () => {
    const at = (iso: string) => ({ ...storedEvent('lead'), event_id: iso, event_time: iso }) as StoredEvent;
    // NOW is 2024-11-16T08:00Z: 6 days back is taken, 8 days back is not.
    const batch = pinterestDriver.prepareBatch?.(
      [at('2024-11-10T08:00:00Z'), at('2024-11-08T08:00:00Z')],
      ctx(),
    );
    assert.deepEqual(batch?.rejected, [
      {
        eventId: '2024-11-08T08:00:00Z',
        reason:
          'pinterest_capi payload refused: event_time is older than 7 days: Pinterest takes events from the last 7 days only',
      },
    ]);
    assert.deepEqual(batch?.requests[0]?.eventIds, ['2024-11-10T08:00:00Z']);
  });

  it('a backend event without a page is offline; a web one is web; the destination may say', () => {
    const backend = { ...storedEvent('purchase'), page: undefined } as unknown as StoredEvent;
    assert.equal(sent(backend).row['action_source'], 'offline');
    assert.equal(
      sent(storedEvent('purchase'), { config: { ad_account_id: '1', action_source: 'app_ios' } }).row[
        'action_source'
      ],
      'app_ios',
    );
  });

  it('batches hold at most 1,000 events; the request check refuses more', () => {
    const events = Array.from({ length: PINTEREST_MAX_EVENTS + 1 }, (_, i) => ({
      ...storedEvent('lead'),
      event_id: `e${i}`,
    }));
    const batch = pinterestDriver.prepareBatch?.(events, ctx());
    assert.deepEqual(
      batch?.requests.map((r) => r.eventIds.length),
      [1000, 1],
    );
    const rows = batch?.requests.flatMap((r) => bodyOf(r.request).data) ?? [];
    assert.deepEqual(checkPinterestRequest({ data: rows.slice(0, 1000) }, NOW), []);
    assert.ok(checkPinterestRequest({ data: rows }, NOW).some((v) => v.field === 'data'));
  });

  it('the request: the ad account in the path, the token in a Bearer header, ?test=true in test mode', () => {
    const { request } = sent(storedEvent('lead'));
    assert.equal(request.url, 'https://api.pinterest.com/v5/ad_accounts/549755885175/events');
    assert.equal(request.headers['authorization'], 'Bearer pina_token');
    assert.ok(!request.redactedUrl.includes('pina_token'));
    assert.match(sent(storedEvent('lead'), { test_mode: true }).request.url, /\/events\?test=true$/);
  });

  it('consent: ad personalization denied is opt_out; limited data use is opt_out_type LDP', () => {
    // The sample event denies ad personalization.
    const { row } = sent(storedEvent('lead'));
    assert.equal(row['opt_out'], true);
    assert.equal(row['custom_data']?.['opt_out_type'], 'LDP');
    const granted = {
      ...storedEvent('lead'),
      consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' },
    } as StoredEvent;
    assert.equal(sent(granted).row['opt_out'], undefined);
    assert.equal(sent(granted, { limited_data_use: 'always' }).row['custom_data']?.['opt_out_type'], 'LDP');
  });

  it("answers: 401 and 400 refused with Pinterest's message, 429 and 5xx retried, per-event failures named", () => {
    const denied = answer(401, { code: 2, message: 'Authentication failed.' });
    assert.deepEqual(denied, {
      status: 'rejected',
      reason: 'pinterest HTTP 401 (code 2): Authentication failed.',
      httpStatus: 401,
    });
    assert.equal(
      answer(429, { code: 8, message: 'Rate limit exceeded' }, { 'retry-after': '3' }).status,
      'retry',
    );
    assert.equal(answer(503, '<html>').status, 'retry');
    const ok = answer(200, {
      num_events_received: 1,
      num_events_processed: 1,
      events: [{ status: 'processed' }],
    });
    assert.deepEqual(ok, { status: 'delivered', detail: 'num_events_processed=1 of 1', httpStatus: 200 });
    const none = answer(200, {
      num_events_received: 1,
      num_events_processed: 0,
      events: [{ status: 'failed', error_message: 'bad em' }],
    });
    assert.deepEqual(none, {
      status: 'rejected',
      reason: 'pinterest refused every event: data[0]: bad em',
      httpStatus: 200,
    });
    const some = answer(200, {
      num_events_received: 2,
      num_events_processed: 1,
      events: [{ status: 'processed' }, { status: 'failed', error_message: 'bad em' }],
    });
    assert.equal(some.status, 'delivered');
    assert.match(some.status === 'delivered' ? (some.detail ?? '') : '', /failed data\[1\]: bad em/);
  });

  it("the settings check wants the ad account and the token, and Pinterest's own event names", () => {
    const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
    const result = checkSettings({
      ...base,
      destinations: [{ id: 'p', type: 'pinterest_capi', mappings: { lead: { event: 'Lead' } } }],
    });
    assert.equal(result.ok, false);
    const fields = result.ok ? [] : result.errors.map((e) => `${e.field}: ${e.description}`);
    assert.ok(
      fields.includes('destinations[0].config.ad_account_id: is required for pinterest_capi'),
      fields.join('\n'),
    );
    assert.ok(
      fields.some((f) =>
        f.startsWith('destinations[0].secrets.access_token: is required for pinterest_capi'),
      ),
    );
    assert.ok(
      fields.some((f) =>
        f.startsWith('destinations[0].mappings.lead.event: "Lead" is not a Pinterest event name'),
      ),
    );
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    assert.equal(checkSettings(settings).ok, true);
    assert.ok(
      plan(settings)
        .functions.find((f) => f.name === 'forward')
        ?.secrets.includes('PINTEREST_ACCESS_TOKEN'),
    );
    const preview = previewDelivery(
      settings,
      'pinterest',
      {
        event_name: 'lead',
        event_time: NOW.toISOString(),
        user: { email: 'a@b.example' },
        consent: { ads: 'granted', ad_user_data: 'granted' },
      },
      NOW,
    );
    assert.equal(preview.outcome, 'send', JSON.stringify(preview));
    if (preview.outcome !== 'send') return;
    assert.equal(preview.request.headers['authorization'], 'REDACTED');
    assert.ok(preview.fields?.some((f) => f.target === 'user_data.em' && f.source === 'user.email'));
  });

  describe('against its strict local stand-in', () => {
    let standIn: PlatformReceiver;
    before(async () => {
      standIn = await startPinterestReceiver({ accessToken: 'pina_token', now: () => NOW });
    });
    after(() => standIn.close());
    const over = async (events: StoredEvent[], d: Partial<Destination> = {}, token = 'pina_token') => {
      const c = { ...ctx({ base_url: standIn.url, ...d }), secrets: { access_token: token } };
      const batch = pinterestDriver.prepareBatch?.(events, c);
      const request = batch?.requests[0]?.request;
      assert.ok(request);
      return pinterestDriver.interpret(await sendOverHttp(request), c);
    };

    it('every catalogue event the driver sends passes the stand-in, processed one by one', async () => {
      const outcome = await over(CATALOGUE_NAMES.map((n) => storedEvent(n)));
      assert.equal(outcome.status, 'delivered', JSON.stringify(outcome));
      assert.deepEqual(standIn.received.at(-1)?.problems, []);
      assert.match(
        outcome.status === 'delivered' ? (outcome.detail ?? '') : '',
        /num_events_processed=11 of 11/,
      );
    });

    it("a wrong token is refused with Pinterest's 401; a batch over 1,000 with its 400", async () => {
      const denied = await over([storedEvent('lead')], {}, 'stale');
      assert.deepEqual(denied, {
        status: 'rejected',
        reason: 'pinterest HTTP 401 (code 2): Authentication failed.',
        httpStatus: 401,
      });
      const row = bodyOf(sent(storedEvent('lead')).request).data[0];
      const big = await sendOverHttp({
        method: 'POST',
        url: `${standIn.url}/v5/ad_accounts/1/events`,
        redactedUrl: '',
        headers: { authorization: 'Bearer pina_token', 'content-type': 'application/json' },
        body: JSON.stringify({ data: Array.from({ length: 1001 }, () => row) }),
      });
      const refused = pinterestDriver.interpret(big, ctx());
      assert.equal(refused.status, 'rejected');
      assert.match(
        refused.status === 'rejected' ? refused.reason : '',
        /^pinterest HTTP 400 \(code 1\): .*1 to 1000 events, got 1001/,
      );
    });

    it("the stand-in refuses a missing event_time and an 8-day-old event with Pinterest's 400", async () => {
      const row = bodyOf(sent(storedEvent('lead')).request).data[0] as Record<string, unknown>;
      const post = (data: unknown[]) =>
        sendOverHttp({
          method: 'POST',
          url: `${standIn.url}/v5/ad_accounts/1/events`,
          redactedUrl: '',
          headers: { authorization: 'Bearer pina_token' },
          body: JSON.stringify({ data }),
        });
      const { event_time: _, ...timeless } = row;
      const missing = pinterestDriver.interpret(await post([row, timeless]), ctx());
      assert.equal(missing.status, 'rejected');
      assert.match(
        missing.status === 'rejected' ? missing.reason : '',
        /^pinterest HTTP 400 \(code 1\): Invalid parameters: data\[1\]: 'event_time' is a required property/,
      );
      const eightDays = Math.floor(NOW.getTime() / 1000) - 8 * 86400;
      const old = pinterestDriver.interpret(await post([{ ...row, event_time: eightDays }]), ctx());
      assert.equal(old.status, 'rejected');
      assert.match(old.status === 'rejected' ? old.reason : '', /data\[0\]: event_time is older than 7 days/);
    });

    it('what the stand-in refuses per event comes back as that event failing (unhashed e-mail, milliseconds)', async () => {
      const rows = [
        {
          event_name: 'lead',
          action_source: 'web',
          event_time: 1731741454,
          event_id: 'a',
          user_data: { em: ['Jane@x.example'] },
        },
        {
          event_name: 'lead',
          action_source: 'web',
          event_time: 1731741454000,
          event_id: 'b',
          user_data: { em: [sha('a')] },
        },
      ];
      const res = await sendOverHttp({
        method: 'POST',
        url: `${standIn.url}/v5/ad_accounts/1/events`,
        redactedUrl: '',
        headers: { authorization: 'Bearer pina_token' },
        body: JSON.stringify({ data: rows }),
      });
      const outcome = pinterestDriver.interpret(res, ctx());
      assert.equal(outcome.status, 'rejected');
      const reason = outcome.status === 'rejected' ? outcome.reason : '';
      assert.match(reason, /data\[0\]: user_data\.em must be a list of SHA-256 hashes/);
      assert.match(reason, /data\[1\]: event_time is in the future/);
    });
  });
});
