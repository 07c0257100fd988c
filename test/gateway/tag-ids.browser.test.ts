/**
 * Ids the gateway sets in its answer to the tag's batch (gateway/id-cookies.ts, docs/browser.md
 * "Ids the server sets"), in Debian's Chromium. Two ways a page reaches the gateway: through a
 * local reverse proxy that serves the site's page and forwards `/_eb/…` to the gateway unchanged
 * (the same-origin path, `gateway.origin_path`, with `gateway.cookie_domain` set: the site is
 * `www.shop.test`, resolved to loopback), and the plain local environment (the page on the
 * gateway's own origin, nothing configured: host-only cookies). With storage refused, nothing is
 * set or stored and the events still arrive.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Cookie, Response } from 'playwright-core';
import type { StoredEvent } from '../../core/event.ts';
import { gaClientIdOf } from '../../core/platforms/ga4/client-id.ts';
import { issueKey } from '../../gateway/credentials.ts';
import { ID_COOKIE_SECONDS } from '../../gateway/id-cookies.ts';
import { launchChromium } from '../support/chromium.ts';
import { GA4_DESTINATION, ga4ClientId } from '../support/ga4-client-id.ts';
import { forwardTo } from '../support/proxy.ts';
import { baseSettings, FakePublisher, startTestGateway, type TestGateway } from './support.ts';

const STUB = `!function(){var a=window.analytics=window.analytics||[];if(!a.eventbus)["page","track","identify","reset","consent","debug","flush","ready"].forEach(function(m){a[m]=a[m]||function(){a.push([m].concat([].slice.call(arguments)))}})}();`;
const GRANTED = "analytics.consent({ analytics_storage: 'granted', ad_storage: 'granted' });";
/** Consent Mode refusing storage, as a CMP's gtag call leaves it (the site stores nothing itself). */
const REFUSED =
  "window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments)} gtag('consent', 'default', { analytics_storage: 'denied', ad_storage: 'denied' });";

const page = (head: string, src: string, key: string, attrs = '') =>
  `<!doctype html><html><head><title>Shop</title><script>${STUB}\n${head}</script>
<script async src="${src}" data-key="${key}" ${attrs}></script></head><body>shop</body></html>`;

/** Within a minute of the 400 days an answer's cookie gets (a script's is 365 days, or 7 under ITP). */
const serverLifetime = (c: Cookie | undefined) =>
  c !== undefined && c.expires * 1000 > Date.now() + (ID_COOKIE_SECONDS - 60) * 1000;

