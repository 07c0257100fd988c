/**
 * The first-party tag's behaviour (gateway/tag/, docs/browser.md) in Debian's Chromium, against a
 * gateway on loopback with a recording publisher, the page served from another origin: calls
 * queued before it loads, Consent Mode's names, Meta's cookies only with ads consent, batches
 * retried after a 503 with the same ids, a batch with a refused event sent once (the gateway keeps
 * that event for invalid_events: tag=1), what waits sent when the page is left, the traits split
 * by the gateway, reset, and debug mode. Whole-environment rows in the
 * warehouse: test/e2e/tag.browser.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { issueKey } from '../../gateway/credentials.ts';
import { launchChromium } from '../support/chromium.ts';
import { until } from '../support/until.ts';
import { baseSettings, FakePublisher, startTestGateway, type TestGateway } from './support.ts';

type Analytics = Record<string, (...args: unknown[]) => unknown>;
/** A published event, as far as these tests read it. */
interface Sent {
  readonly [field: string]: unknown;
  readonly campaign?: Readonly<Record<string, string>>;
  readonly user?: Readonly<Record<string, string>>;
}

describe('gateway: the first-party tag in a browser', function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let g: TestGateway;
  let site: Server;
  let origin = '';
  let key = '';
  const pub = new FakePublisher();
  /** The page's head script, per test (what the site calls before the tag loads). */
  let before_ = '';
  let attrs = '';

  before(async () => {
    browser = await launchChromium();
    site = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Shop ${req.url}</title><script>
!function(){var a=window.analytics=window.analytics||[];if(!a.eventbus)["page","track","identify","reset","consent","debug","flush","ready"].forEach(function(m){a[m]=a[m]||function(){a.push([m].concat([].slice.call(arguments)))}})}();
${before_}</script>
<script async src="${g.url}/v1/tag.js" data-key="${key}" ${attrs}></script></head><body>shop</body></html>`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    g = await startTestGateway({
      publisher: pub,
      settings: baseSettings({ producers: { origins: [origin] } }),
    });
    key = await g.store.update((set) => {
      const r = issueKey(set, { origins: [origin], rateLimitPerSecond: 100_000 }, randomBytes, new Date());
      return { set: r.set, result: r.secret };
    });
  });
  after(async () => {
    await browser?.close();
    await g?.close();
    await new Promise((r) => (site ? site.close(r) : r(undefined)));
  });
  beforeEach(() => {
    pub.calls.length = 0;
    pub.mode = 'ok';
    before_ = '';
    attrs = '';
  });

  /** The events published so far, parsed. */
  const published = () =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Sent));
  const waitFor = async (what: string, n: number) => {
    const deadline = Date.now() + 15_000;
    while (published().length < n) {
      if (Date.now() > deadline) throw new Error(`${what}: ${published().length} of ${n} events published`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return published();
  };
  const open = async (path: string): Promise<Page> => {
    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    await page.goto(`${origin}${path}`);
    await page.waitForFunction(
      () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
    );
    return page;
  };
  const call = (page: Page, method: string, ...args: unknown[]) =>
    page.evaluate(
      ([m, a]) =>
        (window as unknown as { analytics: Analytics }).analytics[m as string]?.(...(a as unknown[])),
      [method, args] as const,
    );
  const cookies = async (page: Page) =>
    Object.fromEntries((await page.context().cookies()).map((c) => [c.name, c.value]));

  it('replays the calls queued before it loaded, maps Consent Mode names and writes Meta’s cookies once ads are granted', async () => {
    before_ = `analytics.consent({ ad_storage: 'granted', analytics_storage: 'granted', ad_user_data: 'denied' });
analytics.track('AddToCart', { items: [{ item_id: 'SKU1', quantity: 1 }] });`;
    const page = await open('/p?fbclid=FBX&utm_source=ads');
    const events = await waitFor('the queued call and the page view', 2);
    assert.deepEqual(
      events.map((e) => e['event_name']),
      ['add_to_cart', 'page_view'],
    );
    for (const e of events) {
      assert.deepEqual(e['consent'], { ads: 'granted', analytics: 'granted', ad_user_data: 'denied' });
      assert.equal(e['campaign']?.fbclid, 'FBX');
      assert.equal(e['campaign']?.source, 'ads');
    }
    const jar = await cookies(page);
    assert.match(jar['_fbp'] ?? '', /^fb\.1\.\d{13}\.\d{10}$/);
    assert.match(jar['_fbc'] ?? '', /^fb\.1\.\d{13}\.FBX$/);
    assert.equal(jar['eventbus_anonymous_id'], events[0]?.['anonymous_id']);
    // Later events carry the cookies the tag wrote.
    const id = await call(page, 'track', 'lead');
    await call(page, 'flush');
    const lead = (await waitFor('the lead', 3)).find((e) => e['event_name'] === 'lead');
    assert.equal(lead?.['event_id'], id);
    assert.equal(lead?.['campaign']?.fbp, jar['_fbp']);
    await page.context().close();
  });

  it('only reads Meta’s cookies without ads consent, and keeps no id while storage consent is unknown or once analytics is denied', async () => {
    before_ = "document.cookie = '_fbp=fb.1.1700000000000.1234567890; path=/';";
    const page = await open('/p?fbclid=FBY');
    const [view] = await waitFor('the page view', 1);
    assert.equal(view?.['campaign']?.fbp, 'fb.1.1700000000000.1234567890');
    let jar = await cookies(page);
    assert.equal(jar['_fbc'], undefined, 'no _fbc written without ads consent');
    // Nothing said storage may be used: the id lives in memory, the events still carry it.
    assert.equal(jar['eventbus_anonymous_id'], undefined);
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), []);
    assert.ok(view?.['anonymous_id']);
    // The storage rules come with the consent reader, which the site's own consent call loads.
    await call(page, 'consent', { analytics: 'granted' });
    const kept = await until(
      'the id cookie',
      async () => (await cookies(page))['eventbus_anonymous_id'],
      10_000,
      50,
    );
    assert.equal(kept, view?.['anonymous_id']);
    await call(page, 'consent', { analytics: 'denied' });
    jar = await cookies(page);
    assert.equal(jar['eventbus_anonymous_id'], undefined);
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), []);
    assert.deepEqual(await page.evaluate(() => Object.keys(sessionStorage)), []);
    await page.context().close();
  });

  it('sends a batch again after a 503 with the same event ids', async () => {
    attrs = 'data-auto-page="false"';
    const page = await open('/retry');
    pub.mode = 'unavailable';
    const id = await call(page, 'track', 'sign_up', { method: 'email' });
    await call(page, 'flush');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(published().length, 0);
    pub.mode = 'ok';
    const [event] = await waitFor('the retried batch', 1);
    assert.equal(event?.['event_id'], id);
    assert.equal(event?.['event_name'], 'sign_up');
    await page.context().close();
  });

  it('sends a batch with a refused event once: the gateway stores the rest and keeps it for invalid_events', async () => {
    attrs = 'data-auto-page="false" data-debug';
    const page = await open('/refused');
    const logged: string[] = [];
    page.on('console', (m) => logged.push(m.text()));
    await call(page, 'track', 'search', { search_term: 'shoes' });
    await call(page, 'track', 'view_content', { content_type: 'product' }); // no content_name
    await call(page, 'track', 'Contact Us');
    await call(page, 'flush');
    await waitFor('the batch', 3);
    const deadline = Date.now() + 15_000;
    while (!logged.some((l) => l.startsWith('[eventbus] answer 200')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    // One Publish call, one request: nothing is sent again.
    assert.equal(pub.calls.length, 1);
    assert.deepEqual(
      published().map((e) => e['event_name'] ?? (e['invalid_call'] as Sent | undefined)?.['event_name']),
      ['search', 'contact_us', 'view_content'],
    );
    assert.equal(logged.filter((l) => l.startsWith('[eventbus] send ')).length, 1, logged.join('\n'));
    assert.ok(
      logged.some((l) => l.startsWith('[eventbus] answer 200') && l.includes('"invalidRows":1')),
      logged.join('\n'),
    );
    await page.context().close();
  });

  it('sends what waits when the page is left, and reset forgets the person', async () => {
    attrs = 'data-auto-page="false"';
    const page = await open('/leave');
    const first = await page.evaluate(() =>
      (window as unknown as { analytics: { user(): { anonymousId(): string } } }).analytics
        .user()
        .anonymousId(),
    );
    await call(page, 'identify', 'u-1', { email: 'ann@example.com', plan: 'gold', birthday: 'March 3' });
    await call(page, 'reset');
    const second = await page.evaluate(() =>
      (window as unknown as { analytics: { user(): { anonymousId(): string } } }).analytics
        .user()
        .anonymousId(),
    );
    assert.notEqual(first, second);
    await call(page, 'track', 'begin_checkout');
    // Left before the second the batch waits for: pagehide sends it.
    await page.goto('about:blank');
    const events = await waitFor('the events sent on pagehide', 2);
    const identify = events.find((e) => e['event_name'] === 'identify');
    assert.equal(identify?.['user_id'], 'u-1');
    assert.equal(identify?.['anonymous_id'], first);
    assert.equal(identify?.['user']?.email, 'ann@example.com');
    // A trait the user group would refuse stays in the identify event's data.
    assert.deepEqual(identify?.['event_data'], { plan: 'gold', birthday: 'March 3' });
    assert.deepEqual(identify?.['user'], { email: 'ann@example.com' });
    const checkout = events.find((e) => e['event_name'] === 'begin_checkout');
    assert.equal(checkout?.['anonymous_id'], second);
    assert.equal(checkout?.['user_id'], undefined);
    assert.equal(checkout?.['user'], undefined);
    await page.context().close();
  });

  it('leaves out a trait or property that JSON cannot carry, and loses no later batch', async () => {
    attrs = 'data-auto-page="false"';
    const page = await open('/cyclic');
    await page.evaluate(() => {
      const a = (window as unknown as { analytics: Analytics }).analytics;
      const loop: Record<string, unknown> = { name: 'loop' };
      loop['self'] = loop;
      a['identify']?.('u-2', { email: 'bob@example.com', loop, big: BigInt(1), plan: 'gold' });
      a['track']?.('search', { search_term: 'shoes', loop });
      a['flush']?.();
    });
    await call(page, 'track', 'sign_up', { method: 'email' });
    await call(page, 'flush');
    const events = await waitFor('the batches', 3);
    const identify = events.find((e) => e['event_name'] === 'identify');
    assert.deepEqual(identify?.['user'], { email: 'bob@example.com' });
    assert.deepEqual(identify?.['event_data'], { plan: 'gold' });
    assert.deepEqual(events.find((e) => e['event_name'] === 'search')?.['event_data'], {
      search_term: 'shoes',
    });
    assert.ok(events.some((e) => e['event_name'] === 'sign_up'));
    await page.context().close();
  });
});
