/**
 * The ids a page's batch answer sets (gateway/id-cookies.ts): consent first through the one
 * resolver, the registrable domain only where the browser's host is under it, Secure except on
 * local plain http, values re-affirmed from what the page holds, Meta's and gtag's formats; and,
 * on a gateway, the Set-Cookie on the 200 only, credentialed CORS, and `gateway.origin_path`.
 */
import assert from 'node:assert/strict';
import { type IncomingMessage, request } from 'node:http';
import type { OutgoingMessage } from '../../adapters/publisher.ts';
import {
  type CookieRequest,
  cookieDomainOf,
  ID_COOKIE_SECONDS,
  idCookies,
} from '../../gateway/id-cookies.ts';
import type { Settings } from '../../schemas/settings.ts';
import { baseSettings, FakePublisher, ORIGIN, startTestGateway } from './support.ts';

const NOW = Date.UTC(2026, 10, 25, 12);
const message = (event: Record<string, unknown>): OutgoingMessage => ({
  data: Buffer.from(
    JSON.stringify({ event_name: 'page_view', event_id: 'e1', anonymous_id: 'anon-1', ...event }),
  ),
  attributes: {},
});
const ALL = { consent: { analytics: 'granted', ads: 'granted' } };
const on = (host: string, over: Partial<CookieRequest> = {}): CookieRequest => ({
  host,
  plainLoopback: false,
  cookie: undefined,
  ...over,
});
const lines = (settings: Settings, req: CookieRequest, ...events: Record<string, unknown>[]) =>
  idCookies(settings, req, events.map(message), NOW);
const names = (set: readonly string[]) => set.map((l) => l.slice(0, l.indexOf('=')));