describe('gateway: ids set in the answer to the tag’s batch', function () {
  this.timeout(90_000);
  let browser: Browser | undefined;
  const pub = new FakePublisher();
  /** Behind the proxy: origin_path and cookie_domain set. */
  let edge: TestGateway;
  /** The same with a GA4 destination (its `_ga`), which the proxy forwards to when `toGa4`. */
  let ga4Edge: TestGateway;
  let ga4Key = '';
  let toGa4 = false;
  /** The plain local environment: nothing set. */
  let plain: TestGateway;
  let proxy: Server;
  let site = '';
  let siteKey = '';
  let plainKey = '';
  /** The head script of the proxy's page and its tag's attributes, per test. */
  let head = '';
  let attrs = '';
  /** What the proxy forwarded, `METHOD path` (the page's own requests are counted by the browser). */
  const forwarded: string[] = [];

  before(async () => {
    browser = await launchChromium(['--host-resolver-rules=MAP www.shop.test 127.0.0.1']);
    proxy = createServer((req, res) => {
      if (!req.url?.startsWith('/_eb/')) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page(head, '/_eb/v1/tag.js', toGa4 ? ga4Key : siteKey, attrs));
        return;
      }
      forwarded.push(`${req.method} ${req.url.split('?')[0]}`);
      // As a CDN or load balancer rule does: the path unchanged, the visitor's address appended.
      forwardTo((toGa4 ? ga4Edge : edge).port, req, res, {
        ...req.headers,
        'x-forwarded-for': req.socket.remoteAddress ?? '',
        'x-forwarded-proto': 'http',
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    site = `http://www.shop.test:${(proxy.address() as AddressInfo).port}`;
    edge = await startTestGateway({
      publisher: pub,
      settings: baseSettings({
        producers: { origins: [site] },
        gateway: { origin_path: '/_eb', cookie_domain: 'shop.test' },
      }),
    });
    ga4Edge = await startTestGateway({
      publisher: pub,
      settings: baseSettings({
        producers: { origins: [site] },
        gateway: { origin_path: '/_eb', cookie_domain: 'shop.test' },
        destinations: [GA4_DESTINATION],
      }),
    });
    plain = await startTestGateway({
      publisher: pub,
      settings: baseSettings({ producers: { origins: [] } }),
    });
    const keyFor = (g: TestGateway, origin: string) =>
      g.store.update((set) => {
        const r = issueKey(set, { origins: [origin], rateLimitPerSecond: 100_000 }, randomBytes, new Date());
        return { set: r.set, result: r.secret };
      });
    siteKey = await keyFor(edge, site);
    ga4Key = await keyFor(ga4Edge, site);
    plainKey = await keyFor(plain, plain.url);
  });
  after(async () => {
    await browser?.close();
    await edge?.close();
    await ga4Edge?.close();
    await plain?.close();
    await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  });
  beforeEach(() => {
    pub.calls.length = 0;
    forwarded.length = 0;
    head = '';
    attrs = '';
    toGa4 = false;
  });

  const events = () =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Record<string, unknown>));

  /**
   * A visit: the page loaded, the tag's first batch answered; every request the page made
   * (`METHOD url`), the batch's answer and its Set-Cookie lines.
   */
  const visit = async (context: BrowserContext, url: string) => {
    const tab = await context.newPage();
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(`${r.method()} ${r.url().split('?')[0]}`));
    const batch = tab.waitForResponse((r) => r.url().includes('/v1/topics/events'), { timeout: 30_000 });
    await tab.goto(url);
    const answer: Response = await batch;
    const setCookies = await answer.headerValues('set-cookie');
    return { tab, requests, answer, setCookies };
  };
  /** A visit whose batch is answered 200 with no Set-Cookie, leaving no cookie and no storage. */
  const visitStoringNothing = async (context: BrowserContext, url: string) => {
    const v = await visit(context, url);
    assert.equal(v.answer.status(), 200);
    assert.deepEqual(v.setCookies, []);
    assert.deepEqual(await context.cookies(), []);
    const storage = await v.tab.evaluate(() => [Object.keys(localStorage), Object.keys(sessionStorage)]);
    assert.deepEqual(storage, [[], []]);
  };
  const named = (lines: readonly string[], name: string) => lines.find((l) => l.startsWith(`${name}=`));

  it('through a reverse proxy on the site’s origin: the batch’s answer sets the id and _fbp on the registrable domain for 400 days, and a later visit without script storage keeps the id', async () => {
    head = GRANTED;
    const first = await browser!.newContext();
    const one = await visit(first, `${site}/`);
    assert.equal(one.answer.status(), 200);
    const [view] = events();
    const id = view?.['anonymous_id'] as string;
    assert.ok(id);
    const idLine = named(one.setCookies, 'eventbus_anonymous_id');
    assert.equal(
      idLine,
      `eventbus_anonymous_id=${id}; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax; Domain=shop.test`,
    );
    assert.match(
      named(one.setCookies, '_fbp') ?? '',
      /^_fbp=fb\.1\.\d{13}\.\d{10}; Path=\/; Max-Age=34560000; SameSite=Lax; Domain=shop\.test$/,
    );
    // No request of its own: the page, the tag, the storage rules with the consent reader (the
    // site stated consent: #96), the batch.
    assert.deepEqual(one.requests, [
      `GET ${site}/`,
      `GET ${site}/_eb/v1/tag.js`,
      `GET ${site}/_eb/v1/tag-cmp.js`,
      `POST ${site}/_eb/v1/topics/events`,
    ]);
    assert.deepEqual(forwarded, [
      'GET /_eb/v1/tag.js',
      'GET /_eb/v1/tag-cmp.js',
      'POST /_eb/v1/topics/events',
    ]);
    const jar = await first.cookies();
    const idCookie = jar.find((c) => c.name === 'eventbus_anonymous_id');
    assert.equal(idCookie?.domain, '.shop.test');
    assert.equal(idCookie?.value, id);
    assert.ok(serverLifetime(idCookie), `the id cookie lives 400 days: ${idCookie?.expires}`);
    assert.ok(serverLifetime(jar.find((c) => c.name === '_fbp')), '_fbp lives 400 days');
    const fbp = jar.find((c) => c.name === '_fbp')?.value;
    // What the page can see, shown on it for the screenshot.
    await one.tab.evaluate(() => {
      document.body.innerText = `${location.href}\ndocument.cookie: ${document.cookie}`;
    });
    await one.tab.screenshot({ path: '/tmp/tag-ids-proxy.png' });

    // The return visit as ITP leaves it: no localStorage, only the cookies a server set.
    const second = await browser!.newContext();
    await second.addCookies(jar.filter(serverLifetime));
    pub.calls.length = 0;
    const two = await visit(second, `${site}/again`);
    assert.equal(await two.tab.evaluate(() => localStorage.getItem('eventbus_anonymous_id')), id);
    assert.equal(events()[0]?.['anonymous_id'], id, 'the same anonymous id, from the server’s cookie');
    assert.equal((events()[0]?.['campaign'] as Record<string, string> | undefined)?.['fbp'], fbp);
    // Re-affirmed, never replaced.
    assert.equal(
      named(two.setCookies, 'eventbus_anonymous_id')?.split(';')[0],
      `eventbus_anonymous_id=${id}`,
    );
    assert.equal(named(two.setCookies, '_fbp')?.split(';')[0], `_fbp=${fbp}`);
    await first.close();
    await second.close();
  });

  it('with a GA4 destination: GA4’s client_id is the _ga cookie’s id, whether the answer set it or a gtag-like script did first (#96)', async () => {
    toGa4 = true;
    head = GRANTED;
    // (a) No _ga on the page: the answer sets one, and the events carry its id.
    const ours = await browser!.newContext();
    const a = await visit(ours, `${site}/`);
    assert.equal(a.answer.status(), 200);
    const cookie = (await ours.cookies()).find((c) => c.name === '_ga');
    assert.equal(cookie?.domain, '.shop.test');
    assert.ok(serverLifetime(cookie), `_ga lives 400 days: ${cookie?.expires}`);
    const id = gaClientIdOf(cookie?.value);
    assert.ok(id, `a _ga in gtag's format: ${cookie?.value}`);
    const seen = await a.tab.evaluate(() => document.cookie);
    assert.match(
      seen,
      new RegExp(`(^|; )_ga=GA1\\.1\\.${id.replace('.', '\\.')}(;|$)`),
      'gtag.js on the page reads it',
    );
    assert.ok(events().length > 0);
    for (const e of events() as unknown as StoredEvent[]) {
      assert.equal(e.campaign?.ga_client_id, id);
      assert.equal(ga4ClientId(e), id, 'GA4 is sent the cookie’s id');
      assert.notEqual(e.anonymous_id, id, 'the anonymous id stays ours');
    }
    await a.tab.evaluate(() => {
      document.body.innerText = `${location.href}\ndocument.cookie: ${document.cookie}`;
    });
    await a.tab.screenshot({ path: '/tmp/tag-ids-ga.png' });
    await ours.close();

    // (b) A gtag-like script wrote _ga before the tag's first batch: that id is sent, and kept.
    pub.calls.length = 0;
    const GTAG = 'GA1.1.1874934510.1700000001';
    head = `document.cookie = '_ga=${GTAG}; path=/; domain=shop.test; max-age=63072000';\n${GRANTED}`;
    const theirs = await browser!.newContext();
    const b = await visit(theirs, `${site}/`);
    assert.equal(b.answer.status(), 200);
    assert.equal(named(b.setCookies, '_ga')?.split(';')[0], `_ga=${GTAG}`, 're-affirmed as it is');
    assert.deepEqual(
      (await theirs.cookies()).filter((c) => c.name === '_ga').map((c) => c.value),
      [GTAG],
      'one _ga, not two',
    );
    assert.ok(events().length > 0);
    for (const e of events() as unknown as StoredEvent[])
      assert.equal(ga4ClientId(e), '1874934510.1700000001', 'GA4 is sent gtag’s client id');
    await theirs.close();
  });

  it('on the plain local environment (the page on the gateway’s own origin): a host-only id cookie of the same lifetime', async () => {
    const context = await browser!.newContext();
    // The page as if the gateway served it: the browser sees one origin.
    await context.route(`${plain.url}/shop`, (route) =>
      route.fulfill({ contentType: 'text/html', body: page(GRANTED, '/v1/tag.js', plainKey) }),
    );
    const v = await visit(context, `${plain.url}/shop`);
    assert.equal(v.answer.status(), 200);
    const id = events()[0]?.['anonymous_id'] as string;
    assert.equal(
      named(v.setCookies, 'eventbus_anonymous_id'),
      `eventbus_anonymous_id=${id}; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax`,
    );
    assert.deepEqual(v.requests, [
      `GET ${plain.url}/shop`,
      `GET ${plain.url}/v1/tag.js`,
      `GET ${plain.url}/v1/tag-cmp.js`,
      `POST ${plain.url}/v1/topics/events`,
    ]);
    const cookie = (await context.cookies()).find((c) => c.name === 'eventbus_anonymous_id');
    assert.equal(cookie?.domain, '127.0.0.1');
    assert.equal(cookie?.value, id);
    assert.ok(serverLifetime(cookie));
    await v.tab.evaluate(() => {
      document.body.innerText = `${location.href}\ndocument.cookie: ${document.cookie}`;
    });
    await v.tab.screenshot({ path: '/tmp/tag-ids-plain.png' });
    await context.close();
  });

  it('with storage refused: no Set-Cookie, nothing stored by the script, the events still sent', async () => {
    head = REFUSED;
    const context = await browser!.newContext();
    await visitStoringNothing(context, `${site}/`);
    const [view] = events();
    assert.equal(view?.['event_name'], 'page_view');
    assert.ok(view?.['anonymous_id'], 'the event carries an id for the page');
    await context.close();
  });

  it('a cookieless site (data-cookieless): nothing stored even with consent, one session key across visits', async () => {
    head = GRANTED;
    attrs = 'data-cookieless';
    const ids: unknown[] = [];
    const sessions: unknown[] = [];
    for (const path of ['/', '/next']) {
      pub.calls.length = 0;
      const context = await browser!.newContext();
      await visitStoringNothing(context, `${site}${path}`);
      ids.push(events()[0]?.['anonymous_id']);
      sessions.push(events()[0]?.['session_id']);
      await context.close();
    }
    assert.notEqual(ids[0], ids[1], 'no id carried between visits');
    assert.match(String(sessions[0]), /^ckl_/);
    assert.equal(sessions[1], sessions[0], 'the same visitor, site and day: the same session key');
  });
});
