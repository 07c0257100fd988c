/**
 * What the tag reads from the page into the event contract's context groups (schemas/context.ts):
 * campaign parameters and click ids from the URL, the ad platforms' first-party cookies, consent
 * in our names or Google Consent Mode's, and event names snake_cased as the gateway takes them
 * (docs/browser.md, "What the tag collects"). A person's traits go as the site gave them: the
 * gateway splits them into the `user` group (core/translate/traits.ts).
 */
import { UTM } from '../../core/enrich/click-ids.ts';
import { parsed, readCookie, rootDomain, store, writeCookie } from './storage.ts';

export type Fields = Record<string, unknown>;
export type Consent = Record<string, 'granted' | 'denied'>;

/** Whether an object has any own field. */
export const filled = (o: object): boolean => Object.keys(o).length > 0;

/** The platforms' click ids (core/platforms/facts.ts), set when the tag is bundled (gateway/tag-route.ts). */
declare const CLICK_ID_PARAMS: readonly string[];

/** URL parameters (lower-cased) and the `campaign` field each fills: UTM's, and the click ids. */
const PARAMS: Record<string, string> = { ...UTM };
for (const id of CLICK_ID_PARAMS) PARAMS[id] = id;

/**
 * First-party cookies the platforms' own pixels set (their facts, set when the tag is bundled),
 * each `_<name>` filling the `campaign` field `<name>`; Microsoft's `_uetmsclkid` fills `msclkid`.
 */
declare const PAGE_COOKIES: readonly string[];

export const session = store('sessionStorage');
export const CAMPAIGN_KEY = 'eventbus_campaign';
/** Meta's cookies live 90 days, as its pixel sets them. */
const META_DAYS = 90;

/**
 * The landing's campaign parameters: a URL that carries any starts a new set, which the tag keeps
 * for the rest of the tab's session once storage is granted (a later page has lost them from its
 * URL: gateway/tag/main.ts, `keep`); otherwise the kept set. Nothing is written here.
 */
export function landingCampaign(search: string): Fields {
  const found: Fields = {};
  new URLSearchParams(search).forEach((value, key) => {
    const field = PARAMS[key.toLowerCase()];
    if (field && value) found[field] = value.slice(0, 512);
  });
  return filled(found) ? found : (parsed<Fields>(session.get(CAMPAIGN_KEY)) ?? {});
}

/** The campaign group of an event: the landing's parameters, then the platforms' cookies. */
export function campaignOf(landing: Fields): Fields | undefined {
  const out: Fields = { ...landing };
  for (const name of PAGE_COOKIES) {
    const field = name.replace('uet', '');
    let value = readCookie(`_${name}`);
    // Microsoft's cookie holds `_uet<msclkid>`.
    if (field !== name) value = value?.replace(/^_uet/, '');
    if (value && out[field] === undefined) out[field] = value.slice(0, 512);
  }
  return filled(out) ? out : undefined;
}

/**
 * Meta's `_fbc` (from a landing's `fbclid`) and `_fbp` (a browser id), in Meta's format
 * `fb.<subdomain index>.<creation ms>.<value>`, written only once ads consent is granted; before
 * that the tag only reads what Meta's pixel set.
 */
export function writeMetaCookies(landing: Fields): void {
  // Which domain the cookie is on: 1 for `example.com`, 2 for `shop.example.com` (1 on a bare host).
  const stamp = `fb.${(rootDomain()?.split('.').length ?? 2) - 1}.${Date.now()}.`;
  const fbclid = landing['fbclid'] as string | undefined;
  if (fbclid && !readCookie('_fbc')?.endsWith(`.${fbclid}`)) writeCookie('_fbc', stamp + fbclid, META_DAYS);
  if (!readCookie('_fbp')) writeCookie('_fbp', stamp + (Math.floor(Math.random() * 9e9) + 1e9), META_DAYS);
}

/** Consent names the tag takes from the site: ours, and Google Consent Mode v2's. */
const CONSENT_NAMES: Readonly<Record<string, string>> = {
  analytics: 'analytics',
  analytics_storage: 'analytics',
  ads: 'ads',
  ad_storage: 'ads',
  ad_user_data: 'ad_user_data',
  ad_personalization: 'ad_personalization',
};

/** Google Consent Mode v2's names, kept as they are so the server can name Consent Mode. */
export const CONSENT_MODE_NAMES: Readonly<Record<string, string>> = {
  analytics_storage: 'analytics_storage',
  ad_storage: 'ad_storage',
  ad_user_data: 'ad_user_data',
  ad_personalization: 'ad_personalization',
};

/**
 * A consent update (`granted` / `denied`; `true` / `false` are taken too): in our names, or with
 * `names` Consent Mode's own (the state gtag's commands leave).
 */
export function consentOf(update: Fields, names: Readonly<Record<string, string>> = CONSENT_NAMES): Consent {
  const out: Consent = {};
  for (const [name, value] of Object.entries(update)) {
    const ours = names[name];
    const state = value === true ? 'granted' : value === false ? 'denied' : value;
    if (ours && (state === 'granted' || state === 'denied')) out[ours] = state;
  }
  return out;
}

/**
 * An event name as the gateway takes it: snake_case (`Add To Cart`, `AddToCart` → `add_to_cart`),
 * starting with a letter, at most 40 characters. A catalogue name stays itself; any other is a
 * custom event.
 */
export function eventName(name: unknown): string {
  let s = String(name)
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(s)) s = `event_${s}`;
  return s.slice(0, 40).replace(/_+$/, '');
}

/**
 * A purpose as the event's consent states it, under our name or Consent Mode's (`ads` and
 * `ad_storage`, `analytics` and `analytics_storage`): a refusal under either wins, as on the server.
 */
export function purposeState(consent: Fields, ours: 'ads' | 'analytics'): 'granted' | 'denied' | undefined {
  const theirs = consent[ours === 'ads' ? 'ad_storage' : 'analytics_storage'];
  const stated = [consent[ours], theirs];
  if (stated.includes('denied')) return 'denied';
  return stated.includes('granted') ? 'granted' : undefined;
}
