/**
 * The first-party tag end to end (docs/browser.md), in Debian's Chromium against the whole local
 * environment (`npm start`): a shop page on another origin than the gateway loads the documented
 * snippet with a write key, lands with campaign parameters and click ids, calls the tag before it
 * has loaded, identifies a person, tracks an event and navigates as a single-page app does. Its
 * page, track and identify calls then stand in the warehouse with the anonymous id, the request's
 * IP and client hints, the page URL and the campaign, the traits split into `user` by the gateway;
 * an event the gateway refuses is in invalid_events; no token is in the page or its requests. A
 * screenshot of the page goes to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser } from 'playwright-core';
import { freePort } from '../../local/ports.ts';
import { launchChromium } from '../support/chromium.ts';
import { eventbusIn, localBigQuery, REPO, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

/** The first html block of docs/browser.md: the snippet a site pastes. */
const SNIPPET =
  /```html\n([\s\S]*?)```/.exec(readFileSync(join(REPO, 'docs', 'browser.md'), 'utf8'))?.[1] ?? '';

interface Row {
  event_name: string;
  event_id: string;
  user_id: string | null;
  ip: string | null;
  hints: string | null;
  user_agent: string | null;
  url: string | null;
  referrer: string | null;
  source: string | null;
  medium: string | null;
  gclid: string | null;
  fbclid: string | null;
  email: string | null;
  first_name: string | null;
  plan: string | null;
}

