/**
 * A slow consent platform and a withdrawal, end to end (#96; docs/browser.md "When", docs/delivery.md
 * "A consent platform slower than the tag"): in Debian's Chromium, a page on another origin than
 * the gateway sends through the whole local environment (`eventbus start`: gateway, store,
 * forward, the receiver standing in for GA4, Meta and TikTok) with the project's tag beside a TCF
 * CMP stand-in that answers late and can change its answer. What is checked is the browser's
 * storage, the `events` rows and the `deliveries` ledger.
 *
 * - A landing URL with UTM parameters and a `gclid`, the CMP silent: nothing is stored anywhere
 *   (cookies, localStorage, sessionStorage, IndexedDB). The CMP answers at 1.5 s after a `flush()`:
 *   the first page view and the purchase are delivered to GA4, Meta and TikTok.
 * - The same with a hold of 500 ms (`data-hold`): the events leave before the answer and are
 *   skipped (`consent TCF string missing`); the next event, with the answer, has the server decide
 *   them again, and each is delivered once.
 * - A withdrawal mid-session (the CMP's new answer refuses purpose 1): no cookie or storage entry
 *   of ours is left, and later rows carry no `fbp`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { localBigQuery, startLocalForOrigin, stopLocal } from '../support/local-start.ts';
import { tcString } from '../support/tc-strings.ts';
import { until } from '../support/until.ts';

const TC_ALL = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [755] });
const TC_NONE = tcString({ purposes: [], vendors: [] });
const LANDING = '?utm_source=news&utm_medium=email&utm_campaign=late&gclid=Cj0late';
const OURS = ['eventbus_anonymous_id', '_fbp', '_fbc', '_ga'];

/** A TCF CMP silent until `window.say(tc, purposeOne)` gives (or changes) its answer. */
const LATE_CMP = `
var listeners = [], answer;
window.__tcfapi = function (command, version, callback) {
  if (command !== 'addEventListener') return;
  listeners.push(callback);
  if (answer) callback(answer, true);
};
window.say = function (tc, one) {
  answer = { tcString: tc, gdprApplies: true, eventStatus: 'useractioncomplete', cmpStatus: 'loaded',
    purpose: { consents: { '1': one } } };
  listeners.forEach(function (f) { f(answer, true); });
};`;

interface Delivery {
  readonly destination: string;
  readonly status: string;
  readonly reason: string | null;
}

