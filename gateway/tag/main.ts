/**
 * The first-party tag, `GET /v1/tag.js` (bundled by gateway/tag-route.ts; docs/browser.md): a
 * Segment-compatible `window.analytics` (`page`, `track`, `identify`, `reset`, `user()`, plus
 * `consent`, `debug`, `flush`) that turns each call into an event of our contract and sends it
 * to the gateway with the page's write key (`<script async src=… data-key=…>`). Calls a site made
 * before it loaded (the stub snippet's queue, Segment's format: `[method, ...args]`) are replayed
 * first. Each call returns the event's `event_id`, for the site's pixels to de-duplicate with.
 * Consent is what the site's CMP says (cmp.ts, loaded only where the page has one:
 * cmp-loader.ts), under what `analytics.consent()` was told; events made before the CMP has
 * answered wait for it, briefly.
 */

import { lazyCmp } from './cmp-loader.ts';
import {
  CAMPAIGN_KEY,
  type Consent,
  campaignOf,
  consentOf,
  eventName,
  type Fields,
  filled,
  landingCampaign,
  session,
  writeMetaCookies,
} from './context.ts';
import { createSender } from './sender.ts';
import { parsed, readCookie, store, uuid, writeCookie } from './storage.ts';

/** The reader's version, set when the tag is bundled (gateway/tag-route.ts): its immutable URL. */
declare const CMP_VERSION: string;

type Call = [string, ...unknown[]];
type Callback = () => void;

const local = store('localStorage');
const ID_KEY = 'eventbus_anonymous_id';
const USER_KEY = 'eventbus_user_id';
const CONSENT_KEY = 'eventbus_consent';
/** The id cookie's lifetime: browsers cap it (Chrome at 400 days, Safari's ITP at 7 for script-set cookies). */
const ID_DAYS = 365;
/** How long a callback waits for its event's answer before it runs anyway (as Segment's does). */
const CALLBACK_MS = 300;
/**
 * How long, after the CMP reader arrives, events wait for a CMP that has not answered yet, unless
 * the script's `data-hold` says (in ms, at most 30 s); and how many wait at most.
 */
const HOLD_MS = 3000;
const HOLD_MAX = 100;
/** How long events wait for the CMP reader's own script (gateway/tag/cmp-loader.ts) at most. */
const READER_WAIT_MS = 2000;