/** The shop's page: the snippet with the gateway and key, a call made before the tag loads, a link. */
function shopPage(origin: string, gateway: string, key: string): string {
  const page = SNIPPET.replace('https://gateway.example.com', gateway).replace('ebk_…', key);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shoe shop</title>
<script>${/<script>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? ''}
analytics.track('Early Call', { note: 'made before the tag loaded' });</script>
${/<script async[\s\S]*?<\/script>/.exec(page)?.[0] ?? ''}
</head><body style="font-family: sans-serif; padding: 2rem">
<h1>Shoe shop</h1><p>A page on ${origin} with the tag of ${gateway}.</p>
<a id="shoe" href="/p/red-shoe" onclick="event.preventDefault(); history.pushState({}, '', '/p/red-shoe'); document.querySelector('h1').textContent = 'Red Shoe'">Red Shoe</a>
</body></html>`;
}

describe('end to end: the first-party tag on a page of another origin', function () {
  this.timeout(240_000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  let ports: Readonly<Record<string, number>> = {};
  let browser: Browser | undefined;
  let bigquery: BigQuery;
  let server: Server | undefined;
  let key = '';
  let origin = '';
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'tag-e2e-shots-'));
  mkdirSync(shots, { recursive: true });
  const run = Date.now().toString(36);

  before(async () => {
    assert.match(SNIPPET, /data-key="ebk_…"/, 'docs/browser.md opens with the snippet');
    browser = await launchChromium();
    const pagePort = await freePort();
    origin = `http://127.0.0.1:${pagePort}`;
    // The shop's origin may publish (CORS): the environment's settings with it added.
    const local = await startLocalCli({
      prefix: 'eventbus-tag-',
      settings: (dir) => {
        const path = join(dir, 'tag-settings.yaml');
        const yaml = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
        writeFileSync(path, yaml.replace(/origins: \[/, `origins: ["${origin}", `));
        return path;
      },
    });
    ({ child, dataDir, ports } = local);
    bigquery = await localBigQuery(ports);
    const created = await eventbusIn(dataDir)('key', 'create', '--origin', origin);
    key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0] ?? '';
    assert.ok(key, created);
    const gateway = `http://127.0.0.1:${ports['gateway']}`;
    // The gateway sees a new key within seconds: wait until it takes it, as a page would need.
    await until('the gateway to take the new key', async () => {
      const res = await fetch(`${gateway}/v1/topics/events?key=${key}`, {
        method: 'POST',
        headers: { origin, 'content-type': 'text/plain' },
        body: JSON.stringify({ event_name: 'tag_probe', anonymous_id: `probe-${run}` }),
      });
      return res.ok ? true : undefined;
    });
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(shopPage(origin, gateway, key));
    });
    await new Promise<void>((r) => server?.listen(pagePort, '127.0.0.1', r));
  });

  after(async () => {
    await browser?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    await stopLocal(child, dataDir);
  });

  it('stores page, track and identify rows with the anonymous id, IP, client hints, page URL and campaign', async () => {
    // A person's browser, not a headless one: store flags HeadlessChrome as a bot.
    const version = (browser as Browser).version();
    const tab = await (browser as Browser).newPage({
      viewport: { width: 900, height: 500 },
      userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Safari/537.36`,
    });
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(`${r.method()} ${r.url()} ${JSON.stringify(r.headers())}`));
    const landing = `${origin}/landing?utm_source=newsletter&utm_medium=email&utm_campaign=autumn&gclid=G-${run}&fbclid=FB-${run}`;
    await tab.goto(landing);
    await tab.waitForFunction(
      () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
    );
    const made = await tab.evaluate((who) => {
      const a = (window as unknown as { analytics: Record<string, (...x: unknown[]) => unknown> }).analytics;
      const identify = a['identify']?.(who, { email: 'ann@example.com', firstName: 'Ann', plan: 'gold' });
      const track = a['track']?.('View Content', { content_name: 'Red Shoe', content_type: 'product' });
      // Refused by the gateway (no content_name): kept in invalid_events, its batch stored.
      const refused = a['track']?.('View Content', { content_type: 'product', note: 'refused' });
      const user = a['user']?.() as { anonymousId(): string };
      return { identify, track, refused, anonymous: user.anonymousId() };
    }, `user-${run}`);
    assert.match(String(made.track), /^[0-9a-f-]{36}$/, 'track returns the event_id');
    // A single-page app's navigation: history.pushState to another path.
    await tab.click('#shoe');
    await tab.getByRole('heading', { name: 'Red Shoe' }).waitFor();
    await tab.screenshot({ path: join(shots, 'tag-page.png') });
    await tab.evaluate(() => (window as unknown as { analytics: { flush(): void } }).analytics.flush());

    const rows = await until(
      'the tag’s events in the warehouse',
      async () => {
        const [found] = await bigquery.query({
          query: `SELECT event_name, event_id, user_id, device.ip AS ip, device.client_hints.ua AS hints,
              device.user_agent AS user_agent, page.url AS url, page.referrer AS referrer,
              campaign.source AS source, campaign.medium AS medium, campaign.gclid AS gclid,
              campaign.fbclid AS fbclid, user.email AS email, user.first_name AS first_name,
              JSON_VALUE(event_data, '$.plan') AS plan
            FROM events.events WHERE anonymous_id = @anonymous ORDER BY event_time`,
          params: { anonymous: made.anonymous },
        });
        return (found as Row[]).length >= 5 ? (found as Row[]) : undefined;
      },
      120_000,
      1000,
    );
    const named = (n: string) => rows.filter((r) => r.event_name === n);
    assert.deepEqual(rows.map((r) => r.event_name).sort(), [
      'early_call',
      'identify',
      'page_view',
      'page_view',
      'view_content',
    ]);
    for (const r of rows) {
      assert.equal(r.ip, '127.0.0.1', `${r.event_name}: the request's address`);
      assert.ok(r.hints, `${r.event_name}: the Sec-CH-UA client hint`);
      assert.match(r.user_agent ?? '', /Chrome\//);
      assert.equal(r.source, 'newsletter', `${r.event_name}: utm_source`);
      assert.equal(r.medium, 'email');
      assert.equal(r.gclid, `G-${run}`);
      assert.equal(r.fbclid, `FB-${run}`);
    }
    // Calls made before the tag loaded are kept, with the landing page.
    assert.equal(named('early_call')[0]?.url, landing);
    const [first, spa] = named('page_view');
    assert.equal(first?.url, landing);
    assert.equal(spa?.url, `${origin}/p/red-shoe`, 'the single-page navigation is a page view');
    assert.equal(spa?.referrer, landing, 'its referrer is the page before');
    assert.equal(named('identify')[0]?.event_id, made.identify);
    assert.equal(named('identify')[0]?.user_id, `user-${run}`);
    // The traits as the page gave them, split by the gateway: user fields in `user`, the rest as data.
    assert.equal(named('identify')[0]?.email, 'ann@example.com');
    assert.equal(named('identify')[0]?.first_name, 'Ann');
    assert.equal(named('identify')[0]?.plan, 'gold');
    const view = named('view_content')[0];
    assert.equal(view?.event_id, made.track, 'the id track() returned is the stored event_id');
    assert.equal(view?.user_id, `user-${run}`, 'events after identify carry the user id');
    assert.equal(view?.first_name, 'Ann', 'and the user group');
    assert.equal(named('view_content').length, 1, 'the refused event is not among the events');
    const invalid = await until(
      'the refused event in invalid_events',
      async () => {
        const [found] = await bigquery.query({
          query: `SELECT payload, TO_JSON_STRING(errors) AS errors FROM events.invalid_events
            WHERE STRPOS(payload, @id) > 0`,
          params: { id: String(made.refused) },
        });
        return (found as { payload: string; errors: string }[])[0];
      },
      60_000,
      1000,
    );
    assert.match(invalid.payload, /"invalid_call"/);
    assert.match(invalid.errors, /content_name/);

    // No token in the page or anything it sent: only the write key, which is public by design.
    const dev = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const html = await tab.content();
    for (const text of [html, ...requests]) {
      assert.doesNotMatch(text, /ebt_/);
      assert.ok(!text.includes(dev));
      assert.doesNotMatch(text, /"authorization"/i);
    }
    assert.ok(requests.some((r) => r.includes('/v1/tag.js')));
    assert.deepEqual(errors, []);
  });

  it('a key whose origin is not in producers.origins: the browser reads every answer, each event is sent and delivered once', async () => {
    const other = `http://127.0.0.1:${await freePort()}`;
    const gateway = `http://127.0.0.1:${ports['gateway']}`;
    const created = await eventbusIn(dataDir)('key', 'create', '--origin', other);
    assert.match(created, /not in producers\.origins: the tag and requests without custom headers work/);
    const otherKey = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0] ?? '';
    await until('the gateway to take the second key', async () => {
      const res = await fetch(`${gateway}/v1/topics/events?key=${otherKey}`, {
        method: 'POST',
        headers: { origin: other, 'content-type': 'text/plain' },
        body: JSON.stringify({ event_name: 'tag_probe', anonymous_id: `probe2-${run}` }),
      });
      return res.ok ? true : undefined;
    });
    const page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(shopPage(other, gateway, otherKey));
    });
    await new Promise<void>((r) => page.listen(Number(new URL(other).port), '127.0.0.1', r));
    try {
      const tab = await (browser as Browser).newPage();
      const posts: { status: number; cors: string | undefined }[] = [];
      const failed: string[] = [];
      tab.on('response', (r) => {
        if (r.request().method() === 'POST' && r.url().includes('/v1/topics/events'))
          posts.push({ status: r.status(), cors: r.headers()['access-control-allow-origin'] });
      });
      tab.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
      await tab.goto(`${other}/`);
      await tab.waitForFunction(
        () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
      );
      const id = await tab.evaluate(() => {
        const a = (window as unknown as { analytics: Record<string, (...x: unknown[]) => unknown> })
          .analytics;
        const made = a['track']?.('View Content', { content_name: 'Blue Shoe', content_type: 'product' });
        (a['flush'] as () => void)();
        return String(made);
      });
      await until(
        'the event stored',
        async () => {
          const [r] = await bigquery.query({
            query: 'SELECT COUNT(*) AS n FROM events.events WHERE event_id = @id',
            params: { id },
          });
          return Number((r as { n: number }[])[0]?.n) === 1 ? true : undefined;
        },
        60_000,
      );
      // Give a blind retry time to happen, were the answer unreadable (the tag's first backoff is ~1 s).
      await new Promise((r) => setTimeout(r, 4000));
      assert.deepEqual(failed, [], 'no request failed (a CORS failure is a failed request)');
      assert.ok(posts.length >= 1, 'the tag posted its batches');
      for (const p of posts)
        assert.deepEqual(p, { status: 200, cors: other }, 'each answer is readable by the page');
      const [rows] = await bigquery.query({
        query: 'SELECT COUNT(*) AS n FROM events.events WHERE event_id = @id',
        params: { id },
      });
      assert.equal(Number((rows as { n: number }[])[0]?.n), 1, 'one row');
      const delivered = await until(
        'the webhook delivery',
        async () => {
          const [d] = await bigquery.query({
            query: `SELECT destination, COUNT(*) AS n FROM events.deliveries
              WHERE event_id = @id AND status = 'delivered' GROUP BY destination`,
            params: { id },
          });
          const list = d as { destination: string; n: number }[];
          return list.some((x) => x.destination === 'webhook') ? list : undefined;
        },
        60_000,
      );
      for (const d of delivered) assert.equal(Number(d.n), 1, `${d.destination}: delivered once`);
    } finally {
      await new Promise((r) => page.close(r));
    }
  });
});
