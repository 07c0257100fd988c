/**
 * What the tag reads from the site's consent platform, when the page has one (docs/browser.md,
 * "Consent"): the IAB TCF CMP API (`__tcfapi`, v2), the GPP CMP API (`__gpp`, 1.1, and 1.0's
 * `getGPPData`), the US Privacy API (`__uspapi`) and Google Consent Mode's state, from the
 * `consent` commands gtag pushes to `dataLayer`. Each is read into the `consent` group's names
 * (schemas/context.ts): `tcf`, `gdpr_applies`, `gpp`, `gpp_sid`, `us_privacy`, and Consent
 * Mode's state under its own names (`ad_storage`, `analytics_storage`, …), so the server can say
 * when Consent Mode decided. Only the page's own frame is read (no `__tcfapiLocator` messaging).
 */
import { type StorageItem, type StorageVerdict, storageVerdicts } from '../../core/consent/storage-rules.ts';
import { readTcf } from '../../core/consent/tcf.ts';
import { CONSENT_MODE_NAMES, consentOf, type Fields, purposeState } from './context.ts';
import { readCookie, store } from './storage.ts';

type Api = (...args: unknown[]) => unknown;
type Answer = Record<string, unknown> | null | undefined;

/** The CMP's state as the tag knows it, and whether an API it found has not answered yet. */
export interface Cmp {
  /**
   * The state an event carries; `site`: the names the site's own `analytics.consent()` set, which
   * replace Consent Mode's region defaults as its updates do. While a TCF CMP found has not given
   * its final answer, it says GDPR applies (`gdpr_applies`, unless something already said), which
   * no destination takes as consent; while a GPP CMP found is not ready, `gpp_pending`: no opt-out
   * can be ruled out.
   */
  readonly known: (site?: Fields) => Fields;
  readonly pending: () => boolean;
  /**
   * What the tag may keep, item by item, from the storage rules the gateway follows too
   * (core/consent/storage-rules.ts): `site` the names the site's `analytics.consent()` set.
   * Undefined until the rules have come with this reader (cmp-loader.ts): nothing is touched then.
   */
  readonly rules: (site?: Fields) => Readonly<Record<StorageItem, StorageVerdict>> | undefined;
  /**
   * Looks again for APIs that appeared since (a CMP loaded after the tag); `need`: the site stated
   * consent itself, so the rules are needed even without a CMP.
   */
  readonly look: (need?: boolean) => void;
}

/** ISO 3166 codes as the contract takes them (`ES`, `US-CA`). */
const REGION = /^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$/;

/**
 * Keeps a region default as the contract takes it (schemas/context.ts): its regions (a code or a
 * list; at most 300), the last 16 defaults. One the contract would refuse is left out, never the
 * event.
 */
function regionDefault(into: Fields[], state: Fields): void {
  const given = state['region'];
  const list = (Array.isArray(given) ? given : [given]).filter(
    (r) => typeof r === 'string' && REGION.test(r),
  );
  if (list.length === 0) return;
  into.push({ ...state, region: list.slice(0, 300) });
  if (into.length > 16) into.shift();
}

/** The strings the contract takes: at most 16384 characters (schemas/context.ts). */
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v && v.length <= 16384 ? v : undefined;

/** Cookies and storage keys of ours whose presence makes a refusal a withdrawal. */
const OURS = ['eventbus_anonymous_id', '_fbp', '_fbc', '_ga'];
const KEYS = ['eventbus_anonymous_id', 'eventbus_consent'];

/** The fields of a GPP section that opt out of sale or sharing (core/consent/us-privacy.ts). */
const OPT_OUTS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'];

/** The states a list of signals makes: a refusal wins, else a grant, else nothing said. */
const weigh = (states: readonly unknown[]): 'granted' | 'denied' | undefined =>
  states.includes('denied') ? 'denied' : states.includes('granted') ? 'granted' : undefined;

/**
 * Reads and watches the page's CMP APIs; `changed` runs after each answer that may change the
 * state (a new choice, or the first answer of an API).
 */
