/**
 * One consent truth for storage (issue #96; core/consent/storage-rules.ts, docs/browser.md "One
 * table for storage"): every consent state is run through the tag in Debian's Chromium (what it
 * writes, removes and leaves on the page) and through the gateway's answer (gateway/id-cookies.ts,
 * fed the very event the tag published and the cookies a returning browser would send), and both
 * are checked against the verdicts written out below — not read from the module. Also: a landing
 * URL with UTM parameters and a click id, with no consent, stores nothing anywhere; a withdrawal
 * mid-session leaves nothing of ours and no withdrawn identifier on later events.
 */
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { OutgoingMessage } from '../../adapters/publisher.ts';
import { idCookies } from '../../gateway/id-cookies.ts';
import { tcString } from '../support/tc-strings.ts';
import { until } from '../support/until.ts';
import { baseSettings, FakePublisher } from './support.ts';
import { type SitePage, startTagSite, type TagSite } from './tag-site.ts';

type Event = Readonly<Record<string, unknown>>;
type Verdict = 'store' | 'remove' | 'leave';
const ITEMS = ['id', 'fbp', 'fbc', 'ga', 'campaign', 'consent'] as const;
type Item = (typeof ITEMS)[number];

/** Each item's verdict, in ITEMS' order: s store, r remove, l leave. */
const row = (letters: string): Record<Item, Verdict> => {
  const word = { s: 'store', r: 'remove', l: 'leave' } as const;
  return Object.fromEntries(ITEMS.map((item, i) => [item, word[letters[i] as keyof typeof word]])) as Record<
    Item,
    Verdict
  >;
};

const GRANT = "analytics.consent({ analytics: 'granted', ads: 'granted' });";
const MALFORMED_TCF = `window.__tcfapi = function (c, v, cb) { if (c === 'addEventListener') cb({ tcString: 'not-a-tc-string', gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, true); };`;
const SILENT_TCF = 'window.__tcfapi = function () {};';
const USP_OPT_OUT =
  "window.__uspapi = function (c, v, cb) { if (c === 'getUSPData') cb({ version: 1, uspString: '1YYN' }, true); };";

interface State {
  readonly name: string;
  /** Script before the tag (CMP stand-ins, the site's consent calls, queued by the stub). */
  readonly head: string;
  /** Verdicts: id, _fbp, _fbc, _ga, campaign (sessionStorage), consent (the site's choice kept). */
  readonly expected: Record<Item, Verdict>;
  readonly attrs?: string;
  /** Global Privacy Control on (the browser's `Sec-GPC: 1` and `navigator.globalPrivacyControl`). */
  readonly gpc?: boolean;
  /** Said after the page has settled (a withdrawal). */
  readonly after?: Readonly<Record<string, string>>;
}

/** The expected verdicts, written out by hand (the table), one state a row. */
const STATES: readonly State[] = [
  { name: 'granted', head: GRANT, expected: row('ssssss') },
  {
    name: 'ads refused',
    head: "analytics.consent({ analytics: 'granted', ads: 'denied' });",
    expected: row('srrsss'),
  },
  { name: 'ads unstated', head: "analytics.consent({ analytics: 'granted' });", expected: row('sllsss') },
  { name: 'GPC beside an ad grant', head: GRANT, gpc: true, expected: row('srrsss') },
  { name: 'US Privacy 1YYN beside an ad grant', head: `${USP_OPT_OUT}\n${GRANT}`, expected: row('srrsss') },
  {
    name: 'refused',
    head: "analytics.consent({ analytics: 'denied', ads: 'denied' });",
    expected: row('rrrrrr'),
  },
  {
    name: 'withdrawn',
    head: GRANT,
    after: { analytics: 'denied', ads: 'denied' },
    expected: row('rrrrrr'),
  },
  { name: 'malformed TC string beside grants', head: `${MALFORMED_TCF}\n${GRANT}`, expected: row('rrrrrr') },
  {
    name: 'unknown: a TCF CMP still silent',
    head: `${SILENT_TCF}\n${GRANT}`,
    attrs: 'data-hold="200"',
    expected: row('llllll'),
  },
  { name: 'unknown: nothing said', head: '', expected: row('llllll') },
  { name: 'cookieless', head: GRANT, attrs: 'data-cookieless', expected: row('llllll') },
];

const LANDING = '?utm_source=news&utm_campaign=spring&gclid=GCLID1&fbclid=FBCLID1';
/** What a returning browser holds: our cookies, each with a value the tag would not write. */
const SEED_COOKIES =
  'eventbus_anonymous_id=seed-id; _fbp=fb.1.1700000000000.1111111111; _fbc=fb.1.1700000000000.SEEDCLICK; _ga=GA1.1.111111111.1700000000';