describe('end to end: a slow consent platform and a withdrawal, a browser through the local environment (#96)', function () {
  this.timeout(600_000);
  /** The local environment, and the write key of the site's origin. */
  let env: Awaited<ReturnType<typeof startLocalForOrigin>> | undefined;
  let browser: Browser | undefined;
  let site: Server | undefined;
  let bigquery: BigQuery;
  let origin = '';
  let gateway = '';
  let userAgent = '';
  const served = new Map<string, string>();

  /** The page: the CMP stand-in, the stub that tracks a purchase and flushes at once, then the tag. */
  const page = (hold: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Late consent</title>
<script>${LATE_CMP}
!function(){var a=window.analytics=window.analytics||[];if(!a.eventbus)["page","track","identify","reset","consent","debug","flush","ready"].forEach(function(m){a[m]=a[m]||function(){a.push([m].concat([].slice.call(arguments)))}})}();
analytics.page();
analytics.track('Purchase', { value: 49.9, currency: 'EUR', transaction_id: 'o-' + Date.now() });
analytics.flush();
window.flushedAt = Date.now();
</script><script async src="${gateway}/v1/tag.js" data-key="${env?.key}"${hold}></script></head>
<body><h1>Thank you for your order</h1><p>Late consent: the CMP answers at 1.5 s.</p></body></html>`;

  before(async () => {
    browser = await launchChromium();
    site = createServer((req, res) => {
      const body = served.get(new URL(req.url ?? '/', 'http://site').pathname);
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body ?? '');
    });
    await new Promise<void>((r) => site?.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    env = await startLocalForOrigin('eventbus-consent-late-', origin, ['--money']);
    bigquery = await localBigQuery(env.ports);
    gateway = `http://127.0.0.1:${env.ports['gateway']}`;
    // A person's browser, not a headless one: store flags HeadlessChrome as a bot.
    userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`;
  });

  after(async () => {
    await browser?.close();
    await new Promise((r) => (site ? site.close(r) : r(undefined)));
    await stopLocal(env?.child, env?.dataDir ?? '');
  });

  /** Everything the page's origin holds: cookies (of every host and port), both storages, IndexedDB's databases. */
  const stored = async (p: Page) => ({
    cookies: (await p.context().cookies()).map((c) => c.name),
    ...(await p.evaluate(async () => ({
      local: Object.keys(localStorage),
      session: Object.keys(sessionStorage),
      indexedDB: (await indexedDB.databases()).map((d) => d.name),
    }))),
  });

  /** The page's events as stored (name, id, campaign.fbp), by its anonymous id. */
  const rowsOf = (anonymousId: string, count: number) =>
    until(
      `${count} events of ${anonymousId}`,
      async () => {
        const [rows] = await bigquery.query({
          query: `SELECT event_name, event_id, campaign.fbp AS fbp FROM events.events
            WHERE anonymous_id = @id ORDER BY event_time`,
          params: { id: anonymousId },
        });
        return rows.length >= count
          ? (rows as { event_name: string; event_id: string; fbp: string | null }[])
          : undefined;
      },
      120_000,
      1000,
    );

  /** The ledger's rows of an event for GA4, Meta and TikTok, once all three are delivered. */
  async function delivered(eventId: string): Promise<Delivery[]> {
    let list: Delivery[] = [];
    try {
      return await until(
        `${eventId} delivered to GA4, Meta and TikTok`,
        async () => {
          const [rows] = await bigquery.query({
            query: `SELECT destination, status, reason FROM events.deliveries
              WHERE event_id = @id AND destination IN ('ga4', 'meta', 'tiktok')`,
            params: { id: eventId },
          });
          list = rows as Delivery[];
          const done = ['ga4', 'meta', 'tiktok'].every((d) =>
            list.some((r) => r.destination === d && r.status === 'delivered'),
          );
          return done ? list : undefined;
        },
        60_000,
        1000,
      );
    } catch (err) {
      const store = (env?.output() ?? '')
        .split('\n')
        .filter((l) => /store|pending/.test(l) && /WARNING|ERROR|rror/.test(l))
        .slice(-10);
      const [hooks] = await bigquery.query({ query: 'SELECT hook, error FROM events.hook_failures' });
      const [events] = await bigquery.query({
        query: `SELECT event_name, anonymous_id, consent.tcf IS NOT NULL AS tcf, source, topic FROM events.events`,
      });
      throw new Error(
        `${(err as Error).message}; the ledger: ${JSON.stringify(list)}; store said: ${store.join('\n')}; hook failures: ${JSON.stringify(hooks)}; the stored events: ${JSON.stringify(events)}`,
      );
    }
  }

  /** Opens the page; its CMP answers 1.5 s after the flush unless `silent`. */
  /** Waits until GA4, Meta and TikTok each have a `skipped` row for the event. */
  const skippedAll = (eventId: string) =>
    until(
      `${eventId} skipped by GA4, Meta and TikTok`,
      async () => {
        const [rows] = await bigquery.query({
          query: `SELECT DISTINCT destination FROM events.deliveries WHERE event_id = @id AND status = 'skipped'`,
          params: { id: eventId },
        });
        return rows.length === 3 ? true : undefined;
      },
      60_000,
      1000,
    );

  async function open(path: string, hold: string, silent = false): Promise<Page> {
    served.set(path, page(hold));
    const context = await (browser as Browser).newContext({ userAgent });
    const p = await context.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${origin}${path}${LANDING}`);
    await p.waitForFunction(
      () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
    );
    // Before the CMP's answer (1.5 s): the landing's campaign and the tag's id live in memory only.
    assert.deepEqual(
      await stored(p),
      { cookies: [], local: [], session: [], indexedDB: [] },
      'nothing stored',
    );
    assert.deepEqual(errors, []);
    if (silent) return p;
    // The CMP answers 1.5 s after the flush (everything granted).
    await p.evaluate(async (tc) => {
      const w = window as unknown as { flushedAt: number; say(tc: string, one: boolean): void };
      await new Promise((r) => setTimeout(r, Math.max(0, w.flushedAt + 1500 - Date.now())));
      w.say(tc, true);
    }, TC_ALL);
    return p;
  }

  const anonymousIdOf = (p: Page) =>
    p.evaluate(() =>
      (window as unknown as { analytics: { user(): { anonymousId(): string } } }).analytics
        .user()
        .anonymousId(),
    );

  it('stores nothing before the CMP answers; its answer at 1.5 s after a flush delivers the page view and purchase', async () => {
    const p = await open('/late', ' data-hold="10000"');
    await p.waitForFunction(() => document.cookie.includes('eventbus_anonymous_id'), undefined, {
      timeout: 10_000,
    });
    const rows = await rowsOf(await anonymousIdOf(p), 2);
    assert.deepEqual(
      rows.map((r) => r.event_name),
      ['page_view', 'purchase'],
    );
    for (const r of rows) await delivered(r.event_id);
    // What the visitor saw, for a person to look at (its path in the log).
    const shot = join(tmpdir(), `consent-late-${Date.now()}.png`);
    await p.screenshot({ path: shot });
    console.log(`screenshot: ${shot}`);
    await p.context().close();
  });

  it('a hold shorter than the CMP: the server decides the early events again with the next event’s answer, then a withdrawal removes everything of ours', async () => {
    const p = await open('/late-short-hold', ' data-hold="500"', true);
    const id = await anonymousIdOf(p);
    // The hold ran out: both left without the CMP's answer, and were skipped for want of it.
    const early = await rowsOf(id, 2);
    for (const r of early) await skippedAll(r.event_id);
    await p.evaluate(
      (tc) => (window as unknown as { say(tc: string, one: boolean): void }).say(tc, true),
      TC_ALL,
    );
    await p.waitForFunction(() => document.cookie.includes('_fbp'), undefined, { timeout: 10_000 });
    await p.evaluate(() => {
      const a = (window as unknown as { analytics: { page(): void; flush(): void } }).analytics;
      a.page();
      a.flush();
    });
    for (const r of early.slice(0, 2)) {
      const list = await delivered(r.event_id);
      assert.ok(
        list.some((x) => x.status === 'skipped' && /consent TCF string missing/.test(x.reason ?? '')),
        `${r.event_name} was first skipped for want of the answer: ${JSON.stringify(list)}`,
      );
      assert.equal(list.filter((x) => x.status === 'delivered').length, 3, 'each delivered once');
    }
    // The visitor withdraws: the CMP's new answer refuses purpose 1.
    await p.evaluate(
      (tc) => (window as unknown as { say(tc: string, one: boolean): void }).say(tc, false),
      TC_NONE,
    );
    const after = await stored(p);
    assert.deepEqual(
      after.cookies.filter((c) => OURS.includes(c)),
      [],
      'no cookie of ours',
    );
    assert.deepEqual(after.local, []);
    assert.deepEqual(after.session, []);
    await p.evaluate(() => {
      const a = (window as unknown as { analytics: { page(): void; flush(): void } }).analytics;
      a.page();
      a.flush();
    });
    const later = await rowsOf(await anonymousIdOf(p), 1);
    assert.equal(later.at(-1)?.event_name, 'page_view');
    assert.equal(later.at(-1)?.fbp, null, 'no fbp after the withdrawal');
    await p.context().close();
  });
});
