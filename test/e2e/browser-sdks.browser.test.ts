/**
 * The browser SDKs sites already ship, with only the host changed (issue 64; docs/senders.md,
 * "Browser SDKs"), in Debian's Chromium against the whole local environment (`eventbus start`):
 * `@segment/analytics-next`, `@rudderstack/analytics-js` and `@jitsu/js`, each bundled by esbuild
 * as a site would bundle it, with the gateway's address and a write key bound to the page's
 * origin (another origin than the gateway's), and nothing else. Their page, track and identify
 * calls are stored (read back from the warehouse) as the browser's, with its address; every
 * request and preflight the page made is recorded, none failed CORS or was refused; no project
 * token appears in any page.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser } from 'playwright-core';
import { bundleForBrowser } from '../support/browser-bundle.ts';
import { launchChromium } from '../support/chromium.ts';
import { eventbusIn, localBigQuery, REPO, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

/** What each SDK's page does: load it with the gateway's host and the key, then page, track, identify. */
const SDKS = {
  segment: (gateway: string, key: string) => `
    import { AnalyticsBrowser } from '@segment/analytics-next';
    const analytics = AnalyticsBrowser.load({ writeKey: ${JSON.stringify(key)}, cdnURL: ${JSON.stringify(gateway)} });
    window.run = async () => {
      await analytics.page();
      await analytics.track('Newsletter Opened', { issue: 42 });
      await analytics.identify('u-segment', { email: 'ann@example.com' });
      return 'done';
    };`,
  rudderstack: (gateway: string, key: string) => `
    import { RudderAnalytics } from '@rudderstack/analytics-js/bundled';
    const analytics = new RudderAnalytics();
    analytics.load(${JSON.stringify(key)}, ${JSON.stringify(gateway)}, { configUrl: ${JSON.stringify(gateway)} });
    window.run = () => new Promise((resolve) => analytics.ready(() => {
      analytics.page();
      analytics.track('Newsletter Opened', { issue: 42 });
      analytics.identify('u-rudderstack', { email: 'ann@example.com' });
      resolve('done');
    }));`,
  // Jitsu refuses a write key without a colon: the same key, a colon after its id.
  jitsu: (gateway: string, key: string) => `
    import { jitsuAnalytics } from '@jitsu/js';
    const analytics = jitsuAnalytics({ host: ${JSON.stringify(gateway)}, writeKey: ${JSON.stringify(key.replace(/^(ebk_[0-9a-f]{12})_/, '$1:'))} });
    window.run = async () => {
      await analytics.page();
      await analytics.track('Newsletter Opened', { issue: 42 });
      await analytics.identify('u-jitsu', { email: 'ann@example.com' });
      return 'done';
    };`,
} as const;
type Sdk = keyof typeof SDKS;

interface Row {
  event_name: string;
  user_id: string | null;
  anonymous_id: string | null;
  page: { url: string | null } | null;
  device: { ip: string | null; user_agent: string | null } | null;
  attributes: unknown;
}