function start(): void {
  const w = window as unknown as { analytics?: unknown };
  const existing = w.analytics as { eventbus?: boolean } | Call[] | undefined;
  if (existing && !Array.isArray(existing) && existing.eventbus) return;
  const script = (document.currentScript ??
    document.querySelector('script[data-key][src*="/tag"]')) as HTMLScriptElement | null;
  const data = script?.dataset ?? {};
  /** Whether a `data-` attribute is there and not `false`. */
  const flag = (name: string) => data[name] !== undefined && data[name] !== 'false';
  const key = data['key'] ?? '';
  // The script's own origin, with the path it is served under (`/_eb/v1/tag.js` on the site's
  // origin): the path before `/v1/tag.js`, or none when it is served under another name.
  const src = script?.src ? new URL(script.src) : undefined;
  const gateway = (
    data['gateway'] ?? (src ? src.origin + src.pathname.replace(/(.*)\/v1\/tag\.js$|.*/, '$1') : '')
  ).replace(/\/$/, '');
  // A gateway on the site's own domain sets the ids in its answers (gateway/id-cookies.ts): its
  // batches go with credentials, so the browser keeps them; elsewhere cookies would be another site's.
  // (Told by the names, not by probing cookies, which would write one before consent.)
  // The gateway's host is the page's, under it, or under its parent domain when that is no TLD.
  const host = location.hostname;
  const parent = host.slice(host.indexOf('.') + 1);
  let serverSets = false;
  try {
    const on = `.${new URL(gateway, location.href).hostname}`;
    serverSets = on.endsWith(`.${host}`) || (parent.includes('.') && on.endsWith(`.${parent}`));
  } catch {
    // a data-gateway that is no URL: its sends fail and are logged, as before
  }
  let debugging = flag('debug');
  const log = (...what: unknown[]) => {
    if (debugging) console.log('[eventbus]', ...what);
  };
  if (!key) console.warn('[eventbus] no data-key: nothing is sent');

  /** What `analytics.consent()` was told (kept across pages); it wins over the CMP's state. */
  let consent: Consent = parsed<Consent>(local.get(CONSENT_KEY)) ?? {};
  const started = Date.now();
  /** When the CMP reader's script arrived (0: not yet, or not needed). */
  let readerAt = 0;
  // A CMP gets HOLD_MS from when its reader can ask it (its script arrives after the tag started),
  // as it did when the reader was in the tag; while the reader's script is still coming, events
  // wait for it up to READER_WAIT_MS.
  const hold = Math.min(Number(data['hold']) || HOLD_MS, 30_000);
  const holdUntil = () => (readerAt ? readerAt + hold : started + READER_WAIT_MS);
  const cmp = lazyCmp(
    () => {
      keep();
      release();
    },
    `${gateway}/v1/tag-cmp.js?v=${CMP_VERSION}`,
    () => {
      readerAt = Date.now();
      // Held events waited for the script; from now they wait for the CMP's answer only.
      release();
    },
    // Consent the site stated on an earlier page: the rules are needed to keep it.
    filled(consent),
  );
  /** The consent an event carries: the CMP's, then the site's own calls over it. */
  const current = (given: Consent = consent): Fields => ({ ...cmp.known(given), ...given });
  // A cookieless site (data-cookieless): nothing is ever stored; the gateway keys the session.
  const cookieless = flag('cookieless');
  const saved = readCookie(ID_KEY) ?? local.get(ID_KEY);
  // One the contract takes (at most 256 characters): an edited cookie must not refuse every event.
  let anonymousId = saved && saved.length <= 256 ? saved : uuid();
  let userId = local.get(USER_KEY);
  /** The person's traits as the site gave them (Segment's names); the gateway splits them into `user`. */
  let traits: Fields = {};
  const landing = landingCampaign(location.search);
  /**
   * Storage as the rules say (core/consent/storage-rules.ts, through the CMP reader's `rules`):
   * each item written, removed or left as it is; nothing at all until the rules have come, and
   * never on a cookieless page. Until storage is granted the ids and the landing's campaign live
   * in memory only: the events go without a stored id.
   */
  const keep = () => {
    const rules = cookieless ? undefined : cmp.rules(consent);
    if (!rules) return;
    const on = rules.id === 'store';
    const had = readCookie(ID_KEY);
    if (rules.id !== 'leave') {
      // Removing a cookie that is not there would still write (and probe the domain): skipped.
      // Where the gateway's answers set the id, the script leaves a cookie of the same value alone:
      // writing it again would cap it (Safari's 7 days for a script's cookies).
      if (on ? had !== anonymousId || !serverSets : had !== undefined)
        writeCookie(ID_KEY, anonymousId, on ? ID_DAYS : 0);
      // A withdrawn id is not used again: later events cannot be joined to it.
      if (!on && (had ?? local.get(ID_KEY))) anonymousId = uuid();
      local.set(ID_KEY, on ? anonymousId : undefined);
      local.set(USER_KEY, on ? userId : undefined);
    }
    if (rules.campaign !== 'leave')
      session.set(
        CAMPAIGN_KEY,
        rules.campaign === 'store' && filled(landing) ? JSON.stringify(landing) : undefined,
      );
    if (rules.consent !== 'leave')
      local.set(
        CONSENT_KEY,
        rules.consent === 'store' && filled(consent) ? JSON.stringify(consent) : undefined,
      );
    if (rules.fbp === 'store') writeMetaCookies(landing);
    for (const item of ['fbp', 'fbc', 'ga'] as const)
      if (rules[item] === 'remove' && readCookie(`_${item}`)) writeCookie(`_${item}`, '', 0);
  };
  keep();

  const sender = createSender(
    `${gateway}/v1/topics/events?tag=1&key=${encodeURIComponent(key)}${cookieless ? '&cookieless=1' : ''}`,
    serverSets && !cookieless ? 'include' : 'omit',
    log,
  );
  /** The page before this one: the document's referrer, then the previous URL of a single-page app. */
  let referrer = document.referrer;

  /** Events made before the CMP answered, with the site's consent when each was made. */
  const held: [Fields, Consent, () => void][] = [];
  let holdTimer: ReturnType<typeof setTimeout> | undefined;
  const queue = (event: Fields, given: Consent, done: () => void) => {
    // Sent before a TCF or GPP CMP answered (the hold ran out, a flush, the page left), it says
    // so (cmp.ts, `known`).
    const state = current(given);
    if (filled(state)) event['consent'] = state;
    sender.add(event, done);
  };
  /**
   * The held events go, in order: at once when `now` (a flush, the page left), else unless a CMP
   * has not answered and its hold has time left; then this runs again when the hold ends.
   */
  function release(now?: boolean): void {
    clearTimeout(holdTimer);
    holdTimer = undefined;
    const left = holdUntil() - Date.now();
    if (!now && cmp.pending() && left > 0 && held.length < HOLD_MAX) holdTimer = setTimeout(release, left);
    else for (const [event, given, done] of held.splice(0)) queue(event, given, done);
  }

  /** Everything waiting goes now, held or batched; `leaving`: the page is hidden or left. */
  const go = (leaving?: boolean) => {
    release(true);
    sender.flush(leaving);
  };

  /** An event of the contract: context at the top level, the call's properties as event_data. */
  const send = (name: string, props: Fields, options: unknown, callback: unknown, pageOver: Fields = {}) => {
    const given = (options as Fields | undefined)?.['event_id'];
    let cb = [options, callback].find((f): f is Callback => typeof f === 'function');
    const event: Fields = {
      event_name: name,
      event_id: typeof given === 'string' && given ? given : uuid(),
      event_time: new Date().toISOString(),
      anonymous_id: anonymousId,
      source: data['source'] ?? 'web',
      page: {
        url: location.href.slice(0, 8192),
        referrer: referrer.slice(0, 8192),
        title: document.title.slice(0, 1024),
        ...pageOver,
      },
      device: { locale: navigator.language.slice(0, 64) },
    };
    if (userId) event['user_id'] = userId;
    if (filled(traits)) event['traits'] = traits;
    const campaign = campaignOf(landing);
    if (campaign) event['campaign'] = campaign;
    if (filled(props)) event['event_data'] = props;
    // The callback runs once: at its event's answer, or after CALLBACK_MS.
    const done = () => {
      const f = cb;
      cb = undefined;
      f?.();
    };
    if (cb) setTimeout(done, CALLBACK_MS);
    cmp.look();
    held.push([event, { ...consent }, done]);
    release();
    return event['event_id'] as string;
  };
  /**
   * A copy of what the site gave, each field through JSON and back, a field that cannot be (a
   * cycle, a BigInt, a getter that throws) left out: the sender stringifies events only after it
   * took them from its queue, and a throw there would lose every batch after it.
   */
  const object = (v: unknown): Fields => {
    const out: Fields = {};
    if (v && typeof v === 'object' && !Array.isArray(v))
      for (const k of Object.keys(v))
        try {
          out[k] = JSON.parse(JSON.stringify((v as Fields)[k]));
        } catch {
          // left out, as JSON.stringify leaves out a function
        }
    return out;
  };

  const api = {
    eventbus: true,
    /** `track(name, properties?, options?, callback?)`: `name` snake_cased (eventName). */
    track(name: unknown, props?: unknown, options?: unknown, callback?: unknown): string {
      return send(eventName(name), object(props), options, callback);
    },
    /** `page([category], [name], [properties], [options], [callback])`: a `page_view`. */
    page(...args: unknown[]): string {
      const names: string[] = [];
      while (typeof args[0] === 'string' || args[0] === null) {
        const n = args.shift();
        if (typeof n === 'string') names.push(n);
      }
      const props = object(args[0]);
      const page: Fields = {};
      for (const f of ['url', 'referrer', 'title']) {
        if (typeof props[f] === 'string') page[f] = props[f];
        delete props[f];
      }
      delete props['path'];
      delete props['search'];
      if (names.length === 2) props['category'] = names[0];
      if (names.length > 0) props['name'] = names[names.length - 1];
      return send('page_view', props, args[1], args[2], page);
    },
    /** `identify([userId], [traits], [options], [callback])`: an `identify` event; later events carry the user. */
    identify(...args: unknown[]): string {
      if (typeof args[0] === 'string' || typeof args[0] === 'number')
        userId = String(args.shift()).slice(0, 256);
      else if (args[0] === null || args[0] === undefined) args.shift();
      const given = object(args[0]);
      traits = { ...traits, ...given };
      keep();
      return send('identify', { ...given }, args[1], args[2]);
    },
    /** Forgets the person: a new anonymous id, no user id or traits (consent stays). */
    reset(): void {
      anonymousId = uuid();
      userId = undefined;
      traits = {};
      keep();
    },
    user() {
      return { anonymousId: () => anonymousId, id: () => userId ?? null };
    },
    /**
     * Consent in our names or Consent Mode's (`ad_storage`, `analytics_storage`, …), over the
     * CMP's; the state events now carry.
     */
    consent(update?: unknown): Fields {
      consent = { ...consent, ...consentOf(object(update)) };
      cmp.look(true);
      keep();
      log('consent', current());
      return current();
    },
    debug(on?: unknown): void {
      debugging = on !== false;
    },
    /** Sends what waits now; events held for a CMP that has not answered keep waiting for it (its hold). */
    flush(): void {
      release();
      sender.flush();
    },
    ready(callback?: unknown): void {
      if (typeof callback === 'function') callback();
    },
    /** The stub's own method, still answered once the tag has loaded. */
    push(call: Call): void {
      run(call);
    },
  };
  const run = ([method, ...args]: Call) => {
    const fn = (api as unknown as Record<string, unknown>)[method];
    if (typeof fn === 'function' && method !== 'push') (fn as (...a: unknown[]) => unknown).apply(api, args);
  };
  w.analytics = api;

  const queued = Array.isArray(existing) ? existing.filter(Array.isArray) : [];
  for (const call of queued) run(call);
  if (data['autoPage'] !== 'false' && !queued.some((c) => c[0] === 'page')) api.page();

  // Single-page apps: a history change to another path or query is a page view.
  if (data['spa'] !== 'false') {
    let at = location.href;
    const changed = () => {
      if (location.href.split('#')[0] === at.split('#')[0]) return;
      referrer = at;
      at = location.href;
      api.page();
    };
    for (const m of ['pushState', 'replaceState'] as const) {
      const original = history[m];
      history[m] = function (this: History, ...a: Parameters<History['pushState']>) {
        original.apply(this, a);
        changed();
      };
    }
    addEventListener('popstate', changed);
  }
  addEventListener('pagehide', () => go(true));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') go(true);
  });
}

try {
  start();
} catch (err) {
  console.warn('[eventbus] failed to start', err);
}