export function watchCmp(changed: () => void): Cmp {
  const w = window as unknown as Record<string, unknown>;
  const hooked = new Set<string>();
  const waiting = new Set<string>();
  const tcf: Fields = {};
  const gpp: Fields = {};
  /** TCF purpose 1 from GPP's TCF section, and whether a GPP US section opts out of sale or sharing. */
  let gppOne: boolean | undefined;
  let gppOptOut = false;
  let usp: string | undefined;
  let mode: Fields = {};
  // Answers given while the tag is still starting are not news to it.
  let started = false;
  const notify = () => {
    if (started) changed();
  };

  /** Sets one API's fields (`into` emptied first) and, once it is final, stops waiting for it. */
  const set = (name: string, into: Fields, values: Fields, final: boolean) => {
    for (const k of Object.keys(into)) delete into[k];
    for (const [k, v] of Object.entries(values)) if (v !== undefined) into[k] = v;
    if (final) waiting.delete(name);
    notify();
  };
  /** Calls an API, never letting a broken CMP throw into the tag. */
  const call = (name: string, ...args: unknown[]) => {
    try {
      return (w[name] as Api)(...args);
    } catch {
      waiting.delete(name);
      return undefined;
    }
  };
  const hook = (name: string, start: () => void) => {
    if (hooked.has(name) || typeof w[name] !== 'function') return;
    hooked.add(name);
    waiting.add(name);
    start();
  };

  const readUsp = () =>
    call('__uspapi', 'getUSPData', 1, (data: Answer, ok: boolean) => {
      const s = ok ? data?.['uspString'] : undefined;
      const was = usp;
      usp = typeof s === 'string' && /^[0-9][YNyn-]{3}$/.test(s) ? s : undefined;
      // Asked with every event: only news is told.
      if (waiting.delete('__uspapi') || usp !== was) notify();
    });

  // Consent Mode: `gtag('consent', 'default'|'update', {...})` pushes its arguments; an update
  // outlives a later default, as in gtag. A default for some regions only goes to the server as
  // given (`region_defaults`): the page cannot tell where the visitor is; the server can.
  const defaults: Fields = {};
  const updates: Fields = {};
  const regional: Fields[] = [];
  const command = (entry: unknown) => {
    const e = entry as ArrayLike<unknown> | null;
    const state = e?.[2] as Fields | undefined;
    if (e?.[0] !== 'consent' || !state || typeof state !== 'object') return false;
    if (e[1] === 'update') Object.assign(updates, state);
    else if (e[1] === 'default' && state['region'] !== undefined) regionDefault(regional, state);
    else if (e[1] === 'default') Object.assign(defaults, state);
    else return false;
    mode = consentOf({ ...defaults, ...updates }, CONSENT_MODE_NAMES);
    return true;
  };
  /** The region defaults an event carries: without the states an update or the site replaced. */
  const regionDefaults = (site: Fields) =>
    regional
      .map((d) => {
        const states = consentOf(d, CONSENT_MODE_NAMES);
        for (const k of Object.keys(states)) if (k in updates || k in site) delete states[k];
        return { region: d['region'], ...states };
      })
      .filter((d) => Object.keys(d).length > 1);
  let layer: unknown[] | undefined;
  const watchLayer = () => {
    const dl = w['dataLayer'];
    if (!Array.isArray(dl) || dl === layer) return;
    layer = dl;
    dl.forEach(command);
    const push = dl.push;
    dl.push = function (this: unknown[], ...items: unknown[]) {
      const n = push.apply(this, items);
      if (items.map(command).some(Boolean)) notify();
      return n;
    };
  };

  const look = () => {
    watchLayer();
    hook('__tcfapi', () =>
      call('__tcfapi', 'addEventListener', 2, (data: Answer, ok: boolean) => {
        if (!ok || !data) return set('__tcfapi', tcf, {}, true);
        const status = data['eventStatus'];
        const applies = data['gdprApplies'];
        set(
          '__tcfapi',
          tcf,
          { tcf: str(data['tcString']), gdpr_applies: typeof applies === 'boolean' ? applies : undefined },
          // While the CMP's banner is up (`cmpuishown`) the choice is still to come.
          status === 'tcloaded' || status === 'useractioncomplete' || data['cmpStatus'] === 'error',
        );
      }),
    );
    hook('__gpp', () =>
      call('__gpp', 'addEventListener', (event: Answer, ok: boolean) => {
        const ping = (event?.['pingData'] ?? {}) as Fields;
        // GPP 1.0 has no string in its ping: `getGPPData` returns it.
        const legacy = String(ping['gppVersion']).startsWith('1.0');
        const ready = legacy ? ping['cmpStatus'] === 'loaded' : ping['signalStatus'] === 'ready';
        if (!ok || ping['cmpStatus'] === 'error') return set('__gpp', gpp, {}, true);
        if (!ready) return;
        const data = (legacy ? call('__gpp', 'getGPPData') : ping) as Answer;
        const sections = data?.['applicableSections'];
        // GPP 1.1 hands the sections parsed: the TCF EU one's purpose consents, where it applies.
        const parsed = (data?.['parsedSections'] as Fields | undefined)?.['tcfeuv2'];
        const core = (Array.isArray(parsed) ? parsed[0] : parsed) as Fields | undefined;
        const purposes = core?.['PurposeConsents'];
        gppOne =
          Array.isArray(sections) && sections.includes(2) && Array.isArray(purposes)
            ? purposes[0] === true || purposes[0] === 1
            : undefined;
        const all = (data?.['parsedSections'] ?? {}) as Fields;
        gppOptOut = Object.values(all).some((section) =>
          [section].flat().some((f) => OPT_OUTS.some((n) => (f as Fields | null)?.[n] === 1)),
        );
        const sid = Array.isArray(sections) ? sections.join(',') : '';
        set(
          '__gpp',
          gpp,
          { gpp: str(data?.['gppString']), gpp_sid: /^-?\d+(,\d+)*$/.test(sid) ? sid : undefined },
          true,
        );
      }),
    );
    hook('__uspapi', readUsp);
  };
  look();
  started = true;

  const known = (site: Fields = {}) => {
    const region = regionDefaults(site);
    const state: Fields = {
      ...mode,
      ...tcf,
      ...gpp,
      ...(usp ? { us_privacy: usp } : {}),
      ...(region.length > 0 ? { region_defaults: region } : {}),
    };
    if (waiting.has('__tcfapi') && state['gdpr_applies'] === undefined) state['gdpr_applies'] = true;
    if (waiting.has('__gpp') && state['gpp'] === undefined) state['gpp_pending'] = true;
    return state;
  };
  return {
    known,
    pending: () => waiting.size > 0,
    rules: (site = {}) => {
      const state = { ...known(site), ...site };
      const tc = tcf['tcf'] as string | undefined;
      const reading = tc === undefined || tcf['gdpr_applies'] === false ? undefined : readTcf(tc);
      // TCF purpose 1 (what storage and ads need of it: core/consent/resolve.ts, TCF_PURPOSES).
      const one = reading?.ok ? reading.purpose(1) : gppOne;
      const tcfState = one === undefined ? undefined : one ? 'granted' : 'denied';
      // A region default denying analytics_storage counts unless the site said otherwise (the
      // visitor may be there; the server, which can place them, is the stricter).
      const regionDenied =
        site['analytics'] === undefined &&
        regionDefaults({}).some((d) => (d as Fields)['analytics_storage'] === 'denied');
      const usp = state['us_privacy'] as string | undefined;
      const optOut =
        (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl === true ||
        usp?.charAt(2).toUpperCase() === 'Y' ||
        gppOptOut;
      const local = store('localStorage');
      return storageVerdicts({
        storage: weigh([purposeState(state, 'analytics'), tcfState, regionDenied && 'denied']),
        ads: weigh([purposeState(state, 'ads'), tcfState, optOut && 'denied']),
        optOut,
        malformed: reading?.ok === false,
        pending: waiting.size > 0,
        cookieless: false,
        had: OURS.some((n) => readCookie(n) !== undefined) || KEYS.some((k) => local.get(k) !== undefined),
      });
    },
    look: () => {
      look();
      // The US Privacy API has no listener: each event asks again, for the next ones.
      if (hooked.has('__uspapi') && !waiting.has('__uspapi')) readUsp();
    },
  };
}