describe('end to end: the browser SDKs with only the host changed', function () {
  this.timeout(300_000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  const ports: Record<string, number> = {};
  let browser: Browser | undefined;
  let bigquery: BigQuery;
  let pages: Server;
  let pageOrigin = '';
  const served = new Map<string, string>();
  const bundles = mkdtempSync(join(tmpdir(), 'sdk-bundles-'));

  before(async () => {
    browser = await launchChromium();
    // The page's own server, on another origin than the gateway (localhost, not 127.0.0.1).
    pages = createServer((req, res) => {
      const body = served.get((req.url ?? '/').split('?')[0] as string);
      // No favicon: answered empty, so the only 404s a page could see are the gateway's.
      if (req.url === '/favicon.ico') return void res.writeHead(204).end();
      res.writeHead(body ? 200 : 404, {
        'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html',
      });
      res.end(body ?? '');
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
    pageOrigin = `http://localhost:${(pages.address() as AddressInfo).port}`;
    const local = await startLocalCli({
      prefix: 'eventbus-sdks-',
      // The local environment's settings, the page's origin added to producers.origins (CORS).
      settings: (dir) => {
        const path = join(dir, 'sdks.yaml');
        const text = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
        assert.match(text, /origins: \[/);
        writeFileSync(path, text.replace('origins: [', `origins: ["${pageOrigin}", `));
        return path;
      },
    });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = await localBigQuery(ports);
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => pages?.close(r));
    await stopLocal(child, dataDir);
    rmSync(bundles, { recursive: true, force: true });
  });

  const rows = async (): Promise<Row[]> => {
    const [got] = await bigquery.query({
      query: 'SELECT event_name, user_id, anonymous_id, page, device, attributes FROM events.events',
    });
    return got as Row[];
  };
  const attributesOf = (r: Row): Record<string, string> =>
    (typeof r.attributes === 'string' ? JSON.parse(r.attributes) : r.attributes) as Record<string, string>;

  it("stores each SDK's page, track and identify calls as the browser's, with no CORS failure", async () => {
    const eventbus = eventbusIn(dataDir);
    await eventbus('apply', '-f', join(REPO, 'examples/translators/segment-rudderstack.yaml'));
    const created = await eventbus('key', 'create', '--origin', pageOrigin, '--description', 'sdk pages');
    const key = created.split('\n')[0]?.trim() ?? '';
    assert.match(key, /^ebk_[0-9a-f]{12}_/);
    const gateway = `http://127.0.0.1:${ports['gateway']}`;
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();

    for (const sdk of Object.keys(SDKS) as Sdk[]) {
      served.set(`/${sdk}.js`, await bundleForBrowser(bundles, sdk, SDKS[sdk](gateway, key)));
      served.set(`/${sdk}.html`, `<!doctype html><title>${sdk}</title><script src="/${sdk}.js"></script>`);
    }
    for (const [path, body] of served)
      assert.ok(!body.includes(token) && !/ebt_[0-9a-f]{12}_/.test(body), `${path} holds a project token`);

    for (const sdk of Object.keys(SDKS) as Sdk[]) {
      const context = await (browser as Browser).newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      const sent = new Map<string, { url: string; method: string; status?: number; failed?: boolean }>();
      const failed: string[] = [];
      cdp.on('Network.requestWillBeSent', (e) => {
        sent.set(e.requestId, { url: e.request.url, method: e.request.method });
      });
      cdp.on('Network.responseReceived', (e) => {
        const s = sent.get(e.requestId);
        if (s) s.status = e.response.status;
      });
      cdp.on('Network.loadingFailed', (e) => {
        const s = sent.get(e.requestId);
        if (s) s.failed = true;
        failed.push(`${s?.url}: ${e.errorText} ${JSON.stringify(e.corsErrorStatus ?? '')}`);
      });
      const consoleErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      await page.goto(`${pageOrigin}/${sdk}.html?utm_source=sdk-test`);
      assert.equal(await page.evaluate('window.run()'), 'done', sdk);
      const stored = await until(
        `${sdk}'s page, track and identify in the warehouse`,
        async () => {
          const mine = (await rows()).filter((r) => r.page?.url?.startsWith(`${pageOrigin}/${sdk}.html`));
          const names = new Set(mine.map((r) => r.event_name));
          return ['page_view', 'newsletter_opened', 'user_identified'].every((n) => names.has(n))
            ? mine
            : undefined;
        },
        60_000,
        500,
      );
      for (const r of stored) {
        const attributes = attributesOf(r);
        assert.equal(attributes['sender'], 'browser', `${sdk} ${r.event_name}`);
        assert.equal(attributes['credential'], 'key', `${sdk} ${r.event_name}`);
        assert.ok(r.device?.ip, `${sdk} ${r.event_name}: the browser's address`);
        assert.match(r.device?.user_agent ?? '', /Chrome/, `${sdk} ${r.event_name}: its user agent`);
        assert.ok(r.anonymous_id, `${sdk} ${r.event_name}: the SDK's anonymous id`);
      }
      assert.equal(stored.find((r) => r.event_name === 'user_identified')?.user_id, `u-${sdk}`);
      // An SDK may still have a call (or its preflight) in flight once its events are stored: wait,
      // bounded, for every request to the gateway to be answered or to fail before judging them.
      await until(
        `${sdk}'s requests to the gateway answered or failed`,
        async () =>
          [...sent.values()].every((s) => !s.url.startsWith(gateway) || s.status !== undefined || s.failed)
            ? true
            : undefined,
        10_000,
        100,
      ).catch(() => undefined);
      const toGateway = [...sent.values()].filter((s) => s.url.startsWith(gateway));
      assert.ok(
        toGateway.some((s) => s.method === 'POST'),
        `${sdk} posted to the gateway: ${JSON.stringify(toGateway)}`,
      );
      assert.ok(
        toGateway.some((s) => s.method === 'OPTIONS' && s.status === 204),
        `${sdk}: its preflights recorded: ${JSON.stringify(toGateway)}`,
      );
      assert.deepEqual(failed, [], `${sdk}: failed requests`);
      assert.deepEqual(
        toGateway.filter((s) => s.status === undefined || s.status >= 400),
        [],
        `${sdk}: every request and preflight to the gateway answered`,
      );
      assert.deepEqual(
        consoleErrors.filter((m) => /CORS|Failed to|blocked/i.test(m)),
        [],
        `${sdk}: console errors`,
      );
      console.log(
        `      ${sdk}: ${toGateway.map((s) => `${s.method} ${new URL(s.url).pathname} ${s.status}`).join(', ')}`,
      );
      await context.close();
    }
  });
});
