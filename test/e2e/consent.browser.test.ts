/**
 * Consent from one resolver, end to end (#74; docs/browser.md "Consent", docs/delivery.md
 * "Consent"): in Debian's Chromium, pages on another origin than the gateway send through the
 * whole local environment (`eventbus start`: gateway, store, forward, the receiver standing in for
 * GA4, Meta and TikTok), once with the project's tag beside stand-ins for the site's consent
 * platform (a TCF CMP answering a TC string from IAB Tech Lab's encoder, a GPP CMP, the US Privacy
 * API, gtag's Consent Mode commands), once with Segment's `@segment/analytics-next` carrying the
 * same signals as a site's SDK would (Sec-GPC, the IAB macros in its properties). Nothing calls
 * the decision layer: what is checked is what the stand-ins received and the `deliveries` ledger.
 *
 * - an opt-out of sale or sharing (Sec-GPC: 1, a GPP US-national sale opt-out, US Privacy 1YYN),
 *   beside Consent Mode saying everything is granted: GA4 is sent `ad_user_data` and
 *   `ad_personalization` DENIED and no `user_data`; Meta and TikTok are skipped, the ledger naming
 *   the signal;
 * - a TCF-only page: full consent delivers to GA4, Meta and TikTok; purpose 1 refused, the tag
 *   keeps nothing in cookies or localStorage and every destination is skipped naming TCF;
 * - Consent Mode `denied` is named in the ledger as the deciding signal.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { GppModel } from '@iabgpp/cmpapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bundleForBrowser } from '../support/browser-bundle.ts';
import { launchChromium } from '../support/chromium.ts';
import { eventbusIn, localBigQuery, REPO, startLocalForOrigin, stopLocal } from '../support/local-start.ts';
import { tcString } from '../support/tc-strings.ts';
import { until } from '../support/until.ts';

const EMAIL = 'ann.consent@example.com';
const TC_ALL = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [755] });
/** Everything but purpose 1 (store and/or access information on a device). */
const TC_NO_STORAGE = tcString({ purposes: [2, 3, 4, 7], vendors: [755] });
const GPP_SALE_OPT_OUT = (() => {
  const m = new GppModel();
  m.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  m.setFieldValue('usnat', 'SaleOptOut', 1);
  return m.encode();
})();

/** gtag's snippet and its Consent Mode commands (pushed as `arguments` objects, as gtag does). */
const gtag = (...commands: string[]) =>
  `window.dataLayer = window.dataLayer || []; function gtag() { dataLayer.push(arguments); }
${commands.map((c) => `gtag('consent', ${c});`).join('\n')}`;
const ALL_GRANTED =
  "'default', { ad_storage: 'granted', analytics_storage: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' }";

/** A TCF CMP that has its final answer (`tcloaded`) for this TC string, GDPR applying. */
const tcfCmp = (tc: string, purposeOne: boolean) => `
window.__tcfapi = function (command, version, callback) {
  if (command !== 'addEventListener' || version !== 2) return;
  setTimeout(function () {
    callback({ tcString: ${JSON.stringify(tc)}, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded',
      purpose: { consents: { '1': ${purposeOne} } } }, true);
  }, 50);
};`;

/** A GPP 1.1 CMP, ready at once with this string and sections. */
const gppCmp = (gpp: string, sections: number[]) => `
window.__gpp = function (command, callback) {
  if (command !== 'addEventListener') return;
  callback({ eventName: 'signalStatus', listenerId: 1, data: 'ready', pingData: { gppVersion: '1.1',
    cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: ${JSON.stringify(sections)},
    gppString: ${JSON.stringify(gpp)} } }, true);
};`;

const uspApi = (s: string) =>
  `window.__uspapi = function (command, version, callback) { if (command === 'getUSPData') callback({ version: 1, uspString: '${s}' }, true); };`;

/** Segment's SDK, bundled as a site would: identify, then one track whose properties are given. */
const SEGMENT = (gateway: string, key: string) => `
  import { AnalyticsBrowser } from '@segment/analytics-next';
  const analytics = AnalyticsBrowser.load({ writeKey: ${JSON.stringify(key)}, cdnURL: ${JSON.stringify(gateway)} });
  const granted = { categoryPreferences: { Analytics: true, Advertising: true } };
  // Its own consent categories all granted, unless the page's only signal is the TC string.
  window.run = async (properties) => {
    const consent = properties.gdpr_consent ? {} : { consent: granted };
    const sent = await analytics.track('Product Viewed', { name: 'Red Shoe', product_id: 'p-1', ...properties },
      { context: { ...consent, traits: { email: ${JSON.stringify(EMAIL)} } } });
    return sent.event.messageId;
  };`;

