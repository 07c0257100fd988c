/**
 * The first-party tag reading the site's consent platform (gateway/tag/cmp.ts, docs/browser.md,
 * "Consent"), in Debian's Chromium against a gateway on loopback with a recording publisher, the
 * page on another origin: stand-ins for a TCF CMP (`__tcfapi`, a TC string from IAB Tech Lab's
 * encoder), a GPP CMP (`__gpp`, 1.1 and 1.0), the US Privacy API and gtag's Consent Mode commands
 * in `dataLayer`. What they say rides on the published events' `consent`, events made before
 * they answer wait for them (briefly), later changes reach later events, and the site's own
 * `analytics.consent()` wins.
 *
 * Where a test is about which comes first, a CMP's answer or the end of a hold, the page's clock
 * is Playwright's and stands still until the test moves it (`paused`): the order is the test's,
 * not the machine's speed (a loaded machine once let a 1.5 s CMP answer before a 200 ms hold's
 * events were looked at).
 */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import type { Browser, Page } from 'playwright-core';
import { decideOne } from '../../core/decision/decision.ts';
import type { StoredEvent } from '../../core/event.ts';
import { tcString } from '../support/tc-strings.ts';
import { until } from '../support/until.ts';
import { FakePublisher } from './support.ts';
import { startTagSite, type TagSite } from './tag-site.ts';

type Event = Readonly<Record<string, unknown>> & { readonly consent?: Readonly<Record<string, unknown>> };

/** A TCF CMP: answers its listeners after `ms` with `first`; `__tcfSay(data)` tells them a change. */
const tcfCmp = (first: object | null, ms: number) => `
var tcfListeners = [];
window.__tcfapi = function (command, version, callback) {
  if (command !== 'addEventListener' || version !== 2) return;
  tcfListeners.push(callback);
  ${first ? `setTimeout(function () { callback(${JSON.stringify(first)}, true); }, ${ms});` : ''}
};
window.__tcfSay = function (data) { tcfListeners.forEach(function (l) { l(data, true); }); };`;

/** A GPP 1.1 CMP: registers the listener not ready, then is ready after `ms`. */
const gppCmp = (gppString: string, sections: number[], ms: number) => `
window.__gpp = function (command, callback) {
  if (command !== 'addEventListener') return;
  window.gppListening = true;
  var ping = { gppVersion: '1.1', cmpStatus: 'loading', signalStatus: 'not ready', applicableSections: [-1], gppString: '' };
  callback({ eventName: 'listenerRegistered', listenerId: 1, data: true, pingData: ping }, true);
  setTimeout(function () {
    var ready = { gppVersion: '1.1', cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: ${JSON.stringify(sections)}, gppString: ${JSON.stringify(gppString)} };
    callback({ eventName: 'signalStatus', listenerId: 1, data: 'ready', pingData: ready }, true);
  }, ${ms});
};`;

/** A GPP 1.0 CMP: the string comes from `getGPPData`'s return value. */
const gpp10Cmp = (gppString: string, sections: number[]) => `
window.__gpp = function (command, callback) {
  if (command === 'getGPPData') return { gppString: ${JSON.stringify(gppString)}, applicableSections: ${JSON.stringify(sections)} };
  if (command === 'addEventListener')
    callback({ eventName: 'listenerRegistered', listenerId: 1, data: true, pingData: { gppVersion: '1.0', cmpStatus: 'loaded' } }, true);
};`;

const uspApi = (s: string) =>
  `window.__uspapi = function (command, version, callback) { if (command === 'getUSPData') callback({ version: 1, uspString: '${s}' }, true); };`;

/** gtag's snippet and its Consent Mode commands (pushed as `arguments` objects, as gtag does). */
const gtag = (...commands: string[]) =>
  `window.dataLayer = window.dataLayer || []; function gtag() { dataLayer.push(arguments); }
${commands.map((c) => `gtag('consent', ${c});`).join('\n')}`;