describe('gateway: one storage truth — every consent state through the tag in Chromium and the gateway', function () {
  this.timeout(120_000);
  const pub = new FakePublisher();
  const pages = new Map<string, SitePage>();
  let world: TagSite | undefined;
  let browser: Browser;
  let origin = '';

  before(async () => {
    world = await startTagSite(pub, (path) => pages.get(path) ?? { head: '', attrs: '' });
    ({ browser, origin } = world);
  });
  after(() => world?.close());

  const events = (): Event[] =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Event));
  /** The published event of this page (its `page.url` names the path) called `name`. */
  const published = (path: string, name: string) =>
    until(
      `${name} from ${path}`,
      async () =>
        events().find(
          (e) => e['event_name'] === name && String((e['page'] as Event | undefined)?.['url']).includes(path),
        ),
      15_000,
      50,
    );

  /** Everything of ours on the page: cookies, localStorage, sessionStorage, IndexedDB's databases. */
  const storageOf = async (context: BrowserContext, page: Page) => {
    const cookies = Object.fromEntries((await context.cookies()).map((c) => [c.name, c.value]));
    const web = await page.evaluate(async () => ({
      local: { ...localStorage } as Record<string, string>,
      session: { ...sessionStorage } as Record<string, string>,
      idb: (await indexedDB.databases()).map((d) => d.name),
    }));
    return { cookies, ...web };
  };

  /** Loads a state's page (seeded like a returning browser, or fresh) and lets it settle. */
  async function run(state: State, path: string, seeded: boolean) {
    pages.set(path, { head: state.head, attrs: state.attrs ?? '' });
    const context = await browser.newContext(state.gpc ? { extraHTTPHeaders: { 'Sec-GPC': '1' } } : {});
    if (state.gpc)
      await context.addInitScript(() =>
        Object.defineProperty(navigator, 'globalPrivacyControl', { get: () => true }),
      );
    if (seeded) {
      await context.addCookies(
        SEED_COOKIES.split('; ').map((c) => {
          const [name = '', value = ''] = c.split('=');
          return { name, value, url: origin };
        }),
      );
      // The site's choice kept from an earlier page is the one this page states (its head's).
      const choice = /analytics\.consent\((\{[^)]*\})\)/.exec(state.head)?.[1];
      await context.addInitScript(
        ([c]) => {
          if (sessionStorage.getItem('seeded')) return;
          sessionStorage.setItem('seeded', '1');
          sessionStorage.setItem('eventbus_campaign', '{"utm_source":"seed"}');
          localStorage.setItem('eventbus_anonymous_id', 'seed-id');
          // biome-ignore lint/security/noGlobalEval: the test's own literal, the site's consent object
          if (c) localStorage.setItem('eventbus_consent', JSON.stringify(eval(`(${c})`)));
        },
        [choice] as const,
      );
    }
    const page = await context.newPage();
    await page.goto(`${origin}${path}${LANDING}`);
    await published(path, 'page_view');
    if (state.after)
      await page.evaluate(
        (c) => (window as unknown as { analytics: { consent(c: unknown): void } }).analytics.consent(c),
        state.after,
      );
    await page.evaluate(() =>
      (window as unknown as { analytics: { track(n: string): void; flush(): void } }).analytics.track(
        'settled',
      ),
    );
    await page.evaluate(() => (window as unknown as { analytics: { flush(): void } }).analytics.flush());
    const last = await published(path, 'settled');
    const stored = await storageOf(context, page);
    await context.close();
    return { stored, last };
  }

  /** Whether an item is on the page. */
  const present = (s: Awaited<ReturnType<typeof storageOf>>, item: Item): string | undefined => {
    if (item === 'campaign') return s.session['eventbus_campaign'];
    if (item === 'consent') return s.local['eventbus_consent'];
    if (item === 'id') return s.cookies['eventbus_anonymous_id'] ?? s.local['eventbus_anonymous_id'];
    return s.cookies[`_${item}`];
  };

  for (const [i, state] of STATES.entries())
    it(`${state.name}: the tag and the gateway both follow the table`, async () => {
      const fresh = await run(state, `/s${i}`, false);
      const seeded = await run(state, `/r${i}`, true);
      // Chromium: written on a fresh page → store; else, from a returning browser's storage,
      // gone → remove, still there → leave.
      const tag = {} as Record<Item, Verdict>;
      // The tag never writes `_ga` (the gateway sets it from GA4's client id): where the table
      // says store, the page keeps what is there.
      const expectedOfTag = {
        ...state.expected,
        ga: state.expected.ga === 'store' ? 'leave' : state.expected.ga,
      };
      for (const item of ITEMS) {
        // The site's choice is seeded only where the page states one (else it is the state).
        const had = item !== 'consent' || /analytics\.consent\(/.test(state.head);
        tag[item] = present(fresh.stored, item)
          ? 'store'
          : present(seeded.stored, item) || !had
            ? 'leave'
            : 'remove';
      }
      assert.deepEqual(tag, expectedOfTag, `the tag, ${state.name}: ${JSON.stringify(seeded.stored)}`);

      // The gateway: its answer to the returning browser's last batch (its cookies sent).
      const message: OutgoingMessage = { data: Buffer.from(JSON.stringify(seeded.last)), attributes: {} };
      // With a GA4 destination, whose `_ga` the gateway sets (the seeded one is in gtag's format).
      const lines = idCookies(
        baseSettings({ destinations: [{ id: 'ga', type: 'ga4_mp', config: { measurement_id: 'G-T' } }] }),
        {
          host: '127.0.0.1',
          plainLoopback: true,
          cookie: SEED_COOKIES,
          cookieless: state.attrs === 'data-cookieless',
        },
        [message],
        Date.now(),
      );
      for (const [name, item] of [
        ['eventbus_anonymous_id', 'id'],
        ['_fbp', 'fbp'],
        ['_fbc', 'fbc'],
        ['_ga', 'ga'],
      ] as const) {
        const line = lines.find((l) => l.startsWith(`${name}=`));
        const server = line === undefined ? 'leave' : /Max-Age=0(;|$)/.test(line) ? 'remove' : 'store';
        assert.equal(
          server,
          state.expected[item],
          `the gateway, ${state.name}, ${name}: ${lines.join(' | ')}`,
        );
      }
    });

  it('a landing URL with UTM and gclid and no consent stores nothing anywhere, and the events still carry them', async () => {
    const { stored, last } = await run(
      STATES.find((s) => s.name === 'unknown: nothing said') as State,
      '/landing',
      false,
    );
    assert.deepEqual(stored, { cookies: {}, local: {}, session: {}, idb: [] });
    // In memory: every event of the page carries the landing's campaign.
    assert.deepEqual(last['campaign'], {
      source: 'news',
      name: 'spring',
      gclid: 'GCLID1',
      fbclid: 'FBCLID1',
    });
  });

  const TC_ALL = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [755] });
  const TC_NONE = tcString({ purposes: [], vendors: [] });
  /** A TCF CMP that accepted everything; `__tcfSay(tc)` tells its listeners a new string. */
  const acceptingTcf = `var tcfL = [];
window.__tcfapi = function (c, v, cb) { if (c !== 'addEventListener') return; tcfL.push(cb);
  cb({ tcString: ${JSON.stringify(TC_ALL)}, gdprApplies: true, eventStatus: 'tcloaded', cmpStatus: 'loaded' }, true); };
window.__tcfSay = function (tc) { tcfL.forEach(function (l) { l({ tcString: tc, gdprApplies: true, eventStatus: 'useractioncomplete', cmpStatus: 'loaded' }, true); }); };`;
  const WITHDRAWALS = [
    {
      name: 'a Consent Mode update to denied',
      head: GRANT,
      withdraw: (page: Page) =>
        page.evaluate(() =>
          (window as unknown as { analytics: { consent(c: unknown): void } }).analytics.consent({
            analytics_storage: 'denied',
            ad_storage: 'denied',
          }),
        ),
    },
    {
      name: 'a TCF reject after an accept',
      head: `${acceptingTcf}\nanalytics.consent({ ads: 'granted' });`,
      withdraw: (page: Page) =>
        page.evaluate((tc) => (window as unknown as { __tcfSay(t: string): void }).__tcfSay(tc), TC_NONE),
    },
  ];

  for (const [i, w] of WITHDRAWALS.entries())
    it(`a withdrawal mid-session (${w.name}) leaves no cookie or storage of ours, and later events carry no withdrawn identifier`, async () => {
      const path = `/withdraw${i}`;
      pages.set(path, { head: w.head, attrs: '' });
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}${path}${LANDING}`);
      const view = await published(path, 'page_view');
      const before = await until(
        'the granted storage',
        async () => {
          const s = await storageOf(context, page);
          return s.cookies['_fbp'] ? s : undefined;
        },
        10_000,
        50,
      );
      assert.equal(before.cookies['eventbus_anonymous_id'], view['anonymous_id']);
      await w.withdraw(page);
      await page.evaluate(() => {
        const a = (window as unknown as { analytics: { track(n: string): void; flush(): void } }).analytics;
        a.track('after_withdrawal');
        a.flush();
      });
      const later = await published(path, 'after_withdrawal');
      const campaign = (later['campaign'] ?? {}) as Event;
      assert.equal(campaign['fbp'], undefined, JSON.stringify(later));
      assert.equal(campaign['fbc'], undefined);
      assert.notEqual(later['anonymous_id'], view['anonymous_id'], 'the withdrawn id is not used again');
      const after = await storageOf(context, page);
      assert.deepEqual(after, { cookies: {}, local: {}, session: {}, idb: [] });
      await context.close();
    });
});