interface Delivery {
  readonly destination: string;
  readonly status: string;
  readonly reason: string | null;
}

interface Received {
  readonly destination: string;
  readonly body: unknown;
}

describe('end to end: consent from one resolver, a browser through the local environment (#74)', function () {
  this.timeout(600_000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  let ports: Readonly<Record<string, number>> = {};
  let browser: Browser | undefined;
  let bigquery: BigQuery;
  let site: Server | undefined;
  let origin = '';
  let gateway = '';
  let key = '';
  let userAgent = '';
  /** What each path of the site serves. */
  const served = new Map<string, string>();
  const bundles = mkdtempSync(join(tmpdir(), 'consent-e2e-'));

  /** A page with the CMP stand-ins in its head, then the documented stub and the tag. */
  const tagPage = (head: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Consent</title>
<script>${head}
!function(){var a=window.analytics=window.analytics||[];if(!a.eventbus)["page","track","identify","reset","consent","debug","flush","ready"].forEach(function(m){a[m]=a[m]||function(){a.push([m].concat([].slice.call(arguments)))}})}();
</script><script async src="${gateway}/v1/tag.js" data-key="${key}"></script></head><body>shop</body></html>`;

  before(async () => {
    browser = await launchChromium();
    site = createServer((req, res) => {
      const body = served.get(new URL(req.url ?? '/', 'http://site').pathname);
      if (req.url === '/favicon.ico') return void res.writeHead(204).end();
      res.writeHead(body ? 200 : 404, {
        'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8',
      });
      res.end(body ?? '');
    });
    await new Promise<void>((r) => site?.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const local = await startLocalForOrigin('eventbus-consent-', origin);
    ({ child, dataDir, ports, key } = local);
    bigquery = await localBigQuery(ports);
    gateway = `http://127.0.0.1:${ports['gateway']}`;
    await eventbusIn(dataDir)('apply', '-f', join(REPO, 'examples/translators/segment-rudderstack.yaml'));
    served.set('/segment.js', await bundleForBrowser(bundles, 'segment', SEGMENT(gateway, key)));
    // A person's browser, not a headless one: store flags HeadlessChrome as a bot.
    userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`;
  });

  after(async () => {
    await browser?.close();
    await new Promise((r) => (site ? site.close(r) : r(undefined)));
    await stopLocal(child, dataDir);
    rmSync(bundles, { recursive: true, force: true });
  });

  /** A new browser (its own cookies and storage), `Sec-GPC: 1` on its requests when `gpc`. */
  const newContext = (gpc = false): Promise<BrowserContext> =>
    (browser as Browser).newContext({ userAgent, ...(gpc ? { extraHTTPHeaders: { 'Sec-GPC': '1' } } : {}) });

  /** Opens the tag's page at `path` (its CMP stand-ins in `head`), identifies and tracks a view. */
  async function withTag(path: string, head: string, gpc = false): Promise<{ page: Page; eventId: string }> {
    served.set(path, tagPage(head));
    const context = await newContext(gpc);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}${path}`);
    await page.waitForFunction(
      () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
    );
    const eventId = await page.evaluate((email) => {
      const a = (window as unknown as { analytics: Record<string, (...x: unknown[]) => unknown> }).analytics;
      a['identify']?.('ann', { email });
      const id = a['track']?.('View Content', { content_name: 'Red Shoe', content_type: 'product' });
      return String(id);
    }, EMAIL);
    // The tag holds events at most 500 ms for a CMP that has not answered: they are sent by then.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 800)));
    await page.evaluate(() => (window as unknown as { analytics: { flush(): void } }).analytics.flush());
    assert.deepEqual(errors, [], `${path}: page errors`);
    return { page, eventId };
  }

  /** Segment's SDK on a page at `path`: one tracked view with these properties; its event id. */
  async function withSegment(path: string, properties: object, gpc = false): Promise<string> {
    served.set(path, `<!doctype html><title>segment</title><script src="/segment.js"></script>`);
    const context = await newContext(gpc);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    await page.goto(`${origin}${path}`);
    // Segment's messageId is the stored event_id (examples/translators/segment-rudderstack.yaml).
    const messageId = await page.evaluate(
      (p) => (window as unknown as { run(p: object): Promise<string> }).run(p),
      properties,
    );
    assert.match(messageId, /\S/, `${path}: the SDK's messageId`);
    await until(
      `${path}: the SDK's view stored (the page's problems: ${JSON.stringify(problems)})`,
      async () => {
        const [rows] = await bigquery.query({
          query: `SELECT event_id FROM events.events WHERE event_id = @id`,
          params: { id: messageId },
        });
        return (rows as { event_id: string }[])[0];
      },
      120_000,
      1000,
    );
    await context.close();
    return messageId;
  }

  /** The ledger's rows for GA4, Meta and TikTok, once all three are final (not pending or retried). */
  const ledger = (eventId: string): Promise<Record<string, Delivery>> =>
    until(
      `deliveries of ${eventId}`,
      async () => {
        const [rows] = await bigquery.query({
          query: `SELECT destination, status, reason FROM events.deliveries
            WHERE event_id = @id AND destination IN ('ga4', 'meta', 'tiktok')
              AND status IN ('delivered', 'skipped', 'rejected')`,
          params: { id: eventId },
        });
        const by = Object.fromEntries((rows as Delivery[]).map((r) => [r.destination, r]));
        return Object.keys(by).length === 3 ? by : undefined;
      },
      120_000,
      1000,
    );

  /**
   * What GA4's stand-in received from the event's browser (found by its client id: the `_ga` one
   * the gateway filled where storage is granted, else the anonymous id): every request.
   */
  async function ga4Received(eventId: string): Promise<Record<string, unknown>[]> {
    const [rows] = await bigquery.query({
      query: 'SELECT anonymous_id, campaign.ga_client_id AS ga FROM events.events WHERE event_id = @id',
      params: { id: eventId },
    });
    const row = (rows as { anonymous_id: string; ga: string | null }[])[0];
    const anonymous = row?.ga ?? row?.anonymous_id;
    assert.ok(anonymous, `${eventId} has a client id`);
    return until('GA4’s stand-in to list the request', async () => {
      const res = await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`);
      const list = ((await res.json()) as { received: Received[] }).received;
      const bodies = list
        .filter((r) => r.destination === 'ga4' && (r.body as { client_id?: string })?.client_id === anonymous)
        .map((r) => r.body as Record<string, unknown>);
      return bodies.length > 0 ? bodies : undefined;
    });
  }

  /** GA4 delivered with both advertising flags DENIED and no user data; Meta and TikTok skipped by `signal`. */
  async function assertOptedOut(eventId: string, signal: RegExp): Promise<void> {
    const by = await ledger(eventId);
    assert.equal(by['ga4']?.status, 'delivered', JSON.stringify(by['ga4']));
    for (const d of ['meta', 'tiktok']) {
      assert.equal(by[d]?.status, 'skipped', `${d}: ${JSON.stringify(by[d])}`);
      assert.match(by[d]?.reason ?? '', signal, `${d}: the ledger names the signal`);
    }
    for (const body of await ga4Received(eventId)) {
      assert.deepEqual(body['consent'], { ad_user_data: 'DENIED', ad_personalization: 'DENIED' });
      assert.equal(body['user_data'], undefined, 'GA4 is sent no user data');
      assert.ok(!JSON.stringify(body).includes(EMAIL), 'nor the email in any form');
    }
  }

  describe('the project’s tag', () => {
    it('Sec-GPC: 1 beside Consent Mode granted: GA4 told DENIED with no user data; Meta and TikTok skipped naming GPC', async () => {
      const { eventId } = await withTag('/tag/gpc', gtag(ALL_GRANTED), true);
      await assertOptedOut(eventId, /consent Sec-GPC opt-out/);
    });

    it('a GPP US-national sale opt-out: GA4 told DENIED with no user data; Meta and TikTok skipped naming GPP', async () => {
      const { eventId } = await withTag('/tag/gpp', `${gtag(ALL_GRANTED)}\n${gppCmp(GPP_SALE_OPT_OUT, [7])}`);
      await assertOptedOut(eventId, /consent GPP opt-out \(usnat SaleOptOut\)/);
    });

    it('US Privacy 1YYN: GA4 told DENIED with no user data; Meta and TikTok skipped naming US Privacy', async () => {
      const { eventId } = await withTag('/tag/usp', `${gtag(ALL_GRANTED)}\n${uspApi('1YYN')}`);
      await assertOptedOut(eventId, /consent US Privacy opt-out/);
    });

    it('a TCF-only page with full consent delivers to GA4, Meta and TikTok and keeps the tag’s id', async () => {
      const { page, eventId } = await withTag('/tag/tcf-all', tcfCmp(TC_ALL, true));
      const by = await ledger(eventId);
      for (const d of ['ga4', 'meta', 'tiktok'])
        assert.equal(by[d]?.status, 'delivered', `${d}: ${JSON.stringify(by[d])}`);
      // The positive control of the next test: with purpose 1 granted the tag does store its id.
      const cookies = await page.context().cookies(origin);
      assert.ok(
        cookies.some((c) => c.name === 'eventbus_anonymous_id'),
        `the tag's id cookie: ${JSON.stringify(cookies)}`,
      );
      await page.context().close();
    });

    it('a TCF-only page with purpose 1 refused stores nothing in cookies or localStorage; every destination skipped naming TCF', async () => {
      const { page, eventId } = await withTag('/tag/tcf-no-storage', tcfCmp(TC_NO_STORAGE, false));
      const cookies = await page.context().cookies(origin);
      assert.deepEqual(cookies, [], 'no cookie');
      assert.equal(await page.evaluate(() => localStorage.length), 0, 'no localStorage entry');
      const by = await ledger(eventId);
      for (const d of ['ga4', 'meta', 'tiktok']) {
        assert.equal(by[d]?.status, 'skipped', `${d}: ${JSON.stringify(by[d])}`);
        assert.match(by[d]?.reason ?? '', /consent TCF purpose 1 denied/);
      }
      await page.context().close();
    });

    it('Consent Mode denied is named as the deciding signal in deliveries', async () => {
      const { page, eventId } = await withTag(
        '/tag/consent-mode',
        gtag(
          "'default', { ad_storage: 'denied', analytics_storage: 'granted', ad_user_data: 'denied', ad_personalization: 'denied' }",
        ),
      );
      const by = await ledger(eventId);
      assert.equal(by['ga4']?.status, 'delivered', JSON.stringify(by['ga4']));
      for (const d of ['meta', 'tiktok']) {
        assert.equal(by[d]?.status, 'skipped', `${d}: ${JSON.stringify(by[d])}`);
        assert.match(by[d]?.reason ?? '', /consent ad_storage denied \(Consent Mode\)/);
      }
      await page.context().close();
    });
  });

  describe('Segment’s browser SDK', () => {
    it('Sec-GPC: 1 beside its categories granted: GA4 told DENIED with no user data; Meta and TikTok skipped naming GPC', async () => {
      const eventId = await withSegment('/sdk/gpc', {}, true);
      await assertOptedOut(eventId, /consent Sec-GPC opt-out/);
    });

    it('a GPP US-national sale opt-out in its properties: GA4 told DENIED; Meta and TikTok skipped naming GPP', async () => {
      const eventId = await withSegment('/sdk/gpp', { gpp: GPP_SALE_OPT_OUT, gpp_sid: '7' });
      await assertOptedOut(eventId, /consent GPP opt-out \(usnat SaleOptOut\)/);
    });

    it('US Privacy 1YYN in its properties: GA4 told DENIED; Meta and TikTok skipped naming US Privacy', async () => {
      const eventId = await withSegment('/sdk/usp', { us_privacy: '1YYN' });
      await assertOptedOut(eventId, /consent US Privacy opt-out/);
    });

    it('a TCF-only call (the IAB macros gdpr and gdpr_consent, full consent) delivers to GA4, Meta and TikTok', async () => {
      const eventId = await withSegment('/sdk/tcf-all', { gdpr: 1, gdpr_consent: TC_ALL });
      const by = await ledger(eventId);
      for (const d of ['ga4', 'meta', 'tiktok'])
        assert.equal(by[d]?.status, 'delivered', `${d}: ${JSON.stringify(by[d])}`);
    });
  });
});