describe('gateway: the tag reads the site’s consent platform', function () {
  this.timeout(60_000);
  const pub = new FakePublisher();
  /** The head script of each page, by path: the CMP stand-ins, before the tag loads. */
  const heads = new Map<string, string>();
  /** The tag's `data-hold` (ms) on a page, by path, where a test sets one. */
  const holds = new Map<string, number>();
  let world: TagSite | undefined;
  let browser: Browser | undefined;
  let origin = '';

  const TC_ALL = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [755, 1126] });
  const TC_NONE = tcString({ purposes: [], vendors: [] });
  const usnat = new GppModel();
  usnat.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  usnat.setFieldValue('usnat', 'SaleOptOut', 1);
  const GPP = usnat.encode();

  /** The page at each path: the stub snippet, its CMP stand-ins, then the tag. */
  before(async () => {
    world = await startTagSite(pub, (path) => ({
      head: heads.get(path) ?? '',
      attrs: holds.has(path) ? `data-hold="${holds.get(path)}"` : '',
    }));
    ({ browser, origin } = world);
  });
  after(() => world?.close());
  beforeEach(() => {
    pub.calls.length = 0;
  });

  const events = (): Event[] =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Event));
  /** The first published event named `name`, once it is there. */
  const event = (name: string) =>
    until(name, async () => events().find((e) => e['event_name'] === name), 15_000, 50);
  /**
   * The first event named `name` sent from the page at `path`: a page of an earlier test may still
   * send (at pagehide, after a slow CMP) after the list was cleared, and its page view is not this one's.
   */
  const pathOf = (e: Event) =>
    new URL(String((e['page'] as { url?: unknown } | undefined)?.url ?? 'http://x/')).pathname;
  const eventFrom = (name: string, path: string) =>
    until(
      `${name} from ${path}`,
      async () => events().find((e) => e['event_name'] === name && pathOf(e) === path),
      15_000,
      50,
    );
  /**
   * Opens the page at `path` in a new context. `paused`: the page's clock (timers, `Date`) stands
   * still from the page's first script until the test runs it (`page.clock.runFor`). `reader`:
   * the CMP reader's script (which the tag fetches only on a CMP page) is answered only once it
   * resolves, as a slow network would.
   */
  const visit = async (
    path: string,
    head: string,
    opts: { readonly paused?: boolean; readonly reader?: Promise<unknown> } = {},
  ): Promise<Page> => {
    heads.set(path, head);
    const context = await (browser as Browser).newContext();
    if (opts.paused) {
      const now = Date.now();
      await context.clock.install({ time: now });
      await context.clock.pauseAt(now + 1000);
    }
    const page = await context.newPage();
    const { reader } = opts;
    if (reader)
      await page.route('**/v1/tag-cmp.js*', async (route) => {
        await reader;
        await route.continue();
      });
    // A held reader holds the page's load event too.
    await page.goto(`${origin}${path}`, { waitUntil: reader ? 'domcontentloaded' : 'load' });
    return page;
  };
  /** Resolves once the CMP reader's script has come and asked the page's TCF (or GPP) stand-in. */
  const readerAsked = (page: Page, api: 'tcf' | 'gpp') =>
    page.waitForFunction(
      (a) => {
        const w = window as unknown as { tcfListeners?: unknown[]; gppListening?: boolean };
        return a === 'tcf' ? (w.tcfListeners?.length ?? 0) > 0 : w.gppListening === true;
      },
      api,
      { polling: 20 },
    );
  /** Runs `analytics[method](...args)` in the page, then sends what waits. */
  const tell = (page: Page, method: string, ...args: unknown[]) =>
    page.evaluate(
      ([m, a]) => {
        const analytics = (window as unknown as { analytics: Record<string, (...x: unknown[]) => unknown> })
          .analytics;
        const out = analytics[m as string]?.(...(a as unknown[]));
        analytics['flush']?.();
        return out;
      },
      [method, args] as const,
    );

  /** The decision layer's verdict for Meta on a published event (as the store decides it). */
  const forMeta = (e: Event): string => {
    const d = decideOne({ id: 'meta', type: 'meta_capi' }, e as unknown as StoredEvent, {
      isKnownEvent: () => true,
    });
    return d.action === 'send' ? 'send' : d.reason;
  };
  /** The tag's cookies and localStorage keys on the page. */
  const stored = async (page: Page) => ({
    cookies: (await page.context().cookies()).map((c) => c.name),
    local: await page.evaluate(() => Object.keys(localStorage)),
  });
  const GRANT_ALL = gtag(
    "'default', { ad_storage: 'granted', analytics_storage: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' }",
  );

  it('holds the page view until the TCF and GPP CMPs answer, then sends their strings with Consent Mode’s state and US Privacy', async () => {
    const page = await visit(
      '/all',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 150),
        gppCmp(GPP, [7], 250),
        uspApi('1YNN'),
        gtag(
          "'default', { ad_storage: 'denied', analytics_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied' }",
          "'default', { ad_storage: 'granted', region: ['US-CA'] }",
          "'update', { analytics_storage: 'granted', ad_storage: 'granted' }",
        ),
      ].join('\n'),
    );
    // Made when the tag loaded, before either CMP had answered.
    const view = await event('page_view');
    // Consent Mode's state under its own names, so the server can name it when it decides.
    assert.deepEqual(view.consent, {
      analytics_storage: 'granted',
      ad_storage: 'granted',
      ad_user_data: 'denied',
      ad_personalization: 'denied',
      tcf: TC_ALL,
      gdpr_applies: true,
      gpp: GPP,
      gpp_sid: '7',
      us_privacy: '1YNN',
    });
    await page.context().close();
  });

  it('carries later changes (a new TC string, a gtag update), and analytics.consent() wins over the CMP', async () => {
    const page = await visit(
      '/change',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 0),
        gtag("'default', { ad_storage: 'granted', analytics_storage: 'granted', ad_user_data: 'denied' }"),
      ].join('\n'),
    );
    await event('page_view');
    await page.evaluate((tc) => {
      const w = window as unknown as {
        __tcfSay(d: unknown): void;
        gtag(...a: unknown[]): void;
      };
      w.__tcfSay({ tcString: tc, gdprApplies: true, eventStatus: 'useractioncomplete', cmpStatus: 'loaded' });
      w.gtag('consent', 'update', { ad_user_data: 'granted' });
    }, TC_NONE);
    await tell(page, 'track', 'after_change');
    const changed = await event('after_change');
    assert.deepEqual(changed.consent, {
      ad_storage: 'granted',
      analytics_storage: 'granted',
      ad_user_data: 'granted',
      tcf: TC_NONE,
      gdpr_applies: true,
    });
    const state = await tell(page, 'consent', { ad_storage: 'denied', analytics: false });
    assert.equal((state as Record<string, unknown>)['ads'], 'denied');
    await tell(page, 'track', 'after_override');
    const overridden = await event('after_override');
    assert.deepEqual(overridden.consent, {
      ad_storage: 'granted',
      analytics_storage: 'granted',
      ads: 'denied',
      analytics: 'denied',
      ad_user_data: 'granted',
      tcf: TC_NONE,
      gdpr_applies: true,
    });
    // A later CMP change does not undo what the site said, but still brings its string.
    await page.evaluate(
      (tc) =>
        (window as unknown as { __tcfSay(d: unknown): void }).__tcfSay({
          tcString: tc,
          gdprApplies: true,
          eventStatus: 'useractioncomplete',
        }),
      TC_ALL,
    );
    await page.evaluate(() =>
      (window as unknown as { gtag(...a: unknown[]): void }).gtag('consent', 'update', {
        ad_storage: 'granted',
      }),
    );
    await tell(page, 'track', 'after_both');
    const both = await event('after_both');
    assert.equal(both.consent?.['ads'], 'denied');
    // Beside Consent Mode's grant, the site's refusal decides on the server (a refusal wins).
    assert.equal(forMeta(both), 'consent ads denied');
    assert.equal(both.consent?.['tcf'], TC_ALL);
    await page.context().close();
  });

  it('sends with what is known when a CMP stays silent (GDPR then applies), reads GPP 1.0 and a CMP that says GDPR does not apply', async () => {
    // The reader's script takes longer than the CMP's own 500 ms hold to come: the events wait
    // for it (up to 2 s), then give the CMP its 500 ms, so GPP is read, not left pending.
    let arrive = () => {};
    const reader = new Promise<void>((r) => {
      arrive = r;
    });
    holds.set('/silent', 500);
    const silent = await visit('/silent', [tcfCmp(null, 0), gpp10Cmp(GPP, [7, 8])].join('\n'), {
      paused: true,
      reader,
    });
    await silent.clock.runFor(800);
    arrive();
    await readerAsked(silent, 'tcf');
    assert.deepEqual(
      events().filter((e) => pathOf(e) === '/silent'),
      [],
      'held for the CMP',
    );
    // 500 ms of hold from the reader's arrival, then the sender's second.
    await silent.clock.runFor(1600);
    const view = await event('page_view');
    // The TCF CMP never answered: the event says GDPR applies, with no string (no consent).
    assert.deepEqual(view.consent, { gpp: GPP, gpp_sid: '7,8', gdpr_applies: true });
    // Once the wait is over, later events go with what is known too.
    await tell(silent, 'track', 'later');
    assert.deepEqual((await event('later')).consent, { gpp: GPP, gpp_sid: '7,8', gdpr_applies: true });
    await silent.context().close();

    pub.calls.length = 0;
    const outside = await visit(
      '/outside',
      tcfCmp({ tcString: '', gdprApplies: false, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 50),
    );
    const there = await event('page_view');
    assert.deepEqual(there.consent, { gdpr_applies: false });
    await outside.context().close();
  });

  it('waits for the choice while the CMP’s banner is up, no longer than the hold, then sends the choice on later events', async () => {
    const page = await visit(
      '/banner',
      tcfCmp({ tcString: '', gdprApplies: true, eventStatus: 'cmpuishown', cmpStatus: 'loaded' }, 0),
    );
    const view = await event('page_view');
    assert.deepEqual(view.consent, { gdpr_applies: true });
    await page.evaluate(
      (tc) =>
        (window as unknown as { __tcfSay(d: unknown): void }).__tcfSay({
          tcString: tc,
          gdprApplies: true,
          eventStatus: 'useractioncomplete',
          cmpStatus: 'loaded',
        }),
      TC_ALL,
    );
    await tell(page, 'track', 'chosen');
    assert.equal((await event('chosen')).consent?.['tcf'], TC_ALL);
    await page.context().close();
  });

  it('stores nothing in cookies or localStorage while TCF purpose 1 is refused, even with Consent Mode granting; stores once TCF grants it', async () => {
    const noStorage = tcString({ purposes: [2, 3, 4, 7], vendors: [755] });
    const page = await visit(
      '/purpose-one',
      [
        tcfCmp({ tcString: noStorage, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 0),
        GRANT_ALL,
      ].join('\n'),
    );
    const view = await event('page_view');
    assert.equal(view.consent?.['tcf'], noStorage);
    assert.equal(forMeta(view), 'consent TCF purpose 1 denied');
    await tell(page, 'identify', 'u-1', { email: 'jane@example.com' });
    await event('identify');
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    await page.evaluate(
      (tc) =>
        (window as unknown as { __tcfSay(d: unknown): void }).__tcfSay({
          tcString: tc,
          gdprApplies: true,
          eventStatus: 'useractioncomplete',
          cmpStatus: 'loaded',
        }),
      TC_ALL,
    );
    await tell(page, 'track', 'granted_now');
    const after = await event('granted_now');
    assert.equal(after['anonymous_id'], view['anonymous_id']);
    const now = await stored(page);
    assert.ok(now.cookies.includes('eventbus_anonymous_id'), JSON.stringify(now));
    assert.ok(now.local.includes('eventbus_user_id'), JSON.stringify(now));
    await page.context().close();
  });

  it('stores nothing while a GPP string’s TCF section refuses purpose 1', async () => {
    const page = await visit(
      '/gpp-tcf',
      [
        `window.__gpp = function (command, callback) {
  if (command !== 'addEventListener') return;
  callback({ eventName: 'signalStatus', listenerId: 1, data: 'ready', pingData: { gppVersion: '1.1', cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: [2], gppString: 'DBABMA~CQAAAAAQAAAAAAAAAAENAAAAAAAAAAAAAAAA', parsedSections: { tcfeuv2: [{ PurposeConsents: [false, true] }] } } }, true);
};`,
        GRANT_ALL,
      ].join('\n'),
    );
    await event('page_view');
    await tell(page, 'track', 'more');
    await event('more');
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    await page.context().close();
  });

  it('a CMP answering at 1.5 s after a flush(): the first page view and purchase wait for it and are delivered (#96)', async () => {
    const page = await visit(
      '/slow',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 1500),
        GRANT_ALL,
      ].join('\n'),
    );
    // `tell` flushes at once: the held events keep waiting for the CMP (the default hold is 3 s).
    await tell(page, 'track', 'purchase', { transaction_id: 'o-1', value: 10, currency: 'EUR' });
    for (const name of ['page_view', 'purchase']) {
      const e = await event(name);
      assert.equal(e.consent?.['tcf'], TC_ALL, name);
      assert.equal(forMeta(e), 'send', name);
    }
    assert.equal(events().length, 2, 'each sent once');
    await page.context().close();
  });

  it('the hold is bounded (data-hold): an event sent before a slow TCF CMP answers says GDPR applies; later events carry the string', async () => {
    holds.set('/slow-held', 200);
    const page = await visit(
      '/slow-held',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 1500),
        GRANT_ALL,
      ].join('\n'),
      { paused: true },
    );
    await readerAsked(page, 'tcf');
    await tell(page, 'track', 'early');
    // The 200 ms hold ends, then the sender's second; the CMP answers at 1.5 s.
    await page.clock.runFor(1300);
    const early = await event('early');
    assert.equal(early.consent?.['gdpr_applies'], true);
    assert.equal(early.consent?.['tcf'], undefined);
    assert.equal(forMeta(early), 'consent TCF string missing (gdpr_applies true)');
    const view = await event('page_view');
    assert.equal(forMeta(view), 'consent TCF string missing (gdpr_applies true)');
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    // The CMP answers 1.5 s after the page loaded.
    await page.clock.runFor(300);
    await tell(page, 'track', 'late');
    const late = await event('late');
    assert.equal(late.consent?.['tcf'], TC_ALL);
    assert.equal(forMeta(late), 'send');
    await page.context().close();
  });

  it('an event sent before a slow GPP CMP is ready (the hold ran out) says so (gpp_pending): Meta refuses it naming GPP; later events carry the string', async () => {
    holds.set('/slow-gpp', 200);
    const page = await visit('/slow-gpp', [gppCmp(GPP, [7], 1500), GRANT_ALL].join('\n'), {
      paused: true,
    });
    await readerAsked(page, 'gpp');
    await tell(page, 'track', 'early_gpp');
    await page.clock.runFor(1300);
    const early = await event('early_gpp');
    assert.equal(early.consent?.['gpp_pending'], true);
    assert.equal(early.consent?.['gpp'], undefined);
    assert.equal(forMeta(early), 'consent GPP unknown (sent before the GPP CMP was ready)');
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    await page.clock.runFor(300);
    await tell(page, 'track', 'late_gpp');
    const late = await event('late_gpp');
    assert.equal(late.consent?.['gpp'], GPP);
    assert.equal(late.consent?.['gpp_pending'], undefined);
    assert.equal(forMeta(late), 'consent GPP opt-out (usnat SaleOptOut)');
    await page.context().close();
  });

  it('Consent Mode’s region defaults go to the server as given, less what an update replaced; one denying storage stores nothing', async () => {
    const page = await visit(
      '/regions',
      gtag(
        "'default', { ad_storage: 'granted', analytics_storage: 'granted', ad_user_data: 'granted' }",
        "'default', { ad_storage: 'denied', analytics_storage: 'denied', region: ['ES', 'US-CA', 'not a region'] }",
        "'default', { ad_user_data: 'denied', region: 'FR' }",
      ),
    );
    const view = await event('page_view');
    assert.deepEqual(view.consent?.['region_defaults'], [
      { region: ['ES', 'US-CA'], ad_storage: 'denied', analytics_storage: 'denied' },
      { region: ['FR'], ad_user_data: 'denied' },
    ]);
    // The visitor may be in Spain: no id is kept.
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    await page.evaluate(() =>
      (window as unknown as { gtag(...a: unknown[]): void }).gtag('consent', 'update', {
        analytics_storage: 'granted',
      }),
    );
    await tell(page, 'track', 'after_update');
    const after = await event('after_update');
    assert.deepEqual(after.consent?.['region_defaults'], [
      { region: ['ES', 'US-CA'], ad_storage: 'denied' },
      { region: ['FR'], ad_user_data: 'denied' },
    ]);
    assert.ok((await stored(page)).cookies.includes('eventbus_anonymous_id'));
    await page.context().close();
  });

  it('Consent Mode’s denial reaches the server under its own name, which the ledger names as the deciding signal', async () => {
    const page = await visit(
      '/consent-mode',
      gtag("'default', { ad_storage: 'denied', analytics_storage: 'granted', ad_user_data: 'granted' }"),
    );
    const view = await event('page_view');
    assert.equal(view.consent?.['ad_storage'], 'denied');
    assert.equal(forMeta(view), 'consent ad_storage denied (Consent Mode)');
    await page.context().close();
  });

  it('an event waiting for a slow TCF CMP when the page is left goes at pagehide, saying GDPR applies', async () => {
    const page = await visit(
      '/leave',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 5000),
        GRANT_ALL,
      ].join('\n'),
      { paused: true },
    );
    await readerAsked(page, 'tcf');
    // Made while the CMP is silent and the hold still runs: it waits, then the page is left.
    await page.evaluate(() =>
      (window as unknown as { analytics: { track(n: string): void } }).analytics.track('leaving'),
    );
    await page.goto(`${origin}/elsewhere`);
    const leaving = await event('leaving');
    assert.equal(leaving.consent?.['gdpr_applies'], true);
    assert.equal(forMeta(leaving), 'consent TCF string missing (gdpr_applies true)');
    await page.context().close();
  });

  it('loads the reader (/v1/tag-cmp.js) once on a page with a CMP; none on a page without, until a Consent Mode command comes', async () => {
    /** The page's requests for the reader, counted from before it loads. */
    const readerLoads = async (path: string, head: string) => {
      heads.set(path, head);
      const page = await (await (browser as Browser).newContext()).newPage();
      const asked: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/v1/tag-cmp.js')) asked.push(r.url());
      });
      await page.goto(`${origin}${path}`);
      await page.waitForFunction(
        () => (window as unknown as { analytics: { eventbus?: boolean } }).analytics.eventbus,
      );
      return { page, asked };
    };
    const withCmp = await readerLoads(
      '/reader-tcf',
      tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 10),
    );
    assert.equal((await eventFrom('page_view', '/reader-tcf')).consent?.['tcf'], TC_ALL);
    await tell(withCmp.page, 'track', 'second');
    await event('second');
    assert.equal(withCmp.asked.length, 1, withCmp.asked.join(' '));
    assert.match(withCmp.asked[0] ?? '', /\/v1\/tag-cmp\.js\?v=[0-9a-f]{16}$/);
    await withCmp.page.context().close();

    pub.calls.length = 0;
    // gtag's snippet without a consent command: nothing to read yet, so nothing asked for.
    const plain = await readerLoads('/reader-none', gtag());
    await eventFrom('page_view', '/reader-none');
    assert.deepEqual(plain.asked, []);
    // A Consent Mode command pushed later: the reader comes, and the next event carries its state.
    await plain.page.evaluate(() =>
      (window as unknown as { gtag(...a: unknown[]): void }).gtag('consent', 'update', {
        ad_storage: 'denied',
      }),
    );
    await until('the reader', async () => plain.asked.length === 1 || undefined, 15_000, 50);
    await until(
      'an event with Consent Mode’s state',
      async () => {
        await tell(plain.page, 'track', 'after_update');
        return events().some(
          (e) => e['event_name'] === 'after_update' && e.consent?.['ad_storage'] === 'denied',
        )
          ? true
          : undefined;
      },
      15_000,
      200,
    );
    await plain.page.context().close();
  });

  it('a reader that never comes (blocked): events still go, saying GDPR applies, and nothing is stored', async () => {
    heads.set(
      '/reader-blocked',
      [
        tcfCmp({ tcString: TC_ALL, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, 10),
        GRANT_ALL,
      ].join('\n'),
    );
    const context = await (browser as Browser).newContext();
    // As a blocker would: the reader's request fails.
    await context.route('**/v1/tag-cmp.js*', (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    await page.goto(`${origin}/reader-blocked`);
    const view = await eventFrom('page_view', '/reader-blocked');
    assert.equal(view.consent?.['gdpr_applies'], true, 'the TCF CMP unread: GDPR said to apply');
    assert.equal(view.consent?.['tcf'], undefined);
    assert.equal(forMeta(view), 'consent TCF string missing (gdpr_applies true)');
    assert.deepEqual(await stored(page), { cookies: [], local: [] });
    await context.close();
  });
});