describe('gateway: ids set in a page batch’s answer', () => {
  const site = baseSettings({ gateway: { cookie_domain: 'shop.example' } });

  it('sets nothing unless the resolver grants storage: unknown, denied, or TCF with no string', () => {
    assert.deepEqual(lines(site, on('www.shop.example'), {}), []);
    assert.deepEqual(
      lines(site, on('www.shop.example'), { consent: { analytics_storage: 'denied', ads: 'granted' } }),
      [],
    );
    assert.deepEqual(
      lines(site, on('www.shop.example'), { consent: { analytics: 'granted', gdpr_applies: true } }),
      [],
      'GDPR applies and no TC string: purpose 1 is not consented',
    );
    assert.deepEqual(
      lines(site, on('www.shop.example'), { consent: { analytics: 'granted', gpp_pending: true } }),
      [],
      'a GPP CMP not ready yet: storage waits, as in the tag',
    );
    // The batch's last event decides (the consent given last).
    assert.deepEqual(lines(site, on('www.shop.example'), ALL, { consent: { analytics: 'denied' } }), []);
  });

  it('the id with storage granted, Meta’s cookies only with ads too (a GPC opt-out refuses them)', () => {
    const analytics = lines(site, on('www.shop.example'), { consent: { analytics: 'granted' } });
    assert.deepEqual(analytics, [
      `eventbus_anonymous_id=anon-1; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax; Domain=shop.example; Secure`,
    ]);
    assert.deepEqual(names(lines(site, on('shop.example'), ALL)), ['eventbus_anonymous_id', '_fbp']);
    assert.deepEqual(
      names(lines(site, on('shop.example'), { ...ALL, consent: { ...ALL.consent, gpc: true } })),
      ['eventbus_anonymous_id'],
    );
  });

  it('re-affirms what the page holds and makes Meta’s formats where it holds none', () => {
    const kept = lines(site, on('shop.example'), {
      ...ALL,
      anonymous_id: 'a b/ç',
      campaign: { fbp: 'fb.1.1700000000000.1234567890', fbc: 'fb.1.1700000000000.CLICK' },
    });
    assert.deepEqual(
      kept.map((l) => l.split(';')[0]),
      [
        'eventbus_anonymous_id=a%20b%2F%C3%A7',
        '_fbp=fb.1.1700000000000.1234567890',
        '_fbc=fb.1.1700000000000.CLICK',
      ],
    );
    // A landing's new fbclid makes a new _fbc; an edited _fbp is replaced by a well-formed one.
    const made = lines(site, on('www.shop.example'), {
      ...ALL,
      campaign: { fbp: 'garbage', fbc: 'fb.1.1700000000000.OLD', fbclid: 'NEW' },
    });
    assert.match(made[1] ?? '', new RegExp(`^_fbp=fb\\.1\\.${NOW}\\.\\d{10};`));
    assert.equal(made[2]?.split(';')[0], `_fbc=fb.1.${NOW}.NEW`);
    // An id the contract would not take is not set.
    assert.deepEqual(names(lines(site, on('shop.example'), { ...ALL, anonymous_id: 'x'.repeat(257) })), [
      '_fbp',
    ]);
  });

  it('the registrable domain only where the browser’s host is under it; host-only otherwise, Secure except local plain http', () => {
    const [run] = lines(site, on('gateway-abc.a.run.app'), { consent: { analytics: 'granted' } });
    assert.doesNotMatch(run ?? '', /Domain=/);
    const [local] = lines(baseSettings(), on('127.0.0.1', { plainLoopback: true }), ALL);
    assert.equal(local, `eventbus_anonymous_id=anon-1; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax`);
    // Meta's index counts the cookie's domain: 2 for a host-only shop.example.com.
    assert.match(lines(baseSettings(), on('shop.example.com'), ALL)[1] ?? '', /^_fbp=fb\.2\./);
    assert.equal(cookieDomainOf(baseSettings({ gateway: { domain: 'collect.shop.co.uk' } })), 'shop.co.uk');
    assert.equal(cookieDomainOf(baseSettings()), undefined);
  });

  it('sets _ga only with a GA4 destination, from the client id the events carry (#96)', () => {
    const ga4 = baseSettings({
      gateway: { cookie_domain: 'shop.example' },
      destinations: [{ id: 'ga', type: 'ga4_mp', consent: ['analytics'] } as never],
    });
    const withId = { ...ALL, campaign: { ga_client_id: '123.456' } };
    assert.deepEqual(names(lines(site, on('shop.example'), withId)), ['eventbus_anonymous_id', '_fbp']);
    const set = lines(ga4, on('shop.example'), withId);
    assert.deepEqual(names(set), ['eventbus_anonymous_id', '_fbp', '_ga']);
    assert.equal(set[2]?.split(';')[0], '_ga=GA1.1.123.456');
    // The page's own _ga holding that id is re-affirmed as it is (gtag's index kept).
    const gtag = on('shop.example', { cookie: '_ga=GA1.2.123.456' });
    assert.equal(lines(ga4, gtag, withId)[2]?.split(';')[0], '_ga=GA1.2.123.456');
    // Storage alone decides it: ads refused keeps _ga; no id in the events and none on the page sets none.
    assert.deepEqual(
      names(lines(ga4, on('shop.example'), { ...withId, consent: { analytics: 'granted' } })),
      ['eventbus_anonymous_id', '_ga'],
    );
    assert.deepEqual(names(lines(ga4, on('shop.example'), ALL)), ['eventbus_anonymous_id', '_fbp']);
  });

  it('a withdrawal expires every cookie of ours the browser sent; unknown expires nothing (#96)', () => {
    const cookie =
      'a=1; eventbus_anonymous_id=anon-1; _fbp=fb.1.1700000000000.1234567890; _ga=GA1.1.1.1700000000';
    const expired = (consent: Record<string, unknown>) =>
      lines(site, on('shop.example', { cookie }), { consent }).filter((l) => /Max-Age=0;/.test(l));
    assert.deepEqual(expired({ analytics: 'denied' }), [
      'eventbus_anonymous_id=; Path=/; Max-Age=0; SameSite=Lax; Domain=shop.example; Secure',
      '_fbp=; Path=/; Max-Age=0; SameSite=Lax; Domain=shop.example; Secure',
      '_ga=; Path=/; Max-Age=0; SameSite=Lax; Domain=shop.example; Secure',
    ]);
    // A malformed TC string refuses everything, as on delivery.
    assert.equal(expired({ analytics: 'granted', tcf: 'not-a-tc-string', gdpr_applies: true }).length, 3);
    // Ads refused or opted out: Meta's cookie goes, the id stays (and is re-affirmed).
    for (const consent of [
      { analytics: 'granted', ads: 'denied' },
      { analytics: 'granted', ads: 'granted', us_privacy: '1YYN' },
    ]) {
      const set = lines(site, on('shop.example', { cookie }), { consent });
      assert.deepEqual(names(set), ['_fbp', 'eventbus_anonymous_id'], JSON.stringify(consent));
      assert.match(set[0] ?? '', /^_fbp=; .*Max-Age=0;/);
    }
    // Unknown (nothing said, a TCF CMP still silent, a GPP CMP not ready) touches nothing.
    for (const consent of [
      {},
      { analytics: 'granted', gdpr_applies: true },
      { analytics: 'granted', gpp_pending: true },
    ])
      assert.deepEqual(lines(site, on('shop.example', { cookie }), { consent }), [], JSON.stringify(consent));
    // A cookieless page's batch: nothing set, nothing expired.
    assert.deepEqual(lines(site, on('shop.example', { cookie, cookieless: true }), ALL), []);
  });

  it('on a gateway: Set-Cookie on a browser batch’s 200 only, credentialed CORS, and origin_path taken off', async () => {
    const pub = new FakePublisher();
    const g = await startTestGateway({
      publisher: pub,
      settings: baseSettings({ gateway: { origin_path: '/_eb', cookie_domain: 'shop.example' } }),
    });
    try {
      // node:http, since fetch will not send another Host than the URL's.
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const r = request(
            `${g.url}${path}`,
            {
              method: 'POST',
              headers: { 'content-type': 'text/plain', origin: ORIGIN, host: 'www.shop.example', ...headers },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res));
            },
          );
          r.on('error', reject);
          r.end(JSON.stringify(body));
        });
      const event = { event_name: 'page_view', anonymous_id: 'anon-9', consent: { analytics: 'granted' } };
      const ok = await post(`/_eb/v1/topics/events?key=${g.key}`, [event]);
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
      assert.equal(ok.headers['access-control-allow-credentials'], 'true');
      assert.deepEqual(ok.headers['set-cookie'], [
        `eventbus_anonymous_id=anon-9; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax; Domain=shop.example`,
      ]);
      // The gateway's own path still works; a refused batch sets nothing.
      const bad = await post(`/v1/topics/events?key=${g.key}`, [{ ...event, event_name: 'Not A Name' }]);
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.headers['set-cookie'], undefined);
      // A project token is a server: its answer sets no cookie.
      const server = await post('/v1/topics/events', [event], { authorization: `Bearer ${g.token}` });
      assert.equal(server.statusCode, 200);
      assert.equal(server.headers['set-cookie'], undefined);
      // Segment's settings under the path name the site's origin and path as its API host.
      const settings = await new Promise<string>((resolve, reject) => {
        const r = request(
          `${g.url}/_eb/v1/projects/${g.key}/settings`,
          { headers: { host: 'www.shop.example' } },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve(text));
          },
        );
        r.on('error', reject);
        r.end();
      });
      assert.equal(JSON.parse(settings).integrations['Segment.io'].apiHost, 'www.shop.example/_eb/v1');
      assert.equal((await fetch(`${g.url}/_eb/v1/tag.js`)).status, 200);
      assert.equal((await fetch(`${g.url}/_ebx/v1/tag.js`)).status, 404);
      assert.equal((await fetch(`${g.url}/_eb/health`)).status, 200);
    } finally {
      await g.close();
    }
  });
});
